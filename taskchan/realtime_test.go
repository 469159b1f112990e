package taskchan_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/realtime"
	"github.com/schedkit/schedkit/internal/watchdog"
	"github.com/schedkit/schedkit/taskchan"
)

// The real-time layer: task channels on the real clock and the real Go
// scheduler, at GOMAXPROCS 1 and 2, and again beside a busy process on
// every core (TestRealtimeUnderContention). Each round is judged by
// internal/realtime against a bound of 25 slices (20 times the executor's
// promise of a queued task starting within about 1.25 slices) beside a
// health ticker: a round over the bound while the machine stalled is
// inconclusive and retried, never a verdict. -short runs one round of
// each; long mode runs 20.
//
//   - pingpong-hog is runtime/proc_test.go's TestPingPongHog with a task
//     channel between each pair (its real shape): on one P a hog pair
//     (1 ms of work per wake) and a light pair ping-pong, each pair readying
//     its partner into runnext; the light pair must get the P back within
//     the bound during a window longer than the bound (a pair that held its P
//     past the slice through runnext would keep the light pair out for the
//     whole window). Measured: the light pair's longest gap between round
//     trips.
//   - parked-p: a task that parks in a receive gives its P to the task
//     queued behind it, which must start within the bound.

const rtBound = 25 * executor.DefaultSlice

// rtWindow is how long pingpong-hog's pairs run: twice the bound, so a
// pair kept out for the whole window fails unless the machine kept the
// process off the CPU for more than the bound meanwhile.
const rtWindow = 2 * rtBound

func rtRounds() int {
	if long() {
		return 20
	}
	return 1
}

// rtConfigs are the (GOMAXPROCS, Procs) pairs each check runs at: both
// pairs of pingpong-hog on one P, at one Go P and at two; long mode adds
// two Ps.
func rtConfigs() [][2]int {
	if long() {
		return [][2]int{{1, 1}, {2, 1}, {2, 2}}
	}
	return [][2]int{{1, 1}, {2, 1}}
}

// spinFor works on the CPU for d, never blocking.
func spinFor(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// rtPingPongHog is one round of pingpong-hog on procs Ps: the light pair
// starts, then the hog pair is submitted, and both run for window, then
// stop. Measured: the longest either pair went without a round trip in
// the window (from the hogs' submit, and up to the stop), so a pair kept
// out of the P for the whole window, either one, shows a gap over the
// bound.
func rtPingPongHog(procs int, window time.Duration) realtime.Sample {
	e, err := executor.New(executor.Config{Procs: procs})
	if err != nil {
		return realtime.Sample{Err: err}
	}
	defer func() { _ = e.Close() }()
	base := time.Now()
	var stop atomic.Bool
	started := make(chan struct{})
	// gapMeter is one pair's longest gap between round trips since its
	// last reset.
	type gapMeter struct{ last, max, trips atomic.Int64 }
	var light, hog gapMeter
	trip := func(m *gapMeter) {
		now := int64(time.Since(base))
		if g := now - m.last.Swap(now); g > m.max.Load() {
			m.max.Store(g)
		}
		m.trips.Add(1)
	}
	// pair starts a ping-pong pair; work is what the partner does per wake.
	pair := func(work func(), m *gapMeter, done chan struct{}) {
		ping, pong := taskchan.Make[int](0), taskchan.Make[int](0)
		_ = e.Go(func(t executor.Task) {
			for !stop.Load() {
				ping.Send(t, 1)
				pong.Recv(t)
				trip(m)
				if m == &light && m.trips.Load() == 1 {
					close(started)
				}
			}
			ping.Close()
			close(done)
		})
		_ = e.Go(func(t executor.Task) {
			for {
				if _, ok := ping.Recv(t); !ok {
					return
				}
				work()
				pong.Send(t, 1)
			}
		})
	}
	lightDone, hogsDone := make(chan struct{}), make(chan struct{})
	pair(func() {
		x := 0
		for i := range 1000 {
			x += i
		}
		sink.Add(int64(x))
	}, &light, lightDone)
	<-started
	now := int64(time.Since(base))
	light.last.Store(now)
	light.max.Store(0)
	hog.last.Store(now)
	pair(func() { spinFor(time.Millisecond) }, &hog, hogsDone)
	time.Sleep(window) // the window: what is judged is the gaps, not this
	end := int64(time.Since(base))
	stop.Store(true)
	<-lightDone
	<-hogsDone
	gap := func(m *gapMeter) time.Duration {
		last := min(m.last.Load(), end) // a trip after the stop is not in the window
		return time.Duration(max(m.max.Load(), end-last))
	}
	return realtime.Sample{Measured: max(gap(&light), gap(&hog)),
		Note: fmt.Sprintf("light pair: %d round trips, longest gap %v; hog pair: %d round trips, longest gap %v; window %v",
			light.trips.Load(), gap(&light), hog.trips.Load(), gap(&hog), window)}
}

// sink keeps the light pair's work from being optimised away.
var sink atomic.Int64

// rtParkedP is one round of parked-p on procs Ps: every P is held by a
// task that then parks in a receive; a task queued behind them must start
// within the bound of the parks.
func rtParkedP(procs int, giveUp time.Duration) realtime.Sample {
	e, err := executor.New(executor.Config{Procs: procs})
	if err != nil {
		return realtime.Sample{Err: err}
	}
	defer func() { _ = e.Close() }()
	c := taskchan.Make[int](0)
	var holding atomic.Int64
	release := make(chan struct{})
	for range procs {
		_ = e.Go(func(t executor.Task) {
			holding.Add(1)
			<-release // hold the P (a Go channel blocks the M and its P)
			c.Recv(t)
		})
	}
	for holding.Load() < int64(procs) {
		runtime.Gosched()
	}
	ran := make(chan struct{})
	_ = e.Go(func(executor.Task) { close(ran) })
	start := time.Now()
	close(release) // every holder now parks in Recv
	var waited time.Duration
	select {
	case <-ran:
		waited = time.Since(start)
	case <-time.After(giveUp):
		waited = time.Since(start)
	}
	for range procs {
		c.Send(executor.Task{}, 1)
	}
	return realtime.Sample{Measured: waited}
}

func runRealtime(t *testing.T, name string, configs [][2]int, round func(procs int, giveUp time.Duration) realtime.Sample) {
	if schedcheckBuild {
		t.Skip("the real-time layer runs in the plain build (the test command's race step)")
	}
	for _, c := range configs {
		t.Run(fmt.Sprintf("%s/gomaxprocs=%d/procs=%d", name, c[0], c[1]), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c[0]))
			check := realtime.Check{Name: fmt.Sprintf("%s/gomaxprocs=%d/procs=%d", name, c[0], c[1]), Bound: rtBound, Rounds: rtRounds()}
			check.Run(func(i int) realtime.Sample {
				stop := watchdog.Start(fmt.Sprintf("taskchan real-time %s round %d", check.Name, i), 2*time.Minute, nil)
				defer stop()
				return round(c[1], check.GiveUp())
			}).Apply(t)
		})
	}
}

