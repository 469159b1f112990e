//go:build schedmutant

package taskchan_test

import (
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/taskchan"
)

// Bar item 8: every seeded mutation of the channel (mutation.go) against
// every checker, through internal/killmatrix: each cell runs in a child
// process, so a mutant that hangs a harness is counted without taking the
// parent down.
//
// Run it with go test -tags schedcheck,schedmutant -run '^TestKillMatrix$' ./taskchan/
// (without schedcheck the explorer column reads n/a).

// killConfig is taskchan's matrix: its mutations against TLC's TaskChan
// mutants (when proofs/tla has them) and the Go checkers, each run against
// the real channel with the mutation selected.
var killConfig = killmatrix.Config{
	Component: "taskchan",
	CellTest:  "TestKillMatrixCell",
	Spec:      "TaskChan",
	TLADir:    "../proofs/tla",
	Mutations: taskchan.Mutations(),
	Set:       taskchan.SetMutation,
	// The explorer, the model and the scenarios carry the two kills
	// (Ladder marks them deterministic); the stress test and the
	// linearizability histories are extras (long mode only).
	Checkers: killmatrix.Ladder{
		Explorer: killByExplorer, Model: killByModel, Scenarios: killByScenarios, Stress: killByStress,
		Linearize: killByLinearize,
	}.Checkers(),
	Killers: map[string][]string{
		"SelectLeavesStaleWaiter": {"scenarios", "explorer"},
		"CloseSkipsSenders":       {"scenarios", "explorer"},
		"RecvFullSkipsSender":     {"scenarios", "explorer"},
		"SendWakesWithoutHandoff": {"scenarios", "explorer"},
		"SelectNoDoneCAS":         {"scenarios", "explorer"},
		"WaitqLIFO":               {"scenarios", "explorer"},
		"SelectLocksInCaseOrder":  {"scenarios", "explorer"},
	},
}

func killByScenarios(t *testing.T) error { return runScenarios(t) }

func killByExplorer(t *testing.T) error {
	return killmatrix.ByExplorer(func() error { return exploreChan(t) })
}

func killByModel(t *testing.T) error {
	var err error
	withModelHarness(t, func(e *executor.Executor, waits, readies *atomic.Int64) bool {
		err = killmatrix.ByModel(t, func(rt *rapid.T) { checkChanModel(rt, e, waits, readies) })
		return err == nil
	})
	return err
}

func killByStress(*testing.T) error {
	cfg := stressDefault()
	cfg.items = 50_000
	return runStress(cfg)
}

// killByLinearize records the histories of TestLinearizable until one is
// refuted. A mutant that leaves a sender parked on a closed channel
// (CloseSkipsSenders) hangs a history: its watchdog, 20 s here, panics
// the cell.
func killByLinearize(*testing.T) error {
	e, err := executor.New(executor.Config{Procs: 2})
	if err != nil {
		return err
	}
	defer e.Close()
	cfg := linDefaultConfig()
	cfg.exec = e
	s := linStress("killmatrix", cfg, new(linStats))
	s.Deadline = 20 * time.Second
	return s.FirstFailure(cfg.histories)
}

// TestKillMatrixCell is one cell, run only as a child of TestKillMatrix.
func TestKillMatrixCell(t *testing.T) { killmatrix.Cell(t, killConfig) }

func TestKillMatrix(t *testing.T) { killmatrix.Run(t, killConfig) }
