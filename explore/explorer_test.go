//go:build schedcheck

package explore_test

import (
	"errors"
	"fmt"
	"math/big"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// independent returns a scenario of n threads that each store k times to a
// cell of their own: no two steps interact, so every interleaving is a
// distinct schedule.
func independent(n, k int) func() explore.Run {
	return func() explore.Run {
		cells := make([]atomicx.Uint64, n)
		threads := make([]func(), n)
		for i := range threads {
			threads[i] = func() {
				for j := range k {
					cells[i].Store(uint64(j))
				}
			}
		}
		return explore.Run{Threads: threads}
	}
}

func binomial(n, k int) int { return int(new(big.Int).Binomial(int64(n), int64(k)).Int64()) }

func factorial(n int) int {
	f := 1
	for i := 2; i <= n; i++ {
		f *= i
	}
	return f
}

// TestUnboundedCountIsBinomial: two threads of k independent steps have
// C(2k, k) interleavings, and DFS without reduction runs each exactly once.
func TestUnboundedCountIsBinomial(t *testing.T) {
	for k := 1; k <= 6; k++ {
		res := explore.Check(t, explore.Options{Name: fmt.Sprintf("binomial-k%d", k), Bound: explore.Unbounded}, independent(2, k))
		assert.Equal(t, binomial(2*k, k), res.Executions, "k=%d", k)
		assert.Equal(t, res.Executions, res.Schedules, "k=%d: every execution is a distinct schedule", k)
		assert.True(t, res.Complete)
	}
}

// TestThreeThreadCountIsMultinomial: three threads of 2 steps: 6!/(2!2!2!).
func TestThreeThreadCountIsMultinomial(t *testing.T) {
	res := explore.Check(t, explore.Options{Name: "multinomial-3x2", Bound: explore.Unbounded}, independent(3, 2))
	assert.Equal(t, 90, res.Executions)
}

// TestBoundZeroCountsThreadOrders: with no preemption a thread runs until it
// ends, so there is one execution per order of the threads: n!.
func TestBoundZeroCountsThreadOrders(t *testing.T) {
	for n := 1; n <= 4; n++ {
		res := explore.Check(t, explore.Options{Name: fmt.Sprintf("orders-n%d", n), Bound: explore.NoPreemption}, independent(n, 3))
		assert.Equal(t, factorial(n), res.Executions, "n=%d", n)
		assert.Equal(t, 0, res.Bound)
	}
}

// TestBoundedCountMatchesFormula: for two threads of k steps, a schedule of m
// alternating runs has m-2 preemptions (only the switch after the run that
// finishes the first thread to end is free), so bound b admits the schedules
// of 2 to b+2 runs: sum over m of 2·C(k-1, ⌈m/2⌉-1)·C(k-1, ⌊m/2⌋-1).
func TestBoundedCountMatchesFormula(t *testing.T) {
	want := func(k, b int) int {
		total := 0
		for m := 2; m <= b+2 && m <= 2*k; m++ {
			total += 2 * binomial(k-1, (m+1)/2-1) * binomial(k-1, m/2-1)
		}
		return total
	}
	for _, k := range []int{2, 3, 4} {
		for _, b := range []int{1, 2, 3} {
			res := explore.Check(t, explore.Options{Name: fmt.Sprintf("bounded-k%d-b%d", k, b), Bound: b}, independent(2, k))
			assert.Equal(t, want(k, b), res.Executions, "k=%d bound=%d", k, b)
		}
	}
}

// TestReductionCollapsesIndependentThreads: with sleep sets, threads that
// share nothing have one complete schedule; each branch DFS opens is cut as
// soon as it can only repeat it.
func TestReductionCollapsesIndependentThreads(t *testing.T) {
	for k := 1; k <= 6; k++ {
		res := explore.Check(t, explore.Options{Name: fmt.Sprintf("reduced-k%d", k), Bound: explore.Unbounded, Reduce: true}, independent(2, k))
		assert.Equal(t, 1, res.Schedules)
		assert.Equal(t, k+1, res.Executions)
		assert.Equal(t, k, res.Pruned)
	}
}

func schedules(t *testing.T, opts explore.Options, build func() explore.Run) []string {
	var got []string
	opts.Visit = func(s string) { got = append(got, s) }
	res, err := explore.Explore(opts, build)
	require.NoError(t, err)
	require.Nil(t, res.Failure)
	t.Log(res.Summary())
	require.Len(t, got, res.Executions-res.Pruned)
	return got
}

// TestDeterministic: the same options give the same executions in the same
// order, in every mode.
func TestDeterministic(t *testing.T) {
	for _, m := range modes {
		opts := m.opts
		opts.Name = "determinism/" + m.name
		first := schedules(t, opts, checkThenAct(true))
		second := schedules(t, opts, checkThenAct(true))
		assert.Equal(t, first, second, m.name)
	}
	a := schedules(t, explore.Options{Name: "seed1", Mode: explore.Random, Seed: 1, MaxExecutions: 50}, checkThenAct(true))
	b := schedules(t, explore.Options{Name: "seed2", Mode: explore.Random, Seed: 2, MaxExecutions: 50}, checkThenAct(true))
	assert.NotEqual(t, a, b, "another seed walks elsewhere")
}

// TestReplayReproducesTheFailure: the printed schedule, given as Replay or in
// SCHEDKIT_REPLAY, runs one execution that fails the same way.
func TestReplayReproducesTheFailure(t *testing.T) {
	cases := map[string]func() explore.Run{
		"lostupdate":   lostUpdate(false),
		"checkthenact": checkThenAct(false),
		"abba":         abba(false),
		"lostwakeup":   lostWakeup(false),
		"panic":        panicsOnRace,
	}
	for name, build := range cases {
		for _, m := range modes {
			opts := m.opts
			opts.Name = "replay-" + name
			res, err := explore.Explore(opts, build)
			require.NoError(t, err)
			require.NotNil(t, res.Failure, name)
			f := res.Failure

			again, err := explore.Explore(explore.Options{Name: opts.Name, Replay: f.Schedule}, build)
			require.NoError(t, err)
			t.Log(again.Summary())
			assert.True(t, again.Replayed)
			assert.Equal(t, 1, again.Executions)
			require.NotNil(t, again.Failure, "%s/%s: replay of %s passed", name, m.name, f.Schedule)
			assert.Equal(t, f.Err.Error(), again.Failure.Err.Error())
			assert.Equal(t, f.Schedule, again.Failure.Schedule)
			assert.Equal(t, f.Trace, again.Failure.Trace)
		}
	}
}

func TestReplayFromEnvironment(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "env"}, lostUpdate(false))
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	assert.Equal(t, "env:"+res.Failure.Schedule, res.Failure.ReplayKey())
	assert.Contains(t, res.Failure.String(), "SCHEDKIT_REPLAY='env:"+res.Failure.Schedule+"'")

	t.Setenv(explore.ReplayEnv, res.Failure.ReplayKey())
	again, err := explore.Explore(explore.Options{Name: "env"}, lostUpdate(false))
	require.NoError(t, err)
	t.Log(again.Summary())
	assert.True(t, again.Replayed)
	assert.Equal(t, 1, again.Executions)
	require.NotNil(t, again.Failure)
	assert.Equal(t, res.Failure.Trace, again.Failure.Trace)

	other, err := explore.Explore(explore.Options{Name: "other"}, lostUpdate(true))
	require.NoError(t, err)
	assert.False(t, other.Replayed, "a key for another scenario does not apply")

	t.Setenv(explore.ReplayEnv, "1.0") // a bare schedule applies to every scenario
	bare, err := explore.Explore(explore.Options{Name: "other"}, lostUpdate(true))
	require.NoError(t, err)
	assert.True(t, bare.Replayed)
	assert.Nil(t, bare.Failure, "the fixed counter passes on that schedule")
	bare, err = explore.Explore(explore.Options{Name: "other2"}, lostUpdate(false))
	require.NoError(t, err)
	assert.True(t, bare.Replayed)
	require.NotNil(t, bare.Failure)
	assert.ErrorIs(t, bare.Failure.Err, explore.ErrReplayDiverged, "the other scenario takes more steps than the schedule has")
}

