//go:build schedmutant

package timers_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/timers"
)

// Bar item 8: every seeded mutation of the timers (timers/mutation.go)
// against every checker, through internal/killmatrix: each cell runs in a
// child process, so a mutant that deadlocks a harness (RunUnderLock on the
// real lock, outside the explorer) is counted as hung without taking the
// parent down.
//
// Run it with go test -tags schedcheck,schedmutant -run '^TestKillMatrix$' ./timers/
// (without schedcheck the explorer column reads n/a).

var killConfig = killmatrix.Config{
	Component: "timers",
	CellTest:  "TestKillMatrixCell",
	Spec:      "Timers",
	TLADir:    "../proofs/tla",
	Mutations: timers.Mutations(),
	Set:       timers.SetMutation,
	// The explorer, the model and the scenarios carry the two kills; the
	// stress run is an extra.
	Checkers: killmatrix.Ladder{
		Explorer: killByExplorer, Model: killByModel, Scenarios: killByScenarios,
		Stress: killByStress, Linearize: killByLinearize,
	}.Checkers(),
	// Under -short each mutant's killers run first (a cell costs about a
	// second); the races need the explorer, the heap's order and cells the
	// model and the sequential scenarios.
	Killers: map[string][]string{
		"StopAfterFire":   {"explorer", "scenarios"},
		"ClaimIgnoresGen": {"explorer", "scenarios"},
		"RunUnderLock":    {"explorer", "scenarios"},
		"NextNotUpdated":  {"scenarios", "model"},
		"HeapSiftWrong":   {"scenarios", "model"},
	},
}

func killByScenarios(t *testing.T) error { return runScenarios(t) }

func killByExplorer(t *testing.T) error {
	return killmatrix.ByExplorer(func() error { return exploreTimers(t) })
}

func killByModel(t *testing.T) error {
	var stats modelStats
	return killmatrix.ByModel(t, func(rt *rapid.T) { checkTimersModel(rt, &stats, nil) })
}

// killByStress runs the stress on 4 timers (TestStressExactlyOnce has 16),
// so Stops and Runs meet on one timer often: it catches StopAfterFire; the
// window ClaimIgnoresGen needs (a whole Reset between a Run's unlock and its
// CAS) it rarely hits.
func killByStress(*testing.T) error {
	for seed := range uint64(3) {
		if err := checkTimerStress(runTimerStress(20_000, 4, 2, seed)); err != nil {
			return err
		}
	}
	return nil
}

// killByLinearize records the histories of TestLinearizable until one is
// refuted: it catches NextNotUpdated (a Run that found nothing beside an
// expired arming) and HeapSiftWrong (a fire behind an earlier arming); the
// windows of StopAfterFire and ClaimIgnoresGen are a few instructions wide,
// which real goroutines seldom hit.
func killByLinearize(*testing.T) error {
	cfg := linDefaultConfig()
	return linStress("killmatrix", cfg, new(linStats)).FirstFailure(cfg.histories)
}

// TestKillMatrixCell is one cell, run only as a child of TestKillMatrix.
func TestKillMatrixCell(t *testing.T) { killmatrix.Cell(t, killConfig) }

func TestKillMatrix(t *testing.T) { killmatrix.Run(t, killConfig) }
