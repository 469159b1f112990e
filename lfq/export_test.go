package lfq

import (
	"unsafe"

	"github.com/schedkit/schedkit/atomicx"
)

// RingN is a ring with the slot array A, for tests: the same code as Ring
// (which is RingN with Size slots), small enough that a few steps fill,
// wrap or overflow it. Its zero value is empty.
type RingN[T any, A slotArray[T]] struct{ q ring[T, A] }

// Ring2, Ring4 and Ring8 are the small rings.
type (
	Ring2[T any] = RingN[T, [2]atomicx.Pointer[T]]
	Ring4[T any] = RingN[T, [4]atomicx.Pointer[T]]
	Ring8[T any] = RingN[T, [8]atomicx.Pointer[T]]
)

func (r *RingN[T, A]) Put(t *T, buf []*T) []*T { return r.q.put(t, buf) }
func (r *RingN[T, A]) PutBatch(ts []*T) int    { return r.q.putBatch(ts) }
func (r *RingN[T, A]) Get() *T                 { return r.q.get() }
func (r *RingN[T, A]) Drain(dst []*T) []*T     { return r.q.drain(dst) }
func (r *RingN[T, A]) Len() int                { return r.q.length() }
func (r *RingN[T, A]) Size() int               { return int(r.q.size()) }

func (r *RingN[T, A]) StealHalf(dst *RingN[T, A]) *T {
	if dst == nil {
		panic("lfq: Ring.StealHalf called with a nil destination")
	}
	return r.q.stealHalf(&dst.q)
}

// SetIndices moves an empty ring's head and tail to i; see the function.
func (r *RingN[T, A]) SetIndices(i uint32) { r.q.setIndices(i) }

// Indices returns the ring's head and tail.
func (r *RingN[T, A]) Indices() (head, tail uint32) { return r.q.head.Load(), r.q.tail.Load() }

// Tail returns the ring's tail.
func (r *RingN[T, A]) Tail() uint32 { return r.q.tail.Load() }

// Contents returns the queued items, oldest first; see the function.
func (r *RingN[T, A]) Contents() []*T { return r.q.contents() }

// Slot returns what slot i%size holds, consumed or not.
func (r *RingN[T, A]) Slot(i uint32) *T { return r.q.slot(i).Load() }

// SetSlot overwrites slot i%size, as a broken ring would: tests only.
func (r *RingN[T, A]) SetSlot(i uint32, t *T) { r.q.slot(i).Store(t) }

// Inner returns the ring behind r, for Indices and the slot helpers.
func Inner[T any](r *Ring[T]) *RingN[T, [Size]atomicx.Pointer[T]] {
	return (*RingN[T, [Size]atomicx.Pointer[T]])(r)
}

func (r *ring[T, A]) setIndices(i uint32) {
	if r.head.Load() != r.tail.Load() {
		panic("lfq: SetIndices called on a ring that is not empty")
	}
	r.head.Store(i)
	r.tail.Store(i)
}

func (r *ring[T, A]) contents() []*T {
	h, tl := r.head.Load(), r.tail.Load()
	if tl-h > r.size() {
		panic("lfq: Contents: tail-head exceeds the ring's size")
	}
	out := make([]*T, 0, tl-h)
	for i := h; i != tl; i++ {
		out = append(out, r.slot(i).Load())
	}
	return out
}

// SetIndices moves an empty ring's head and tail to i, so that a test can
// start a ring anywhere in the uint32 index space, near the wraparound
// included. It panics if r is not empty. Tests only, single goroutine.
func SetIndices[T any](r *Ring[T], i uint32) { r.q.setIndices(i) }

// Indices returns r's head and tail. Tests only.
func Indices[T any](r *Ring[T]) (head, tail uint32) { return r.q.head.Load(), r.q.tail.Load() }

// Contents returns the items between head and tail, oldest first, without
// consuming them. Tests only, with no concurrent caller.
func Contents[T any](r *Ring[T]) []*T { return r.q.contents() }

// SlotArray is the constraint on RingN's slot array.
type SlotArray[T any] = slotArray[T]

// HeadAddr, TailAddr and SlotAddr are the addresses of the ring's cells,
// as an atomicx hook sees them.
func (r *RingN[T, A]) HeadAddr() uintptr         { return uintptr(unsafe.Pointer(&r.q.head)) }
func (r *RingN[T, A]) TailAddr() uintptr         { return uintptr(unsafe.Pointer(&r.q.tail)) }
func (r *RingN[T, A]) SlotAddr(i uint32) uintptr { return uintptr(unsafe.Pointer(r.q.slot(i))) }

// EnterOwner marks an owner call (Get) as running on r until exit is
// called, as a goroutine inside Get would: in a schedkit_checked build
// every other owner call on r panics meanwhile. In a normal build it does
// nothing.
func EnterOwner[T any](r *Ring[T]) (exit func()) {
	r.q.guard.enter(callGet)
	return r.q.guard.exit
}

// EnterStealInto marks a StealHalf into r as running, as EnterOwner does.
func EnterStealInto[T any](r *Ring[T]) (exit func()) {
	r.q.guard.enter(callStealHalf)
	return r.q.guard.exit
}
