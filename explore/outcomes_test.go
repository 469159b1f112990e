//go:build schedcheck

package explore_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// casCounter: n threads increment c with a CAS loop; a thread whose CAS
// fails reports "retried" (the race the scenario is about), and the outcome
// labels the final count.
func casCounter(n int) func() explore.Run {
	return func() explore.Run {
		var c atomicx.Uint32
		inc := func() {
			for {
				v := c.Load()
				if c.CompareAndSwap(v, v+1) {
					return
				}
				explore.Reached("retried")
			}
		}
		threads := make([]func(), n)
		for i := range threads {
			threads[i] = inc
		}
		return explore.Run{Threads: threads, Outcome: func() string { return fmt.Sprintf("c=%d", c.Load()) }}
	}
}

// lostUpdateOutcome: two load-then-store increments; the outcome is the count.
func lostUpdateOutcome() explore.Run {
	var c atomicx.Uint32
	inc := func() { c.Store(c.Load() + 1) }
	return explore.Run{Threads: []func(){inc, inc}, Outcome: func() string { return fmt.Sprintf("c=%d", c.Load()) }}
}

// TestOutcomesCountEachLabel: of the 6 interleavings of two load-store
// increments, the 2 serial ones count 2 and the 4 others lose an update;
// DPOR runs one execution per class of equivalent ones: 2 serial, 2 lossy.
func TestOutcomesCountEachLabel(t *testing.T) {
	res := explore.Check(t, explore.Options{Name: "outcomes-dfs", Bound: explore.Unbounded}, lostUpdateOutcome)
	assert.Equal(t, map[string]int{"c=1": 4, "c=2": 2}, res.Outcomes)
	assert.Equal(t, "outcomes: 4 c=1, 2 c=2", res.OutcomeTable())

	res = explore.Check(t, explore.Options{Name: "outcomes-dpor", Mode: explore.DPOR}, lostUpdateOutcome)
	assert.Equal(t, map[string]int{"c=1": 2, "c=2": 2}, res.Outcomes)

	res = explore.Check(t, explore.Options{Name: "outcomes-cas", Bound: explore.Unbounded}, casCounter(2))
	assert.Equal(t, res.Executions, res.Outcomes["c=2"], "every execution ends at 2")
	assert.Positive(t, res.Outcomes["retried"])
	assert.Less(t, res.Outcomes["retried"], res.Executions, "an execution counts a label once, and serial ones never retry")
}

// TestMustReachFailsWhenNoExecutionGetsThere: a CAS loop without preemption
// never retries, so requiring the retry fails, and says so; with the
// default bound it is reached and passes.
func TestMustReachFailsWhenNoExecutionGetsThere(t *testing.T) {
	opts := explore.Options{Name: "must-reach", Bound: explore.NoPreemption, MustReach: []string{"c=2", "retried", "c=3"}}
	res, err := explore.Explore(opts, casCounter(2))
	require.NoError(t, err)
	require.Nil(t, res.Failure)
	assert.Equal(t, []string{"retried", "c=3"}, res.Unreached)
	assert.Contains(t, res.Summary(), `unreached ["retried" "c=3"]`)
	require.Error(t, res.UnreachedError())
	assert.Contains(t, res.UnreachedError().Error(), `no execution reached ["retried" "c=3"] in 2 executions`)

	ft := &fatalT{TB: t}
	ft.run(func() { explore.Check(ft, opts, casCounter(2)) })
	assert.True(t, ft.failed, "Check passed a scenario that never reached its MustReach states")
	assert.Contains(t, ft.msg, "no execution reached")

	opts.Bound, opts.MustReach = 0, []string{"c=2", "retried"}
	res = explore.Check(t, opts, casCounter(2))
	assert.Empty(t, res.Unreached)
	assert.NoError(t, res.UnreachedError())

	// A search cut short says the state may lie beyond it.
	res, err = explore.Explore(explore.Options{Name: "must-reach-cut", Bound: explore.Unbounded, MaxExecutions: 1, MustReach: []string{"retried"}}, casCounter(2))
	require.NoError(t, err)
	assert.Equal(t, []string{"retried"}, res.Unreached)
	assert.Contains(t, res.UnreachedError().Error(), "not complete")
}

// TestReachedOutsideAnExplorationDoesNothing: code may call Reached anywhere.
func TestReachedOutsideAnExplorationDoesNothing(t *testing.T) {
	assert.NotPanics(t, func() { explore.Reached("anything") })
}

// TestOutcomePanicFails: a panicking Outcome is the execution's failure.
func TestOutcomePanicFails(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "outcome-panics"}, func() explore.Run {
		return explore.Run{Threads: []func(){func() {}}, Outcome: func() string { panic("no label") }}
	})
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	assert.ErrorContains(t, res.Failure.Err, "Check panicked: no label")
}

// fatalT records a Fatal instead of failing the test.
type fatalT struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fatalT) Helper()             {}
func (f *fatalT) Log(...any)          {}
func (f *fatalT) Logf(string, ...any) {}
func (f *fatalT) Fatal(args ...any)   { f.fail(fmt.Sprint(args...)) }
func (f *fatalT) Fatalf(format string, args ...any) {
	f.fail(fmt.Sprintf(format, args...))
}

func (f *fatalT) fail(msg string) {
	f.failed, f.msg = true, strings.TrimSpace(msg)
	runtime.Goexit()
}

// run calls fn on its own goroutine, so that Fatal can end it.
func (f *fatalT) run(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
}
