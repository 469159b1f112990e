//go:build schedcheck

package atomicx

import "unsafe"

// Syncer is what a Hook also implements to learn the happens-before edges
// of the operations built from more than one word (Chan, Select, Cond):
// the explorer derives a cell's, a Mutex's and a Note's edges from the
// operation itself. Release joins the calling thread's vector clock into
// key's; Acquire joins key's into the thread's. A key is the address of an
// object the operation owns (a message, a channel's field), so keys never
// collide with each other.
type Syncer interface {
	Acquire(key uintptr)
	Release(key uintptr)
}

func acquire(key unsafe.Pointer) {
	if b := hook.Load(); b != nil {
		if s, ok := b.h.(Syncer); ok {
			s.Acquire(uintptr(key))
		}
	}
}

func release(key unsafe.Pointer) {
	if b := hook.Load(); b != nil {
		if s, ok := b.h.(Syncer); ok {
			s.Release(uintptr(key))
		}
	}
}
