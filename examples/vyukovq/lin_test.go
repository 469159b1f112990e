package vyukovq

import (
	"slices"
	"testing"

	"github.com/schedkit/schedkit/explore/lincheck"
)

// deqResult is a dequeue's result.
type deqResult struct {
	V  uint64
	OK bool
}

// capacity is the queues' size: lapped's two slots.
const capacity = 2

// bounded is the sequential model: a FIFO of at most capacity values.
var bounded = lincheck.Model[[]uint64]{Init: func() []uint64 { return nil }}

// boundedOps are enqueue and dequeue against a bounded FIFO. With
// spurious, a dequeue may also report empty while values are queued, and
// an enqueue full while there is room (the algorithm's behaviour: see
// TestEmptyIsNotLinearizable); values still come out in order, once each.
func boundedOps[Q queue](spurious bool) []lincheck.Op[Q, []uint64] {
	enq := func(s []uint64, v int) ([]uint64, any) {
		if len(s) == capacity {
			return s, false
		}
		return append(slices.Clip(s), uint64(v)), true
	}
	deq := func(s []uint64, _ int) ([]uint64, any) {
		if len(s) == 0 {
			return s, deqResult{}
		}
		return s[1:], deqResult{s[0], true}
	}
	ops := []lincheck.Op[Q, []uint64]{
		{Name: "enq", Arg: true,
			Run:  func(q Q, v int) any { return q.Enqueue(uint64(v)) },
			Step: enq},
		{Name: "deq",
			Run:  func(q Q, _ int) any { v, ok := q.Dequeue(); return deqResult{v, ok} },
			Step: deq},
	}
	if spurious {
		ops[0].Step = nil
		ops[0].Accept = func(s []uint64, v int, out any) ([]uint64, bool) {
			if out == false {
				return s, true
			}
			next, want := enq(s, v)
			return next, out == want
		}
		ops[1].Step = nil
		ops[1].Accept = func(s []uint64, _ int, out any) ([]uint64, bool) {
			if out == (deqResult{}) {
				return s, true
			}
			next, want := deq(s, 0)
			return next, out == want
		}
	}
	return ops
}

var linOpts = lincheck.Options{Threads: 2, OpsPerThread: 3, Seeds: 6}

// TestQueueIsLinearizable: Vyukov's queue, gone round once, is a bounded
// FIFO in every explored history once a full or empty answer may be
// spurious: no value lost, duplicated, invented or out of order.
func TestQueueIsLinearizable(t *testing.T) {
	lincheck.Check(t, linOpts, bounded, lapped, boundedOps[*Queue](true)...)
}

// TestEmptyIsNotLinearizable: against the strict FIFO the queue fails, and
// that is the algorithm, not a bug of this port: a dequeue reports empty
// when the slot at its position is claimed and not yet published, although
// an enqueue that claimed the next position has returned ("enq(1)|enq(2),
// deq": T1's enqueue ends, then its dequeue finds T0's slot unpublished).
// An enqueue can likewise report full while a dequeue that has returned
// made room, its slot claimed by a dequeue still running. Vyukov's queue is
// known not to be linearizable for these reasons; the explorer found both
// from the model alone.
func TestEmptyIsNotLinearizable(t *testing.T) {
	lincheck.CheckFails(t, linOpts, bounded, lapped, boundedOps[*Queue](false)...)
}

// TestPublishBeforeValueIsNotLinearizable: a consumer that claims a slot
// published before its value is there dequeues the last lap's 7, a value
// no enqueue of the history gave, which no model allows.
func TestPublishBeforeValueIsNotLinearizable(t *testing.T) {
	lincheck.CheckFails(t, linOpts, bounded, func() *publishFirst { return &publishFirst{lapped()} }, boundedOps[*publishFirst](true)...)
}
