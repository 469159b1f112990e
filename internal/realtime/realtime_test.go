package realtime

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/internal/watchdog"
)

func TestJudge(t *testing.T) {
	c := Check{Bound: 100 * time.Millisecond} // stall limit 50ms
	healthy, stalled := Health{MaxGap: 2 * time.Millisecond}, Health{MaxGap: 80 * time.Millisecond}
	for _, tc := range []struct {
		s    Sample
		h    Health
		want Verdict
	}{
		{Sample{Measured: 10 * time.Millisecond}, healthy, Pass},
		{Sample{Measured: 100 * time.Millisecond}, healthy, Pass},
		{Sample{Measured: 10 * time.Millisecond}, stalled, Pass}, // a stall cannot make a late task early
		{Sample{Measured: 101 * time.Millisecond}, healthy, Fail},
		{Sample{Measured: time.Second}, Health{MaxGap: 50 * time.Millisecond}, Fail},
		{Sample{Measured: time.Second}, stalled, Inconclusive},
		{Sample{Err: errors.New("lost")}, healthy, Fail},
		{Sample{Err: errors.New("lost")}, stalled, Fail},
		// Threads kept off a CPU as long as the excess: inconclusive.
		{Sample{Measured: 150 * time.Millisecond}, Health{MaxGap: time.Millisecond, Stolen: 50 * time.Millisecond}, Inconclusive},
		{Sample{Measured: 150 * time.Millisecond}, Health{MaxGap: time.Millisecond, Stolen: 49 * time.Millisecond}, Fail},
	} {
		assert.Equal(t, tc.want, c.Judge(tc.s, tc.h), "%+v beside %+v", tc.s, tc.h)
	}
	c.Stall = 10 * time.Millisecond
	assert.Equal(t, Inconclusive, c.Judge(Sample{Measured: time.Second}, Health{MaxGap: 11 * time.Millisecond}))
}

// TestTickerSeesTicks: a ticker left alone ticks and its gaps stay near
// its period (up to a generous 1s on a loaded machine).
func TestTickerSeesTicks(t *testing.T) {
	tk := StartTicker(time.Millisecond)
	time.Sleep(30 * time.Millisecond)
	h := tk.Stop()
	assert.Positive(t, h.Ticks)
	assert.Less(t, h.MaxGap, time.Second)
	assert.Equal(t, h, tk.Stop(), "a second Stop changes nothing")
	assert.Panics(t, func() { StartTicker(0) })
}

// stallTicker stops tk's goroutine from ticking for d.
func stallTicker(tk *Ticker, d time.Duration) { tk.stall <- d }

// TestStalledTickerIsInconclusive: a round over the bound during which the
// ticker stalled is inconclusive and retried; the retry, healthy and in
// bound, passes the check.
func TestStalledTickerIsInconclusive(t *testing.T) {
	c := Check{Name: "stall", Bound: 20 * time.Millisecond, Rounds: 1, Retries: 2}
	round := 0
	r := c.run(func(tk *Ticker) Sample {
		round++
		if round == 1 {
			stallTicker(tk, 3*c.Bound)
			time.Sleep(4 * c.Bound) // the stall ends before the round does
			return Sample{Measured: 4 * c.Bound}
		}
		return Sample{Measured: time.Millisecond}
	})
	require.Equal(t, Pass, r.Verdict, "%v", r)
	require.Len(t, r.Rounds, 2)
	assert.Equal(t, Inconclusive, r.Rounds[0].Verdict, "%v", r.Rounds[0])
	assert.GreaterOrEqual(t, r.Rounds[0].Health.MaxGap, 3*c.Bound)
	assert.Equal(t, Pass, r.Rounds[1].Verdict)
	assert.Contains(t, r.String(), "realtime stall: 1 rounds passed")
}

