//go:build schedmutant

package stealing_test

import (
	"errors"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/stealing"
)

// Bar item 8: every seeded mutation of stealing (stealing/mutation.go)
// against every checker, through internal/killmatrix: each cell runs in a
// child process, because a mutant may crash a harness (StealsFromSelf
// makes runnext panic) or spin forever.
//
// Run it with go test -tags schedcheck,schedmutant -run '^TestKillMatrix$' ./stealing/
// (without schedcheck the explorer column reads n/a).

// killConfig is stealing's matrix: its mutations against TLC's Steal
// mutants and the five Go checkers, each run against the real Stealer with
// the mutation selected.
var killConfig = killmatrix.Config{
	Component: "stealing",
	CellTest:  "TestKillMatrixCell",
	Spec:      "Steal",
	TLADir:    "../proofs/tla",
	Mutations: stealing.Mutations(),
	Set:       stealing.SetMutation,
	// The explorer, the model and the scenarios carry the two kills (Ladder
	// marks them deterministic); stress and the histories are extras.
	Checkers: killmatrix.Ladder{
		Explorer: killByExplorer, Model: killByModel, Scenarios: killByScenarios,
		Stress: killByStress, Linearize: killByLinearize,
	}.Checkers(),
}

func killByScenarios(t *testing.T) error { return runScenarios(t) }

func killByExplorer(t *testing.T) error {
	return killmatrix.ByExplorer(func() error { return exploreStealing(t) })
}

func killByModel(t *testing.T) error {
	var stats modelStats
	return killmatrix.ByModel(t, func(rt *rapid.T) { checkStealingModel(rt, newRealStealerUT, &stats) })
}

func killByStress(*testing.T) error {
	for seed := range uint64(3) {
		res := runStress(stressConfig{items: 50_000, procs: stressProcs, seed: seed, newS: newRealStressStealer})
		if err := res.check(); err != nil {
			return err
		}
	}
	return nil
}

// killByLinearize checks histories 0 to 199 of seed 1 (the choices are
// fixed; the timing is not, so this is an extra).
func killByLinearize(t *testing.T) error {
	cfg := linDefaultConfig()
	cfg.histories, cfg.seed = 200, 1
	return noVerdictNotApplicable(linStress(t.Name(), cfg, new(linStats)).FirstFailure(cfg.histories))
}

// noVerdictNotApplicable reads histories none of which was decided as no
// verdict: neither a kill nor a false alarm.
func noVerdictNotApplicable(err error) error {
	if errors.Is(err, linearize.ErrInconclusive) {
		return fmt.Errorf("%w: %w", killmatrix.ErrNotApplicable, err)
	}
	return err
}

// TestKillMatrixCell is one cell, run only as a child of TestKillMatrix.
func TestKillMatrixCell(t *testing.T) { killmatrix.Cell(t, killConfig) }

func TestKillMatrix(t *testing.T) { killmatrix.Run(t, killConfig) }