// pingPongHog is rtPingPongHog with rtWindow.
func pingPongHog(procs int, _ time.Duration) realtime.Sample { return rtPingPongHog(procs, rtWindow) }

func TestRealtime(t *testing.T) {
	hog := rtConfigs()
	if !long() {
		hog = hog[1:] // two Go Ps: TestRealtimeUnderContention runs one, the half-second window is the cost
	}
	runRealtime(t, "pingpong-hog", hog, pingPongHog)
	runRealtime(t, "parked-p", rtConfigs(), rtParkedP)
}

// TestRealtimeUnderContention runs them again beside a busy child process
// on every core (internal/realtime's child mode of this binary).
func TestRealtimeUnderContention(t *testing.T) {
	if schedcheckBuild {
		t.Skip("the real-time layer runs in the plain build (the test command's race step)")
	}
	busy, err := realtime.Contend(runtime.NumCPU(), 10*time.Minute)
	require.NoError(t, err)
	defer busy.Stop()
	t.Logf("%d busy child processes", busy.Len())
	configs := rtConfigs()
	if !long() {
		configs = configs[:1] // one Go P, the pairs on one P: the shape where load matters most
	}
	runRealtime(t, "pingpong-hog", configs, pingPongHog)
	runRealtime(t, "parked-p", configs, rtParkedP)
}

// TestParkedReceiversCostNoM: 1000 tasks (10,000 in long mode) parked in
// receives on their own channels cost no M (Stats.Ms stays at most
// Procs+2), and each is readied by a task's send, in the sender's runnext.
func TestParkedReceiversCostNoM(t *testing.T) {
	const procs = 2
	n := 1000
	if long() {
		n = 10_000 // issue 23's target
	}
	// A slice of a minute: sysmon does not take the sender's P while the
	// receivers it readies queue up behind it, so every ready is local.
	e := newExec(t, executor.Config{Procs: procs, Slice: executor.MaxSlice})
	cs := make([]*taskchan.Chan[int], n)
	var got atomic.Int64
	for i := range cs {
		cs[i] = taskchan.Make[int](0)
		require.NoError(t, e.Go(func(t executor.Task) {
			if v, ok := cs[i].Recv(t); ok && v == i {
				got.Add(1)
			}
		}))
	}
	waitUntil(func() bool { return e.Stats().Parked == n })
	s := e.Stats()
	assert.LessOrEqual(t, s.Ms, procs+2, "Ms with %d receivers parked", n)
	require.NoError(t, e.Go(func(t executor.Task) {
		for i, c := range cs {
			c.Send(t, i)
		}
	}))
	require.NoError(t, e.Close())
	assert.Equal(t, int64(n), got.Load())
	s = e.Stats()
	assert.Zero(t, s.Parked)
	assert.GreaterOrEqual(t, s.Total.TaskReadies, uint64(n), "the sender readied the receivers into its runnext")
	assert.LessOrEqual(t, s.Ms, procs+2)
}
