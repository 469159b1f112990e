package executor_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/realtime"
	"github.com/schedkit/schedkit/internal/watchdog"
	"github.com/schedkit/schedkit/lfq"
)

// The real-time layer: the fairness and handoff promises of doc.go on the
// real clock and the real Go scheduler, where sysmon, the Ms and the test
// compete for the Go Ps (a synctest bubble hides that: its clock stands
// still while any goroutine runs). Each scenario runs at GOMAXPROCS 1 and 2
// with Procs below, equal to and above it, every P loaded before the
// measured task is queued, and is judged by internal/realtime against a
// bound of 20 times the promise (a queued task waits about 1.25 slices:
// 12.5 ms, bound 250 ms) beside a health ticker: a round over the bound
// while the ticker itself stalled past half the bound is inconclusive and
// retried, never a verdict. TestRealtimeUnderContention runs them again
// beside busy processes on every core. -short runs a few rounds; long mode
// (schedkit verify -long, or SCHEDKIT_LONG=1) runs minutes of them.

// rtConfig pairs the Go runtime's Ps with the executor's.
type rtConfig struct{ gomaxprocs, procs int }

func (c rtConfig) String() string {
	return fmt.Sprintf("gomaxprocs=%d/procs=%d", c.gomaxprocs, c.procs)
}

// rtConfigs: Procs equal to GOMAXPROCS, above it, and below it.
var rtConfigs = []rtConfig{{1, 1}, {1, 2}, {2, 1}, {2, 2}, {2, 3}}

// rtBound is 20 times the promise of 1.25 default slices.
const rtBound = 25 * executor.DefaultSlice

// rtRound is one round of a scenario; giveUp is how long it waits for
// what it measures. phase says what it waits for, for the watchdog.
type rtRound func(c rtConfig, giveUp time.Duration, phase *atomic.Value) realtime.Sample

// rtScenario is a promise of doc.go's invariants, as a real-time check.
type rtScenario struct {
	name  string
	round rtRound
}

var rtScenarios = []rtScenario{
	{"pingpong-global", rtPingPong(false)},
	{"pingpong-local", rtPingPong(true)},
	{"hog", rtHeld(rtHog)},
	{"blocker", rtHeld(rtBlock)},
	{"blocking", rtHeld(rtBlocking)},
	{"yield", rtHeld(rtYield)},
	{"globalstream", rtGlobalStream},
	{"forkjoin", rtForkJoin},
}

// rtTestRounds are the rounds each scenario's test runs: under -short,
// and in long mode.
var rtTestRounds = map[string][2]int{
	"pingpong-global": {5, 100},
	"pingpong-local":  {5, 100},
	"hog":             {2, 40},
	"blocker":         {2, 40},
	"blocking":        {2, 100},
	"yield":           {2, 100},
	"globalstream":    {1, 20},
	"forkjoin":        {2, 100},
}

// rtRounds: a few rounds under -short, many in long mode.
func rtRounds(short, long int) int {
	if explore.Long() {
		return long
	}
	return short
}

// rtSkipChecked: the schedcheck build runs the package again for the
// explorer; the real-time layer runs in the plain build.
func rtSkipChecked(t *testing.T) {
	if schedcheckBuild {
		t.Skip("the real-time layer runs in the plain build (the test command's race step)")
	}
}

// runRealtime runs s at every configuration, rounds conclusive rounds each.
func runRealtime(t *testing.T, s rtScenario, rounds int) {
	for _, c := range rtConfigs {
		t.Run(s.name+"/"+c.String(), func(t *testing.T) {
			check := realtime.Check{Name: s.name + "/" + c.String(), Bound: rtBound, Rounds: rounds}
			rtCheck(check, c, s.round).Apply(t)
		})
	}
}

// rtCheck runs check's rounds of round at GOMAXPROCS c.gomaxprocs, each
// under a watchdog that names the scenario and what it waited for.
func rtCheck(check realtime.Check, c rtConfig, round rtRound) realtime.Report {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.gomaxprocs))
	return check.Run(func(i int) realtime.Sample {
		var phase atomic.Value
		phase.Store("starting")
		stop := watchdog.Start(fmt.Sprintf("executor real-time %s round %d", check.Name, i), 2*time.Minute,
			func() string { return "waiting for " + phase.Load().(string) })
		defer stop()
		return round(c, check.GiveUp(), &phase)
	})
}

