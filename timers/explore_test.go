package timers_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/timers"
)

// Bar item 5: the real heap and timers under every interleaving, within the
// preemption bound, of three small scenarios, the races the executor will
// have: a timer firing against its Stop, a Reset against the Run that pops
// the arming it replaces, and an idle P's steal pass against the owner's
// Run on the owner's heap, with funcs that arm timers on the heap that runs
// them and on the other. The scheduling points are the atomicx operations
// (the locks, the state words, the earliest-when and count cells), so these
// run only with -tags schedcheck; without it explore.Check skips them.
//
// Each execution is judged by what the threads saw and what is left: every
// arming fired or was stopped, exactly once and never both, no func ran
// early or for a later arming, and each heap's invariants and cells
// (timers.CheckInvariants). MustReach lists the outcomes each race must show
// both sides of, so a scenario whose race stopped happening fails.

// xScenario is one explorer scenario.
type xScenario struct {
	name      string
	build     func() explore.Run
	mustReach []string
}

var xScenarios = []xScenario{
	{"fire-vs-stop", fireVsStop, []string{"fired", "stopped"}},
	{"reset-vs-run", resetVsRun, []string{"fired, then re-armed", "reset stopped it"}},
	{"steal-vs-owner", stealVsOwner, []string{"owner ran both", "thief ran both", "one each"}},
	{"take-vs-run-stop", takeVsRunStop((*timers.Heap).Take), []string{"a ran on src", "a moved"}},
}

// xfire is one call of a timer func in a scenario.
type xfire struct {
	id    int
	seq   uint64
	delay int64
}

// fireVsStop: timer t at when 5 on the owner's heap; the owner runs its
// heap at 10 while another goroutine stops t. Exactly one of them wins.
func fireVsStop() explore.Run {
	h := new(timers.Heap)
	explore.Name(h, "heap")
	var fires []xfire
	t := timers.NewTimer(func(arg any, seq uint64, delay int64) { fires = append(fires, xfire{arg.(int), seq, delay}) }, 1)
	explore.Name(t, "t")
	h.Add(t, 5)
	var ran int
	var stopped bool
	return explore.Run{
		Threads: []func(){
			func() { ran = h.Run(10, 4) },
			func() { stopped = t.Stop() },
		},
		Check: func() error {
			if ran != len(fires) {
				return fmt.Errorf("Run returned %d, %d funcs ran", ran, len(fires))
			}
			if n := len(fires) + btoi(stopped); n != 1 {
				return fmt.Errorf("the arming fired %d times and Stop said %v: want exactly one of them", len(fires), stopped)
			}
			if len(fires) == 1 && (fires[0].seq != 1 || fires[0].delay != 5) {
				return fmt.Errorf("fired %+v, want seq 1, delay 5", fires[0])
			}
			if t.Pending() {
				return errors.New("t is still pending")
			}
			return heapsOK(map[string]*timers.Heap{"heap": h}, map[string]int64{"heap": 0})
		},
		Outcome: func() string {
			if stopped {
				return "stopped"
			}
			return "fired"
		},
	}
}

// resetVsRun: timer t at when 5; the owner runs its heap at 10 while
// another goroutine resets t to 20. If Reset stopped the first arming it
// must not fire; the second (when 20) must not fire at 10 whatever
// happens, and stays armed.
func resetVsRun() explore.Run {
	h := new(timers.Heap)
	explore.Name(h, "heap")
	var fires []xfire
	t := timers.NewTimer(func(arg any, seq uint64, delay int64) { fires = append(fires, xfire{arg.(int), seq, delay}) }, 1)
	explore.Name(t, "t")
	h.Add(t, 5)
	var ran int
	var stopped bool
	return explore.Run{
		Threads: []func(){
			func() { ran = h.Run(10, 4) },
			func() { stopped = h.Reset(t, 20) },
		},
		Check: func() error {
			if ran != len(fires) {
				return fmt.Errorf("Run returned %d, %d funcs ran", ran, len(fires))
			}
			for _, f := range fires {
				if f.seq != 1 || f.delay != 5 {
					return fmt.Errorf("a func ran with seq %d, delay %d at now 10: only the first arming (when 5) may fire", f.seq, f.delay)
				}
			}
			if n := len(fires) + btoi(stopped); n != 1 {
				return fmt.Errorf("the first arming fired %d times and Reset said it stopped it: %v", len(fires), stopped)
			}
			if !t.Pending() || timers.Gen(t) != 2 {
				return fmt.Errorf("t after Reset: pending %v, arming %d; want the second, pending", t.Pending(), timers.Gen(t))
			}
			return heapsOK(map[string]*timers.Heap{"heap": h}, map[string]int64{"heap": 20})
		},
		Outcome: func() string {
			if stopped {
				return "reset stopped it"
			}
			return "fired, then re-armed"
		},
	}
}

