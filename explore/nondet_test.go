//go:build schedcheck

package explore_test

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// carriedAcross returns a scenario that depends on a counter kept outside
// the explorer from one execution to the next (the broken variant the
// explorer's self-check is for): its first execution fails, and when
// extraStep is set, that execution also takes a step the later ones do
// not, so its re-run leaves the schedule at a step.
func carriedAcross(extraStep bool) func() explore.Run {
	var runs atomic.Int32 // sync/atomic: outside the explorer on purpose
	return func() explore.Run {
		first := runs.Add(1) == 1
		var x atomicx.Int32
		return explore.Run{
			Threads: []func(){
				func() {
					x.Add(1)
					if first && extraStep {
						x.Add(1)
					}
				},
				func() { x.Add(10) },
			},
			Check: func() error {
				if first {
					return errors.New("the first execution fails")
				}
				return nil
			},
		}
	}
}

// TestFailureRepeatsOnItsSchedule: the explorer re-runs a failed execution
// from its recorded schedule before it reports it; one that does not repeat
// (state carried across executions outside the explorer) is reported as
// ErrNondeterministic, naming the re-run's divergence, in every mode; a
// failure that does repeat (a spin at the step limit) is reported as it
// was. Before the self-check, PCT and Random reported the first execution's
// failure with a replay key that did not replay it (taskchan's unexplained
// select-vs-two-senders-task step limit was such a report or a stale one).
func TestFailureRepeatsOnItsSchedule(t *testing.T) {
	for _, mode := range []explore.Mode{explore.PCT, explore.Random, explore.DFS} {
		for _, extra := range []bool{false, true} {
			res, err := explore.Explore(explore.Options{Name: "carried", Mode: mode, Seed: 1, MaxExecutions: 50}, carriedAcross(extra))
			require.NoError(t, err)
			require.NotNil(t, res.Failure, "mode %v", mode)
			assert.ErrorIs(t, res.Failure.Err, explore.ErrNondeterministic, "mode %v extra %v", mode, extra)
			assert.ErrorContains(t, res.Failure.Err, "nondeterminism outside the explorer: execution 1 does not repeat")
			if extra {
				assert.ErrorContains(t, res.Failure.Err, "replay diverged from its schedule", "the re-run left the schedule (at a step, or before its end)")
			} else {
				assert.ErrorContains(t, res.Failure.Err, "passed every check")
			}
			assert.Equal(t, 1, res.Executions, "the re-run counts in no tally")
		}
	}
	res, err := explore.Explore(explore.Options{Name: "spin", Mode: explore.PCT, Seed: 1, MaxSteps: 500}, spinsForever)
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	assert.ErrorIs(t, res.Failure.Err, explore.ErrStepLimit)
	assert.NotErrorIs(t, res.Failure.Err, explore.ErrNondeterministic)
}
