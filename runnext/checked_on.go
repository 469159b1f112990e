//go:build schedkit_checked

package runnext

import "github.com/schedkit/schedkit/atomicx"

// ownerGuard, in a schedkit_checked build, is a flag an owner method raises
// for its whole run: a second goroutine entering an owner method of the same
// slot or queue meanwhile finds it raised and panics, naming the call. A
// steal raises its destination's flag too, since it publishes into a queue
// the thief must own, so two thieves stealing into one queue at once are
// caught the same way.
type ownerGuard struct{ busy atomicx.Int32 }

// checked reports whether this is a schedkit_checked build.
const checked = true

func (g *ownerGuard) enter(call string) {
	if !g.busy.CompareAndSwap(0, 1) {
		panic("runnext: " + call + ": owner methods called by two goroutines at once")
	}
}

func (g *ownerGuard) exit() { g.busy.Store(0) }
