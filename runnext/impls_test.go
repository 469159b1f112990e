package runnext_test

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/lfq"
	"github.com/schedkit/schedkit/runnext"
)

// queueUT is the surface of a runnext.Queue[int] that the model, stress and
// linearizability checkers drive. The real queue is realQ; the broken
// variants below, each correct but for one bug, let every checker prove
// that it can fail. StealHalf's destination is a queue of the same kind.
type queueUT interface {
	PutNext(t *int, spill []*int) []*int
	Put(t *int, spill []*int) []*int
	PutBatch(ts []*int) int
	Get() (*int, bool)
	StealHalf(dst queueUT, stealNext bool) *int
	Drain(dst []*int) []*int
	Empty() bool
	Len() int
	StealDelay() time.Duration
}

// newQueueFunc makes an empty queue with the given steal delay (delay < 0:
// leave the zero value's default).
type newQueueFunc func(delay time.Duration) queueUT

// realQ is the real queue, unchanged.
type realQ struct{ q *runnext.Queue[int] }

func newRealQ(delay time.Duration) queueUT {
	q := new(runnext.Queue[int])
	if delay >= 0 {
		q.SetStealDelay(delay)
	}
	return realQ{q}
}

func (w realQ) PutNext(t *int, spill []*int) []*int { return w.q.PutNext(t, spill) }
func (w realQ) Put(t *int, spill []*int) []*int     { return w.q.Put(t, spill) }
func (w realQ) PutBatch(ts []*int) int              { return w.q.PutBatch(ts) }
func (w realQ) Get() (*int, bool)                   { return w.q.Get() }
func (w realQ) Drain(dst []*int) []*int             { return w.q.Drain(dst) }
func (w realQ) Empty() bool                         { return w.q.Empty() }
func (w realQ) Len() int                            { return w.q.Len() }
func (w realQ) StealDelay() time.Duration           { return w.q.StealDelay() }

// realOf unwraps a realQ, or a broken variant that embeds one.
func (w realQ) realOf() realQ { return w }

func (w realQ) StealHalf(dst queueUT, stealNext bool) *int {
	var d *runnext.Queue[int] // nil unless dst is a real queue
	if r, ok := dst.(interface{ realOf() realQ }); ok {
		d = r.realOf().q
	}
	return w.q.StealHalf(d, stealNext)
}

// noInheritQ is broken: Get never reports that the task inherits the time
// slice, so two tasks that spawn each other could starve the ring.
type noInheritQ struct{ realQ }

func newNoInheritQ(delay time.Duration) queueUT { return noInheritQ{newRealQ(delay).(realQ)} }

func (w noInheritQ) Get() (*int, bool) { t, _ := w.q.Get(); return t, false }

// greedyQ is broken: every steal may take the runnext task, not only the
// last pass's.
type greedyQ struct{ realQ }

func newGreedyQ(delay time.Duration) queueUT { return greedyQ{newRealQ(delay).(realQ)} }

func (w greedyQ) StealHalf(dst queueUT, _ bool) *int { return w.realQ.StealHalf(dst, true) }

// oneLookQ is broken: its Empty is Len() == 0, one read of the ring and
// one of the slot, without the re-check, so it can miss a task that moves
// from the slot to the ring meanwhile (the EmptyMissesRunnext mutant, built
// from the real queue's exported methods).
type oneLookQ struct{ realQ }

func newOneLookQ(delay time.Duration) queueUT { return oneLookQ{newRealQ(delay).(realQ)} }

func (w oneLookQ) Empty() bool { return w.q.Len() == 0 }

// composedBug selects the bug of a composedQ.
type composedBug uint8

const (
	bugNone          composedBug = iota
	bugFIFONext                  // PutNext keeps the old runnext task and queues the new one
	bugDropDisplaced             // PutNext drops the task it displaces
	bugRingFirst                 // Get takes from the ring before the runnext slot
	bugReturnsBuffer             // a PutNext with nothing to spill returns its buffer, not nil
)

// composedQ is the queue a user might assemble from the exported parts, a
// runnext.Slot and an lfq.Ring, with one bug. (Without a bug it matches the
// real queue sequentially; concurrently it lacks Empty's re-check.)
type composedQ struct {
	slot *runnext.Slot[int]
	ring *lfq.Ring[int]
	bug  composedBug
}

func newComposedQ(bug composedBug) newQueueFunc {
	return func(delay time.Duration) queueUT {
		q := composedQ{slot: new(runnext.Slot[int]), ring: new(lfq.Ring[int]), bug: bug}
		if delay >= 0 {
			q.slot.SetStealDelay(delay)
		}
		return q
	}
}