// stealVsOwner: timers a (when 5) and b (when 6) on P0's heap. P0 runs its
// heap at 10; an idle P1, in its steal pass, reads P0's Next without the
// lock and, seeing an expired timer, runs P0's heap too. a's func re-arms
// a on P1's heap (a readied task's next Sleep, on the thief's P) and b's
// re-arms b on the heap that ran it, P0's: a Run that held the lock over a
// func would deadlock there. Each fires once, whichever Run fires it.
func stealVsOwner() explore.Run {
	h0, h1 := new(timers.Heap), new(timers.Heap)
	explore.Name(h0, "p0.timers")
	explore.Name(h1, "p1.timers")
	var fires []xfire
	var a, b *timers.Timer
	a = timers.NewTimer(func(arg any, seq uint64, delay int64) {
		fires = append(fires, xfire{arg.(int), seq, delay})
		h1.Add(a, 50)
	}, 0)
	b = timers.NewTimer(func(arg any, seq uint64, delay int64) {
		fires = append(fires, xfire{arg.(int), seq, delay})
		h0.Add(b, 50)
	}, 1)
	explore.Name(a, "a")
	explore.Name(b, "b")
	h0.Add(a, 5)
	h0.Add(b, 6)
	var owner, thief int
	return explore.Run{
		Threads: []func(){
			func() { owner = h0.Run(10, 4) },
			func() {
				if w := h0.Next(); w != 0 && w <= 10 {
					thief = h0.Run(10, 4)
				}
			},
		},
		Check: func() error {
			if owner+thief != len(fires) {
				return fmt.Errorf("the Runs returned %d and %d, %d funcs ran", owner, thief, len(fires))
			}
			var n [2]int
			for _, f := range fires {
				n[f.id]++
				if f.seq != 1 || f.delay != 5-int64(f.id) {
					return fmt.Errorf("timer %d fired with seq %d, delay %d", f.id, f.seq, f.delay)
				}
			}
			if n != [2]int{1, 1} {
				return fmt.Errorf("a fired %d times, b %d: want once each", n[0], n[1])
			}
			return heapsOK(map[string]*timers.Heap{"p0": h0, "p1": h1}, map[string]int64{"p0": 50, "p1": 50})
		},
		Outcome: func() string {
			switch {
			case thief == 0:
				return "owner ran both"
			case owner == 0:
				return "thief ran both"
			}
			return "one each"
		},
	}
}

// takeVsRunStop: timers a (when 5) and b (when 6) on src, a P taken away
// (the executor's SetProcs); dst.Take(src) moves them while a late scan
// runs src at 10 (sysmon or a spinning M that read src's Next before the
// move) and another goroutine stops b. Then dst and src are run at 10: a
// fires exactly once (on src, or moved and on dst, with its seq and
// delay), b fires or is stopped, exactly one of them, and both heaps end
// empty with their invariants.
func takeVsRunStop(take func(dst, src *timers.Heap)) func() explore.Run {
	return func() explore.Run { return takeVsRunStopWith(take) }
}

func takeVsRunStopWith(take func(dst, src *timers.Heap)) explore.Run {
	src, dst := new(timers.Heap), new(timers.Heap)
	explore.Name(src, "src")
	explore.Name(dst, "dst")
	var fires []xfire
	f := func(arg any, seq uint64, delay int64) { fires = append(fires, xfire{arg.(int), seq, delay}) }
	a, b := timers.NewTimer(f, 0), timers.NewTimer(f, 1)
	explore.Name(a, "a")
	explore.Name(b, "b")
	src.Add(a, 5)
	src.Add(b, 6)
	var onSrc int
	var stopped bool
	return explore.Run{
		Threads: []func(){
			func() { take(dst, src) },
			func() { onSrc = src.Run(10, 4) },
			func() { stopped = b.Stop() },
		},
		Check: func() error {
			ran := onSrc + dst.Run(10, 4) + src.Run(10, 4)
			if ran != len(fires) {
				return fmt.Errorf("the Runs returned %d, %d funcs ran", ran, len(fires))
			}
			var n [2]int
			for _, f := range fires {
				n[f.id]++
				if f.seq != 1 || f.delay != 5-int64(f.id) {
					return fmt.Errorf("timer %d fired with seq %d, delay %d", f.id, f.seq, f.delay)
				}
			}
			if n[0] != 1 || n[1]+btoi(stopped) != 1 {
				return fmt.Errorf("a fired %d times; b fired %d times and Stop said %v: want a once, b fired or stopped", n[0], n[1], stopped)
			}
			return heapsOK(map[string]*timers.Heap{"src": src, "dst": dst}, map[string]int64{"src": 0, "dst": 0})
		},
		Outcome: func() string {
			for _, f := range fires[:onSrc] {
				if f.id == 0 {
					return "a ran on src"
				}
			}
			return "a moved"
		},
	}
}

// heapsOK checks each heap's invariants and its earliest when.
func heapsOK(hs map[string]*timers.Heap, next map[string]int64) error {
	for name, h := range hs {
		if err := timers.CheckInvariants(h); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if got := h.Next(); got != next[name] {
			return fmt.Errorf("%s: Next() = %d, want %d", name, got, next[name])
		}
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (s xScenario) options() explore.Options {
	return explore.Options{Name: "timers-" + s.name, MustReach: s.mustReach}
}

// exploreTimers runs every scenario and returns the first failure, for the
// kill matrix; t only receives logs.
func exploreTimers(t testing.TB) error {
	for _, s := range xScenarios {
		res, err := explore.Explore(s.options(), s.build)
		if err != nil {
			return err
		}
		if res.Failure != nil {
			return errors.New(res.Failure.String())
		}
		t.Log(res.Summary())
	}
	return nil
}

func TestExploreTimers(t *testing.T) {
	for _, s := range xScenarios {
		t.Run(s.name, func(t *testing.T) {
			res := explore.Check(t, s.options(), s.build)
			if !res.Complete && !res.Replayed {
				t.Errorf("exploration of %s was cut short at %d executions", s.name, res.Executions)
			}
		})
	}
}

// TestExploreTakeCatchesNoTimerLock proves take-vs-run-stop can fail: a
// Take that moves entries without each timer's lock races with Stop.
func TestExploreTakeCatchesNoTimerLock(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "timers-take-no-timer-lock"}, takeVsRunStop(timers.TakeNoTimerLock))
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil {
		t.Fatalf("the explorer accepted a Take without the timers' locks in %d executions", res.Executions)
	}
	t.Logf("caught in execution %d: %v", res.Failure.Execution, res.Failure.Err)
}
