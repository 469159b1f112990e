// Package stdring is a bounded multi-producer, single-consumer ring
// written on the standard library alone (sync/atomic and sync.Mutex), as a
// Go user's package would be: it imports nothing of schedkit. Its explorer
// test runs through the rewrite of `schedkit explore`, which builds the
// package's unmodified files with sync/atomic and sync mapped onto atomicx:
//
//	go run ./cmd/schedkit explore ./examples/stdring
//
// The consumer is lock-free: it reads the tail the producers publish, then
// the slot, then moves the head. Producers serialize on a mutex; each writes
// the slot and only then publishes the new tail (a release, as the runtime's
// runqput stores the slot before its StoreRel of the tail). The seeded bug
// (build tag stdringbug) publishes the tail first: a consumer that reads the
// tail between the two finds the slot not yet written.
//
// Two tests explore it, both only through the rewrite (under a plain go
// test they skip): TestExploreRing, a scenario of two producers and the
// consumer with a hand-written check, and TestRingIsLinearizable, scenarios
// generated from a bounded FIFO model alone (explore/lincheck). The seeded
// bug fails both.
package stdring

import (
	"sync"
	"sync/atomic"
)

// Ring is a bounded FIFO of values of type T for any number of producers and
// one consumer. The zero value is not usable: call New.
type Ring[T any] struct {
	mu      sync.Mutex // serializes producers
	head    atomic.Uint64
	tail    atomic.Uint64
	slots   []atomic.Pointer[T]
	refused uint64 // Pushes refused on a full ring: atomic.AddUint64 and atomic.LoadUint64 only
}

// New returns an empty ring of capacity n (n >= 1).
func New[T any](n int) *Ring[T] {
	if n < 1 {
		panic("stdring: New with a capacity below 1")
	}
	return &Ring[T]{slots: make([]atomic.Pointer[T], n)}
}

// Push appends v and reports true, or reports false if the ring is full.
// Any goroutine may call it.
func (r *Ring[T]) Push(v T) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tail.Load()
	if t-r.head.Load() == uint64(len(r.slots)) {
		atomic.AddUint64(&r.refused, 1)
		return false
	}
	if publishEarly { // the seeded bug
		r.tail.Store(t + 1)
		r.slots[t%uint64(len(r.slots))].Store(&v)
		return true
	}
	r.slots[t%uint64(len(r.slots))].Store(&v)
	r.tail.Store(t + 1) // publish: the slot is written
	return true
}

// Pop removes and returns the oldest value, or reports false if the ring is
// empty. Only one goroutine, the consumer, may call it.
func (r *Ring[T]) Pop() (T, bool) {
	h := r.head.Load()
	if h == r.tail.Load() {
		var zero T
		return zero, false
	}
	v := *r.slots[h%uint64(len(r.slots))].Load()
	r.head.Store(h + 1) // the slot is free for a producer
	return v, true
}

// Refused returns the number of Pushes refused on a full ring.
func (r *Ring[T]) Refused() uint64 { return atomic.LoadUint64(&r.refused) }
