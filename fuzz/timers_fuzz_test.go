package fuzz_test

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/fuzz"
	"github.com/schedkit/schedkit/timers"
)

// FuzzTimers drives the timer heaps of 1 to 4 Ps and tmTimers timers that
// the program arms, resets and stops on any heap, and runs each P's heap or,
// as an idle P's steal pass, the next P's. Every identifier of this file
// but the tests starts with tm, to stay clear of the other targets of the
// package.

// tmHeap is what FuzzTimers drives: timers.Heap, or a broken wrapper in
// TestFuzzTimersCatchesBrokenHeap.
type tmHeap interface {
	Add(t *timers.Timer, when int64)
	Reset(t *timers.Timer, when int64) bool
	Run(now int64, max int) int
	Next() int64
	Len() int
}

func newTMReal() tmHeap { return new(timers.Heap) }

const (
	tmTimers   = 8  // timers 6 and 7 re-arm themselves from their func
	tmWhens    = 32 // whens 0..31 (0 is taken as 1)
	tmNows     = 40
	tmMaxRun   = 4
	tmPeriodic = 6
)

// The operations of a FuzzTimers program. Actor i is P i, with heap i.
const (
	tmOpAdd   = iota // arg: timer*tmWhens + when; Add on the actor's heap (a pending timer must panic)
	tmOpReset        // arg as Add; Reset onto the actor's heap
	tmOpStop         // arg: timer
	tmOpRun          // arg: now*tmMaxRun + max-1; Run of the actor's heap
	tmOpSteal        // arg as Run; the next P's heap, if its Next says a timer expired
)

var tmSpec = fuzz.Spec{
	MinActors: 1,
	MaxActors: 4,
	Ops: []fuzz.Op{
		tmOpAdd:   {Name: "Add", Args: tmTimers * tmWhens},
		tmOpReset: {Name: "Reset", Args: tmTimers * tmWhens},
		tmOpStop:  {Name: "Stop", Args: tmTimers},
		tmOpRun:   {Name: "Run", Args: tmNows * tmMaxRun},
		tmOpSteal: {Name: "Steal", Args: tmNows * tmMaxRun},
	},
	MaxSteps: 512,
}

// tmModel is one timer's model.
type tmModel struct {
	pending bool
	heap    int
	when    int64
	seq     uint64
}

// tmRun is the state of one interpretation.
type tmRun struct {
	heaps []tmHeap
	ts    []*timers.Timer
	model []tmModel
	fires []int // the timers fired by the current Run, in order
	seqs  []uint64
	delay []int64
	now   int64 // the current Run's now and heap, for the re-arming funcs
	on    int
	seen  map[string]int
}

func interpretTM(data []byte, newHeap func() tmHeap) (map[string]int, error) {
	p := tmSpec.Decode(data)
	m := &tmRun{seen: map[string]int{}, model: make([]tmModel, tmTimers)}
	for range p.Actors {
		m.heaps = append(m.heaps, newHeap())
	}
	for i := range tmTimers {
		m.ts = append(m.ts, timers.NewTimer(func(arg any, seq uint64, delay int64) {
			k := arg.(int)
			m.fires, m.seqs, m.delay = append(m.fires, k), append(m.seqs, seq), append(m.delay, delay)
			if k >= tmPeriodic {
				m.heaps[m.on].Add(m.ts[k], m.now+1+int64(k%3))
			}
		}, i))
	}
	return seqSteps(tmSpec, p, "P", m.seen, m.step, m.check, m.finish)
}

func runTM(data []byte, newHeap func() tmHeap) error {
	_, err := interpretTM(data, newHeap)
	return err
}

func (m *tmRun) earliest(h int) int64 {
	var w int64
	for _, t := range m.model {
		if t.pending && t.heap == h && (w == 0 || t.when < w) {
			w = t.when
		}
	}
	return w
}

func (m *tmRun) check() error {
	for h, hp := range m.heaps {
		n := 0
		for _, t := range m.model {
			if t.pending && t.heap == h {
				n++
			}
		}
		if got := hp.Len(); got != n {
			return fmt.Errorf("heap %d: Len() = %d, the model holds %d", h, got, n)
		}
		if got, want := hp.Next(), m.earliest(h); got != want {
			return fmt.Errorf("heap %d: Next() = %d, the model's earliest is %d", h, got, want)
		}
	}
	for k, t := range m.ts {
		if got := t.Pending(); got != m.model[k].pending {
			return fmt.Errorf("timer %d: Pending() = %v, the model %v", k, got, m.model[k].pending)
		}
	}
	return nil
}

