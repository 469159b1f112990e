//go:build schedmutant

package runnext_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/runnext"
)

// Bar item 8: every seeded mutation of runnext (runnext/mutation.go) against
// every checker, through internal/killmatrix: each cell runs in a child
// process, because a mutant may crash a harness or spin forever. The
// explorer's DFS, the rapid model (its seed fixed by proptest) and the fixed
// scenarios give the same verdict on every run and count towards the two
// kills a mutant needs; stress and the histories of real goroutines depend
// on the machine's timing and are shown as extras, as TLC is.
//
// Run it with go test -tags schedcheck,schedmutant -run '^TestKillMatrix$' ./runnext/
// (without schedcheck the explorer column reads n/a).

// killConfig is runnext's matrix: its mutations against TLC's Runnext
// mutants and the four Go checkers, each run against the real queue with
// the mutation selected.
var killConfig = killmatrix.Config{
	Component: "runnext",
	CellTest:  "TestKillMatrixCell",
	// Under -short a mutant's expected killers run first: the explorer
	// reaches these only after every shape before their own.
	Killers: map[string][]string{
		"DisplacedDropped":    {"model", "scenarios"},
		"GetTreatsOneAsEmpty": {"model", "scenarios"},
	},
	Spec:      "Runnext",
	TLADir:    "../proofs/tla",
	Mutations: runnext.Mutations(),
	Set:       runnext.SetMutation,
	Checkers: []killmatrix.Checker{
		{Name: "explorer", Run: killByExplorer, Deterministic: true, RealCodeElsewhere: true},
		{Name: "model", Run: killByModel, Deterministic: true},
		{Name: "scenarios", Run: killByScenarios, Deterministic: true},
		{Name: "stress", Run: killByStress},
		{Name: "linearize", Run: killByLinearize},
	},
	// The explorer's cell runs every short scenario on the real queue: about
	// 10 s alone, several times that on a loaded 2-core machine.
	Timeout: 3 * time.Minute,
}

// killByScenarios runs the fixed scenarios (scenarios_test.go), each aimed
// at one mutant's shape; the pinned races need -tags schedcheck.
func killByScenarios(t *testing.T) error { return runScenarios(t) }

func killByExplorer(t *testing.T) error {
	if _, err := explore.Explore(explore.Options{}, func() explore.Run { return explore.Run{} }); errors.Is(err, explore.ErrNoSchedcheck) {
		return killmatrix.ErrNotApplicable
	}
	// Empty across a Put first: a second (about 0.5 s), where the rest take 20.
	res, err := explore.Explore(emptyAcrossPutOptions, emptyAcrossPutRun)
	if err != nil {
		return err
	}
	if res.Failure != nil {
		return errors.New(res.Failure.String())
	}
	if err := exploreSlots(t); err != nil { // Slot.Put, Take and Steal alone, where no seq hides a fill
		return err
	}
	return exploreRunnext(t)
}

func killByModel(t *testing.T) error {
	var stats modelStats
	rec := expectFailure(t, func(rt *rapid.T) { checkRunnextModel(rt, newRealQ, &stats) })
	if rec.Failed() {
		return errors.New(rec.FirstError())
	}
	return nil
}

// killByStress runs the mixed workload 3 times, the runnext-heavy one, where
// the owner and thieves race for the runnext task, 10 times, and the
// never-empty check of Empty 10 times.
func killByStress(*testing.T) error {
	for seed := range uint64(10) {
		cfg := stressConfig{items: 50_000, thieves: heavyThieves, seed: seed, newQueue: newRealQ, nextHeavy: true}
		if seed < 3 {
			cfg.thieves, cfg.nextHeavy = stressThieves, false
			if err := checkExactlyOnce(runStress(cfg).counts); err != nil {
				return err
			}
			cfg.thieves, cfg.nextHeavy = heavyThieves, true
		}
		if err := checkExactlyOnce(runStress(cfg).counts); err != nil {
			return err
		}
	}
	for range 10 {
		res := runNeverEmpty(50_000, 2, newRealQ)
		if err := checkExactlyOnce(res.counts); err != nil {
			return err
		}
		if res.lies > 0 {
			return fmt.Errorf("Empty said true %d times of %d on a queue that was never empty", res.lies, res.calls)
		}
	}
	return nil
}

func killByLinearize(t *testing.T) error {
	cfg := linDefaultConfig()
	cfg.histories = 300
	cfg.seed = 1
	var st linStats
	decided := 0
	for h := range cfg.histories {
		_, err := runLinHistory(fmt.Sprintf("%s-h%d", t.Name(), h), cfg, h, &st)
		if errors.Is(err, linearize.ErrInconclusive) {
			continue // neither a kill nor a pass
		}
		if err != nil {
			return err
		}
		decided++
	}
	if decided == 0 {
		return fmt.Errorf("%w: none of %d histories decided", killmatrix.ErrNotApplicable, cfg.histories)
	}
	return nil
}

// TestKillMatrixCell is one cell, run only as a child of TestKillMatrix.
func TestKillMatrixCell(t *testing.T) { killmatrix.Cell(t, killConfig) }

func TestKillMatrix(t *testing.T) { killmatrix.Run(t, killConfig) }