// TestReplayOfAForeignScheduleFails: a schedule that runs a thread that
// cannot run is a failure that says so.
func TestReplayOfAForeignScheduleFails(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "foreign", Replay: "0.2"}, lostUpdate(true))
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	assert.ErrorContains(t, res.Failure.Err, "the schedule runs thread 2")
	assert.ErrorIs(t, res.Failure.Err, explore.ErrReplayDiverged)
}

// panicsOnRace panics in a thread when the two threads interleave.
func panicsOnRace() explore.Run {
	var x atomicx.Int32
	explore.Name(&x, "x")
	return explore.Run{Threads: []func(){
		func() {
			x.Store(1)
			if x.Load() != 1 {
				panic("x changed under my feet")
			}
		},
		func() { x.Store(2) },
	}}
}

func TestPanicIsAFailureWithSchedule(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "panic"}, panicsOnRace)
	require.NoError(t, err)
	t.Log(res.Summary())
	require.NotNil(t, res.Failure)
	var pe *explore.PanicError
	require.ErrorAs(t, res.Failure.Err, &pe)
	assert.Equal(t, 0, pe.Thread)
	assert.Equal(t, "x changed under my feet", pe.Value)
	assert.Contains(t, pe.Stack, "panicsOnRace")
	assert.Equal(t, "0.1.0", res.Failure.Schedule)
	assert.Contains(t, res.Failure.String(), "panic stack:")
}

