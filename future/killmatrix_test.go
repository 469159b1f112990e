//go:build schedmutant

package future_test

import (
	"testing"

	"github.com/schedkit/schedkit/future"
	"github.com/schedkit/schedkit/internal/killmatrix"
)

// Bar item 8: every seeded mutation of the future (mutation.go) against
// every checker, each cell a child process (a mutant that leaves tasks
// parked for ever ends its bubble with a deadlock panic, recovered into the
// scenario's own error). The explorer's two scenarios, the rapid model on
// its fixed seed and the bubble scenarios are deterministic; the stress run
// is an extra. There is no TLA+ spec of the future (its protocol is
// closechan's on one lock; the park/ready beneath it is ParkReady.tla's):
// TLC's column reads n/a.
//
// Run it with go test -tags schedcheck,schedmutant -run '^TestKillMatrix$' ./future/
// (without schedcheck the explorer columns read n/a).
var killConfig = killmatrix.Config{
	Component: "future",
	CellTest:  "TestKillMatrixCell",
	Spec:      "Future",
	TLADir:    "../proofs/tla",
	Mutations: future.Mutations(),
	Set:       future.SetMutation,
	Killers: map[string][]string{
		"WakeFirstOnly":    {"waiters", "model"},
		"CheckOutsideLock": {"explorer", "explorer2"},
		"ChanNotClosed":    {"waiters", "model"},
		"ReadyFromOutside": {"order", "model"},
	},
	Checkers: []killmatrix.Checker{
		{Name: "explorer", Deterministic: true, Run: exploreCell("complete-vs-wait"), RealCodeElsewhere: true},
		{Name: "explorer2", Deterministic: true, Run: exploreCell("complete-vs-two-waiters"), RealCodeElsewhere: true},
		{Name: "model", Deterministic: true, Run: killByModel},
		{Name: "waiters", Deterministic: true, Run: bubbles(manyWaiters(1, 8), manyWaiters(2, 8))},
		{Name: "order", Deterministic: true, Run: bubbles(readiedIntoRunnext)},
		{Name: "stress", Run: func(*testing.T) error {
			return runStress(stressCfg{procs: 4, futures: 5_000, waiters: 3})
		}},
	},
}

// exploreCell runs the explorer scenario named with its MustReach.
func exploreCell(name string) func(*testing.T) error {
	return func(*testing.T) error {
		applicable, err := future.ExploreScenario(name)
		if !applicable {
			return killmatrix.ErrNotApplicable
		}
		return err
	}
}

// TestKillMatrixCell is one cell, run only as a child of TestKillMatrix.
func TestKillMatrixCell(t *testing.T) { killmatrix.Cell(t, killConfig) }

func TestKillMatrix(t *testing.T) { killmatrix.Run(t, killConfig) }