func (q composedQ) PutNext(t *int, spill []*int) []*int {
	refuseHeld(spill)
	if q.bug == bugFIFONext && !q.slot.Empty() {
		return q.ring.Put(t, spill)
	}
	old := q.slot.Put(t)
	if q.bug == bugReturnsBuffer && old == nil {
		return spill
	}
	if old == nil || q.bug == bugDropDisplaced {
		return nil
	}
	return q.ring.Put(old, spill)
}

func (q composedQ) Put(t *int, spill []*int) []*int { return q.ring.Put(t, spill) }
func (q composedQ) PutBatch(ts []*int) int {
	// As the real queue, refuse a nil anywhere in the batch before putting
	// anything, so that the variant fails only by its bug.
	if slices.Contains(ts, nil) {
		panic("composedQ: PutBatch called with a nil task")
	}
	return q.ring.PutBatch(ts)
}
func (q composedQ) Empty() bool               { return q.ring.Len() == 0 && q.slot.Empty() }
func (q composedQ) StealDelay() time.Duration { return q.slot.StealDelay() }

func (q composedQ) Get() (*int, bool) {
	if q.bug == bugRingFirst {
		if t := q.ring.Get(); t != nil {
			return t, false
		}
	}
	if t := q.slot.Take(); t != nil {
		return t, true
	}
	return q.ring.Get(), false
}

func (q composedQ) StealHalf(dst queueUT, stealNext bool) *int {
	var r *lfq.Ring[int] // nil unless dst is a composedQ
	if c, ok := dst.(composedQ); ok {
		r = c.ring
	}
	if t := q.ring.StealHalf(r); t != nil || !stealNext {
		return t
	}
	return q.slot.Steal()
}

func (q composedQ) Drain(dst []*int) []*int {
	if t := q.slot.Take(); t != nil {
		dst = append(dst, t)
	}
	return q.ring.Drain(dst)
}

func (q composedQ) Len() int {
	n := q.ring.Len()
	if !q.slot.Empty() {
		n++
	}
	return n
}

// racyQ is a hand-made queue that calls itself empty from one look at the
// ring and then the slot, in Empty and in a steal that finds nothing: the
// runtime's runqempty without its re-check. Correct in every sequential run;
// wrong when the owner moves the runnext task into the ring and takes a new
// one between the two looks (and, with no delay, when a thief takes the new
// task while the displaced one is on its way to the ring). Thieves take the
// runnext task with no delay.
type racyQ struct {
	next *atomic.Pointer[int]
	ring *lfq.Ring[int]
}

func newRacyQ(time.Duration) queueUT {
	return racyQ{next: new(atomic.Pointer[int]), ring: new(lfq.Ring[int])}
}

func (q racyQ) PutNext(t *int, spill []*int) []*int {
	refuseHeld(spill)
	if old := q.next.Swap(t); old != nil {
		return q.ring.Put(old, spill)
	}
	return nil
}

// refuseHeld is Queue.PutNext's check of its buffer, for the variants whose
// PutNext may not reach lfq.Ring.Put's.
func refuseHeld(spill []*int) {
	if len(spill) != 0 {
		panic("PutNext called with a buffer holding items")
	}
}

func (q racyQ) Get() (*int, bool) {
	if t := q.next.Load(); t != nil && q.next.CompareAndSwap(t, nil) {
		return t, true
	}
	return q.ring.Get(), false
}

func (q racyQ) StealHalf(dst queueUT, stealNext bool) *int {
	var r *lfq.Ring[int] // nil unless dst is a racyQ
	if c, ok := dst.(racyQ); ok {
		r = c.ring
	}
	for {
		if t := q.ring.StealHalf(r); t != nil || !stealNext {
			return t
		}
		t := q.next.Load()
		if t == nil {
			return nil
		}
		if q.ring.Len() == 0 && q.next.CompareAndSwap(t, nil) {
			return t
		}
	}
}

func (q racyQ) Put(t *int, spill []*int) []*int { return q.ring.Put(t, spill) }
func (q racyQ) PutBatch(ts []*int) int          { return q.ring.PutBatch(ts) }
func (q racyQ) Empty() bool                     { return q.ring.Len() == 0 && q.next.Load() == nil }
func (q racyQ) StealDelay() time.Duration       { return 0 }

func (q racyQ) Drain(dst []*int) []*int {
	if t := q.next.Swap(nil); t != nil {
		dst = append(dst, t)
	}
	return q.ring.Drain(dst)
}

func (q racyQ) Len() int {
	n := q.ring.Len()
	if q.next.Load() != nil {
		n++
	}
	return n
}
