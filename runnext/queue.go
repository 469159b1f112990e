package runnext

import (
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/lfq"
)

// cacheLine keeps the slot and seq, which the owner writes on every
// PutNext, off the ring's head line, which every consumer CASes.
const cacheLine = 64

// Queue is a P's local run queue as the P holds it: the runnext Slot in
// front of an lfq.Ring. The owner puts with PutNext (the slot; the task it
// displaces goes to the ring's tail), Put and PutBatch (the ring), and gets
// with Get (the slot first, then the ring); thieves steal with StealHalf.
//
// seq counts the owner's publications into the ring, so that Empty and a
// thief can tell whether the owner added work while they looked (the
// runtime re-reads runqtail for this; lfq does not export its tail). It
// grows by 2 after each Put, PutBatch and StealHalf into the queue, and it
// is odd while a PutNext moves a displaced task from the slot to the ring or
// a Drain empties the queue: while it is odd thieves leave the slot alone
// and Empty waits, so neither can see the moment when the displaced task is
// in neither place.
//
// The zero value is an empty queue with the default steal delay. Owner
// methods (PutNext, Put, PutBatch, Get, Drain, SetStealDelay) must be called
// by one goroutine at a time, the P's current M; StealHalf, Empty and Len
// may be called by any goroutine.
type Queue[T any] struct {
	own  ownerGuard // the single-owner check of a schedkit_checked build
	next Slot[T]
	seq  atomicx.Uint64
	_    [cacheLine]byte
	ring lfq.Ring[T]
}

// SetStealDelay sets how long a task must sit in the slot before a thief
// may take it (see Slot.SetStealDelay). Call it before the queue is shared.
// It panics if d is negative.
func (q *Queue[T]) SetStealDelay(d time.Duration) {
	if d < 0 {
		panic("runnext: Queue.SetStealDelay called with a negative delay")
	}
	q.next.SetStealDelay(d)
}

// StealDelay returns the queue's steal delay.
func (q *Queue[T]) StealDelay() time.Duration { return q.next.StealDelay() }

// PutNext makes t the task the owner runs next, in the runnext slot, and
// returns nil. The task it displaces from the slot, if any, goes to the
// ring's tail. If the ring is full, the displaced task leaves instead with
// the ring's older half as one batch of lfq.OverflowLen tasks, which PutNext
// returns, as lfq.Ring.Put does: the result is non-nil exactly when this
// happened, and the caller must hand the batch on (PutNextOverflow does).
// buf only lends storage for the batch (nil, or an earlier batch as
// buf[:0]). Owner only.
//
// PutNext panics if t is nil or buf holds items. It mirrors runqput with
// next=true, and runqputslow when the ring is full.
func (q *Queue[T]) PutNext(t *T, buf []*T) []*T {
	if t == nil {
		panic("runnext: Queue.PutNext called with a nil task")
	}
	if len(buf) != 0 {
		panic("runnext: Queue.PutNext called with a buffer holding items (pass nil or buf[:0])")
	}
	q.own.enter("Queue.PutNext")
	s := &q.next
	v := s.ver.Load()
	if v&1 == 0 {
		// Nothing to displace: the fill alone, inline.
		s.task.Store(t)
		if !s.ver.CompareAndSwap(v, v+1) {
			panicOwners()
		}
		q.own.exit()
		return nil
	}
	spill := q.displace(v, t, buf)
	q.own.exit()
	return spill
}

// displace is PutNext onto a full slot, found at version v: the old task is
// taken (unless a thief took it first), t fills the slot, and the old task
// goes to the ring's tail, all while seq is odd.
func (q *Queue[T]) displace(v uint64, t *T, buf []*T) (spill []*T) {
	q.seq.Add(1) // odd: a displaced task is on its way to the ring
	old := q.next.take(v)
	if !q.next.fill(v+1, t) {
		panicOwners()
	}
	if old != nil && mutant != displacedDropped {
		spill = q.ring.Put(old, buf)
	}
	q.seq.Add(1)
	return spill
}

// Put appends t at the ring's tail and returns nil, as lfq.Ring.Put does,
// overflow included: when the ring is full, its older half and t leave as
// one batch, which Put returns (non-nil exactly then; PutOverflow hands it
// on). buf only lends storage for the batch. Owner only. Put panics if t is
// nil or buf holds items. It mirrors runqput with next=false.
func (q *Queue[T]) Put(t *T, buf []*T) []*T {
	if t == nil {
		panic("runnext: Queue.Put called with a nil task")
	}
	if len(buf) != 0 {
		panic("runnext: Queue.Put called with a buffer holding items (pass nil or buf[:0])")
	}
	q.own.enter("Queue.Put")
	if mutant == seqBeforePut {
		q.seq.Add(2)
	}
	spill := q.ring.Put(t, buf)
	if mutant != seqBeforePut {
		q.seq.Add(2) // after the put: a reader that sees this seq sees t in the ring
	}
	q.own.exit()
	return spill
}

