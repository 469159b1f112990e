package timers_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/timers"
)

// Fixed scenarios, each aimed at one seeded mutation's shape (the kill
// matrix's "scenarios" column, and TestScenarios against the real code).
// Each returns an error naming what broke. They are deterministic: the
// sequential ones call the heap directly; the concurrent ones are the
// explorer's races pinned small (preemption bound 1, or one thread alone
// where the explorer's deadlock report is the verdict: a real lock taken
// twice would hang).

type scenario = killmatrix.Scenario

// runScenarios is the kill matrix's "scenarios" checker: the first failure.
func runScenarios(t testing.TB) error { return killmatrix.RunScenarios(t, scenarios) }

func TestScenarios(t *testing.T) { killmatrix.TestScenarios(t, scenarios) }

var scenarios = []scenario{
	{Name: "stop-races-fire", Targets: "StopAfterFire", Run: pinned("stop-races-fire", 1, fireVsStop)},
	{Name: "reset-races-run", Targets: "ClaimIgnoresGen", Run: pinned("reset-races-run", 1, resetVsRun)},
	{Name: "func-rearms-on-its-heap", Targets: "RunUnderLock", Run: pinned("func-rearms-on-its-heap", explore.NoPreemption, rearmOnItsHeap)},
	{Name: "add-then-next", Targets: "NextNotUpdated", Run: scenarioAddThenNext},
	{Name: "sift-order", Targets: "HeapSiftWrong", Run: scenarioSiftOrder},
}

// pinned explores build at the given bound, under the explorer only.
func pinned(name string, bound int, build func() explore.Run) func() error {
	return func() error {
		res, err := explore.Explore(explore.Options{Name: "timers-scenario-" + name, Bound: bound}, build)
		if errors.Is(err, explore.ErrNoSchedcheck) {
			return killmatrix.ErrNeedsExplorer
		}
		if err != nil {
			return err
		}
		if res.Failure != nil {
			return errors.New(res.Failure.String())
		}
		return nil
	}
}

// rearmOnItsHeap: one thread runs a heap whose timer's func re-arms it on
// that heap (a periodic timer), then Runs again: the func must run with
// the heap's lock free.
func rearmOnItsHeap() explore.Run {
	h := new(timers.Heap)
	explore.Name(h, "heap")
	var n int
	var t *timers.Timer
	t = timers.NewTimer(func(any, uint64, int64) {
		if n++; n == 1 {
			h.Add(t, 20)
		}
	}, nil)
	h.Add(t, 5)
	return explore.Run{
		Threads: []func(){func() { h.Run(10, 4); h.Run(20, 4) }},
		Check: func() error {
			if n != 2 {
				return fmt.Errorf("the func ran %d times, want 2 (at 5, re-armed, at 20)", n)
			}
			return heapsOK(map[string]*timers.Heap{"heap": h}, map[string]int64{"heap": 0})
		},
	}
}

// scenarioAddThenNext: Next must show an Add at once: to an empty heap,
// then one earlier than the top, then after the top is stopped.
func scenarioAddThenNext() error {
	var h timers.Heap
	f := func(any, uint64, int64) {}
	a, b := timers.NewTimer(f, nil), timers.NewTimer(f, nil)
	h.Add(a, 30)
	if got := h.Next(); got != 30 {
		return fmt.Errorf("Next() = %d after Add at 30 to an empty heap", got)
	}
	h.Add(b, 10)
	if got := h.Next(); got != 10 {
		return fmt.Errorf("Next() = %d after Add at 10 beside 30", got)
	}
	b.Stop()
	if got, n := h.Next(), h.Len(); got != 30 || n != 1 {
		return fmt.Errorf("Next() = %d, Len() = %d after the top was stopped, want 30 and 1", got, n)
	}
	return nil
}

// scenarioSiftOrder: a heap of five whose root leaves, the last entry
// coming down to the root with the smallest child fourth in line.
func scenarioSiftOrder() error {
	var h timers.Heap
	var got []int64
	for _, w := range []int64{1, 10, 11, 3, 4} { // heap [1 | 10 11 3 4]
		h.Add(timers.NewTimer(func(arg any, _ uint64, _ int64) { got = append(got, arg.(int64)) }, w), w)
	}
	h.Run(1, 1) // pops 1; 4 comes to the root, over children 10 11 3
	if w := h.Next(); w != 3 {
		return fmt.Errorf("Next() = %d after the root left, want 3 (heap %v)", w, timers.Whens(&h))
	}
	h.Run(100, 10)
	if want := []int64{1, 3, 4, 10, 11}; !slices.Equal(got, want) {
		return fmt.Errorf("fired %v, want %v", got, want)
	}
	return nil
}
