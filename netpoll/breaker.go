package netpoll

import "github.com/schedkit/schedkit/atomicx"

// A Breaker interrupts a poller blocked in its wait (epoll_wait with a
// timeout): Break writes to the poller's wakeup descriptor (an eventfd)
// unless a write is pending already, and the poller, having read that
// descriptor, calls Drained so that the next Break writes again. It
// mirrors netpollBreak and netpollWakeSig.
//
// No break is lost: whoever calls Break has made its work visible first
// (queued a task, armed an earlier timer), and a Break that finds a write
// pending writes nothing, but the poller has not called Drained yet, so it
// has not yet looked for work either: it sees that work after its wait.
type Breaker struct{ sig atomicx.Uint32 }

// Break calls write (the eventfd write) unless a write is pending, and
// reports whether it did.
func (b *Breaker) Break(write func()) bool {
	if mutant == breakAlwaysSkips {
		return false
	}
	if !b.sig.CompareAndSwap(0, 1) {
		return false
	}
	write()
	return true
}

// Drained tells b the poller has consumed the pending write: call it after
// reading the wakeup descriptor and before looking for work.
func (b *Breaker) Drained() {
	if mutant == drainedNeverRearms {
		return
	}
	b.sig.Store(0)
}
