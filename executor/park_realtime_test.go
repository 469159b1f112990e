package executor_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/realtime"
)

// Park and ready on the real clock and the real Go scheduler (realtime_test.go's
// layer: rtBound, 20 times the promise, beside internal/realtime's health
// ticker; a round over the bound while the ticker stalled is inconclusive
// and retried, never a verdict), with park_test.go's mailbox:
//
//   - park-parked-p: every P is held by a task blocked on a Go channel
//     (holding its P), a task is queued behind them, then every holder
//     parks on a mailbox: the parks hand their Ps on (to a spare, which
//     finds the queued task), so it must start within the bound.
//   - park-pingpong-hog: runtime/proc_test.go's TestPingPongHog with a
//     park/ready mailbox between each pair: a light pair and a hog pair (1
//     ms of work per wake) ping-pong on one P, each Ready putting the
//     partner in the readier's runnext (the slice inherited); sysmon must
//     end a pair's run of runnext within the bound, so neither pair goes a
//     window of twice the bound without a round trip. Measured: the longest
//     gap of either pair.

// rtParkRounds are each scenario's rounds under -short and in long mode.
var rtParkRounds = map[string][2]int{"park-parked-p": {2, 40}, "park-pingpong-hog": {1, 10}}

// rtParkedP is one round of park-parked-p.
func rtParkedP(c rtConfig, giveUp time.Duration, phase *atomic.Value) realtime.Sample {
	e, err := executor.New(executor.Config{Procs: c.procs})
	if err != nil {
		return realtime.Sample{Err: err}
	}
	boxes := make([]mailbox, c.procs)
	var holding atomic.Int64
	release, ran := make(chan struct{}), make(chan struct{})
	for i := range boxes {
		if err := e.Go(func(t executor.Task) {
			holding.Add(1)
			<-release // holds the P: a Go channel blocks the M
			boxes[i].get(t)
		}); err != nil {
			return realtime.Sample{Err: errors.Join(err, e.Close())}
		}
	}
	phase.Store("every P to be held")
	for holding.Load() < int64(c.procs) {
		runtime.Gosched()
	}
	if err := e.Go(func(executor.Task) { close(ran) }); err != nil {
		return realtime.Sample{Err: errors.Join(err, e.Close())}
	}
	phase.Store("the queued task to start once every holder parked")
	start := time.Now()
	close(release)
	var s realtime.Sample
	if waited, in := awaitOr(ran, start, giveUp); in {
		s.Measured = waited
	} else {
		s.Measured, s.Note = waited, "the queued task had not run; "
	}
	for i := range boxes {
		boxes[i].put(executor.Task{}, i)
	}
	phase.Store("Close")
	s.Err = e.Close()
	st := e.Stats()
	s.Note += fmt.Sprintf("task parks %d, direct switches %d, spares %d, Ms %d", st.Total.TaskParks, st.Total.DirectSwitches, st.Spares, st.Ms)
	return s
}

// rtParkPingPongHog is one round of park-pingpong-hog: the light pair
// starts, the hog pair is submitted, both run for the window, then stop.
func rtParkPingPongHog(c rtConfig, _ time.Duration, phase *atomic.Value) realtime.Sample {
	e, err := executor.New(executor.Config{Procs: c.procs})
	if err != nil {
		return realtime.Sample{Err: err}
	}
	window := 2 * rtBound
	base := time.Now()
	var stop atomic.Bool
	started := make(chan struct{})
	type gapMeter struct{ last, max, trips atomic.Int64 }
	var light, hog gapMeter
	trip := func(m *gapMeter) {
		now := int64(time.Since(base))
		if g := now - m.last.Swap(now); g > m.max.Load() {
			m.max.Store(g)
		}
		m.trips.Add(1)
	}
	// pair starts a ping-pong pair over two mailboxes; work is what the
	// partner does per wake; -1 tells it to end.
	pair := func(work func(), m *gapMeter, done chan struct{}) error {
		var ping, pong mailbox
		err := e.Go(func(t executor.Task) {
			for !stop.Load() {
				ping.put(t, 1)
				pong.get(t)
				trip(m)
				if m == &light && m.trips.Load() == 1 {
					close(started)
				}
			}
			ping.put(t, -1)
			close(done)
		})
		return errors.Join(err, e.Go(func(t executor.Task) {
			for ping.get(t) >= 0 {
				work()
				pong.put(t, 1)
			}
		}))
	}
	lightDone, hogsDone := make(chan struct{}), make(chan struct{})
	phase.Store("the light pair to start")
	if err := pair(func() { spinFor(time.Microsecond) }, &light, lightDone); err != nil {
		return realtime.Sample{Err: errors.Join(err, e.Close())}
	}
	<-started
	now := int64(time.Since(base))
	light.last.Store(now)
	light.max.Store(0)
	hog.last.Store(now)
	if err := pair(func() { spinFor(time.Millisecond) }, &hog, hogsDone); err != nil {
		stop.Store(true)
		return realtime.Sample{Err: errors.Join(err, e.Close())}
	}
	phase.Store("the window")
	time.Sleep(window) // what is judged is the gaps, not this
	end := int64(time.Since(base))
	stop.Store(true)
	phase.Store("the pairs to stop")
	<-lightDone
	<-hogsDone
	gap := func(m *gapMeter) time.Duration {
		last := min(m.last.Load(), end) // a trip after the stop is not in the window
		return time.Duration(max(m.max.Load(), end-last))
	}
	s := realtime.Sample{Measured: max(gap(&light), gap(&hog)), Err: e.Close()}
	st := e.Stats().Total
	s.Note = fmt.Sprintf("light pair: %d round trips, longest gap %v; hog pair: %d round trips, longest gap %v; window %v; task readies %d, direct switches %d, retakes %d, preempts %d",
		light.trips.Load(), gap(&light), hog.trips.Load(), gap(&hog), window, st.TaskReadies, st.DirectSwitches, st.Retakes, st.Preempts)
	return s
}

// rtParkConfigs: parked-p at every configuration; the ping-pong pairs on
// one P, at one Go P and at two (long mode: every configuration).
func rtParkConfigs(name string) []rtConfig {
	if name == "park-pingpong-hog" && !longMode() {
		return []rtConfig{{1, 1}, {2, 1}}
	}
	return rtConfigs
}

func longMode() bool { return rtRounds(0, 1) == 1 }

// runRealtimePark runs the named scenarios at their configurations.
func runRealtimePark(t *testing.T, contended bool) {
	for _, s := range []rtScenario{{"park-parked-p", rtParkedP}, {"park-pingpong-hog", rtParkPingPongHog}} {
		r := rtParkRounds[s.name]
		configs := rtParkConfigs(s.name)
		if contended && !longMode() {
			configs = configs[:1] // one Go P: where load matters most
		}
		for _, c := range configs {
			t.Run(s.name+"/"+c.String(), func(t *testing.T) {
				check := realtime.Check{Name: s.name + "/" + c.String(), Bound: rtBound, Rounds: rtRounds(r[0], r[1])}
				rtCheck(check, c, s.round).Apply(t)
			})
		}
	}
}

func TestRealtimePark(t *testing.T) {
	rtSkipChecked(t)
	runRealtimePark(t, false)
}

// TestRealtimeParkUnderContention runs them again beside a busy child
// process on every core.
func TestRealtimeParkUnderContention(t *testing.T) {
	rtSkipChecked(t)
	busy, err := realtime.Contend(runtime.NumCPU(), 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Stop()
	t.Logf("%d busy child processes", busy.Len())
	runRealtimePark(t, true)
}
