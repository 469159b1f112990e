package msqueue

import (
	"slices"
	"testing"

	"github.com/schedkit/schedkit/explore/lincheck"
)

// deqResult is a dequeue's result.
type deqResult struct {
	V  int
	OK bool
}

// fifo is the sequential model: a slice, copied on every change.
var fifo = lincheck.Model[[]int]{Init: func() []int { return nil }}

func fifoOps[Q queue]() []lincheck.Op[Q, []int] {
	return []lincheck.Op[Q, []int]{
		{Name: "enq", Arg: true,
			Run:  func(q Q, v int) any { q.Enqueue(v); return nil },
			Step: func(s []int, v int) ([]int, any) { return append(slices.Clip(s), v), nil }},
		{Name: "deq",
			Run: func(q Q, _ int) any { v, ok := q.Dequeue(); return deqResult{v, ok} },
			Step: func(s []int, _ int) ([]int, any) {
				if len(s) == 0 {
					return s, deqResult{}
				}
				return s[1:], deqResult{s[0], true}
			}},
	}
}

// linOpts: 2 threads of 3 calls, 4 seeds.
var linOpts = lincheck.Options{Threads: 2, OpsPerThread: 3, Seeds: 4}

// TestQueueIsLinearizable: every explored history of the Michael-Scott
// queue is one of a FIFO queue's, with no invariant written by hand.
func TestQueueIsLinearizable(t *testing.T) {
	lincheck.Check(t, linOpts, fifo, New, fifoOps[*Queue]()...)
}

// TestLinkByStoreIsNotLinearizable: the check-then-act link loses a value,
// and a later dequeue finds the queue empty: found from the model alone.
func TestLinkByStoreIsNotLinearizable(t *testing.T) {
	lincheck.CheckFails(t, linOpts, fifo, func() *storeLink { return &storeLink{New()} }, fifoOps[*storeLink]()...)
}
