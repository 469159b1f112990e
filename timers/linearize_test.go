package timers_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/timers"
)

// Bar item 6: histories of two heaps (two Ps) and their timers, driven by
// real goroutines, checked by porcupine against a sequential model: per
// timer its armings (the generation), whether the latest is pending, its
// when and its heap; a heap is the sorted list of the pending armings on
// it. Each arming fires once or is stopped once, never both.
//
// Two mutators own six timers each and Add (a timer they know is disarmed),
// Reset (on either heap, so timers move between heaps) and Stop them; each
// heap has one runner, which calls Run(now, max) on it with a clock that
// only grows. The model takes each step at one instant:
//
//   - Add(t, h, when): t is not pending; its next arming, pending on h.
//   - Stop(t) -> stopped: stopped is whether t's arming was pending; it is
//     not any more.
//   - Reset(t, h, when) -> stopped is two steps, in this order, inside its
//     interval: ResetStop (Stop's step) and ResetArm (Add's step). Reset
//     claims the old arming by its CAS and pushes the new one later, under
//     the heap's lock; in between a Run can see neither arming (the old
//     one's entry popped and lost to the CAS, the new one not pushed yet),
//     which no single instant explains: Prepare (linSplit) records one
//     call and checks two operations over its interval, ordered by the
//     generation they carry.
//   - Run(h, now, max) -> the armings it fired, in order, is one step per
//     arming fired, and, if it fired fewer than max, one more step where it
//     found nothing expired (Prepare splits it, the steps ordered by an
//     index). A fire of arming (t, seq, delay): t's current arming is seq,
//     pending, on h, with when <= now, no pending arming on h is earlier,
//     and delay = now - when; the arming is fired. The run's last step: no
//     pending arming on h has when <= now.
//
// A fire takes effect where Run pops its entry, under the heap's lock:
// there the entry is the earliest of the heap's, which hold every pending
// arming on h (and stopped ones not yet unlinked), and the arming is still
// pending then if Run's CAS claims it later (a Stop or Reset that claims it
// first makes that pop no step of the model; Run goes on to the next).
// That needs one runner per heap: a steal's Run racing the owner's could
// pop an arming the owner's Run then sees missing while it is still
// pending (and later stopped), so two Runs of one heap are not
// linearizable with a Run as steps of this model; the explorer's
// steal-vs-owner and the stress test judge the steal. Next, Len and
// Pending are single loads that see a stopped arming until its entry is
// unlinked (doc.go): they are left out.
//
// Every identifier of this file but the tests starts with lin.

const (
	linTimers = 12 // six per mutator
	linHeaps  = 2
	// linMaxArmings bounds a timer's armings in one history (the per-arming
	// record linTimer.heapOf is a fixed array, so that the funcs read it
	// without racing the mutator that appends).
	linMaxArmings = 256
)

// linKind names an operation.
type linKind uint8

const (
	linAdd linKind = iota
	linStop
	linReset
	linRun
	// The steps Prepare splits Reset and Run into.
	linResetStop
	linResetArm
	linFire
	linNone
)

var linKindNames = [...]string{"Add", "Stop", "Reset", "Run", "ResetStop", "ResetArm", "Fire", "None"}

// linInput is an operation's input.
type linInput struct {
	kind  linKind
	timer int   // Add, Stop, Reset
	heap  int   // Add, Reset: the heap it arms on; Run: the heap it runs
	when  int64 // Add, Reset
	gen   int   // Reset: the timer's armings before it (its owner knows)
	now   int64 // Run
	max   int   // Run
	run   int   // Run: the runner's count of its Runs; Fire, None: of the Run split
	idx   int   // Fire, None: the step's place in its Run
}

// linFired is one arming a Run fired, as its func saw it.
type linFired struct {
	timer int
	seq   uint64
	delay int64
}

// linOutput is an operation's output.
type linOutput struct {
	stopped bool       // Stop, Reset, ResetStop
	fired   []linFired // Run
	fire    linFired   // Fire
}