func (m *tmRun) arm(k, h int, when int64) {
	m.model[k] = tmModel{pending: true, heap: h, when: max(when, 1), seq: m.model[k].seq + 1}
}

func (m *tmRun) step(st fuzz.Step) error {
	switch st.Op {
	case tmOpAdd, tmOpReset:
		k, when := st.Arg/tmWhens, int64(st.Arg%tmWhens)
		was := m.model[k].pending
		if st.Op == tmOpAdd {
			if was {
				if panics(func() { m.heaps[st.Actor].Add(m.ts[k], when) }) == nil {
					return fmt.Errorf("Add of pending timer %d did not panic", k)
				}
				m.seen["Add pending panics"]++
				return nil
			}
			m.heaps[st.Actor].Add(m.ts[k], when)
			m.seen["Add"]++
		} else {
			if got := m.heaps[st.Actor].Reset(m.ts[k], when); got != was {
				return fmt.Errorf("Reset of timer %d returned %v, the model has it pending: %v", k, got, was)
			}
			if was && m.model[k].heap != st.Actor {
				m.seen["Reset moves it"]++
			}
			m.seen["Reset"]++
		}
		m.arm(k, st.Actor, when)
	case tmOpStop:
		k := st.Arg
		if got := m.ts[k].Stop(); got != m.model[k].pending {
			return fmt.Errorf("Stop of timer %d returned %v, the model has it pending: %v", k, got, m.model[k].pending)
		}
		if m.model[k].pending {
			m.seen["Stop stopped"]++
		}
		m.model[k].pending = false
	case tmOpRun, tmOpSteal:
		now, max := int64(st.Arg/tmMaxRun), 1+st.Arg%tmMaxRun
		h := st.Actor
		if st.Op == tmOpSteal {
			h = (st.Actor + 1) % len(m.heaps)
			if w := m.heaps[h].Next(); w == 0 || w > now {
				m.seen["Steal nothing expired"]++
				return nil
			}
		}
		return m.run(h, now, max, st.Op == tmOpSteal)
	}
	return nil
}

// run checks a Run's fires against the model, following the heap's choice
// among equal whens (as TestTimersModel does).
func (m *tmRun) run(h int, now int64, max int, steal bool) error {
	m.fires, m.seqs, m.delay, m.now, m.on = nil, nil, nil, now, h
	ran := m.heaps[h].Run(now, max)
	if ran != len(m.fires) {
		return fmt.Errorf("Run(%d, %d) of heap %d returned %d, %d funcs ran", now, max, h, ran, len(m.fires))
	}
	for i, k := range m.fires {
		t := m.model[k]
		if !t.pending || t.heap != h || t.when > now || t.when != m.earliest(h) {
			return fmt.Errorf("Run(%d, %d) of heap %d fired timer %d (model: pending %v on heap %d at %d; the heap's earliest %d)",
				now, max, h, k, t.pending, t.heap, t.when, m.earliest(h))
		}
		if m.seqs[i] != t.seq || m.delay[i] != now-t.when {
			return fmt.Errorf("timer %d fired with seq %d, delay %d; want %d, %d", k, m.seqs[i], m.delay[i], t.seq, now-t.when)
		}
		m.model[k].pending = false
		if k >= tmPeriodic {
			m.arm(k, h, now+1+int64(k%3))
			m.seen["func re-arms"]++
		}
		if steal {
			m.seen["Steal fired"]++
		} else {
			m.seen["Run fired"]++
		}
	}
	if w := m.earliest(h); w != 0 && w <= now {
		if len(m.fires) < max {
			return fmt.Errorf("Run(%d, %d) of heap %d fired %d and left a timer at %d", now, max, h, len(m.fires), w)
		}
		m.seen["Run cut at max"]++
	}
	return nil
}

// finish stops every timer: each pending one must say so, and the heaps
// must then be empty.
func (m *tmRun) finish() error {
	for k, t := range m.ts {
		if got := t.Stop(); got != m.model[k].pending {
			return fmt.Errorf("final Stop of timer %d returned %v, the model has it pending: %v", k, got, m.model[k].pending)
		}
		m.model[k].pending = false
	}
	return m.check()
}

