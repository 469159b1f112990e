//go:build schedmutant

package lfq_test

import (
	"errors"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/internal/exactlyonce"
	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/lfq"
)

// Bar item 8: every seeded mutation of the ring (lfq/mutation.go) against
// every checker, through internal/killmatrix: each cell runs in a child
// process, because a mutant may crash a harness or spin forever (a steal
// without CAS can leave head past tail, and then grab never returns).
//
// Run it with go test -tags schedcheck,schedmutant -run '^TestKillMatrix$' ./lfq/
// (without schedcheck the explorer column reads n/a).

// killConfig is lfq's matrix: its mutations against TLC's Ring mutants and
// the Go checkers, each run against the real ring with the mutation
// selected.
var killConfig = killmatrix.Config{
	Component: "lfq",
	CellTest:  "TestKillMatrixCell",
	// Under -short a mutant's expected killers run first: the explorer
	// reaches this one only after every shape before its own.
	Killers:   map[string][]string{"OverflowDropsNew": {"model", "scenarios"}},
	Spec:      "Ring",
	TLADir:    "../proofs/tla",
	Mutations: lfq.Mutations(),
	Set:       lfq.SetMutation,
	// The explorer, the model and the scenarios carry the two kills (Ladder
	// marks them deterministic); stress and the histories are extras.
	Checkers: killmatrix.Ladder{
		Explorer: killByExplorer, Model: killByModel, Scenarios: killByScenarios,
		Stress: killByStress, Linearize: killByLinearize,
	}.Checkers(),
}

func killByScenarios(*testing.T) error { return runScenarios() }

func killByExplorer(t *testing.T) error {
	return killmatrix.ByExplorer(func() error { return exploreRing(t) })
}

func killByModel(t *testing.T) error {
	var stats ringModelStats
	return killmatrix.ByModel(t, func(rt *rapid.T) { checkRingModel(rt, newRealRingUT, &stats) })
}

func killByStress(*testing.T) error {
	for seed := range uint64(3) {
		res := runStress(stressConfig{items: 50_000, thieves: stressThieves, seed: seed, newRing: newRealRingUT})
		if err := exactlyonce.Check(res.counts); err != nil {
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
