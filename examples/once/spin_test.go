package once

import (
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// threeCallers: three threads call Do. Once's losers wait by spinning with a
// yield on the state; with two of them, two spinners can hand the CPU back
// and forth while the winner, running f, is preempted. Before fair
// scheduling of yields that schedule ran into MaxSteps on correct code (the
// reason twoCallers has two callers); now a spinner is not run again until
// the others have had their turn, and the winner finishes.
func threeCallers(o doer) explore.Run { return callers(o, 3) }

// TestSpinningWaitersLetFRun: three callers, two of them spinning, in DFS and
// DPOR: no false livelock, f once, its value seen by all.
func TestSpinningWaitersLetFRun(t *testing.T) {
	explore.Check(t, explore.Options{Name: "once-spin", Bound: 1}, func() explore.Run { return threeCallers(new(Once)) })
	explore.Check(t, explore.Options{Name: "once-spin-dpor", Mode: explore.DPOR}, func() explore.Run { return threeCallers(new(Once)) })
}

// TestSpinningWaitersOnDoneFirst: a waiter that spins until doneFirst's flag
// is set leaves before f has run.
func TestSpinningWaitersOnDoneFirst(t *testing.T) {
	build := func() explore.Run { return threeCallers(new(spinDoneFirst)) }
	explore.CheckFails(t, explore.Options{Name: "once-spin-done-first"}, build)
	explore.CheckFails(t, explore.Options{Name: "once-spin-done-first-dpor", Mode: explore.DPOR}, build)
}

// spinDoneFirst is doneFirst with Once's spinning losers: the winner marks
// the Once done before f runs, so the spinners' exit condition is true too
// early.
type spinDoneFirst struct{ done atomicx.Uint32 }

func (o *spinDoneFirst) Do(f func()) {
	if o.done.CompareAndSwap(0, 1) { // the bug: done before f has run
		f()
		return
	}
	for o.done.Load() == 0 {
		atomicx.Sleep(0)
	}
}
