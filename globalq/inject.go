package globalq

import "github.com/schedkit/schedkit/atomicx"

// InjectCap is how many values an Inject holds at once: a ring of
// InjectCap slots, 12 KiB with the executor's 16-byte values, inside the
// Inject (no allocation, ever).
const InjectCap = 512

const injMask = InjectCap - 1

// Inject is a lock-free injection buffer in front of a Queue: a bounded
// FIFO of values that any number of goroutines put into without a lock,
// and that one consumer at a time drains in batches (TryDrain claims the
// consumer's role with one CAS and gives it back before it returns). It is
// built for the executor's outside submits (issue 25; the executor does not
// use it yet): a submitter writes a small value (a func and a time stamp,
// not a task record) into a slot, and the M that drains it makes the
// records from its own P's free list, so a record never crosses cores from
// the submitter, and a submit takes no lock.
//
// It is a ring of InjectCap slots with a sequence word each (Vyukov's
// bounded MPMC queue, with the consumers serialized): a producer claims the
// next positions with one CAS of the tail, once the slot of the last of
// them has been freed by the consumer; it writes the values and publishes
// each with one store of its slot's sequence word. The consumer takes
// published slots in order and frees each for the producer one lap on.
// Values leave in the order of their positions: FIFO for every producer,
// and for two puts of which one returned before the other began. A full
// ring takes nothing: PutBatch returns how many of its values went in, and
// the caller decides (the executor moves the ring to the Queue itself).
//
// The zero value is an empty buffer ready to use. An Inject must not be
// copied after first use.
type Inject[V any] struct {
	// tail is the next position to claim; producers CAS it.
	tail atomicx.Uint64
	_    [cacheLine - 8]byte
	// head is the next position to drain; stored only by the claimant.
	head atomicx.Uint64
	// claim is 1 while a consumer drains (TryDrain).
	claim atomicx.Uint32
	_     [cacheLine - 12]byte
	slot  [InjectCap]injSlot[V]
}

// injSlot is one value and its sequence word, kept as an offset from the
// slot's index so that the zero Inject is ready: for position pos, lap =
// pos - pos%InjectCap; the word is lap while the slot is free for pos,
// lap+1 once pos is published, lap+InjectCap once it is drained.
type injSlot[V any] struct {
	v   V
	seq atomicx.Uint64
}

// Put appends v if there is room, and reports whether there was. Any
// goroutine may call it; it takes no lock. In the runtime's terms it is
// globrunqput for a goroutine made outside any P, with the lock replaced by
// a claim of the position.
func (q *Inject[V]) Put(v V) bool {
	for {
		pos := q.tail.Load()
		sl := &q.slot[pos&injMask]
		lap := pos &^ injMask
		switch st := sl.seq.Load(); {
		case st == lap:
			if q.tail.CompareAndSwap(pos, pos+1) {
				q.publish(sl, lap, v)
				return true
			}
		case st < lap:
			return false // the slot holds the value of pos-InjectCap: full
		}
		// another producer claimed pos: look again
	}
}

// PutBatch appends a prefix of vs, as long as there is room for, in order
// and in one claim (a CAS of the tail by the length of the run), and returns its length (0: the ring is full). Any
// goroutine may call it; the caller may reuse vs afterwards. It mirrors
// globrunqputbatch.
func (q *Inject[V]) PutBatch(vs []V) int {
	for {
		pos := q.tail.Load()
		// The consumer frees slots in order and stores head after them, so
		// the free count is a lower bound: the positions pos..pos+n-1 are
		// free for this lap unless another producer claimed pos first, and
		// then the CAS fails.
		free := InjectCap - int(pos-q.head.Load())
		if mutant == injectBatchOverfills {
			free++
		}
		n := min(len(vs), free)
		if n <= 0 {
			return 0
		}
		if q.tail.CompareAndSwap(pos, pos+uint64(n)) {
			if mutant == injectPublishBeforeWrite {
				for i := range n {
					p := pos + uint64(i)
					q.slot[p&injMask].seq.Store(p&^injMask + 1)
				}
				for i := range n {
					q.slot[(pos+uint64(i))&injMask].v = vs[i]
				}
				return n
			}
			for i := range n {
				p := pos + uint64(i)
				q.publish(&q.slot[p&injMask], p&^injMask, vs[i])
			}
			return n
		}
	}
}

// publish writes v into sl, claimed for a position of lap, and publishes it.
func (q *Inject[V]) publish(sl *injSlot[V], lap uint64, v V) {
	sl.v = v
	sl.seq.Store(lap + 1)
}

// Len returns the number of values put and not yet drained, counting those
// whose producer has claimed its position and not yet published it, at one
// instant during the call; no lock.
func (q *Inject[V]) Len() int {
	h := q.head.Load()
	return int(q.tail.Load() - h)
}

// Empty reports whether every value put has been drained (Len is 0). A Put
// that has returned is seen: its position is claimed before it returns. The
// executor's drop-and-recheck relies on this (a submit publishes, then
// looks for a spinning M; an M drops spinning, then looks here).
func (q *Inject[V]) Empty() bool { return q.Len() == 0 }

// TryDrain appends to dst, oldest first, up to max of the values put,
// stopping at the first position whose producer has claimed it and not
// yet published it (after waiting for it a little, injectSpins looks), and
// returns dst with whether it stopped there. It takes the consumer's role
// with one CAS; if another goroutine holds it, it returns dst unchanged at
// once (that one is draining). Any goroutine may call it. It mirrors the
// take of globrunqgetbatch; its caller puts what it drained into the
// Queue (or runs it), so the Queue's FIFO and batch rules apply from there.
func (q *Inject[V]) TryDrain(dst []V, max int) (out []V, pending bool) {
	if !q.claim.CompareAndSwap(0, 1) {
		return dst, false
	}
	pos := q.head.Load()
	var zero V
	for n := 0; n < max; n++ {
		sl := &q.slot[pos&injMask]
		lap := pos &^ injMask
		if sl.seq.Load() != lap+1 {
			if pos == q.tail.Load() {
				break // drained
			}
			if mutant != injectDrainSkipsUnpublished && !waitReady(&sl.seq, lap+1) {
				pending = true
				break
			}
		}
		dst = append(dst, sl.v)
		sl.v = zero // the buffer keeps no drained value reachable
		sl.seq.Store(lap + InjectCap)
		pos++
	}
	q.head.Store(pos)
	q.claim.Store(0)
	return dst, pending
}

// waitReady looks at a slot's flag up to injectSpins more times: its
// producer is between its ticket and its publication, a few instructions
// apart unless it was preempted there.
func waitReady(seq *atomicx.Uint64, want uint64) bool {
	for range injectSpins {
		if seq.Load() == want {
			return true
		}
	}
	return false
}

// One instantiation inside the package, as for Queue.
var _ Inject[struct{}]