// spinFor works on the CPU for d, never blocking.
func spinFor(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// awaitOr waits for ch until giveUp has passed since start and returns
// the time waited and whether ch closed.
func awaitOr(ch <-chan struct{}, start time.Time, giveUp time.Duration) (time.Duration, bool) {
	select {
	case <-ch:
		return time.Since(start), true
	case <-time.After(giveUp - time.Since(start)):
		return time.Since(start), false
	}
}

// loadEveryP submits procs tasks that wait for each other, so that each
// holds its own P at once, then run load; it returns when all have
// arrived, or false at giveUp. Until then the executor's own promise (an
// idle P takes queued work) is what moves them.
func loadEveryP(e *executor.Executor, procs int, stop *atomic.Bool, giveUp time.Duration, load func(t executor.Task, i int)) (bool, error) {
	var arrived atomic.Int64
	all := make(chan struct{})
	for i := range procs {
		if err := e.Go(func(t executor.Task) {
			if arrived.Add(1) == int64(procs) {
				close(all)
			}
			for arrived.Load() < int64(procs) && !stop.Load() {
				runtime.Gosched()
			}
			load(t, i)
		}); err != nil {
			return false, err
		}
	}
	_, ok := awaitOr(all, time.Now(), giveUp)
	return ok, nil
}

// statsNote is the counters a round logs.
func statsNote(e *executor.Executor) string {
	s := e.Stats().Total
	return fmt.Sprintf("tasks %d, runnext %d, retakes %d, preempts %d, handoffs %d, yields %d",
		s.Tasks, s.RunnextHits, s.Retakes, s.Preempts, s.Handoffs, s.Yields)
}

// rtPingPong: on every P a pair of tasks spawns each other through runnext
// (about 2µs of work each), then one task is queued: from outside (the
// global queue), or spawned by a pair's first task before its partner, into
// the ring. A runnext ping-pong shares one slice, so sysmon must let the
// queued task in within about 1.25 slices.
func rtPingPong(local bool) rtRound {
	return func(c rtConfig, giveUp time.Duration, phase *atomic.Value) realtime.Sample {
		e, err := executor.New(executor.Config{Procs: c.procs})
		if err != nil {
			return realtime.Sample{Err: err}
		}
		var stop atomic.Bool
		var waitedNs atomic.Int64
		ran := make(chan struct{})
		var submitted time.Time
		queued := func(executor.Task) {
			waitedNs.Store(int64(time.Since(submitted)))
			close(ran)
		}
		var ping func(executor.Task)
		ping = func(t executor.Task) {
			spinFor(2 * time.Microsecond)
			if !stop.Load() {
				t.Go(ping)
			}
		}
		spawned := make(chan struct{})
		phase.Store("every P to start a ping-pong")
		ok, err := loadEveryP(e, c.procs, &stop, giveUp, func(t executor.Task, i int) {
			if local && i == 0 {
				submitted = time.Now()
				t.Go(queued) // to runnext, then to the ring's tail by ping
				close(spawned)
			}
			t.Go(ping)
		})
		s := realtime.Sample{Err: err}
		if ok && err == nil {
			if local {
				<-spawned
			} else {
				submitted = time.Now()
				s.Err = e.Go(queued)
			}
			phase.Store("the queued task to run beside the ping-pongs")
			if _, in := awaitOr(ran, submitted, giveUp); in {
				s.Measured = time.Duration(waitedNs.Load())
			} else {
				s.Measured = time.Since(submitted)
				s.Note = "the queued task had not run; "
			}
		} else if err == nil {
			s.Measured, s.Note = giveUp, "the ping-pongs did not all start; "
		}
		stop.Store(true)
		phase.Store("Close after the ping-pongs stopped")
		s.Err = errors.Join(s.Err, e.Close())
		s.Note += statsNote(e)
		return s
	}
}

// A heldLoad holds a P in one of the ways doc.go promises to see past: it
// runs until stop (or release is closed). slice is the Config.Slice it
// needs (a long one leaves sysmon no time to help within the bound). check
// judges the closed executor's counters when the queued tasks ran in time:
// every P was held then, so what let them in depends on no clock.
type heldLoad struct {
	what  string
	slice time.Duration
	hold  func(t executor.Task, stop *atomic.Bool, release <-chan struct{})
	check func(s executor.ProcStats, procs int) error
}

// rtLongSlice: only a Blocking or a Yield, not sysmon, can let work in
// within the bound.
const rtLongSlice = 5 * time.Second

// rtHog: a task computing on the CPU, never yielding; sysmon retakes.
var rtHog = heldLoad{what: "a CPU hog",
	hold: func(_ executor.Task, stop *atomic.Bool, _ <-chan struct{}) {
		for !stop.Load() {
		}
	},
	check: needRetake}

// rtBlock: a task blocked on a channel without telling the executor.
var rtBlock = heldLoad{what: "a blocked task",
	hold:  func(_ executor.Task, _ *atomic.Bool, release <-chan struct{}) { <-release },
	check: needRetake}

// rtBlocking: a task blocked in Task.Blocking, which hands its P off at
// once, under a long slice.
var rtBlocking = heldLoad{what: "a task in Blocking", slice: rtLongSlice,
	hold: func(t executor.Task, _ *atomic.Bool, release <-chan struct{}) {
		_ = t.Blocking(func() { <-release })
	},
	check: func(s executor.ProcStats, procs int) error {
		if s.Handoffs == 0 {
			return fmt.Errorf("queued tasks ran while %d tasks in Blocking held every P, and Blocking handed off none", procs)
		}
		return nil
	}}

// rtYield: a task computing in 20µs steps with Task.Yield between them,
// under a long slice.
var rtYield = heldLoad{what: "a task that yields", slice: rtLongSlice,
	hold: func(t executor.Task, stop *atomic.Bool, _ <-chan struct{}) {
		for !stop.Load() {
			spinFor(20 * time.Microsecond)
			_ = t.Yield()
		}
	},
	check: func(s executor.ProcStats, procs int) error {
		if s.Yields == 0 {
			return fmt.Errorf("queued tasks ran while %d yielding tasks held every P, and no Yield gave its P away", procs)
		}
		return nil
	}}

func needRetake(s executor.ProcStats, procs int) error {
	if s.Retakes == 0 {
		return fmt.Errorf("queued tasks ran while every one of %d Ps was held, with no retake", procs)
	}
	return nil
}

// rtHeld: every P is held by l, then 10 tasks are queued from outside; all
// must run within the bound while the Ps are still held.
func rtHeld(l heldLoad) rtRound {
	return func(c rtConfig, giveUp time.Duration, phase *atomic.Value) realtime.Sample {
		e, err := executor.New(executor.Config{Procs: c.procs, Slice: l.slice})
		if err != nil {
			return realtime.Sample{Err: err}
		}
		var stop atomic.Bool
		release := make(chan struct{})
		phase.Store(l.what + " on every P")
		ok, err := loadEveryP(e, c.procs, &stop, giveUp, func(t executor.Task, _ int) { l.hold(t, &stop, release) })
		s := realtime.Sample{Err: err}
		inTime := false
		if ok && err == nil {
			const queued = 10
			var ran atomic.Int64
			all := make(chan struct{})
			submitted := time.Now()
			for range queued {
				if err := e.Go(func(executor.Task) {
					if ran.Add(1) == queued {
						close(all)
					}
				}); err != nil {
					s.Err = err
				}
			}
			phase.Store(fmt.Sprintf("%d queued tasks to run beside %s on every P", queued, l.what))
			if s.Measured, inTime = awaitOr(all, submitted, giveUp); !inTime {
				s.Note = fmt.Sprintf("%d of %d queued tasks ran; ", ran.Load(), queued)
			}
		} else if err == nil {
			s.Measured, s.Note = giveUp, "the loads did not all start; "
		}
		stop.Store(true)
		close(release)
		phase.Store("Close after the loads stopped")
		s.Err = errors.Join(s.Err, e.Close())
		if inTime && s.Err == nil {
			s.Err = l.check(e.Stats().Total, c.procs)
		}
		s.Note += statsNote(e)
		return s
	}
}

// rtGlobalStream: every P runs local trees (each started by the last leaf
// of the one before, so the rings never overflow), while tasks arrive in
// the global queue one at a time; each must start within 61 ticks of a
// busy P. The bound is on time. The ticks are counted on the P that ticked
// least meanwhile (the P that took the task ticked at most 61 before it,
// however long its M was descheduled while the others ticked on), and
// judged on what the machine did meanwhile, as the time is:
//   - a sample in which sysmon retook a P is not judged by its ticks: the
//     trees' tasks are tiny, so only an M the OS kept off its CPU for a
//     slice is retaken, and the M that took the task from the global
//     queue may be that one, its P ticking on under another M before the
//     task's func runs. Under two busy loops on 2 vCPUs a task waited
//     1199 ticks with nothing queued ahead of it (issue 22 reported 5651);
//   - the limit grows with the tasks in the global queue at the submit
//     (streamTickLimit): a retaken task's spawns and a preempted runnext
//     task go there, and each P takes one per 61 ticks.
func rtGlobalStream(c rtConfig, giveUp time.Duration, phase *atomic.Value) realtime.Sample {
	e, err := executor.New(executor.Config{Procs: c.procs})
	if err != nil {
		return realtime.Sample{Err: err}
	}
	ticks := func() []uint64 {
		var ts []uint64
		for _, p := range e.Stats().Procs {
			ts = append(ts, p.Tasks-p.RunnextHits)
		}
		return ts
	}
	// least is the smallest tick count any P advanced from a to b;
	// most the largest.
	least := func(a, b []uint64) (lo, hi uint64) {
		lo = b[0] - a[0]
		for i := range a {
			lo, hi = min(lo, b[i]-a[i]), max(hi, b[i]-a[i])
		}
		return lo, hi
	}
	var stop atomic.Bool
	newTree := localTrees(&stop)
	phase.Store("every P to start local trees")
	ok, err := loadEveryP(e, c.procs, &stop, giveUp, func(t executor.Task, _ int) { newTree(t) })
	s := realtime.Sample{Err: err}
	if ok && err == nil {
		stream := rtRounds(20, 100)
		worstTicks, samples, mostQueued, retaken := uint64(0), 0, 0, 0
		for i := 0; i < stream && s.Err == nil; i++ {
			ran := make(chan []uint64, 1)
			before, retakes := ticks(), e.Stats().Total.Retakes
			submitted := time.Now()
			if s.Err = e.Go(func(executor.Task) { ran <- ticks() }); s.Err != nil {
				break
			}
			queued := e.Stats().GlobalLen // the task and those ahead of it, at most
			after := ticks()
			phase.Store(fmt.Sprintf("global task %d of %d to start beside local trees", i, stream))
			var start []uint64
			select {
			case start = <-ran:
			case <-time.After(giveUp):
			}
			s.Measured = max(s.Measured, time.Since(submitted))
			if start == nil {
				s.Note = fmt.Sprintf("global task %d had not started; ", i)
				break
			}
			if _, slow := least(before, after); slow > 61 { // the submit itself was slow
				continue
			}
			if e.Stats().Total.Retakes != retakes { // an M was kept off its CPU for a slice
				retaken++
				continue
			}
			samples++
			lo, _ := least(before, start)
			worstTicks, mostQueued = max(worstTicks, lo), max(mostQueued, queued)
			if limit := streamTickLimit(queued, c.procs); lo > limit && s.Err == nil {
				s.Err = fmt.Errorf("global task %d waited %d ticks of every one of %d Ps busy with local trees, with %d tasks in the global queue at its submit: over %d, ten times what the 61st-tick rule allows for that queue", i, lo, c.procs, queued, limit)
			}
		}
		s.Note += fmt.Sprintf("%d samples (%d more not judged by ticks: a P retaken meanwhile), the longest waited %d ticks of the least busy P, at most %d tasks in the global queue at a submit; ", samples, retaken, worstTicks, mostQueued)
	} else if err == nil {
		s.Measured, s.Note = giveUp, "the trees did not all start; "
	}
	stop.Store(true)
	phase.Store("Close after the trees stopped")
	s.Err = errors.Join(s.Err, e.Close())
	s.Note += statsNote(e)
	return s
}

// streamTickLimit is the most ticks of the least busy of procs Ps that a
// global task may wait with queued tasks in the global queue at its submit,
// itself included (read just after its put: later puts only loosen it).
// Each P ticking lo times passes lo/61 fairness ticks, each taking one
// global task, so the queue's head reaches the task within
// 61*(ceil(queued/procs)+1) ticks of the least busy P; a P whose ring was
// empty may instead take the task in a global batch (lfq.Size/2 tasks), to
// run it behind at most that many ring tasks. The limit is ten times the
// fairness rule's part, as the fixed 610 was for an empty queue, plus a
// ring.
func streamTickLimit(queued, procs int) uint64 {
	rounds := (max(queued, 1) + procs - 1) / procs
	return uint64(10*61*rounds + lfq.Size)
}

// rtForkJoin: a tree of groups of depth 7 (127 Waits) on every P at once
// must finish without sysmon: a Wait never idles its P while work is
// queued. A Wait that held its P would need a retake (a slice) per level
// and P, over the bound.
func rtForkJoin(c rtConfig, giveUp time.Duration, phase *atomic.Value) realtime.Sample {
	e, err := executor.New(executor.Config{Procs: c.procs})
	if err != nil {
		return realtime.Sample{Err: err}
	}
	const depth = 7
	var leaves atomic.Int64
	node := treeNode(&leaves)
	done := make(chan struct{})
	var werr error
	var atWait int64 // leaves that had run when the root's Wait returned
	start := time.Now()
	g, _ := e.NewGroup(context.Background())
	g.Go(func(t executor.Task) error { return node(t, depth) })
	go func() { werr = g.Wait(); atWait = leaves.Load(); close(done) }()
	phase.Store("a fork-join tree of depth 7 to finish")
	waited, _ := awaitOr(done, start, giveUp)
	s := realtime.Sample{Measured: waited}
	phase.Store("the fork-join tree's Wait to return, past the time it was given")
	<-done // past giveUp the tree still finishes, with sysmon's help
	phase.Store("Close after the tree's Wait returned")
	if s.Err = errors.Join(werr, e.Close()); s.Err == nil && atWait != 1<<depth {
		s.Err = fmt.Errorf("%d leaves had run when the tree's Wait returned, want %d", atWait, 1<<depth)
	}
	s.Note = statsNote(e)
	return s
}

// killByRealtime is the kill matrix's realtime column, an extra (not
// deterministic: a loaded machine makes rounds inconclusive, and only
// long mode runs extras): one round of each scenario at GOMAXPROCS 1 and
// 2 with as many Ps, an inconclusive one retried once. A failed round
// catches the mutant; past 45 s it stops, within the cell's time limit.
func killByRealtime(*testing.T) error {
	deadline := time.Now().Add(45 * time.Second)
	for _, s := range rtScenarios {
		for _, c := range []rtConfig{{1, 1}, {2, 2}} {
			if time.Now().After(deadline) {
				return nil
			}
			check := realtime.Check{Name: s.name + "/" + c.String(), Bound: rtBound, Rounds: 1, Retries: 1}
			if r := rtCheck(check, c, s.round); r.Verdict == realtime.Fail {
				return fmt.Errorf("%v: %v", r, r.Rounds[len(r.Rounds)-1])
			}
		}
	}
	return nil
}

// The tests: one per promise, every configuration each.

// testRealtime runs the scenarios named, each its rtTestRounds.
func testRealtime(t *testing.T, names ...string) {
	rtSkipChecked(t)
	for _, name := range names {
		i := slices.IndexFunc(rtScenarios, func(s rtScenario) bool { return s.name == name })
		r, ok := rtTestRounds[name]
		if i < 0 || !ok {
			t.Fatalf("no real-time scenario %q with its rounds", name)
		}
		runRealtime(t, rtScenarios[i], rtRounds(r[0], r[1]))
	}
}

func TestRealtimePingPong(t *testing.T) { testRealtime(t, "pingpong-global", "pingpong-local") }

func TestRealtimeHog(t *testing.T) { testRealtime(t, "hog") }

func TestRealtimeBlockers(t *testing.T) { testRealtime(t, "blocker", "blocking") }

func TestRealtimeYield(t *testing.T) { testRealtime(t, "yield") }

func TestRealtimeGlobalStream(t *testing.T) { testRealtime(t, "globalstream") }

func TestRealtimeForkJoin(t *testing.T) { testRealtime(t, "forkjoin") }

// TestRealtimeUnderContention runs every scenario again beside a busy
// child process on every core (this test binary, re-executed in
// internal/realtime's child mode), killed at the end.
func TestRealtimeUnderContention(t *testing.T) {
	rtSkipChecked(t)
	busy, err := realtime.Contend(runtime.NumCPU(), 30*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Stop()
	t.Logf("%d busy child processes", busy.Len())
	for _, s := range rtScenarios {
		runRealtime(t, s, rtRounds(1, 20))
	}
}
