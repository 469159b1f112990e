//go:build schedmutant

package netpoll_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/netpoll"
)

// Bar item 8: every seeded mutation of the poll descriptor, its table and
// its breaker (netpoll/mutation.go) against every checker, through
// internal/killmatrix: each cell runs in a child process, so a mutant that
// leaves a waiter parked for ever in a harness outside the explorer is
// counted as hung without taking the parent down.
//
// Run it with go test -tags schedcheck,schedmutant -run '^TestKillMatrix$' ./netpoll/
// (without schedcheck the explorer column reads n/a).

var killConfig = killmatrix.Config{
	Component: "netpoll",
	CellTest:  "TestKillMatrixCell",
	Spec:      "PollDesc",
	TLADir:    "../proofs/tla",
	Mutations: netpoll.Mutations(),
	Set:       netpoll.SetMutation,
	// The explorer, the model and the scenarios carry the two kills; the
	// stress run is an extra.
	Checkers: killmatrix.Ladder{
		Explorer: killByExplorer, Model: killByModel, Scenarios: killByScenarios,
		Stress: killByStress,
	}.Checkers(),
	// Under -short each mutant's killers run first. The stepped waiters of
	// the model reach the window between Wait and the commit, but not a
	// Close stopped halfway, one that fits between Wait's first check and
	// its publication, or two unblocks interleaved: those three need the
	// explorer.
	Killers: map[string][]string{
		"CommitNoCAS":             {"model", "scenarios"},
		"EventLostOnWait":         {"model", "scenarios"},
		"ParkSkipsErrRecheck":     {"scenarios", "explorer"},
		"CloseWakesBeforePublish": {"scenarios", "explorer"},
		"ExpireIgnoresSeq":        {"model", "scenarios"},
		"LookupIgnoresGen":        {"model", "scenarios"},
		"DrainedNeverRearms":      {"model", "scenarios"},
		"BreakAlwaysSkips":        {"model", "scenarios"},
		"UnblockNoCAS":            {"scenarios", "explorer"},
	},
}

func killByScenarios(t *testing.T) error { return runScenarios(t) }

func killByExplorer(t *testing.T) error {
	return killmatrix.ByExplorer(func() error { return exploreNetpoll(t) })
}

func killByModel(t *testing.T) error {
	var stats modelStats
	return killmatrix.ByModel(t, func(rt *rapid.T) { checkPollModel(rt, &stats) })
}

// killByStress runs the stress short: two seeds of 5,000 events.
func killByStress(*testing.T) error {
	for seed := range uint64(2) {
		if err := checkPollStress(runPollStress(5_000, seed)); err != nil {
			return err
		}
	}
	return nil
}

// TestKillMatrixCell is one cell, run only as a child of TestKillMatrix.
func TestKillMatrixCell(t *testing.T) { killmatrix.Cell(t, killConfig) }

func TestKillMatrix(t *testing.T) { killmatrix.Run(t, killConfig) }
