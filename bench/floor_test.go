package bench

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/schedkit/schedkit/stealing"
)

// Physical floors. Each queue benchmark has a sub-benchmark impl=floor that
// does the least synchronized work the operation's contract allows, with
// the same data movement, on memory no other goroutine touches, every word
// that other goroutines could share on a cache line of its own. It is what
// the hardware allows: the ratio of a component to its floor says how much
// the component's code costs beyond the instructions it cannot avoid.
//
// The cost is in the locked instructions. On amd64 a Go atomic load is a
// plain MOV, but an atomic store or swap is an XCHG and a CAS is a LOCK
// CMPXCHG: both locked, as Go's atomics are sequentially consistent and
// there is no release-only store to use instead. A word another goroutine
// may read at the same time must be written atomically to be race-clean, so
// a queue's slots are written with XCHG too. Plain loads of lines that only
// this goroutine touches cost about a cycle, so where an owner can keep a
// value in a register (its own tail, a lower bound of its head) the floor
// does and loads nothing. A floor makes no calls where an operation moves
// one item: those floors are written out in the benchmark's loop (the
// inliner refuses even a two-store method), and the helpers here serve the
// batch operations, where one call is spread over a hundred items.
// Identifiers of this file start with fl.

// flLine is the cache line size the floors pad to, as lfq does.
const flLine = 64

// flRing is the floor's ring: head and tail on lines of their own, then the
// slots, as lfq.Ring lays them out, with none of its checks.
type flRing struct {
	head  atomic.Uint32
	_     [flLine - 4]byte
	tail  atomic.Uint32
	_     [flLine - 4]byte
	slots [ringSize]atomic.Pointer[task]
}

// flOwner is an owner's registers for its flRing: the tail, which only the
// owner stores, and the head as the owner last moved it, which thieves can
// only move forward, so it is a lower bound for the room check (reloaded
// only when the ring looks full) and the expected value of the owner's CAS.
type flOwner struct {
	r      *flRing
	hd, tl uint32
}

// refresh reloads the head, which thieves may have moved, when the owner's
// copy says that n items do not fit; they must fit now.
func (o *flOwner) refresh(n int) {
	o.hd = o.r.head.Load()
	if int(ringSize-(o.tl-o.hd)) < n {
		panic("flOwner: ring full")
	}
}

// putBatch is the floor of lfq.Ring.PutBatch: an XCHG per slot and one
// XCHG of the tail for the whole batch.
func (o *flOwner) putBatch(ts []*task) {
	if int(ringSize-(o.tl-o.hd)) < len(ts) {
		o.refresh(len(ts))
	}
	for _, t := range ts {
		o.r.slots[o.tl%ringSize].Store(t)
		o.tl++
	}
	o.r.tail.Store(o.tl)
}

// drain is the floor of lfq.Ring.Drain: a load of the head (thieves may
// have moved it), one CAS that claims every item, then an XCHG per slot
// that reads it and clears it (the contract: drained slots no longer
// reference the items; a plain store would race with a thief's stale read).
func (o *flOwner) drain(dst []*task) []*task {
	for {
		o.hd = o.r.head.Load()
		if o.hd == o.tl {
			return dst
		}
		if o.r.head.CompareAndSwap(o.hd, o.tl) {
			break
		}
	}
	for ; o.hd != o.tl; o.hd++ {
		dst = append(dst, o.r.slots[o.hd%ringSize].Swap(nil))
	}
	return dst
}

// stealHalf is the floor of lfq.Ring.StealHalf from v into the owner's
// ring: the thief knows nothing of v, so it loads v's head and tail; then a
// load and an XCHG per copied slot, the CAS of v's head that claims the
// half, and the XCHG of the owner's tail that publishes all but the one it
// returns. It returns nil if v is empty.
func (o *flOwner) stealHalf(v *flRing) *task {
	h := v.head.Load()
	n := v.tail.Load() - h
	n -= n / 2
	if n == 0 {
		return nil
	}
	if n > ringSize/2 || ringSize-(o.tl-o.hd) < n {
		panic("flOwner.stealHalf: the half does not fit")
	}
	for i := range n {
		o.r.slots[(o.tl+i)%ringSize].Store(v.slots[(h+i)%ringSize].Load())
	}
	if !v.head.CompareAndSwap(h, h+n) {
		panic("flOwner.stealHalf: victim's head moved on a private ring")
	}
	n--
	t := o.r.slots[(o.tl+n)%ringSize].Load()
	if n > 0 {
		o.tl += n
		o.r.tail.Store(o.tl)
	}
	return t
}

