//go:build schedcheck

package explore_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/explore"
)

// outcomes explores prog (see program) and returns every distinct
// observable outcome: what each thread read, and the cells' final values.
func outcomes(t *rapid.T, prog [][]progOp, opts explore.Options) (map[string]int, explore.Result) {
	res, err := explore.Explore(opts, program(prog))
	require.NoError(t, err)
	require.Nil(t, res.Failure)
	return res.Outcomes, res
}

// TestReductionKeepsEveryOutcome: on random programs, DFS with sleep sets
// reaches exactly the outcomes and end states of the full unbounded DFS, and a bounded DFS
// reaches a subset of them.
func TestReductionKeepsEveryOutcome(t *testing.T) {
	var full, reduced, schedules int
	rapid.Check(t, func(rt *rapid.T) {
		prog := genProgram(rt, progKinds, 4)
		all, resAll := outcomes(rt, prog, explore.Options{Name: "prog-full", Bound: explore.Unbounded})
		red, resRed := outcomes(rt, prog, explore.Options{Name: "prog-reduced", Bound: explore.Unbounded, Reduce: true})
		bounded, _ := outcomes(rt, prog, explore.Options{Name: "prog-bound1", Bound: 1})
		full += resAll.Executions
		schedules += resAll.Schedules
		reduced += resRed.Executions
		assert.Equal(rt, slices.Sorted(maps.Keys(all)), slices.Sorted(maps.Keys(red)), "reduction lost an outcome")
		assert.LessOrEqual(rt, resRed.Schedules, resAll.Schedules)
		assert.Equal(rt, [2]uint64{uint64(resAll.States), resAll.StateHash}, [2]uint64{uint64(resRed.States), resRed.StateHash}, "reduction lost an end state")
		for o := range bounded {
			assert.NotZero(rt, all[o], "bounded DFS reached an outcome the full one did not: %s", o)
		}
	})
	t.Logf("explore random-programs: %d executions, %d schedules, bound -1 (full DFS of every program; %d executions with reduction)", full, schedules, reduced)
}
