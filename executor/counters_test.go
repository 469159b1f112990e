package executor_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/watchdog"
)

// Every counter of Stats against the events it counts (issue 14: SpinStops
// exceeded SpinStarts and Parks had no Unparks, because an M woken spinning
// or fresh from mstart was counted nowhere). The check is exact, P by P,
// and per M the events must alternate: park, unpark, park...; spin, stop.

// eventLog keeps every event of an executor, in each M's own order (the
// hook runs on the M's goroutine).
type eventLog struct {
	mu  sync.Mutex
	evs []executor.Event
}

func (l *eventLog) hook(ev executor.Event) {
	l.mu.Lock()
	l.evs = append(l.evs, ev)
	l.mu.Unlock()
}

func (l *eventLog) events() []executor.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]executor.Event(nil), l.evs...)
}

// countedExec makes an executor of cfg whose events go to a new log.
func countedExec(cfg executor.Config) (*executor.Executor, *eventLog, error) {
	l := &eventLog{}
	cfg.OnEvent = l.hook
	e, err := executor.New(cfg)
	return e, l, err
}

// checkCounters compares s with evs: every counter with the events of its
// kind on each P, the Ms' park and spin sequences, and, once closed, the
// balances: every M parked once more than it woke, every spin stopped.
func checkCounters(s executor.Stats, evs []executor.Event, closed bool) error {
	type key struct {
		k executor.EventKind
		p int
	}
	n := map[key]uint64{}
	all := map[executor.EventKind]uint64{}
	parked := map[int]bool{}   // per M, after its last park or unpark
	spare := map[int]bool{}    // per M (a worker): its last event made it a spare, with no M (park.go)
	spinning := map[int]bool{} // per M
	var errs []error
	for i, ev := range evs {
		spare[ev.M] = ev.Kind == executor.EventSpare
		n[key{ev.Kind, ev.P}]++
		all[ev.Kind]++
		bad := func(why string) {
			errs = append(errs, fmt.Errorf("event %d %v on P %d: M %d %s", i, ev.Kind, ev.P, ev.M, why))
		}
		switch ev.Kind {
		case executor.EventPark:
			if parked[ev.M] {
				bad("parked twice")
			}
			if spinning[ev.M] {
				bad("parked spinning")
			}
			parked[ev.M] = true
		case executor.EventUnpark:
			if !parked[ev.M] {
				bad("woke without a park")
			}
			parked[ev.M] = false
		case executor.EventSpin:
			if spinning[ev.M] || parked[ev.M] {
				bad("started spinning while spinning or parked")
			}
			spinning[ev.M] = true
		case executor.EventSpinStop:
			if !spinning[ev.M] {
				bad("stopped spinning without a start")
			}
			spinning[ev.M] = false
		}
	}
	for i, ps := range s.Procs {
		for _, c := range []struct {
			name string
			k    executor.EventKind
			got  uint64
		}{
			{"Parks", executor.EventPark, ps.Parks}, {"Unparks", executor.EventUnpark, ps.Unparks},
			{"SpinStarts", executor.EventSpin, ps.SpinStarts}, {"SpinStops", executor.EventSpinStop, ps.SpinStops},
			{"Handoffs", executor.EventHandoff, ps.Handoffs}, {"Retakes", executor.EventRetake, ps.Retakes},
			{"Steals", executor.EventSteal, ps.Steals}, {"Overflows", executor.EventOverflow, ps.Overflows},
			{"GlobalBatches", executor.EventGlobalBatch, ps.GlobalBatches},
		} {
			if want := n[key{c.k, i}]; c.got != want {
				errs = append(errs, fmt.Errorf("P %d: %s %d, %d %v events", i, c.name, c.got, want, c.k))
			}
		}
	}
	if s.Total.Parks != all[executor.EventPark] {
		errs = append(errs, fmt.Errorf("Total.Parks %d, %d park events", s.Total.Parks, all[executor.EventPark]))
	}
	if closed {
		if d := s.Total.Parks - s.Total.Unparks; d != uint64(s.Ms) {
			errs = append(errs, fmt.Errorf("after Close Parks %d - Unparks %d = %d, want Ms %d", s.Total.Parks, s.Total.Unparks, d, s.Ms))
		}
		if s.Total.SpinStarts != s.Total.SpinStops {
			errs = append(errs, fmt.Errorf("after Close SpinStarts %d, SpinStops %d", s.Total.SpinStarts, s.Total.SpinStops))
		}
		for m, p := range parked {
			if !p && !spare[m] {
				errs = append(errs, fmt.Errorf("after Close M %d's last event is no park", m))
			}
		}
	}
	return errors.Join(errs...)
}

