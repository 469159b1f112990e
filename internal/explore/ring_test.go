//go:build schedcheck

package explore_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/schedkit/schedkit/internal/explore"
	"github.com/schedkit/schedkit/lfq"
)

// The explorer on real code: lfq's ring, with its owner putting and getting
// while thieves steal. Every item must be consumed exactly once, whatever
// the interleaving.

type task struct{ id int }

func ringScenario(thieves int) func() explore.Run {
	return func() explore.Run {
		r := new(lfq.Ring[task])
		a, b := &task{1}, &task{2}
		explore.Name(r, "r")
		explore.Name(a, "a")
		explore.Name(b, "b")
		var got []*task // one slot per thread, written only by it
		got = make([]*task, 1+thieves)
		dsts := make([]*lfq.Ring[task], thieves)
		threads := []func(){func() {
			r.Put(a, nil)
			r.Put(b, nil)
			got[0] = r.Get()
		}}
		for i := range thieves {
			dsts[i] = new(lfq.Ring[task])
			explore.Name(dsts[i], fmt.Sprintf("dst%d", i))
			threads = append(threads, func() { got[1+i] = r.StealHalf(dsts[i]) })
		}
		return explore.Run{
			Threads: threads,
			Check: func() error {
				var all []*task
				for _, t := range got {
					if t != nil {
						all = append(all, t)
					}
				}
				all = r.Drain(all)
				for _, d := range dsts {
					all = d.Drain(all)
				}
				ids := make([]int, 0, len(all))
				for _, t := range all {
					ids = append(ids, t.id)
				}
				slices.Sort(ids)
				if !slices.Equal(ids, []int{1, 2}) {
					return fmt.Errorf("items consumed %v, want each of [1 2] once", ids)
				}
				return nil
			},
		}
	}
}

func TestRingOwnerAndThief(t *testing.T) {
	explore.Check(t, explore.Options{Name: "lfq-owner-thief"}, ringScenario(1))
	// Every interleaving, through sleep sets: without them this is 178359
	// executions (C(20, 8)-ish), with them a few dozen.
	res := explore.Check(t, explore.Options{Name: "lfq-owner-thief-reduced", Bound: explore.Unbounded, Reduce: true}, ringScenario(1))
	assert.True(t, res.Complete)
}

func TestRingOwnerAndTwoThieves(t *testing.T) {
	explore.Check(t, explore.Options{Name: "lfq-owner-2thieves"}, ringScenario(2))
	explore.Check(t, explore.Options{Name: "lfq-owner-2thieves-pct", Mode: explore.PCT, Seed: 1}, ringScenario(2))
}
