//go:build schedmutant

package globalq_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/internal/explore"
	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/internal/proptest"
)

// Bar item 8: every seeded mutation of the queue (globalq/mutation.go)
// against every checker, through internal/killmatrix: each cell runs in a
// child process, so a mutant that crashes a harness or hangs it is counted
// without taking the parent down.
//
// Run it with go test -tags schedcheck,schedmutant -run TestKillMatrix ./globalq/
// (without schedcheck the explorer column reads n/a).

// killConfig is globalq's matrix: its mutations against TLC's GlobalQ
// mutants and the five Go checkers, each run against the real queue with
// the mutation selected.
var killConfig = killmatrix.Config{
	Component: "globalq",
	CellTest:  "TestKillMatrixCell",
	Spec:      "GlobalQ",
	TLADir:    "../proofs/tla",
	Mutations: globalq.Mutations(),
	Set:       globalq.SetMutation,
	// The explorer's DFS, rapid with its fixed seed and the fixed scenarios
	// give the same verdict on every run: they carry the two kills. Stress
	// and the goroutine histories depend on the machine's timing.
	Checkers: []killmatrix.Checker{
		{Name: "explorer", Run: killByExplorer, Deterministic: true},
		{Name: "model", Run: killByModel, Deterministic: true},
		{Name: "scenarios", Run: killByScenarios, Deterministic: true},
		{Name: "stress", Run: killByStress},
		{Name: "linearize", Run: killByLinearize},
	},
}

func killByScenarios(t *testing.T) error { return runScenarios(t) }

func killByExplorer(t *testing.T) error {
	if _, err := explore.Explore(explore.Options{}, func() explore.Run { return explore.Run{} }); errors.Is(err, explore.ErrNoSchedcheck) {
		return killmatrix.ErrNotApplicable
	}
	return exploreQueue(t)
}

func killByModel(t *testing.T) error {
	var stats modelStats
	rec := proptest.ExpectFailure(t, func(rt *rapid.T) { checkQueueModel(rt, newRealQueue, &stats) })
	if rec.Failed() {
		first, _, _ := strings.Cut(strings.Join(rec.Errors(), "\n"), "\n")
		return errors.New(first)
	}
	return nil
}

func killByStress(*testing.T) error {
	for seed := range uint64(3) {
		if err := checkStress(runStress(stressDefault(50_000, seed, newRealQueue))); err != nil {
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