// TestRunSkipsWhenInconclusiveTooOften: past Retries inconclusive rounds
// the check is inconclusive, and Apply skips with the reason.
func TestRunSkipsWhenInconclusiveTooOften(t *testing.T) {
	c := Check{Name: "loaded", Bound: 10 * time.Millisecond, Rounds: 3, Retries: 2}
	r := c.run(func(tk *Ticker) Sample {
		stallTicker(tk, 2*c.Bound)
		time.Sleep(3 * c.Bound)
		return Sample{Measured: 3 * c.Bound}
	})
	require.Equal(t, Inconclusive, r.Verdict, "%v", r)
	assert.Len(t, r.Rounds, 3, "two retries, then the third inconclusive round ends the check")
	tb := &fakeTB{}
	r.Apply(tb)
	require.Len(t, tb.skipped, 1)
	assert.Contains(t, tb.skipped[0], "inconclusive: 3 rounds over the bound 10ms while the health ticker itself stalled")
	assert.Empty(t, tb.errors)
}

// TestRunFailsAViolation: a round over the bound with the ticker healthy
// fails the check at once, and Apply names the measurement and the gap.
func TestRunFailsAViolation(t *testing.T) {
	// A slow ticker: few wakeups, so little time waiting for a CPU.
	c := Check{Name: "slow", Bound: 5 * time.Millisecond, Rounds: 5, Stall: time.Second, Period: 20 * time.Millisecond}
	calls := 0
	r := c.Run(func(int) Sample {
		calls++
		if calls == 2 {
			time.Sleep(300 * time.Millisecond) // a real violation: the ticker keeps ticking
			return Sample{Measured: 300 * time.Millisecond, Note: "late"}
		}
		return Sample{Measured: time.Millisecond}
	})
	require.Equal(t, Fail, r.Verdict, "%v", r)
	assert.Equal(t, 2, calls, "the check stops at its first failure")
	tb := &fakeTB{}
	r.Apply(tb)
	require.Len(t, tb.errors, 1)
	assert.Contains(t, tb.errors[0], "FAIL: measured 300ms, over the bound 5ms while the health ticker's largest gap was")
	assert.Contains(t, tb.errors[0], "round 1: FAIL: measured 300ms")
	assert.Contains(t, tb.errors[0], "; late")

	r = c.Run(func(int) Sample { return Sample{Err: errors.New("a task ran twice")} })
	tb = &fakeTB{}
	r.Apply(tb)
	require.Len(t, tb.errors, 1)
	assert.Contains(t, tb.errors[0], "FAIL: a task ran twice")
	assert.Panics(t, func() { Check{}.Run(func(int) Sample { return Sample{} }) })
}

func TestApply(t *testing.T) {
	c := Check{Name: "fine", Bound: time.Second, Rounds: 3}
	r := c.Run(func(int) Sample { return Sample{Measured: time.Millisecond} })
	tb := &fakeTB{}
	r.Apply(tb)
	assert.Empty(t, tb.errors)
	assert.Empty(t, tb.skipped)
	require.Len(t, tb.logs, 1)
	assert.Contains(t, tb.logs[0], "realtime fine: 3 rounds passed (worst 1ms, bound 1s), 0 inconclusive, 0 failed")
	assert.Equal(t, 10*time.Second, c.GiveUp())
	assert.Equal(t, "pass FAIL inconclusive Verdict(7)", fmt.Sprint(Pass, Fail, Inconclusive, Verdict(7)))
}