// flWord is an atomic word alone on its cache line.
type flWord struct {
	atomic.Uint64
	_ [flLine - 8]byte
}

// flSlot is the floor of runnext.Slot: a version, odd while full, and the
// task cell, each on its own line, as the Slot's contract needs (a version
// names one occupancy, so a thief never takes a task that was taken and put
// back without waiting again; a pointer and a counter cannot share one
// word in Go, where a pointer hidden in an integer is lost to the GC).
// BenchmarkRunnextPutTake writes its fill and take inline.
type flSlot struct {
	ver  flWord
	task atomic.Pointer[task]
	_    [flLine - 8]byte
}

// flP is the floor of a P's runnext.Queue as a thief sees it: its ring, its
// runnext slot and the owner's publication counter, each on its own lines.
type flP struct {
	own  flOwner
	ring flRing
	seq  flWord
	slot flSlot
}

func flPs(n int) []*flP {
	ps := make([]*flP, n)
	for i := range ps {
		p := new(flP)
		p.own.r = &p.ring
		ps[i] = p
	}
	return ps
}

// flLooksEmpty is the floor of finding victim p empty on a pass without
// stealNext: the loads of its head and tail, nothing locked.
func flLooksEmpty(p *flP) bool { return p.ring.tail.Load() == p.ring.head.Load() }

// flEmptyWithNext is the floor of finding p empty, runnext included, as
// runnext's StealHalf with stealNext must (nil only if p was empty at some
// instant): seq, the ring's head and tail and the slot's version read
// between two loads of seq, since the owner may move a displaced task from
// the slot to the ring in between. Five loads, nothing locked.
func flEmptyWithNext(p *flP) bool {
	s := p.seq.Load()
	empty := p.ring.tail.Load() == p.ring.head.Load() && p.slot.ver.Load()&1 == 0
	return empty && s&1 == 0 && p.seq.Load() == s
}

// flSteal is the floor of stealing.Stealer.Steal for thief P self: the same
// passes in the same random order (the order decides which Ps are looked
// at; computing it is not synchronization, but it is the operation's), the
// floor of a look at each other P, and the floor of a steal of half from
// the first that has work. It never takes a runnext task: no floor
// benchmark puts one.
func flSteal(ps []*flP, order *stealing.Order, self int, rand func() uint32) *task {
	thief := &ps[self].own
	for try := range stealing.StealTries {
		last := try == stealing.StealTries-1
		for e := order.Start(rand()); !e.Done(); e = e.Next() {
			v := e.Position()
			if v == self {
				continue
			}
			p := ps[v]
			if last && flEmptyWithNext(p) || !last && flLooksEmpty(p) {
				continue
			}
			if t := thief.stealHalf(&p.ring); t != nil {
				return t
			}
		}
	}
	return nil
}

// flLocked is the floor of globalq.Queue: a circular buffer of 2048 slots
// under a sync.Mutex, and the length cell that Len and Empty read without
// the lock, on its own line. A critical section costs what the contract
// needs: the lock's CAS, the length's XCHG, the unlock's locked add.
type flLocked struct {
	n          atomic.Int64
	_          [flLine - 8]byte
	mu         sync.Mutex
	head, tail uint32
	slots      [flLockedSize]*task
}

// flLockedSize holds gqQueued items and a batch in flight; a power of two,
// and a multiple of every batch moved, so a batch never wraps.
const flLockedSize = 2048

// putBatch appends ts, which must not wrap the buffer, with one copy.
func (q *flLocked) putBatch(ts []*task) {
	q.mu.Lock()
	i := q.tail % flLockedSize
	copy(q.slots[i:i+uint32(len(ts))], ts)
	q.tail += uint32(len(ts))
	q.n.Store(int64(q.tail - q.head))
	q.mu.Unlock()
}

// getBatch appends the n oldest, which must not wrap the buffer, to dst
// with one copy, and clears their slots (the queue must not keep a taken
// item alive, as globalq does not).
func (q *flLocked) getBatch(n int, dst []*task) []*task {
	q.mu.Lock()
	i := q.head % flLockedSize
	seg := q.slots[i : i+uint32(n)]
	dst = append(dst, seg...)
	clear(seg)
	q.head += uint32(n)
	q.n.Store(int64(q.tail - q.head))
	q.mu.Unlock()
	return dst
}

// flCheck fails b unless got is want: a floor moves the same items as the
// component it stands beside, and a floor that lost them would be cheap
// for the wrong reason.
func flCheck(b *testing.B, what string, got, want int) {
	b.Helper()
	if got != want {
		b.Fatalf("floor: %s = %d, want %d", what, got, want)
	}
}