// PutNextOverflow is PutNext with the overflow batch handed to dst in one
// PutBatch (a *globalq.Queue[T] is one): nothing to check, nothing lost.
// Owner only. It allocates the batch on each overflow; PutNext with a
// reused buffer does not. It panics, having put nothing, if t or dst is
// nil.
func (q *Queue[T]) PutNextOverflow(t *T, dst lfq.Overflow[T]) {
	if dst == nil {
		panic("runnext: Queue.PutNextOverflow called with a nil destination")
	}
	if over := q.PutNext(t, nil); over != nil {
		dst.PutBatch(over)
	}
}

// PutOverflow is Put with the overflow batch handed to dst in one PutBatch
// (a *globalq.Queue[T] is one), as lfq.Ring.PutOverflow. Owner only. It
// panics, having put nothing, if t or dst is nil.
func (q *Queue[T]) PutOverflow(t *T, dst lfq.Overflow[T]) {
	if dst == nil {
		panic("runnext: Queue.PutOverflow called with a nil destination")
	}
	if over := q.Put(t, nil); over != nil {
		dst.PutBatch(over)
	}
}

// PutBatch appends as many tasks of ts as fit to the ring's tail, in order,
// and returns how many it put; the caller keeps ts[n:]. Owner only.
// PutBatch panics, having put nothing, if any task of ts is nil. It mirrors
// runqputbatch.
func (q *Queue[T]) PutBatch(ts []*T) int {
	for _, t := range ts {
		if t == nil {
			panic("runnext: Queue.PutBatch called with a nil task")
		}
	}
	q.own.enter("Queue.PutBatch")
	n := q.ring.PutBatch(ts)
	if n > 0 {
		q.seq.Add(2)
	}
	q.own.exit()
	return n
}

// Get removes and returns the task to run next: the runnext task if there
// is one, with inheritTime true (it runs in the current time slice), else
// the ring's oldest task with inheritTime false; nil if the queue is empty.
// Owner only. It mirrors runqget.
func (q *Queue[T]) Get() (t *T, inheritTime bool) {
	q.own.enter("Queue.Get")
	if v := q.next.ver.Load(); v&1 != 0 {
		t = q.next.take(v)
	}
	if inheritTime = t != nil; !inheritTime && (mutant != getTreatsOneAsEmpty || q.ring.Len() != 1) {
		t = q.ring.Get()
	}
	q.own.exit()
	return t, inheritTime
}

// Drain removes every task and appends them to dst, the runnext task first
// and then the ring's oldest first, and returns dst. Owner only. It mirrors
// runqdrain.
func (q *Queue[T]) Drain(dst []*T) []*T {
	q.own.enter("Queue.Drain")
	q.seq.Add(1) // odd: the slot is emptied before the ring; nobody may call the queue empty in between
	if v := q.next.ver.Load(); v&1 != 0 {
		if t := q.next.take(v); t != nil {
			dst = append(dst, t)
		}
	}
	q.next.task.Store(nil) // off the hot path, so nothing taken stays reachable from the slot
	dst = q.ring.Drain(dst)
	q.seq.Add(1)
	q.own.exit()
	return dst
}

// StealHalf steals from q for a thief that owns dst: the older half of q's
// ring, rounded up, into dst's ring, returning one of the stolen tasks (the
// newest) for the thief to run. Only when the ring gives nothing and
// stealNext is set does it take q's runnext task, and only after waiting
// the steal delay for it: it notes the task's occupancy (the slot's
// version), sleeps the delay (atomicx.Sleep), looks again, at the ring
// first, and takes the task only if the slot still holds that occupancy;
// one it finds in its place it waits for in turn. It returns nil when it
// found nothing to steal: q was empty, or held only a runnext task and
// stealNext was false. An executor sets stealNext only on its last pass
// over the victims.
//
// StealHalf returns nil with stealNext set only if q was empty at some
// instant during the call, and takes the runnext task only if the ring was
// empty at some instant while that task sat in the slot.
//
// Any goroutine may steal from q, but dst must be a queue the caller owns,
// not q, holding at most lfq.Size/2 tasks in its ring; StealHalf panics
// otherwise. It mirrors runqsteal with runqgrab (stealRunNextG).
func (q *Queue[T]) StealHalf(dst *Queue[T], stealNext bool) *T {
	t, _ := q.stealHalf(dst, stealNext)
	return t
}

