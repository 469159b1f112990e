//go:build schedcheck

package explore_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// spinsForever is a grab that retries forever: T0 CASes a cell from 1,
// which nobody ever stores, counting its tries and yielding between them
// as a polite spin loop does; T1 does one store. No schedule lets T0 end.
// The count it writes keeps the spin from looking like a livelock (an
// iteration that changes nothing, TestSpinLivelockIsReported), so it runs
// into the step limit.
func spinsForever() explore.Run {
	var c, tries atomicx.Uint32
	explore.Name(&c, "c")
	return explore.Run{Threads: []func(){
		func() {
			for !c.CompareAndSwap(1, 2) {
				tries.Add(1)
				atomicx.Sleep(0)
			}
		},
		func() { c.Store(3) },
	}}
}

// TestSpinForeverHitsTheStepLimit: every mode ends an execution that spins
// forever at MaxSteps, as a failure naming its schedule.
func TestSpinForeverHitsTheStepLimit(t *testing.T) {
	for _, opts := range []explore.Options{
		{Name: "spin-forever-dfs"},
		{Name: "spin-forever-random", Mode: explore.Random, Seed: 1},
		{Name: "spin-forever-pct", Mode: explore.PCT, Seed: 1},
		{Name: "spin-forever-bytes", Mode: explore.Bytes, Decisions: []byte{1, 0, 7}},
	} {
		opts.MaxSteps = 300
		res, err := explore.Explore(opts, spinsForever)
		require.NoError(t, err)
		require.NotNil(t, res.Failure, opts.Name)
		f := res.Failure
		assert.ErrorIs(t, f.Err, explore.ErrStepLimit, opts.Name)
		assert.Len(t, f.Trace, 300, opts.Name)
		report := f.String()
		assert.Contains(t, report, "T0 cas c failed", opts.Name)
		assert.Contains(t, report, "replay: SCHEDKIT_REPLAY='"+f.ReplayKey()+"'", opts.Name)
	}
}

// TestSpinForeverHitsTheDeadline: with a step budget too large to reach,
// the wall-clock deadline ends the exploration as inconclusive
// (Result.Incomplete, not Result.Failure: no bug was shown), with the
// schedule and trace of the execution in progress and the replay line.
func TestSpinForeverHitsTheDeadline(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "spin-deadline", MaxSteps: 1 << 40, Deadline: 50 * time.Millisecond}, spinsForever)
	require.NoError(t, err)
	assert.Nil(t, res.Failure)
	require.NotNil(t, res.Incomplete)
	assert.Contains(t, res.Summary(), "inconclusive")
	f := res.Incomplete
	assert.ErrorIs(t, f.Err, explore.ErrDeadline)
	assert.ErrorContains(t, f.Err, "past its Deadline of 50ms")
	assert.NotEmpty(t, f.Trace)
	assert.NotEqual(t, "-", f.Schedule)
	report := f.String()
	assert.Contains(t, report, "T0 cas c failed")
	assert.Contains(t, report, "replay: SCHEDKIT_REPLAY='spin-deadline:")
}

// TestDeadlineCutsALongExploration: an exploration too big for its deadline
// stops, between executions or inside one, instead of running on, and says
// it is incomplete.
func TestDeadlineCutsALongExploration(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "too-big", Bound: explore.Unbounded, Deadline: 20 * time.Millisecond}, independent(3, 12))
	require.NoError(t, err)
	assert.Nil(t, res.Failure)
	require.NotNil(t, res.Incomplete)
	assert.ErrorIs(t, res.Incomplete.Err, explore.ErrDeadline)
	assert.False(t, res.Complete)
	t.Log(res.Summary())
}

// TestNegativeDeadlineIsRefused: a negative Deadline is a bad option.
func TestNegativeDeadlineIsRefused(t *testing.T) {
	_, err := explore.Explore(explore.Options{Deadline: -time.Second}, independent(1, 1))
	assert.ErrorContains(t, err, "negative")
}

// hangEnv makes TestHangingCheckIsReportedByTheWatchdog's child run the
// scenario whose Check never returns.
const hangEnv = "EXPLORE_TEST_HANG_CHILD"

// TestHangingCheckIsReportedByTheWatchdog: a Check that blocks forever keeps
// the explorer from reporting; the watchdog then ends the process naming the
// exploration, where it was (the execution and its schedule) and every
// goroutine's stack. It runs in a child process, which it must crash.
func TestHangingCheckIsReportedByTheWatchdog(t *testing.T) {
	if os.Getenv(hangEnv) == "1" {
		defer explore.SetBackstop(50 * time.Millisecond)()
		block := make(chan struct{})
		explore.Explore(explore.Options{Name: "hang-check", Deadline: 50 * time.Millisecond}, func() explore.Run {
			r := lostUpdate(true)()
			r.Check = func() error { <-block; return nil }
			return r
		})
		t.Fatal("Explore returned although its Check blocks forever")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHangingCheckIsReportedByTheWatchdog$", "-test.count=1")
	cmd.Env = append(os.Environ(), hangEnv+"=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the child must crash:\n%s", out)
	s := string(out)
	for _, want := range []string{
		"watchdog: explore hang-check did not finish within 100ms",
		"diagnosis: in Check of execution 1, schedule 0.1",
		"goroutines:",
	} {
		assert.True(t, strings.Contains(s, want), "child output lacks %q:\n%s", want, s)
	}
}

// deadlineTB is a test whose binary's -timeout is near.
type deadlineTB struct {
	*recordingTB
	at time.Time
}

func (d deadlineTB) Deadline() (time.Time, bool) { return d.at, true }

// TestCheckKeepsWithinTheTestDeadline: with no Deadline of its own, Check
// fails the exploration before the test binary's -timeout would, with the
// schedule in progress.
func TestCheckKeepsWithinTheTestDeadline(t *testing.T) {
	rec := &recordingTB{TB: t}
	tb := deadlineTB{recordingTB: rec, at: time.Now().Add(100 * time.Millisecond)}
	func() {
		defer func() { _ = recover() }() // rec.Fatalf panics
		explore.Check(tb, explore.Options{Name: "near-timeout", MaxSteps: 1 << 40}, spinsForever)
	}()
	msg := strings.Join(rec.fatal, "\n")
	assert.Contains(t, msg, "inconclusive, not a bug found")
	assert.Contains(t, msg, "deadline passed")
	assert.Contains(t, msg, "SCHEDKIT_REPLAY='near-timeout:")
}