func TestPanicInCheckIsAFailure(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "checkpanic"}, func() explore.Run {
		return explore.Run{Threads: []func(){func() {}}, Check: func() error { panic("bad check") }}
	})
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	var pe *explore.PanicError
	require.ErrorAs(t, res.Failure.Err, &pe)
	assert.Equal(t, -1, pe.Thread)
	assert.Equal(t, "-", res.Failure.Schedule)
}

// TestPanicBeforeFirstSchedulingPoint: the failure has the empty schedule,
// and replaying it reproduces it.
func TestPanicBeforeFirstSchedulingPoint(t *testing.T) {
	build := func() explore.Run {
		return explore.Run{Threads: []func(){func() {}, func() { panic("at once") }, func() { atomicx.Nanotime() }}}
	}
	res, err := explore.Explore(explore.Options{Name: "early"}, build)
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	assert.Equal(t, "-", res.Failure.Schedule)
	again, err := explore.Explore(explore.Options{Name: "early", Replay: res.Failure.Schedule}, build)
	require.NoError(t, err)
	require.NotNil(t, again.Failure)
	assert.Equal(t, res.Failure.Err.Error(), again.Failure.Err.Error())
}

// TestThreadWithoutSchedulingPoint: a thread that touches no atomicx cell
// runs to its end at once.
func TestThreadWithoutSchedulingPoint(t *testing.T) {
	res := explore.Check(t, explore.Options{Name: "nopoint"}, func() explore.Run {
		local := 0
		var c atomicx.Uint32
		return explore.Run{
			Threads: []func(){func() { local = 42 }, func() { c.Store(1); c.Store(2) }},
			Check: func() error {
				if local != 42 || c.Load() != 2 {
					return errors.New("a thread did not run")
				}
				return nil
			},
		}
	})
	assert.Equal(t, 1, res.Executions)
}

// TestGoexitInThreadIsAFailure: t.FailNow in a thread would end its
// goroutine; the explorer says so instead of hanging.
func TestGoexitInThreadIsAFailure(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "goexit"}, func() explore.Run {
		var c atomicx.Uint32
		return explore.Run{Threads: []func(){func() { c.Load(); runtime.Goexit() }, func() { c.Store(1) }}}
	})
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	assert.ErrorContains(t, res.Failure.Err, "runtime.Goexit")
}

// TestSpinWithoutYieldHitsStepLimit: a thread spinning on a flag keeps the
// default schedule on itself forever; the step limit reports it.
func TestSpinWithoutYieldHitsStepLimit(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "spin", MaxSteps: 400}, spinner(func() {}))
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	assert.ErrorIs(t, res.Failure.Err, explore.ErrStepLimit)
	assert.Len(t, res.Failure.Trace, 400)
	report := res.Failure.String()
	assert.Contains(t, report, "... 100 earlier steps", "a long trace prints its end")
	assert.Contains(t, report, "T0 load #1 = 0   (steps 101-400: 300 times)", "a spin prints as one line")
}

// TestSpinWithYieldOrSleepTerminates: atomicx.Sleep(0) yields (the spinner is
// not run again while another thread can run), and a positive Sleep blocks
// until the virtual clock moves.
func TestSpinWithYieldOrSleepTerminates(t *testing.T) {
	for name, pause := range map[string]func(){
		"yield": func() { atomicx.Sleep(0) },
		"sleep": func() { atomicx.Sleep(time.Microsecond) },
	} {
		for label, b := range map[string]int{"nopreemption": explore.NoPreemption, "default": 0, "unbounded": explore.Unbounded} {
			explore.Check(t, explore.Options{Name: "spin-" + name + "-" + label, Bound: b, MaxSteps: 500}, spinner(pause))
		}
	}
}

func spinner(pause func()) func() explore.Run {
	return func() explore.Run {
		var flag atomicx.Bool
		var data atomicx.Uint32
		return explore.Run{
			Threads: []func(){
				func() {
					for !flag.Load() {
						pause()
					}
					if data.Load() != 7 {
						panic("flag set before data")
					}
				},
				func() { data.Store(7); flag.Store(true) },
			},
		}
	}
}

