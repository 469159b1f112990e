//go:build schedkit_checked

package lfq

import "github.com/schedkit/schedkit/atomicx"

// ownerGuard, in a schedkit_checked build, records which owner call is
// running on a ring: a second one that starts before the first returns is
// two goroutines acting as the owner at once, and it panics naming both.
// StealHalf enters its destination's guard, so two thieves stealing into
// one ring at once, or a thief stealing into a ring while its owner puts,
// are caught the same way. The guard costs two atomic operations per call.
type ownerGuard struct {
	in atomicx.Uint32 // the ownerCall running, 0 if none
}

func (g *ownerGuard) enter(c ownerCall) {
	for {
		if g.in.CompareAndSwap(0, uint32(c)) {
			return
		}
		if cur := ownerCall(g.in.Load()); cur != callNone {
			panic("lfq: " + c.String() + " called while " + cur.String() +
				" is running on the same ring: one goroutine at a time may act as its owner")
		}
	}
}

func (g *ownerGuard) exit() { g.in.Store(0) }