func tmSeeds() []fuzz.Program {
	s := seqStep
	at := func(k, w int) int { return k*tmWhens + w }
	run := func(now, max int) int { return now*tmMaxRun + max - 1 }
	return []fuzz.Program{
		{Actors: 2, Steps: []fuzz.Step{
			s(0, tmOpAdd, at(0, 5)), s(0, tmOpAdd, at(1, 5)), s(0, tmOpAdd, at(2, 3)), s(0, tmOpAdd, at(3, 9)),
			s(0, tmOpAdd, at(4, 1)), s(0, tmOpAdd, at(5, 7)), s(0, tmOpAdd, at(0, 6)), // pending: panics
			s(1, tmOpReset, at(3, 2)), s(0, tmOpStop, 5), s(0, tmOpStop, 5),
			s(0, tmOpRun, run(5, 2)), s(1, tmOpSteal, run(6, 4)), s(0, tmOpRun, run(30, 4)),
		}},
		{Actors: 3, Steps: []fuzz.Step{
			s(0, tmOpAdd, at(6, 2)), s(0, tmOpAdd, at(7, 4)), s(1, tmOpAdd, at(1, 20)),
			s(2, tmOpSteal, run(1, 1)), s(2, tmOpSteal, run(10, 4)), s(0, tmOpRun, run(20, 4)),
			s(1, tmOpReset, at(6, 1)), s(1, tmOpRun, run(39, 4)), s(0, tmOpSteal, run(39, 4)),
		}},
	}
}

// FuzzTimers arms, resets, stops and runs timers on the heaps of 1 to 4 Ps
// through a program decoded from the input; every result is compared with a
// sequential model, a sorted list per heap.
func FuzzTimers(f *testing.F) { tmTarget.fuzz(f) }

var tmTarget = seqTarget{spec: tmSpec, seeds: tmSeeds,
	interpret: func(b []byte) (map[string]int, error) { return interpretTM(b, newTMReal) }}

// TestTimersSeeds runs the hand-written seeds, requires that together they
// take every path of the model, and logs how far the corpus files reach.
func TestTimersSeeds(t *testing.T) {
	tmTarget.testSeeds(t, []string{"Add", "Add pending panics", "Reset", "Reset moves it", "Stop stopped",
		"Run fired", "Steal fired", "Steal nothing expired", "Run cut at max", "func re-arms"})
}

// Broken heaps for TestFuzzTimersCatchesBrokenHeap.

// tmRunsLate's Run fires only what expired a tick earlier.
type tmRunsLate struct{ *timers.Heap }

func (h tmRunsLate) Run(now int64, max int) int { return h.Heap.Run(now-1, max) }

// tmResetLies's Reset always says it stopped nothing.
type tmResetLies struct{ *timers.Heap }

func (h tmResetLies) Reset(t *timers.Timer, when int64) bool { h.Heap.Reset(t, when); return false }

// tmNextLate's Next reports one tick later than the earliest when.
type tmNextLate struct{ *timers.Heap }

func (h tmNextLate) Next() int64 {
	if w := h.Heap.Next(); w != 0 {
		return w + 1
	}
	return 0
}

// TestFuzzTimersCatchesBrokenHeap shows FuzzTimers' interpreter can fail:
// on the first seed it must report a mismatch for each broken heap, and
// none for the real one.
func TestFuzzTimersCatchesBrokenHeap(t *testing.T) {
	prog := tmSpec.Encode(tmSeeds()[0])
	if err := runTM(prog, newTMReal); err != nil {
		t.Fatalf("the real heap fails the seed: %v", err)
	}
	catchesBroken(t, "heap", []brokenVariant[func() tmHeap]{
		{"Run fires a tick late", func() tmHeap { return tmRunsLate{new(timers.Heap)} }, "delay"},
		{"Reset says it stopped nothing", func() tmHeap { return tmResetLies{new(timers.Heap)} }, "Reset of timer"},
		{"Next a tick late", func() tmHeap { return tmNextLate{new(timers.Heap)} }, "Next()"},
	}, func(_ *testing.T, newHeap func() tmHeap) error { return runTM(prog, newHeap) })
}
