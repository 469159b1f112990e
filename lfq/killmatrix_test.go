//go:build schedmutant

package lfq_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/internal/explore"
	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/internal/proptest"
	"github.com/schedkit/schedkit/lfq"
)

// Bar item 8: every seeded mutation of the ring (lfq/mutation.go) against
// every checker, through internal/killmatrix: each cell runs in a child
// process, because a mutant may crash a harness or spin forever (a steal
// without CAS can leave head past tail, and then grab never returns).
//
// Run it with go test -tags schedcheck,schedmutant -run TestKillMatrix ./lfq/
// (without schedcheck the explorer column reads n/a).

// killConfig is lfq's matrix: its mutations against TLC's Ring mutants and
// the Go checkers, each run against the real ring with the mutation
// selected.
var killConfig = killmatrix.Config{
	Component: "lfq",
	CellTest:  "TestKillMatrixCell",
	Spec:      "Ring",
	TLADir:    "../proofs/tla",
	Mutations: lfq.Mutations(),
	Set:       lfq.SetMutation,
	Checkers: []killmatrix.Checker{
		// Deterministic: the same verdict on every run and machine.
		{Name: "explorer", Run: killByExplorer, Deterministic: true}, // DFS within the bound
		{Name: "model", Run: killByModel, Deterministic: true},       // rapid, seed fixed by proptest
		{Name: "scenarios", Run: killByScenarios, Deterministic: true},
		// Extras: their verdicts depend on the machine's timing.
		{Name: "stress", Run: killByStress},
		{Name: "linearize", Run: killByLinearize},
	},
}

func killByScenarios(*testing.T) error { return runScenarios() }

func killByExplorer(t *testing.T) error {
	if _, err := explore.Explore(explore.Options{}, func() explore.Run { return explore.Run{} }); errors.Is(err, explore.ErrNoSchedcheck) {
		return killmatrix.ErrNotApplicable
	}
	return exploreRing(t)
}

func killByModel(t *testing.T) error {
	var stats ringModelStats
	rec := proptest.ExpectFailure(t, func(rt *rapid.T) { checkRingModel(rt, newRealRingUT, &stats) })
	if rec.Failed() {
		first, _, _ := strings.Cut(strings.Join(rec.Errors(), "\n"), "\n")
		return errors.New(first)
	}
	return nil
}

func killByStress(*testing.T) error {
	for seed := range uint64(3) {
		res := runStress(stressConfig{items: 50_000, thieves: stressThieves, seed: seed, newRing: newRealRingUT})
		if err := checkExactlyOnce(res.counts); err != nil {
			return err
		}
	}
	return nil
}

func killByLinearize(t *testing.T) error {
	cfg := linDefaultConfig()
	cfg.histories = 300
	cfg.seed = 1
	var st linStats
	for h := range cfg.histories {
		if _, err := runLinHistory(fmt.Sprintf("%s-h%d", t.Name(), h), cfg, h, &st); err != nil {
			return err
		}
	}
	return nil
}

// TestKillMatrixCell is one cell, run only as a child of TestKillMatrix.
func TestKillMatrixCell(t *testing.T) { killmatrix.Cell(t, killConfig) }

func TestKillMatrix(t *testing.T) { killmatrix.Run(t, killConfig) }