// TestNondeterminismIsReported: a scenario whose threads do different things
// on the same schedule (here: state that outlives build) is a failure.
func TestNondeterminismIsReported(t *testing.T) {
	var runs atomicx.Int32 // shared across executions: the bug in this scenario
	res, err := explore.Explore(explore.Options{Name: "nondet"}, func() explore.Run {
		var c atomicx.Uint32
		n := runs.Add(1)
		return explore.Run{Threads: []func(){
			func() {
				c.Store(1)
				if n%2 == 0 {
					var m atomicx.Mutex
					m.Lock()
					m.Unlock()
				}
				c.Store(2)
			},
			func() { c.Load() },
		}}
	})
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	assert.ErrorIs(t, res.Failure.Err, explore.ErrNondeterministic)
}

// TestStuckThreadIsReported: a thread blocked on a channel never comes back;
// the explorer reports it instead of hanging, and the thread exits once
// released.
func TestStuckThreadIsReported(t *testing.T) {
	defer explore.SetStuckAfter(50 * time.Millisecond)()
	release := make(chan struct{})
	var once sync.Once
	res, err := explore.Explore(explore.Options{Name: "stuck"}, func() explore.Run {
		var c atomicx.Uint32
		return explore.Run{Threads: []func(){
			func() { c.Store(1); once.Do(func() { <-release }); c.Store(2) },
			func() { c.Load() },
		}}
	})
	close(release)
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	var se *explore.StuckError
	require.ErrorAs(t, res.Failure.Err, &se)
	assert.Equal(t, 0, se.Thread)
}

// TestNamesInTrace: named objects print by name and field path; unnamed
// cells by order of first access; stored pointers to named objects as &name.
func TestNamesInTrace(t *testing.T) {
	type queue struct {
		head, tail atomicx.Uint32
		slots      [4]atomicx.Pointer[int]
	}
	res, err := explore.Explore(explore.Options{Name: "names", Replay: "0x6"}, func() explore.Run {
		q := new(queue)
		item := new(int)
		var a, b atomicx.Int64
		explore.Name(q, "q")
		explore.Name(item, "item")
		return explore.Run{
			Threads: []func(){func() {
				q.slots[2].Store(item)
				q.tail.Store(3)
				b.Add(-5)
				a.Load()
				b.Load()
				atomicx.Nanotime()
			}},
			Check: func() error { return errors.New("show the trace") },
		}
	})
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	var lines []string
	for _, s := range res.Failure.Trace {
		lines = append(lines, s.String())
	}
	assert.Equal(t, []string{
		"T0 store q.slots[2] ← &item",
		"T0 store q.tail ← 3",
		"T0 add #1 0 → -5",
		"T0 load #2 = 0",
		"T0 load #1 = -5",
		"T0 nanotime",
	}, lines)
	assert.Panics(t, func() { explore.Name(3, "three") })
	explore.Name(new(int), "outside") // no exploration: does nothing
}

// TestOtherGoroutinesAreNotControlled: atomicx calls from goroutines outside
// the scenario (here a concurrent counter) pass through while an exploration
// runs, and do not change what it explores.
func TestOtherGoroutinesAreNotControlled(t *testing.T) {
	var bg atomicx.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				bg.Add(1)
				atomicx.Nanotime()
			}
		}
	}()
	for bg.Load() < 100 {
		runtime.Gosched()
	}
	res := explore.Check(t, explore.Options{Name: "isolated-reduced", Bound: explore.Unbounded, Reduce: true}, independent(2, 4))
	assert.Equal(t, 5, res.Executions)
	res = explore.Check(t, explore.Options{Name: "isolated", Bound: explore.Unbounded}, independent(2, 4))
	assert.Equal(t, binomial(8, 4), res.Executions)
	close(stop)
	<-done
}

// TestParallelExplorations: explorations on parallel tests share the hook
// without mixing their threads.
func TestParallelExplorations(t *testing.T) {
	for i := range 3 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			res := explore.Check(t, explore.Options{Name: fmt.Sprintf("parallel-%d", i), Bound: explore.Unbounded}, independent(2, 4))
			assert.Equal(t, binomial(8, 4), res.Executions)
		})
	}
}

