package lfq

import (
	"slices"
	"unsafe"

	"github.com/schedkit/schedkit/atomicx"
)

// Size is the number of slots in a Ring, as in the runtime's p.runq.
const Size = 256

// OverflowLen is the length of the batch Put hands back when the ring is
// full: the older half of the ring plus the new item.
const OverflowLen = Size/2 + 1

// cacheLine keeps head (CAS'd by every consumer) and tail (stored by the
// owner on every put) on different cache lines.
const cacheLine = 64

// slotArray lists the slot arrays a ring can have: Ring's Size, and the
// small sizes that let tests fill, wrap and overflow a ring in a few steps.
// Each length is a power of two, so that it divides 2^32 and a free-running
// uint32 index keeps its slot across the wraparound.
type slotArray[T any] interface {
	[2]atomicx.Pointer[T] | [4]atomicx.Pointer[T] | [8]atomicx.Pointer[T] | [Size]atomicx.Pointer[T]
}

// ring is the algorithm, for any slot array. Ring is ring with Size slots;
// export_test.go gives tests the small ones. Its zero value is empty.
type ring[T any, A slotArray[T]] struct {
	guard ownerGuard     // only in a schedkit_checked build; no bytes otherwise
	head  atomicx.Uint32 // next index to consume; moved only by CAS
	_     [cacheLine - 4]byte
	tail  atomicx.Uint32 // next index to fill; stored only by the owner
	_     [cacheLine - 4]byte
	slots A
}

// size is the number of slots, a constant in each instantiation. Not
// len(r.slots): with a type parameter's array, len evaluates its operand,
// a plain read of every slot that races with the atomic writes.
func (r *ring[T, A]) size() uint32 {
	return uint32(unsafe.Sizeof(r.slots) / unsafe.Sizeof(r.slots[0]))
}

func (r *ring[T, A]) slot(i uint32) *atomicx.Pointer[T] { return &r.slots[i%r.size()] }

// put is Ring.Put (runqput, runqputslow): nil when t went into the ring,
// else the overflow batch, in buf's array when it has the room.
func (r *ring[T, A]) put(t *T, buf []*T) []*T {
	if t == nil {
		panic("lfq: Ring.Put called with a nil item")
	}
	if len(buf) != 0 {
		panic("lfq: Ring.Put called with a buffer holding items (pass nil or buf[:0]: the result is only the overflow batch)")
	}
	r.guard.enter(callPut)
	for {
		h := r.head.Load() // slots before h are free for reuse
		tl := r.tail.Load()
		if tl-h < r.size() {
			if mutant == publishBeforeWrite {
				r.tail.Store(tl + 1)
			}
			r.slot(tl).Store(t)
			r.tail.Store(tl + 1) // publish only after the slot holds t
			r.guard.exit()
			return nil
		}
		if out, ok := r.overflow(t, h, tl, buf); ok {
			r.guard.exit()
			return out
		}
		// A consumer moved head since we read it: there is room now.
	}
}

// overflow moves the older half of a full ring and t into spill with one CAS
// on head (runqputslow). It fails, leaving spill's length as it was, when a
// consumer moved head first.
func (r *ring[T, A]) overflow(t *T, h, tl uint32, spill []*T) ([]*T, bool) {
	half := r.size() / 2
	n := (tl - h) / 2
	if n != half {
		panic("lfq: Ring.Put: overflow of a ring that is not full")
	}
	start := len(spill)
	spill = slices.Grow(spill, int(half)+1)
	for i := range n {
		spill = append(spill, r.slot(h+i).Load())
	}
	if !r.head.CompareAndSwap(h, h+n) {
		return spill[:start], false
	}
	if mutant == overflowDropsNew {
		return spill, true
	}
	return append(spill, t), true
}

