// Package once is sync.Once built on a CAS: Do runs f once, and no call of
// Do returns before that f has returned. The first caller to move the state
// from idle to running runs f and then marks it done; the others wait for
// done. Setting done before f has run, the tempting single CAS, lets a
// second caller return while f is still running: the very mistake the
// comment inside sync.Once warns against.
package once

import "github.com/schedkit/schedkit/atomicx"

const (
	idle = iota
	running
	done
)

// Once runs a function once. The zero value is ready to use.
type Once struct {
	state atomicx.Uint32
}

// Do calls f if no call of Do has, and returns once f has returned, in
// every goroutine. If f panics, Do considers it not returned: the others
// keep waiting (as in the runtime, a Once whose f panics is broken).
func (o *Once) Do(f func()) {
	if o.state.Load() == done {
		return // the fast path: f has run, and this load ordered its effects before us
	}
	if o.state.CompareAndSwap(idle, running) {
		f()
		o.state.Store(done) // after f: whoever sees done sees f's effects
		return
	}
	for o.state.Load() != done {
		atomicx.Sleep(0) // f runs in another goroutine: yield to it
	}
}