// stealHalf is StealHalf, reporting also whether the task came from the
// runnext slot (for tests).
func (q *Queue[T]) stealHalf(dst *Queue[T], stealNext bool) (t *T, fromSlot bool) {
	if dst == nil {
		panic("runnext: Queue.StealHalf called with a nil destination")
	}
	if dst == q {
		panic("runnext: Queue.StealHalf called with the victim as destination")
	}
	if dst.ring.Len() > lfq.Size/2 {
		panic("runnext: Queue.StealHalf: destination ring holds more than lfq.Size/2 tasks")
	}
	dst.own.enter("Queue.StealHalf into its destination")
	t, fromSlot = q.steal(dst, stealNext)
	dst.own.exit()
	return t, fromSlot
}

func (q *Queue[T]) steal(dst *Queue[T], stealNext bool) (*T, bool) {
	var w waiter[T]
	for {
		seq := q.seq.Load()
		if t := q.ring.StealHalf(&dst.ring); t != nil {
			dst.seq.Add(2) // the rest of the half is published in dst's ring
			return t, false
		}
		if !stealNext {
			return nil, false
		}
		v := q.next.ver.Load()
		if v&1 == 0 {
			// The ring and the slot looked empty one after the other. As in
			// Empty, that means empty only if the owner published nothing
			// in between.
			if seq&1 != 0 {
				awaitOwner()
			} else if q.ring.Len() == 0 && q.seq.Load() == seq {
				return nil, false
			}
			continue
		}
		if w.observe(&q.next, v) {
			continue // slept the delay: look at the ring again, then at the slot
		}
		if q.seq.Load()&1 != 0 {
			awaitOwner() // a displacement or a Drain is in flight (read after v, so it covers v's fill)
			continue
		}
		if q.ring.Len() != 0 {
			continue // the owner put work in the ring: steal that instead
		}
		if q.next.ver.CompareAndSwap(v, v+1) {
			return w.t, true
		}
		// The owner took the task or displaced it: start over.
	}
}

// Empty reports whether q holds no task, the runnext slot included. It
// never reports true spuriously: q was empty at some instant during the
// call. Any goroutine may call it. It mirrors runqempty, with seq in the
// place of the runtime's re-read of runqtail: the ring and the slot are
// read between two reads of seq, and the answer stands only if the owner
// published nothing in between; otherwise Empty looks again.
func (q *Queue[T]) Empty() bool {
	if mutant == emptyMissesRunnext {
		// One look, no re-check: the owner can kick the runnext task into the
		// ring and take a new one between the two reads.
		return q.ring.Len() == 0 && !q.next.full()
	}
	for {
		seq := q.seq.Load()
		if seq&1 != 0 {
			awaitOwner() // the owner is moving a task
			continue
		}
		if q.ring.Len() != 0 || q.next.full() || q.ring.Len() != 0 {
			return false
		}
		if q.seq.Load() == seq {
			return true
		}
	}
}

// panicOwners reports PutNext finding the slot filled under it: only the
// owner fills, so a second goroutine is calling owner methods.
func panicOwners() {
	panic("runnext: Queue.PutNext: the slot filled up under the owner: owner methods called concurrently")
}

// awaitOwner lets the owner finish the move that made seq odd: a few
// atomic operations of its own, so the wait is short. It sleeps 1ns, which
// in a real build returns after a few hundred nanoseconds (0.3µs in a probe
// on the development machine, where runtime.Gosched took 60ns); on the
// explorer's virtual clock a sleeper runs again only after every runnable
// thread has run or blocked, so the owner moves on, where a plain yield
// (Sleep(0)) would let two waiters hand the turn to each other forever.
func awaitOwner() { atomicx.Sleep(time.Nanosecond) }

// Len returns the number of tasks in q: the ring's plus one for a runnext
// task. It is exact when no other goroutine uses q; under concurrent steals
// it reads the ring and the slot at two instants, so it is a hint, as the
// runtime's runqlen is. Any goroutine may call it.
func (q *Queue[T]) Len() int {
	n := q.ring.Len()
	if q.next.full() {
		n++
	}
	return n
}

var _ Queue[struct{}]