// linTimerState is one timer in the model.
type linTimerState struct {
	gen       int
	pending   bool
	resetting bool // a ResetStop has taken its step and its ResetArm not yet
	heap      int
	when      int64
}

// linState is the model's state: comparable, so Equal is ==.
type linState struct {
	ts [linTimers]linTimerState
	// Per heap, the Run whose steps are being taken and the next step's
	// index.
	run, idx [linHeaps]int
}

// linWhen is the when an arming stores: below 1 is 1.
func linWhen(w int64) int64 { return max(w, 1) }

// linStep is the sequential model.
func linStep(state, input, output any) (bool, any) {
	s, in, out := state.(linState), input.(linInput), output.(linOutput)
	switch in.kind {
	case linAdd:
		t := &s.ts[in.timer]
		if t.pending || t.resetting {
			return false, s
		}
		*t = linTimerState{gen: t.gen + 1, pending: true, heap: in.heap, when: linWhen(in.when)}
		return true, s
	case linStop:
		t := &s.ts[in.timer]
		if t.resetting || out.stopped != t.pending {
			return false, s
		}
		t.pending = false
		return true, s
	case linResetStop:
		t := &s.ts[in.timer]
		if t.resetting || t.gen != in.gen || out.stopped != t.pending {
			return false, s
		}
		t.pending, t.resetting = false, true
		return true, s
	case linResetArm:
		t := &s.ts[in.timer]
		if !t.resetting || t.gen != in.gen {
			return false, s
		}
		*t = linTimerState{gen: t.gen + 1, pending: true, heap: in.heap, when: linWhen(in.when)}
		return true, s
	case linFire, linNone:
		h := in.heap
		if in.idx >= in.max || (in.run == s.run[h]) != (in.idx > 0) || in.run == s.run[h] && in.idx != s.idx[h] {
			return false, s // more than max, or out of the Run's order
		}
		s.run[h], s.idx[h] = in.run, in.idx+1
		earliest := int64(0)
		for _, t := range s.ts {
			if t.pending && t.heap == h && (earliest == 0 || t.when < earliest) {
				earliest = t.when
			}
		}
		if in.kind == linNone {
			return earliest == 0 || earliest > in.now, s
		}
		f := out.fire
		t := &s.ts[f.timer]
		if !t.pending || t.heap != h || uint64(t.gen) != f.seq || t.when > in.now || t.when != earliest || f.delay != in.now-t.when {
			return false, s
		}
		t.pending = false
		return true, s
	}
	panic(fmt.Sprintf("linStep: operation %s not split", linKindNames[in.kind]))
}

func linModel() porcupine.Model {
	return porcupine.Model{
		Init:  func() any { return linState{} },
		Step:  linStep,
		Equal: func(a, b any) bool { return a.(linState) == b.(linState) },
		Hash: func(state any) uint64 {
			s := state.(linState)
			words := make([]uint64, 0, 2*linTimers+2*linHeaps)
			for _, t := range s.ts {
				var flags uint64
				if t.pending {
					flags |= 1
				}
				if t.resetting {
					flags |= 2
				}
				words = append(words, uint64(t.gen)<<8|uint64(t.heap)<<2|flags, uint64(t.when))
			}
			for h := range linHeaps {
				words = append(words, uint64(s.run[h]), uint64(s.idx[h]))
			}
			return linearize.HashWords(words, nil)
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(linInput), output.(linOutput)
			switch in.kind {
			case linAdd:
				return fmt.Sprintf("Add(t%d, heap %d, when %d)", in.timer, in.heap, in.when)
			case linStop:
				return fmt.Sprintf("Stop(t%d) -> %v", in.timer, out.stopped)
			case linReset:
				return fmt.Sprintf("Reset(t%d, heap %d, when %d) -> %v", in.timer, in.heap, in.when, out.stopped)
			case linResetStop:
				return fmt.Sprintf("Reset(t%d) stops arming %d -> %v", in.timer, in.gen, out.stopped)
			case linResetArm:
				return fmt.Sprintf("Reset(t%d) arms %d on heap %d, when %d", in.timer, in.gen+1, in.heap, in.when)
			case linRun:
				return fmt.Sprintf("Run(heap %d, now %d, max %d) -> %v", in.heap, in.now, in.max, out.fired)
			case linFire:
				return fmt.Sprintf("Run #%d (heap %d, now %d) step %d: fires t%d arming %d, delay %d",
					in.run, in.heap, in.now, in.idx, out.fire.timer, out.fire.seq, out.fire.delay)
			}
			return fmt.Sprintf("Run #%d (heap %d, now %d) step %d: nothing expired", in.run, in.heap, in.now, in.idx)
		},
		DescribeState: func(state any) string {
			s := state.(linState)
			var b []byte
			for h := range linHeaps {
				type arm struct {
					when int64
					t    int
				}
				var arms []arm
				for i, t := range s.ts {
					if t.pending && t.heap == h {
						arms = append(arms, arm{t.when, i})
					}
				}
				slices.SortFunc(arms, func(a, b arm) int { return int(a.when - b.when) })
				b = fmt.Appendf(b, "heap %d:", h)
				for _, a := range arms {
					b = fmt.Appendf(b, " t%d@%d", a.t, a.when)
				}
				b = append(b, "; "...)
			}
			return string(b)
		},
	}
}

