package globalq_test

import (
	"slices"
	"testing"

	"github.com/schedkit/schedkit/explore/lincheck"
	"github.com/schedkit/schedkit/globalq"
)

// item is a queued item's id, 0 for none.
func item(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// TestQueueIsLinearizableFromItsModel: Put, Get and Len of the global queue
// against a FIFO slice, in generated scenarios of 2 threads of 3 calls,
// every interleaving within the default bound (lincheck; no invariant
// written for it).
func TestQueueIsLinearizableFromItsModel(t *testing.T) {
	type Q = *globalq.Queue[int]
	lincheck.Check(t, lincheck.Options{Threads: 2, OpsPerThread: 3, Seeds: 6},
		lincheck.Model[[]int]{Init: func() []int { return nil }},
		func() Q { return new(globalq.Queue[int]) },
		lincheck.Op[Q, []int]{Name: "put", Arg: true,
			Run:  func(q Q, v int) any { q.Put(&v); return nil },
			Step: func(s []int, v int) ([]int, any) { return append(slices.Clip(s), v), nil }},
		lincheck.Op[Q, []int]{Name: "get",
			Run: func(q Q, _ int) any { return item(q.Get()) },
			Step: func(s []int, _ int) ([]int, any) {
				if len(s) == 0 {
					return s, 0
				}
				return s[1:], s[0]
			}},
		lincheck.Op[Q, []int]{Name: "len",
			Run:  func(q Q, _ int) any { return q.Len() },
			Step: func(s []int, _ int) ([]int, any) { return s, len(s) }},
	)
}
