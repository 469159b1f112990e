package lfq

import (
	"slices"

	"github.com/schedkit/schedkit/internal/atomicx"
)

// Size is the number of slots in a Ring, as in the runtime's p.runq.
const Size = 256

// OverflowLen is the length of the batch Put hands back when the ring is
// full: the older half of the ring plus the new item.
const OverflowLen = Size/2 + 1

// cacheLine keeps head (CAS'd by every consumer) and tail (stored by the
// owner on every put) on different cache lines.
const cacheLine = 64

// Ring is a fixed-size single-producer multi-consumer FIFO of *T.
// The zero value is an empty ring.
type Ring[T any] struct {
	head  atomicx.Uint32 // next index to consume; moved only by CAS
	_     [cacheLine - 4]byte
	tail  atomicx.Uint32 // next index to fill; stored only by the owner
	_     [cacheLine - 4]byte
	slots [Size]atomicx.Pointer[T]
}

// Put appends t at the tail. Owner only.
//
// When the ring is full, Put instead takes the older half of the ring
// (Size/2 items, oldest first) and t as one batch of OverflowLen items,
// appends the batch to spill and returns it: the caller now holds those
// items and must hand them on (the global run queue takes them in one lock).
// Otherwise Put returns spill unchanged, so with spill == nil the result is
// nil exactly when t went into the ring. Passing a reused buffer, as in
// spill = r.Put(t, spill[:0]), makes overflow allocation-free.
//
// Put panics if t is nil. It mirrors runqput and, when full, runqputslow.
func (r *Ring[T]) Put(t *T, spill []*T) []*T {
	if t == nil {
		panic("lfq: Ring.Put called with a nil item")
	}
	for {
		h := r.head.Load() // slots before h are free for reuse
		tl := r.tail.Load()
		if tl-h < Size {
			if mutant == publishBeforeWrite {
				r.tail.Store(tl + 1)
			}
			r.slots[tl%Size].Store(t)
			r.tail.Store(tl + 1) // publish only after the slot holds t
			return spill
		}
		if out, ok := r.overflow(t, h, tl, spill); ok {
			return out
		}
		// A consumer moved head since we read it: there is room now.
	}
}

// overflow moves the older half of a full ring and t into spill with one CAS
// on head (runqputslow). It fails, leaving spill's length as it was, when a
// consumer moved head first.
func (r *Ring[T]) overflow(t *T, h, tl uint32, spill []*T) ([]*T, bool) {
	n := (tl - h) / 2
	if n != Size/2 {
		panic("lfq: Ring.Put: overflow of a ring that is not full")
	}
	start := len(spill)
	spill = slices.Grow(spill, OverflowLen)
	for i := range n {
		spill = append(spill, r.slots[(h+i)%Size].Load())
	}
	if !r.head.CompareAndSwap(h, h+n) {
		return spill[:start], false
	}
	if mutant == overflowDropsNew {
		return spill, true
	}
	return append(spill, t), true
}

// PutBatch appends as many items of ts as fit, in order, and publishes them
// with one store of the tail. It returns how many it put: the caller keeps
// ts[n:] (the runtime sends them to the global queue). Owner only. The room
// is counted once at the start; consumers may free more before the store.
//
// PutBatch panics, having put nothing, if any item it would put is nil. It
// mirrors runqputbatch.
func (r *Ring[T]) PutBatch(ts []*T) int {
	h := r.head.Load()
	tl := r.tail.Load()
	n := min(len(ts), int(Size-(tl-h)))
	for i, t := range ts[:n] {
		if t == nil {
			panic("lfq: Ring.PutBatch called with a nil item")
		}
		// Slots beyond tail are invisible to consumers until the store below.
		r.slots[(tl+uint32(i))%Size].Store(t)
	}
	r.tail.Store(tl + uint32(n))
	return n
}