// linSplit is Prepare: each Reset becomes its ResetStop and its ResetArm,
// each Run its Fire steps and, if it fired fewer than max, a None, all
// over the call's interval.
func linSplit(ops []linearize.Op[linInput, linOutput]) []linearize.Op[linInput, linOutput] {
	var out []linearize.Op[linInput, linOutput]
	for _, op := range ops {
		switch op.Input.kind {
		case linReset:
			stop, arm := op, op
			stop.Input.kind, arm.Input.kind = linResetStop, linResetArm
			out = append(out, stop, arm)
		case linRun:
			for i, f := range op.Output.fired {
				step := op
				step.Input.kind, step.Input.idx = linFire, i
				step.Output = linOutput{fire: f}
				out = append(out, step)
			}
			if n := len(op.Output.fired); n < op.Input.max {
				step := op
				step.Input.kind, step.Input.idx = linNone, n
				step.Output = linOutput{}
				out = append(out, step)
			}
		default:
			out = append(out, op)
		}
	}
	return out
}

// linTimer is one timer of a history and the record of its armings: the
// heap of arming seq is heapOf[seq], written by the owner before it arms
// (so before the func of that arming can run) and read by the func.
type linTimer struct {
	t      *timers.Timer
	heapOf [linMaxArmings + 1]int
	gen    int  // armings so far; the owner's
	armed  bool // the owner's: armed since its last Stop (it may have fired)
}

// linSurface is what the threads call: the real heaps and timers, or a
// broken variant.
type linSurface interface {
	Stop(t *timers.Timer) bool
	Run(h *timers.Heap, now int64, max int) int
}

type linRealSurface struct{}

func (linRealSurface) Stop(t *timers.Timer) bool                  { return t.Stop() }
func (linRealSurface) Run(h *timers.Heap, now int64, max int) int { return h.Run(now, max) }

// linStopByLook is a broken Stop, the seeded StopAfterFire in a test's
// clothes: it decides by a look at Pending and then stops, so a Run that
// fires the timer in between leaves it fired and reported stopped. It is
// wrong only when a Run fires between the two: a race-only bug.
type linStopByLook struct{ linRealSurface }

func (linStopByLook) Stop(t *timers.Timer) bool {
	was := t.Pending()
	runtime.Gosched() // widen the window
	t.Stop()
	return was
}

// linRunsOneMore is a broken Run that fires one more arming than max
// allows: wrong whenever enough have expired, without any overlap.
type linRunsOneMore struct{ linRealSurface }

func (linRunsOneMore) Run(h *timers.Heap, now int64, max int) int { return h.Run(now, max+1) }