// putBatch is Ring.PutBatch (runqputbatch).
func (r *ring[T, A]) putBatch(ts []*T) int {
	// Every item, also those that will not fit: a nil is the caller's bug
	// wherever it sits, and it must be reported before anything is put.
	if slices.Contains(ts, nil) {
		panic("lfq: Ring.PutBatch called with a nil item")
	}
	r.guard.enter(callPutBatch)
	h := r.head.Load()
	tl := r.tail.Load()
	n := min(len(ts), int(r.size()-(tl-h)))
	for i, t := range ts[:n] {
		// Slots beyond tail are invisible to consumers until the store below.
		r.slot(tl + uint32(i)).Store(t)
	}
	r.tail.Store(tl + uint32(n))
	r.guard.exit()
	return n
}

// get is Ring.Get (runqget).
func (r *ring[T, A]) get() *T {
	r.guard.enter(callGet)
	for {
		h := r.head.Load()
		tl := r.tail.Load()
		if tl == h || (mutant == getSkipsLast && tl-h == 1) {
			r.guard.exit()
			return nil
		}
		t := r.slot(h).Load()
		if r.head.CompareAndSwap(h, h+1) { // the item is ours only if no thief took h first
			r.guard.exit()
			return t
		}
		if mutant == getNoRetry {
			r.guard.exit()
			return nil
		}
	}
}

// drain is Ring.Drain (runqdrain).
func (r *ring[T, A]) drain(dst []*T) []*T {
	r.guard.enter(callDrain)
	for {
		h := r.head.Load()
		tl := r.tail.Load()
		n := tl - h
		if n == 0 {
			r.guard.exit()
			return dst
		}
		if n > r.size() {
			continue // inconsistent read
		}
		// Claim first, read after: once head is past them no thief reads
		// these slots as valid, and only we (the owner) write slots.
		if r.head.CompareAndSwap(h, tl) {
			dst = slices.Grow(dst, int(n))
			for i := h; i != tl; i++ {
				dst = append(dst, r.slot(i).Swap(nil))
			}
			r.guard.exit()
			return dst
		}
	}
}

// stealHalf is Ring.StealHalf (runqsteal): dst's owner is the caller.
func (r *ring[T, A]) stealHalf(dst *ring[T, A]) *T {
	if dst == r {
		panic("lfq: Ring.StealHalf called with the victim as destination")
	}
	dst.guard.enter(callStealHalf)
	dt := dst.tail.Load()
	if dt-dst.head.Load() > dst.size()/2 {
		dst.guard.exit()
		panic("lfq: Ring.StealHalf: destination holds more than Size/2 items")
	}
	n := r.grab(dst, dt)
	if n == 0 {
		dst.guard.exit()
		return nil
	}
	n--
	t := dst.slot(dt + n).Load()
	if n > 0 {
		dst.tail.Store(dt + n) // publish the rest; their slots are written
	}
	dst.guard.exit()
	return t
}