// TestProcessStallIsInconclusive stops the whole process (SIGSTOP, from a
// shell that sends SIGCONT 300ms later), as a loaded machine would: the
// round measures the stall, and the ticker sees it too.
func TestProcessStallIsInconclusive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("stops the process with kill -STOP: linux only")
	}
	stop := watchdog.Start("realtime process stall (a shell stops and continues the test process)", time.Minute, nil)
	defer stop()
	c := Check{Name: "stopped", Bound: 50 * time.Millisecond, Rounds: 1, Retries: -1}
	pid := strconv.Itoa(os.Getpid())
	r := c.Run(func(int) Sample {
		start := time.Now()
		cmd := exec.Command("sh", "-c", "(sleep 0.3; kill -CONT "+pid+") & kill -STOP "+pid+"; wait")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return Sample{Err: fmt.Errorf("the shell: %v: %s", err, out)}
		}
		return Sample{Measured: time.Since(start)}
	})
	require.Len(t, r.Rounds, 1)
	if r.Rounds[0].Err != nil {
		t.Skipf("cannot stop this process: %v", r.Rounds[0].Err)
	}
	assert.Equal(t, Inconclusive, r.Verdict, "%v", r)
	assert.GreaterOrEqual(t, r.Rounds[0].Health.MaxGap, 250*time.Millisecond)
}

// TestStolenTimeIsSeen: beside busy children on every core and twice
// over, a round whose goroutines compute on every Go P waits for a CPU,
// and the round's health says so.
func TestStolenTimeIsSeen(t *testing.T) {
	if runDelays() == nil {
		t.Skip("no /proc/self/task/*/schedstat here")
	}
	stop := watchdog.Start("realtime stolen time (busy children beside a computing round)", time.Minute, nil)
	defer stop()
	busy, err := Contend(2*min(runtime.NumCPU(), 8), 30*time.Second) // with the spinners below, more threads than cores
	require.NoError(t, err)
	defer busy.Stop()
	c := Check{Name: "busy", Bound: time.Second}
	round := c.Measure(func() Sample {
		done := make(chan struct{})
		for range runtime.GOMAXPROCS(0) {
			go func() {
				spinUntil(time.Now().Add(300 * time.Millisecond))
				done <- struct{}{}
			}()
		}
		for range runtime.GOMAXPROCS(0) {
			<-done
		}
		return Sample{}
	})
	assert.Greater(t, round.Health.Stolen, 10*time.Millisecond, "%v", round)
	assert.Equal(t, time.Duration(0), stolen(nil, map[string]int64{"1": 5}))
	assert.Equal(t, time.Duration(7), stolen(map[string]int64{"1": 5, "2": 1}, map[string]int64{"1": 9, "2": 8, "3": 6}), "the longest, not the sum")
}

func spinUntil(end time.Time) {
	for time.Now().Before(end) {
	}
}

// TestContend: the children say they loop, burn CPU time, and are gone
// after Stop.
func TestContend(t *testing.T) {
	stop := watchdog.Start("realtime busy children", time.Minute, nil)
	defer stop()
	c, err := Contend(2, 30*time.Second)
	require.NoError(t, err)
	defer c.Stop()
	assert.Equal(t, 2, c.Len())
	time.Sleep(100 * time.Millisecond)
	c.Stop()
	c.Stop() // twice is fine
	for _, cmd := range c.cmds {
		require.NotNil(t, cmd.ProcessState, "a child was not waited for")
		assert.Positive(t, cmd.ProcessState.UserTime(), "a child burnt no CPU")
	}
	assert.Panics(t, func() { _, _ = Contend(0, time.Second) })
}

// TestBusyChildEnds: a child given a short limit exits by itself, with
// status 0; a bad limit exits with 2.
func TestBusyChildEnds(t *testing.T) {
	stop := watchdog.Start("realtime busy child's own limit", time.Minute, nil)
	defer stop()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), BusyEnv+"=50")
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Equal(t, busyReady+"\n", string(out))
	cmd = exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), BusyEnv+"=soon")
	out, err = cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.ExitCode())
	assert.True(t, strings.Contains(string(out), "want a positive number of milliseconds"), string(out))
}

// fakeTB records what Apply reports.
type fakeTB struct {
	testing.TB
	errors, skipped, logs []string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, a ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, a...))
}
func (f *fakeTB) Skipf(format string, a ...any) {
	f.skipped = append(f.skipped, fmt.Sprintf(format, a...))
}
func (f *fakeTB) Log(a ...any) { f.logs = append(f.logs, fmt.Sprint(a...)) }