// closeAndCheck closes e and checks its counters against l.
func closeAndCheck(e *executor.Executor, l *eventLog) error {
	if err := e.Close(); err != nil {
		return err
	}
	return checkCounters(e.Stats(), l.events(), true)
}

// Deterministic scenarios (synctest bubbles) for the kill matrix.

// countersOneGo: one outside task on 2 Ps. The M that runs it is woken
// spinning (Wakep), and wakes the other M spinning when it finds work:
// both spins must be counted where they start.
func countersOneGo(t *testing.T) error {
	e, l, err := countedExec(executor.Config{Procs: 2})
	if err != nil {
		return err
	}
	if err := e.Go(func(executor.Task) {}); err != nil {
		return err
	}
	synctest.Wait()
	if err := checkCounters(e.Stats(), l.events(), false); err != nil {
		return joinErr(err, e.Close())
	}
	return closeAndCheck(e, l)
}

// countersUnparkElsewhere: on procs Ps a task blocks (Blocking) after
// another M parked with its own P; the handoff, or a task submitted then,
// wakes that M with the blocked task's P, not the one it gave back: its
// unpark counts on the P it is given. The counters are checked at each
// step, since a later unpark the other way round would even the counts:
// on 2 Ps the submit's wakeup and a second one before the next check can
// be such a pair (seen under UnparkOnOldP: P 1 then P 0 for one M), so the
// kill matrix runs it on 3 Ps.
func countersUnparkElsewhere(procs int, batch bool) scenario {
	return func(t *testing.T) error {
		e, l, err := countedExec(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		synctest.Wait() // every M has parked (else a first wakeup makes more)
		// Every M holds a P once and parks giving it back, so each parked M
		// has an old P; which M holds which P at boot is the Go scheduler's
		// choice, and an M with none would hide a count on the old P.
		hold := make(chan struct{})
		var held atomic.Int64
		for range procs {
			if err := e.Go(func(executor.Task) { held.Add(1); <-hold }); err != nil {
				return err
			}
		}
		synctest.Wait()
		if n := held.Load(); n != int64(procs) {
			close(hold)
			return fmt.Errorf("setup: %d of %d tasks hold a P at once", n, procs)
		}
		close(hold)
		synctest.Wait()
		mark := len(l.events())
		step, release := make(chan struct{}), make(chan struct{})
		if err := e.Go(func(t executor.Task) {
			<-step
			_ = t.Blocking(func() { <-release })
		}); err != nil {
			return err
		}
		synctest.Wait() // the task holds its P; the other Ms have parked
		err = checkCounters(e.Stats(), l.events(), false)
		close(step)
		synctest.Wait() // it blocks; its P is idle, or given to a parked M
		err = joinErr(err, checkCounters(e.Stats(), l.events(), false))
		f := func(executor.Task) {}
		var serr error
		if batch {
			serr = e.GoBatch([]func(executor.Task){f})
		} else {
			serr = e.Go(f)
		}
		if serr != nil {
			return serr
		}
		synctest.Wait()
		s, ev := e.Stats(), l.events() // both before the release wakes the Ms again
		close(release)
		err = joinErr(err, checkCounters(s, ev, false))
		if err == nil && s.Total.Handoffs != 1 {
			err = fmt.Errorf("Blocking made %d handoffs, want 1", s.Total.Handoffs)
		}
		if err == nil && !unparkedElsewhere(ev, mark) {
			err = fmt.Errorf("no M was woken with a P other than the one it parked from: the scenario missed its shape")
		}
		return joinErr(err, closeAndCheck(e, l))
	}
}

// unparkedElsewhere reports whether, after evs[mark], an M unparked on a P
// other than the one its last park gave back.
func unparkedElsewhere(evs []executor.Event, mark int) bool {
	last := map[int]int{} // M -> P of its last park
	for i, ev := range evs {
		switch ev.Kind {
		case executor.EventPark:
			last[ev.M] = ev.P
		case executor.EventUnpark:
			if old, ok := last[ev.M]; ok && i > mark && old >= 0 && old != ev.P {
				return true
			}
		}
	}
	return false
}

// countersRetake: tasks hold all procs Ps without telling the executor
// (a sleep on the bubble's clock) while tasks are queued behind them:
// sysmon retakes, and each retake counts as a retake, never a handoff.
func countersRetake(procs int) scenario {
	return func(t *testing.T) error {
		e, l, err := countedExec(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		var started atomic.Int64
		for range procs {
			if err := e.Go(func(executor.Task) {
				started.Add(1)
				time.Sleep(5 * executor.DefaultSlice)
			}); err != nil {
				return err
			}
		}
		synctest.Wait()
		if n := started.Load(); n != int64(procs) {
			_ = e.Close()
			return fmt.Errorf("%d of %d long tasks started", n, procs)
		}
		for range 4 {
			if err := e.Go(func(executor.Task) {}); err != nil {
				return err
			}
		}
		if err := closeAndCheck(e, l); err != nil {
			return err
		}
		s := e.Stats().Total
		if s.Retakes == 0 || s.Handoffs != 0 {
			return fmt.Errorf("%d retakes and %d handoffs, want some retakes and no handoff", s.Retakes, s.Handoffs)
		}
		return nil
	}
}

// countersLocalSpawn: a task spawns locally on 2 Ps, which wakes the
// other M spinning (wakeIfIdle); it steals after the steal delay.
func countersLocalSpawn(t *testing.T) error {
	e, l, err := countedExec(executor.Config{Procs: 2})
	if err != nil {
		return err
	}
	if err := e.Go(func(t executor.Task) {
		for range 4 {
			t.Go(func(executor.Task) { time.Sleep(time.Millisecond) })
		}
		time.Sleep(time.Millisecond)
	}); err != nil {
		return err
	}
	return closeAndCheck(e, l)
}

func TestCountersMatchEventsBubble(t *testing.T) {
	for name, s := range map[string]scenario{
		"oneGo":                    countersOneGo,
		"unparkElsewhere/procs=2":  countersUnparkElsewhere(2, false),
		"unparkElsewhere/procs=3":  countersUnparkElsewhere(3, true),
		"retake/procs=1":           countersRetake(1),
		"retake/procs=2":           countersRetake(2),
		"localSpawn":               countersLocalSpawn,
		"unparkElsewhere/procs=2b": countersUnparkElsewhere(2, true),
	} {
		t.Run(name, func(t *testing.T) { require.NoError(t, inBubble(t, s)) })
	}
}

// TestCountersMatchEventsReal runs workloads on the real runtime at
// GOMAXPROCS 1 and 2 and checks every counter against its events after
// Close (and, for the idle executor, before it).
func TestCountersMatchEventsReal(t *testing.T) {
	workloads := []struct {
		name string
		run  func(e *executor.Executor) error
	}{
		{"idle", func(*executor.Executor) error { return nil }},
		{"oneGo", func(e *executor.Executor) error {
			done := make(chan struct{})
			if err := e.Go(func(executor.Task) { close(done) }); err != nil {
				return err
			}
			<-done
			return nil
		}},
		{"burst", func(e *executor.Executor) error {
			fs := make([]func(executor.Task), 300)
			for i := range fs {
				fs[i] = func(t executor.Task) {
					for range 3 {
						t.Go(func(executor.Task) {})
					}
				}
			}
			if err := e.GoBatch(fs); err != nil {
				return err
			}
			return e.Go(func(t executor.Task) {
				for range 600 { // overflows the ring
					t.Go(func(executor.Task) {})
				}
			})
		}},
		{"blocking", func(e *executor.Executor) error {
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				if err := e.Go(func(t executor.Task) {
					defer wg.Done()
					_ = t.Blocking(func() { time.Sleep(100 * time.Microsecond) })
					t.Go(func(executor.Task) {})
				}); err != nil {
					return err
				}
			}
			wg.Wait()
			return nil
		}},
		{"retake", func(e *executor.Executor) error {
			stop := make(chan struct{})
			var ran atomic.Int64
			for range e.Procs() {
				if err := e.Go(func(executor.Task) { <-stop }); err != nil {
					return err
				}
			}
			for range 4 {
				if err := e.Go(func(executor.Task) {
					if ran.Add(1) == 4 {
						close(stop)
					}
				}); err != nil {
					return err
				}
			}
			<-stop
			return nil
		}},
		{"wait", func(e *executor.Executor) error {
			var leaves atomic.Int64
			node := treeNode(&leaves)
			g, _ := e.NewGroup(context.Background())
			g.Go(func(t executor.Task) error { return node(t, 8) })
			return g.Wait()
		}},
	}
	for _, gmp := range []int{1, 2} {
		for _, procs := range []int{1, 2} {
			for _, w := range workloads {
				t.Run(fmt.Sprintf("GOMAXPROCS=%d/procs=%d/%s", gmp, procs, w.name), func(t *testing.T) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(gmp))
					e, l, err := countedExec(executor.Config{Procs: procs})
					require.NoError(t, err)
					within(t, time.Minute, "workload "+w.name+" and Close", func() {
						require.NoError(t, w.run(e))
						require.NoError(t, closeAndCheck(e, l))
					})
				})
			}
		}
	}
}