// grab copies the older half of r, rounded up, into dst's slots from index
// at on, and claims it with one CAS on r's head (runqgrab). It returns how
// many it took.
func (r *ring[T, A]) grab(dst *ring[T, A], at uint32) uint32 {
	half := r.size() / 2
	for {
		h := r.head.Load()
		tl := r.tail.Load()
		n := tl - h
		switch mutant {
		case stealAllNoCheck:
		case stealRoundsDown:
			n /= 2
		default:
			n -= n / 2
		}
		if n == 0 {
			return 0
		}
		// Consistent loads give n <= half. More means head moved between
		// them, and copying n would write past dst's free half, over its own
		// queued items, even though the CAS below then fails.
		if n > half && mutant != stealAllNoCheck && (mutant != grabPastFreeHalf || n > r.size()) {
			continue
		}
		for i := range n {
			dst.slot(at + i).Store(r.slot(h + i).Load())
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

// length is Ring.Len.
func (r *ring[T, A]) length() int {
	for {
		tl := r.tail.Load()
		h := r.head.Load()
		if mutant == lenOneAsEmpty && tl-h == 1 {
			return 0
		}
		if r.tail.Load() == tl {
			// tail did not move around the head load, so tl-h was the length
			// at that load.
			return int(tl - h)
		}
	}
}

// Ring is a fixed-size single-producer multi-consumer FIFO of *T.
// The zero value is an empty ring.
//
// One goroutine at a time, the owner, may call Put, PutBatch, Get and Drain,
// and StealHalf with this ring as the destination; any goroutine may call
// Len, and StealHalf with this ring as the victim. Nothing detects a
// violation in a normal build, and it is silent corruption, not a crash:
// two goroutines in owner calls at once can write the same slot and publish
// one of two items (the other is lost), or store the tail backwards or past
// head+Size, after which items come out twice or thieves spin forever on
// what looks like an inconsistent read. A build with the tag
// schedkit_checked panics instead, naming both calls (see doc.go).
type Ring[T any] struct {
	q ring[T, [Size]atomicx.Pointer[T]]
}

// Put appends t at the tail and returns nil. Owner only.
//
// When the ring is full, Put instead takes the older half of the ring
// (Size/2 items, oldest first) and t out as one batch of OverflowLen items
// and returns it: the caller now holds those items and must hand them on
// (the global run queue takes them in one lock). The result is non-nil
// exactly when this happened, and an ignored result loses the batch:
// PutOverflow, which takes the batch's destination, is the call that cannot
// lose it.
//
// buf only lends storage for the batch: pass nil, or an earlier batch
// resliced to buf[:0] to overflow without allocating:
//
//	if over := r.Put(t, buf[:0]); over != nil {
//		global.PutBatch(over)
//		buf = over
//	}
//
// Put panics if t is nil, and if buf holds items (len(buf) != 0), since the
// result would not be the batch alone. It mirrors runqput and, when full,
// runqputslow.
func (r *Ring[T]) Put(t *T, buf []*T) []*T { return r.q.put(t, buf) }

// Overflow is where a full ring's batch goes: a global run queue.
// *globalq.Queue[T] satisfies it. PutBatch must take every item of the
// batch (it may not refuse any) and must not keep the slice.
type Overflow[T any] interface {
	PutBatch(batch []*T)
}

// PutOverflow appends t at the tail; when the ring is full it moves the
// older half of the ring and t to dst in one PutBatch, as Put's batch. It
// is Put for callers that have somewhere to send the overflow, and the
// simplest correct use of a ring: nothing to check, nothing lost. Owner
// only. It allocates the batch (OverflowLen pointers) on each overflow,
// once in Size/2 puts at most; Put with a reused buffer does not.
//
// PutOverflow panics, having put nothing, if t or dst is nil. It mirrors
// runqput and runqputslow with the globrunqputbatch they end in.
func (r *Ring[T]) PutOverflow(t *T, dst Overflow[T]) {
	if dst == nil {
		panic("lfq: Ring.PutOverflow called with a nil destination")
	}
	if over := r.q.put(t, nil); over != nil {
		dst.PutBatch(over)
	}
}

// PutBatch appends as many items of ts as fit, in order, and publishes them
// with one store of the tail. It returns how many it put: the caller keeps
// ts[n:] (the runtime sends them to the global queue). Owner only. The room
// is counted once at the start; consumers may free more before the store.
//
// PutBatch panics, having put nothing, if any item of ts is nil, also one
// that would not have fit. It mirrors runqputbatch.
func (r *Ring[T]) PutBatch(ts []*T) int { return r.q.putBatch(ts) }

// Get removes and returns the oldest item, or nil if the ring is empty.
// Owner only. It mirrors the ring part of runqget.
func (r *Ring[T]) Get() *T { return r.q.get() }

// Drain removes every item, appends them oldest first to dst and returns it;
// the slots it empties no longer reference the items. Owner only, for
// shutdown or handing a P's work elsewhere. It mirrors runqdrain.
func (r *Ring[T]) Drain(dst []*T) []*T { return r.q.drain(dst) }

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
	if dst == nil {
		panic("lfq: Ring.StealHalf called with a nil destination")
	}
	return r.q.stealHalf(&dst.q)
}

// Len returns the number of items in the ring at one instant during the
// call. Any goroutine may call it.
func (r *Ring[T]) Len() int { return r.q.length() }

// One instantiation inside the package makes the compiler keep the inline
// bodies of the atomicx calls for instantiations in other packages.
var _ Ring[struct{}]