// Get removes and returns the oldest item, or nil if the ring is empty.
// Owner only. It mirrors the ring part of runqget.
func (r *Ring[T]) Get() *T {
	for {
		h := r.head.Load()
		tl := r.tail.Load()
		if tl == h {
			return nil
		}
		t := r.slots[h%Size].Load()
		if r.head.CompareAndSwap(h, h+1) { // the item is ours only if no thief took h first
			return t
		}
		if mutant == getNoRetry {
			return nil
		}
	}
}

// Drain removes every item, appends them oldest first to dst and returns it;
// the slots it empties no longer reference the items. Owner only, for
// shutdown or handing a P's work elsewhere. It mirrors runqdrain.
func (r *Ring[T]) Drain(dst []*T) []*T {
	for {
		h := r.head.Load()
		tl := r.tail.Load()
		n := tl - h
		if n == 0 {
			return dst
		}
		if n > Size {
			continue // inconsistent read
		}
		// Claim first, read after: once head is past them no thief reads
		// these slots as valid, and only we (the owner) write slots.
		if r.head.CompareAndSwap(h, tl) {
			dst = slices.Grow(dst, int(n))
			for i := h; i != tl; i++ {
				dst = append(dst, r.slots[i%Size].Swap(nil))
			}
			return dst
		}
	}
}

// StealHalf moves the older half of r, rounded up, into dst and returns one
// of the moved items (the newest of them) for the caller to run; the others
// are published at dst's tail. It returns nil if r was empty.
//
// Half is of the length the thief read: the owner may put more before the
// claiming CAS lands, so a steal takes at most half of the ring as it then
// stands, rounded up, and at least half of what it saw.
//
// Any goroutine may steal from r, but dst must be a ring the caller owns, it
// must not be r, and it must hold at most Size/2 items so that the stolen
// half fits; StealHalf panics otherwise. It mirrors runqsteal with runqgrab.
func (r *Ring[T]) StealHalf(dst *Ring[T]) *T {
	if dst == r {
		panic("lfq: Ring.StealHalf called with the victim as destination")
	}
	if dst == nil {
		panic("lfq: Ring.StealHalf called with a nil destination")
	}
	dt := dst.tail.Load()
	if dt-dst.head.Load() > Size/2 {
		panic("lfq: Ring.StealHalf: destination holds more than Size/2 items")
	}
	n := r.grab(&dst.slots, dt)
	if n == 0 {
		return nil
	}
	n--
	t := dst.slots[(dt+n)%Size].Load()
	if n > 0 {
		dst.tail.Store(dt + n) // publish the rest; their slots are written
	}
	return t
}

// grab copies the older half of r, rounded up, into buf starting at index
// at, and claims it with one CAS on r's head. It returns how many it took.
func (r *Ring[T]) grab(buf *[Size]atomicx.Pointer[T], at uint32) uint32 {
	for {
		h := r.head.Load()
		tl := r.tail.Load()
		n := tl - h
		if mutant != stealAllNoCheck {
			n -= n / 2
		}
		if n == 0 {
			return 0
		}
		if n > Size/2 && mutant != stealAllNoCheck {
			continue // head moved between the loads: h and tl are inconsistent
		}
		for i := range n {
			buf[(at+i)%Size].Store(r.slots[(h+i)%Size].Load())
		}
		if mutant == stealNoCAS {
			r.head.Store(h + n)
			return n
		}
		if r.head.CompareAndSwap(h, h+n) { // the copies are valid only if head did not move
			return n
		}
	}
}

// Len returns the number of items in the ring at one instant during the
// call. Any goroutine may call it.
func (r *Ring[T]) Len() int {
	for {
		tl := r.tail.Load()
		h := r.head.Load()
		if r.tail.Load() == tl {
			// tail did not move around the head load, so tl-h was the length
			// at that load.
			return int(tl - h)
		}
	}
}

// One instantiation inside the package makes the compiler keep the inline
// bodies of the atomicx calls for instantiations in other packages.
var _ Ring[struct{}]