// linConfig describes a series of histories.
type linConfig struct {
	histories  int
	mutatorOps int
	runnerOps  int
	seed       uint64
	surface    linSurface
}

func linDefaultConfig() linConfig {
	return linConfig{histories: linearize.Histories(), mutatorOps: 40, runnerOps: 40, seed: rand.Uint64(), surface: linRealSurface{}}
}

// linStats adds up what the histories exercised.
type linStats struct {
	adds, stops, stopped, resets, resetStopped, moved, runs, fires, multiFires, nones int
}

func (st *linStats) String() string {
	return fmt.Sprintf("%d Adds, %d Stops (%d stopped an arming), %d Resets (%d stopped one, %d moved heaps), "+
		"%d Runs (%d fired, %d fired two or more), %d that found nothing",
		st.adds, st.stops, st.stopped, st.resets, st.resetStopped, st.moved, st.runs, st.fires, st.multiFires, st.nones)
}

// linStress is the series cfg describes; st counts what its histories do.
// Threads 0 and 1 are the mutators (thread 0 leads: the others stop when
// it is done), threads 2 and 3 the runners of heaps 0 and 1, on one clock
// that each Run advances.
func linStress(name string, cfg linConfig, st *linStats) *linearize.Stress[linInput, linOutput] {
	return &linearize.Stress[linInput, linOutput]{
		Name:    name,
		Seed:    cfg.seed,
		Prepare: linSplit,
		Setup: func(h int, rng *rand.Rand) linearize.History[linInput, linOutput] {
			var heaps [linHeaps]timers.Heap
			var fired [linHeaps][]linFired
			var clock atomic.Int64
			clock.Store(1)
			ts := make([]*linTimer, linTimers)
			for i := range ts {
				lt := &linTimer{}
				lt.t = timers.NewTimer(func(arg any, seq uint64, delay int64) {
					k := lt.heapOf[seq]
					fired[k] = append(fired[k], linFired{timer: arg.(int), seq: seq, delay: delay})
				}, i)
				ts[i] = lt
			}
			threads := make([]func(*linearize.Worker[linInput, linOutput]), 0, 4)
			for m := range 2 {
				threads = append(threads, linMutator(cfg, heaps[:], ts, m*linTimers/2, (m+1)*linTimers/2, &clock))
			}
			for k := range linHeaps {
				threads = append(threads, linRunner(cfg, &heaps[k], k, &fired[k], &clock))
			}
			return linearize.History[linInput, linOutput]{Model: linModel(), Threads: threads}
		},
		Tally: func(ops []linearize.Op[linInput, linOutput]) { st.tally(ops) },
	}
}

// tally counts one history's steps (Prepare has split Reset and Run).
func (st *linStats) tally(ops []linearize.Op[linInput, linOutput]) {
	heapOf := map[int]int{}
	fires := map[[2]int]int{} // (heap, run) -> fires
	for _, op := range ops {
		in, out := op.Input, op.Output
		switch in.kind {
		case linAdd:
			st.adds++
		case linStop:
			st.stops++
			if out.stopped {
				st.stopped++
			}
		case linResetStop:
			st.resets++
			if out.stopped {
				st.resetStopped++
			}
		case linResetArm:
			if k, ok := heapOf[in.timer]; ok && k != in.heap {
				st.moved++ // counted by call order: an estimate
			}
			heapOf[in.timer] = in.heap
		case linFire:
			st.fires++
			fires[[2]int{in.heap, in.run}]++
			if in.idx == 0 {
				st.runs++
			}
		case linNone:
			st.nones++
			if in.idx == 0 {
				st.runs++
			}
		}
		if in.kind == linAdd {
			heapOf[in.timer] = in.heap
		}
	}
	for _, n := range fires {
		if n >= 2 {
			st.multiFires++
		}
	}
}