// within runs f, which waits for something named what, under a deadline
// of d: past it the process ends with what and every goroutine's stack
// (internal/watchdog), as the goroutines f waits on cannot be stopped.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	stop := watchdog.Start(t.Name()+": "+what, d, nil)
	defer stop()
	f()
}

// Policy that costs only resources: a task that runs long with nothing
// waiting for its P must keep it. sysmon must not retake it (a handoff and
// a new M for nothing), so Retakes, Handoffs and the Ms made stay at 0, 0
// and Procs.

// aloneCosts checks the counters of an executor of procs Ps that ran one
// long task with nothing else queued.
func aloneCosts(s executor.Stats, procs int) error {
	if s.Total.Retakes != 0 || s.Total.Handoffs != 0 || s.Ms != procs {
		return fmt.Errorf("a long task alone on %d Ps: %d retakes, %d handoffs, %d Ms made; want 0, 0, %d",
			procs, s.Total.Retakes, s.Total.Handoffs, s.Ms, procs)
	}
	return nil
}

// longTaskAlone: one task holds its P for 5 slices of the bubble's clock
// (untold), nothing else queued.
func longTaskAlone(procs int) scenario {
	return func(t *testing.T) error {
		e, l, err := countedExec(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		synctest.Wait() // every M has parked (else the first wakeup makes another)
		if err := e.Go(func(executor.Task) { time.Sleep(5 * executor.DefaultSlice) }); err != nil {
			return err
		}
		if err := closeAndCheck(e, l); err != nil {
			return err
		}
		return aloneCosts(e.Stats(), procs)
	}
}

func TestLongTaskAloneCostsNothing(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			require.NoError(t, inBubble(t, longTaskAlone(procs)))
		})
	}
}

// TestLongTaskAloneCostsNothingReal is the same with a task computing for
// 5 slices on the real runtime, at GOMAXPROCS 1 and 2. The verdict does
// not depend on time: nothing waits, so no retake is ever due.
func TestLongTaskAloneCostsNothingReal(t *testing.T) {
	for _, gmp := range []int{1, 2} {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("GOMAXPROCS=%d/procs=%d", gmp, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(gmp))
				e, l, err := countedExec(executor.Config{Procs: procs})
				require.NoError(t, err)
				within(t, time.Minute, "a long task alone and Close", func() {
					// The Ms park as they start; a submit before that finds
					// no idle M and makes one more.
					for e.Stats().Total.Parks < uint64(procs) {
						time.Sleep(100 * time.Microsecond)
					}
					require.NoError(t, e.Go(func(executor.Task) {
						for start := time.Now(); time.Since(start) < 5*executor.DefaultSlice; {
						}
					}))
					require.NoError(t, closeAndCheck(e, l))
				})
				require.NoError(t, aloneCosts(e.Stats(), procs))
			})
		}
	}
}
