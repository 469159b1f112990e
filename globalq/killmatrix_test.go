//go:build schedmutant

package globalq_test

import (
	"errors"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/internal/linearize"
)

// Bar item 8: every seeded mutation of the queue (globalq/mutation.go)
// against every checker, through internal/killmatrix: each cell runs in a
// child process, so a mutant that crashes a harness or hangs it is counted
// without taking the parent down.
//
// Run it with go test -tags schedcheck,schedmutant -run '^TestKillMatrix$' ./globalq/
// (without schedcheck the explorer column reads n/a).

// killConfig is globalq's matrix: its mutations against TLC's GlobalQ
// mutants and the five Go checkers, each run against the real queue with
// the mutation selected.
var killConfig = killmatrix.Config{
	Component: "globalq",
	CellTest:  "TestKillMatrixCell",
	// Under -short a mutant's expected killers run first: the explorer's
	// shapes do not reach this one (a batch put as large as the ring).
	Killers:   map[string][]string{"InjectBatchOverfills": {"model", "scenarios"}},
	Spec:      "GlobalQ",
	TLADir:    "../proofs/tla",
	Mutations: globalq.Mutations(),
	Set:       globalq.SetMutation,
	// The explorer, the model and the scenarios carry the two kills (Ladder
	// marks them deterministic); stress and the histories are extras.
	Checkers: killmatrix.Ladder{
		Explorer: killByExplorer, Model: killByModel, Scenarios: killByScenarios,
		Stress: killByStress, Linearize: killByLinearize,
	}.Checkers(),
}

func killByScenarios(t *testing.T) error { return runScenarios(t) }

func killByExplorer(t *testing.T) error {
	return killmatrix.ByExplorer(func() error {
		if err := exploreQueue(t); err != nil {
			return err
		}
		return exploreInject(t)
	})
}

func killByModel(t *testing.T) error {
	var stats modelStats
	return killmatrix.ByModel(t, func(rt *rapid.T) {
		checkQueueModel(rt, newRealQueue, &stats)
		checkInjectModel(rt)
	})
}

func killByStress(*testing.T) error {
	for seed := range uint64(3) {
		if err := checkStress(runStress(stressDefault(50_000, seed, newRealQueue))); err != nil {
			return err
		}
	}
	return nil
}

// killByLinearize checks histories 0 to 299 of seed 1 (the choices are
// fixed; the timing is not, so this is an extra).
func killByLinearize(t *testing.T) error {
	cfg := linDefaultConfig()
	cfg.histories, cfg.seed = 300, 1
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
