//go:build schedmutant

package spinning_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/internal/proptest"
	"github.com/schedkit/schedkit/spinning"
)

// Bar item 8: every seeded mutation of the spinning protocol
// (spinning/mutation.go) against every checker, through internal/killmatrix:
// each cell runs in a child process with a time limit, because a mutant that
// loses a wakeup can leave goroutines parked forever.
//
// Run it with go test -tags schedcheck,schedmutant -run '^TestKillMatrix$' ./spinning/
// (without schedcheck the explorer column reads n/a).

var killConfig = killmatrix.Config{
	Component: "spinning",
	CellTest:  "TestKillMatrixCell",
	Spec:      "Spinning",
	TLADir:    "../proofs/tla",
	Mutations: spinning.Mutations(),
	Set:       spinning.SetMutation,
	// The explorer's cell runs every shape of explore_test.go; on a busy
	// machine that takes longer than the default limit.
	Timeout: 3 * time.Minute,
	// Under -short a mutant's expected killers run first (the rest only
	// if one misses).
	Killers: map[string][]string{
		"ExitIgnoresWake": {"explorer", "scenarios"},
		// The whole explorer column reaches these only after every shape
		// before theirs: about 15 s of CPU for NeedBeforeDec.
		"HandoffNoNeedSpinning": {"xhandoff", "scenarios"},
		"NeedBeforeDec":         {"xrespin", "scenarios"},
		"NeededMUntimed":        {"scenarios", "keepretire"},
		// The explorer finds it only after 2,075 executions of
		// acquire-vs-drop, past every shape before it: 24 s of one core.
		"DropNoNeedSpinning": {"model", "scenarios"},
		"NoNeedSpinning":     {"model", "scenarios"},
	},
	Checkers: []killmatrix.Checker{
		// DFS over every interleaving within the bound: the same verdict
		// on every run and machine.
		{Name: "explorer", Run: killByExplorer, Deterministic: true, RealCodeElsewhere: true},
		// rapid with its seed fixed by proptest.ExpectFailure.
		{Name: "model", Run: killByModel, Deterministic: true},
		// Fixed sequential scenarios, one aimed at each mutation's step.
		{Name: "scenarios", Run: func(*testing.T) error { return runScenarios() }, Deterministic: true},
		// Real goroutines: the verdict depends on the machine's timing.
		{Name: "stress", Run: killByStress},
		{Name: "linearize", Run: killByLinearize},
		// One shape each, the one that catches its mutant (the full
		// explorer column holds them too); last, so that a mutant without
		// Killers reaches the columns above first.
		{Name: "xhandoff", Run: exploreShape("handoff-vs-wakep"), Deterministic: true, RealCodeElsewhere: true},
		{Name: "xrespin", Run: exploreShape("respin-vs-wakep"), Deterministic: true, RealCodeElsewhere: true},
		// Real StopMs in a synctest bubble: the keep-alive after a RetireP.
		{Name: "keepretire", Run: func(t *testing.T) error {
			var err error
			synctest.Test(t, func(*testing.T) { err = keepAliveAfterRetire() })
			return err
		}, Deterministic: true},
	},
}

func killByExplorer(*testing.T) error {
	if _, err := explore.Explore(explore.Options{}, func() explore.Run { return explore.Run{} }); errors.Is(err, explore.ErrNoSchedcheck) {
		return killmatrix.ErrNotApplicable
	}
	return exploreSpinning()
}

// exploreShape explores the xScenarios shape named name alone.
func exploreShape(name string) func(*testing.T) error {
	return func(*testing.T) error {
		if _, err := explore.Explore(explore.Options{}, func() explore.Run { return explore.Run{} }); errors.Is(err, explore.ErrNoSchedcheck) {
			return killmatrix.ErrNotApplicable
		}
		for _, sc := range xScenarios {
			if sc.name != name {
				continue
			}
			res, err := explore.Explore(sc.options(), sc.xRun)
			if err != nil {
				return err
			}
			if res.Failure != nil {
				return errors.New(res.Failure.String())
			}
			return nil
		}
		return fmt.Errorf("no explorer shape named %q", name)
	}
}

func killByModel(t *testing.T) error {
	var stats spinStats
	rec := proptest.ExpectFailure(t, func(rt *rapid.T) { checkSpinningModel(rt, realImpl, &stats) })
	if rec.Failed() {
		first, _, _ := strings.Cut(strings.Join(rec.Errors(), "\n"), "\n")
		return errors.New(first)
	}
	return nil
}

func killByStress(*testing.T) error {
	for seed := range uint64(3) {
		if _, err := runSpinStress(stressConfig{items: 50_000, seed: seed}); err != nil {
			return err
		}
	}
	return nil
}

func killByLinearize(t *testing.T) error {
	err := linearizeSpinning(t)
	if errors.Is(err, linearize.ErrInconclusive) { // no history decided: neither a kill nor a false alarm
		return fmt.Errorf("%w: %w", killmatrix.ErrNotApplicable, err)
	}
	return err
}

// TestKillMatrixCell is one cell, run only as a child of TestKillMatrix.
func TestKillMatrixCell(t *testing.T) { killmatrix.Cell(t, killConfig) }

func TestKillMatrix(t *testing.T) { killmatrix.Run(t, killConfig) }