// linMutator is a mutator's thread: up to ops operations on its timers
// ts[lo:hi], each arming on a heap drawn at random, at a when near the
// clock.
func linMutator(cfg linConfig, heaps []timers.Heap, ts []*linTimer, lo, hi int, clock *atomic.Int64) func(*linearize.Worker[linInput, linOutput]) {
	return func(w *linearize.Worker[linInput, linOutput]) {
		for range w.Ops(cfg.mutatorOps) {
			if w.ID != 0 && w.LeadDone() {
				return
			}
			w.Yield(2)
			i := lo + w.Rand.IntN(hi-lo)
			lt := ts[i]
			k := w.Rand.IntN(linHeaps)
			when := clock.Load() + int64(w.Rand.IntN(10)) - 2
			switch r := w.Rand.IntN(100); {
			case r < 25:
				w.Begin(linInput{kind: linStop, timer: i})
				stopped := cfg.surface.Stop(lt.t)
				w.End(linOutput{stopped: stopped})
				lt.armed = false
			case !lt.armed && lt.gen < linMaxArmings && r < 60:
				lt.gen++
				lt.heapOf[lt.gen] = k
				w.Begin(linInput{kind: linAdd, timer: i, heap: k, when: when})
				heaps[k].Add(lt.t, when)
				w.End(linOutput{})
				lt.armed = true
			case lt.gen < linMaxArmings:
				gen := lt.gen
				lt.gen++
				lt.heapOf[lt.gen] = k
				w.Begin(linInput{kind: linReset, timer: i, heap: k, when: when, gen: gen})
				stopped := heaps[k].Reset(lt.t, when)
				w.End(linOutput{stopped: stopped})
				lt.armed = true
			}
		}
	}
}

// linRunner is heap k's runner: up to ops Runs of it, until the lead is
// done, each at a later now.
func linRunner(cfg linConfig, h *timers.Heap, k int, fired *[]linFired, clock *atomic.Int64) func(*linearize.Worker[linInput, linOutput]) {
	return func(w *linearize.Worker[linInput, linOutput]) {
		for run := 1; run <= w.Ops(cfg.runnerOps); run++ {
			if w.LeadDone() {
				return
			}
			w.Yield(2)
			now := clock.Add(1)
			max := 1 + w.Rand.IntN(3)
			*fired = (*fired)[:0]
			w.Begin(linInput{kind: linRun, heap: k, now: now, max: max, run: run})
			cfg.surface.Run(h, now, max)
			w.EndFunc(func() linOutput { return linOutput{fired: slices.Clone(*fired)} })
		}
	}
}

// TestLinearizable checks many short histories of two mutators and two
// runners on two heaps against linStep: every one must be linearizable.
func TestLinearizable(t *testing.T) {
	cfg := linDefaultConfig()
	var st linStats
	sum := linStress(t.Name(), cfg, &st).CheckAll(t, cfg.histories)
	t.Logf("coverage: %v", &st)
	require.Positive(t, st.stopped, "no Stop stopped an arming")
	require.Positive(t, st.resetStopped, "no Reset stopped an arming")
	require.Positive(t, st.moved, "no Reset moved a timer to the other heap")
	require.Positive(t, st.multiFires, "no Run fired two armings")
	require.Positive(t, st.nones, "no Run found nothing expired")
	t.Logf("timers linearizability: %d histories, %d operations, all linearizable", sum.Histories, sum.Operations)
}

// TestLinearizeCatchesBrokenTimers proves the check can fail: the same
// harness, on broken variants, must produce an Illegal history and its
// visualization. The Stop by a look is wrong only when a Run fires the
// timer between its look and its Stop: a race-only catch.
func TestLinearizeCatchesBrokenTimers(t *testing.T) {
	cases := []struct {
		name    string
		surface linSurface
		catch   linearize.Catch
	}{
		{"Run fires one more than max", linRunsOneMore{}, linearize.Catch{}},
		{"Stop decides by a look at Pending", linStopByLook{}, linearize.Catch{RaceOnly: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := linDefaultConfig()
			cfg.surface = tc.surface
			linStress(t.Name(), cfg, new(linStats)).Catches(t, tc.catch)
		})
	}
}
