package lfq_test

import (
	"slices"
	"testing"

	"github.com/schedkit/schedkit/explore/lincheck"
	"github.com/schedkit/schedkit/lfq"
)

// stolenIDs are items' ids in order, 0 for a nil item.
func stolenIDs(ps ...*int) []int {
	var out []int
	for _, p := range ps {
		if p != nil {
			out = append(out, *p)
		}
	}
	return out
}

// TestRingIsLinearizableFromItsModel: the ring's owner operations (Put,
// Get) on thread 0 and StealHalf and Len on any thread, against a FIFO
// slice (lincheck; no invariant written for it). A steal's size is
// relaxed as StealHalf documents it: at least one item, at most half the
// ring rounded up at the instant it takes effect, the oldest ones in order.
func TestRingIsLinearizableFromItsModel(t *testing.T) {
	type R = *lfq.Ring[int]
	lincheck.Check(t, lincheck.Options{Threads: 2, OpsPerThread: 3, Seeds: 4},
		lincheck.Model[[]int]{Init: func() []int { return nil }},
		func() R { return new(lfq.Ring[int]) },
		lincheck.Op[R, []int]{Name: "put", Arg: true, Owner: true,
			Run:  func(r R, v int) any { return len(r.Put(&v, nil)) },
			Step: func(s []int, v int) ([]int, any) { return append(slices.Clip(s), v), 0 }},
		lincheck.Op[R, []int]{Name: "get", Owner: true,
			Run: func(r R, _ int) any { return stolenIDs(r.Get()) },
			Step: func(s []int, _ int) ([]int, any) {
				if len(s) == 0 {
					return s, []int(nil)
				}
				return s[1:], []int{s[0]}
			}},
		lincheck.Op[R, []int]{Name: "steal",
			Run: func(r R, _ int) any {
				var dst lfq.Ring[int]
				newest := r.StealHalf(&dst)
				return stolenIDs(append(dst.Drain(nil), newest)...)
			},
			Accept: func(s []int, _ int, out any) ([]int, bool) {
				got := out.([]int)
				k := len(got)
				if k == 0 {
					return s, len(s) == 0
				}
				if k > (len(s)+1)/2 {
					return s, false
				}
				return s[k:], slices.Equal(got, s[:k])
			}},
		lincheck.Op[R, []int]{Name: "len",
			Run:  func(r R, _ int) any { return r.Len() },
			Step: func(s []int, _ int) ([]int, any) { return s, len(s) }},
	)
}