func TestBadRunsAndOptions(t *testing.T) {
	one := func() explore.Run { return explore.Run{Threads: []func(){func() {}}} }
	for name, c := range map[string]struct {
		opts  explore.Options
		build func() explore.Run
		want  string
	}{
		"no threads":      {explore.Options{}, func() explore.Run { return explore.Run{} }, "1 to 8 threads"},
		"too many":        {explore.Options{}, func() explore.Run { return explore.Run{Threads: make([]func(), 9)} }, "1 to 8 threads"},
		"nil thread":      {explore.Options{}, func() explore.Run { return explore.Run{Threads: []func(){nil}} }, "thread 0 of the Run is nil"},
		"nil build":       {explore.Options{}, nil, "nil build"},
		"reduce bounded":  {explore.Options{Reduce: true}, one, "Reduce needs"},
		"reduce random":   {explore.Options{Reduce: true, Mode: explore.Random, Bound: explore.Unbounded}, one, "Reduce needs"},
		"bad bound":       {explore.Options{Bound: -7}, one, "Bound -7"},
		"bad mode":        {explore.Options{Mode: 9}, one, "unknown Mode"},
		"negative limit":  {explore.Options{MaxSteps: -1}, one, "negative"},
		"bad replay":      {explore.Options{Replay: "0x.1"}, one, "bad count"},
		"bad replay id":   {explore.Options{Replay: "9"}, one, "bad thread"},
		"bad replay text": {explore.Options{Replay: "a.b"}, one, "bad thread"},
	} {
		_, err := explore.Explore(c.opts, c.build)
		assert.ErrorContains(t, err, c.want, name)
	}
}

func TestCheckNamesTheTestAndSummarizes(t *testing.T) {
	assert.True(t, explore.Available())
	res := explore.Check(t, explore.Options{}, independent(2, 1))
	assert.Equal(t, "TestCheckNamesTheTestAndSummarizes", res.Name)
	assert.Equal(t, "explore TestCheckNamesTheTestAndSummarizes: 2 executions, 2 schedules, bound 2, mode dfs", res.Summary())
	res = explore.Check(t, explore.Options{Name: "two words", MaxExecutions: 1}, independent(2, 1))
	assert.Equal(t, "explore two_words: 1 executions, 1 schedules, bound 2, mode dfs, incomplete (MaxExecutions)", res.Summary())
}

// TestFailureReport: Check's message has the error, the schedule, the trace
// and the command that replays it.
func TestFailureReport(t *testing.T) {
	rec := &recordingTB{TB: t}
	func() {
		defer func() { _ = recover() }() // rec.Fatalf ends the goroutine's work by panicking
		explore.Check(rec, explore.Options{Name: "report"}, lostUpdate(false))
	}()
	msg := strings.Join(rec.fatal, "\n")
	for _, want := range []string{
		"explore report: execution 2 failed: lost update: counter = 1",
		"schedule: 0.1x2.0 (4 steps)",
		"1  T0 load counter = 0",
		"4  T0 store counter ← 1",
		"SCHEDKIT_REPLAY='report:0.1x2.0' go test -tags schedcheck",
		"-count=1 -run '^TestFailureReport$' .",
	} {
		assert.Contains(t, msg, want)
	}
	assert.Contains(t, strings.Join(rec.logs, "\n"), "explore report: 2 executions, 2 schedules, bound 2, mode dfs, failed")
}

type recordingTB struct {
	testing.TB
	logs, fatal, errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Log(args ...any) {
	r.logs = append(r.logs, fmt.Sprint(args...))
}
func (r *recordingTB) Fatalf(format string, args ...any) {
	r.fatal = append(r.fatal, fmt.Sprintf(format, args...))
	panic("fatal")
}

// TestLongBoundInLongMode: LongBound replaces Bound only in long mode, so a
// scenario asks for bound 3 where the long run can afford it; the result
// and its summary say which bound ran.
func TestLongBoundInLongMode(t *testing.T) {
	opts := explore.Options{Name: "long-bound", LongBound: explore.LongBound}
	t.Setenv(explore.LongEnv, "1")
	long := explore.Check(t, opts, independent(2, 4))
	assert.Equal(t, 3, long.Bound)
	assert.Contains(t, long.Summary(), "bound 3")
	t.Setenv(explore.LongEnv, "0")
	short := explore.Check(t, opts, independent(2, 4))
	assert.Equal(t, explore.DefaultBound, short.Bound)
	assert.Less(t, short.Executions, long.Executions, "bound 3 explores more")
	// Two threads of 4 steps (TestBoundedCountMatchesFormula's count):
	// 2+6+18 schedules within bound 2, and 18 more of five runs within 3.
	assert.Equal(t, 26, short.Executions)
	assert.Equal(t, 44, long.Executions)
	t.Setenv(explore.LongEnv, "1")
	_, err := explore.Explore(explore.Options{LongBound: -7}, independent(1, 1))
	assert.ErrorContains(t, err, "Bound -7")
}
