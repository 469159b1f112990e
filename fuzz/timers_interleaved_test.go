package fuzz_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/fuzz"
	"github.com/schedkit/schedkit/timers"
)

// FuzzTimersInterleaved: two or three threads, thread k a P with heap k
// (or a goroutine that stops and resets), share ivtTimers timers, armed at
// the start on heap 0 at whens the setup bytes choose; every thread may
// arm, reset and stop any timer, run its own heap or, as an idle P's steal
// pass, the next one's. Timer 2's func re-arms it on the heap that ran it.
// The oracle counts armings: each must end fired (its func ran once, for
// its seq), stopped (a Stop or Reset said so) or stopped by the final
// Stops, exactly one of the three; no func runs before its when; the heaps
// are empty once every timer is stopped.
const (
	ivtAdd   = iota // arg: timer*4 + when/4 (whens 0, 4, 8, 12); a pending timer is skipped (its Add would panic)
	ivtReset        // arg as Add: Reset onto the thread's heap
	ivtStop         // arg: timer
	ivtRun          // arg: now 0..15 (max 2)
	ivtSteal        // arg as Run: the next thread's heap, if its Next says one has expired
)

const (
	ivtTimers   = 3
	ivtPeriodic = 2
)

var ivTimersSpec = fuzz.Spec{
	MinActors: 2,
	MaxActors: 3,
	Ops: []fuzz.Op{
		ivtAdd: {Name: "Add", Args: ivtTimers * 4}, ivtReset: {Name: "Reset", Args: ivtTimers * 4},
		ivtStop: {Name: "Stop", Args: ivtTimers}, ivtRun: {Name: "Run", Args: 16}, ivtSteal: {Name: "Steal", Args: 16},
	},
	MaxSteps: 16,
}

// ivTimersProg is a decoded FuzzTimersInterleaved input.
type ivTimersProg struct {
	pre      [ivtTimers]int // each timer's initial when on heap 0 (0: not armed)
	threads  [][]fuzz.Step
	schedule []byte
}

func decodeIVTimers(data []byte) ivTimersProg {
	r, schedule := ivInputs(data)
	p := ivTimersProg{schedule: schedule}
	for i := range p.pre {
		p.pre[i] = r.Intn(16)
	}
	p.threads = ivTimersSpec.Decode(r.Rest()).Threads(ivPerThread)
	return p
}

func (p ivTimersProg) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "armed on heap 0 at %v (0: not armed); schedule %x\n", p.pre, p.schedule)
	ivWriteThreads(&b, "", p.threads, func(_ int, st fuzz.Step) string {
		return fmt.Sprintf("%s(%d)", ivTimersSpec.Ops[st.Op].Name, st.Arg)
	})
	return b.String()
}

func (p ivTimersProg) encode() []byte {
	var setup []byte
	for _, w := range p.pre {
		setup = append(setup, byte(w))
	}
	return fuzz.JoinInterleaved(append(setup, ivTimersSpec.Encode(ivProgram(p.threads))...), p.schedule)
}

// ivTimersRun is one execution's state. The threads run one at a time under
// the explorer, so plain fields suffice.
type ivTimersRun struct {
	heaps   []*timers.Heap
	ts      []*timers.Timer
	armings int                // Add and Reset calls, and the re-arms of timer 2's func
	stops   int                // Stop and Reset calls that said they stopped an arming
	fired   map[[2]uint64]bool // (timer, seq) of each func call
	fires   int
	on      int   // the heap of the Run that started last: timer 2's func re-arms there
	now     int64 // and that Run's now
	ivFirst
}

func (p ivTimersProg) build() explore.Run {
	n := len(p.threads)
	m := &ivTimersRun{fired: map[[2]uint64]bool{}}
	for k := range n {
		h := new(timers.Heap)
		explore.Name(h, fmt.Sprintf("heap%d", k))
		m.heaps = append(m.heaps, h)
	}
	for i := range ivtTimers {
		var t *timers.Timer
		t = timers.NewTimer(func(_ any, seq uint64, delay int64) {
			key := [2]uint64{uint64(i), seq}
			if m.fired[key] {
				m.fail(fmt.Errorf("timer %d's arming %d fired twice", i, seq))
			}
			m.fired[key] = true
			m.fires++
			if delay < 0 {
				m.fail(fmt.Errorf("timer %d's arming %d fired %d before its when", i, seq, -delay))
			}
			if i == ivtPeriodic { // on the heap of the latest Run: with two Runs at once, maybe not its own
				if m.heaps[m.on].Reset(t, m.now+3) {
					m.stops++
				}
				m.armings++
			}
		}, nil)
		explore.Name(t, fmt.Sprintf("timer%d", i))
		m.ts = append(m.ts, t)
		if p.pre[i] != 0 {
			m.heaps[0].Add(t, int64(p.pre[i]))
			m.armings++
		}
	}
	threads := ivThreads(p.threads, m.op)
	return explore.Run{Threads: threads, Check: func() error {
		if m.err != nil {
			return m.err
		}
		final := 0
		for _, t := range m.ts {
			if t.Stop() {
				final++
			}
		}
		if got := m.fires + m.stops + final; got != m.armings {
			return fmt.Errorf("%d armings, but %d fired, %d stopped by the threads and %d by the final Stops", m.armings, m.fires, m.stops, final)
		}
		for k, h := range m.heaps {
			if h.Len() != 0 || h.Next() != 0 {
				return fmt.Errorf("heap %d holds %d (Next %d) after every timer was stopped", k, h.Len(), h.Next())
			}
		}
		return nil
	}}
}

func (m *ivTimersRun) op(k int, st fuzz.Step) {
	h := m.heaps[k]
	switch st.Op {
	case ivtAdd, ivtReset:
		i, when := st.Arg/4, int64(st.Arg%4*4)
		t := m.ts[i]
		if st.Op == ivtAdd {
			if t.Pending() {
				return
			}
			defer func() {
				if r := recover(); r != nil { // it was re-armed in between: Add of a pending timer must panic
					if !strings.Contains(fmt.Sprint(r), "Heap.Add") {
						panic(r)
					}
					m.armings--
				}
			}()
			m.armings++
			h.Add(t, when)
			return
		}
		if h.Reset(t, when) {
			m.stops++
		}
		m.armings++
	case ivtStop:
		if m.ts[st.Arg].Stop() {
			m.stops++
		}
	case ivtRun, ivtSteal:
		now := int64(st.Arg)
		if st.Op == ivtSteal {
			k = (k + 1) % len(m.heaps)
			h = m.heaps[k]
			if w := h.Next(); w == 0 || w > now {
				return
			}
		}
		m.on, m.now = k, now
		h.Run(now, 2)
	}
}

// ivTimersSeeds are hand-written inputs, each aimed at one race.
func ivTimersSeeds() []ivTimersProg {
	s := func(op, arg int) fuzz.Step { return fuzz.Step{Op: op, Arg: arg} }
	return []ivTimersProg{
		// The owner runs its heap while another stops and resets its timers.
		{pre: [ivtTimers]int{2, 3, 1}, threads: [][]fuzz.Step{{s(ivtRun, 5), s(ivtRun, 15)}, {s(ivtStop, 0), s(ivtReset, 1*4+3), s(ivtStop, 1)}}, schedule: []byte{0x09, 0x01, 0x11}},
		// A thief's steal pass against the owner's Run, timer 2 re-arming.
		{pre: [ivtTimers]int{1, 2, 1}, threads: [][]fuzz.Step{{s(ivtRun, 4), s(ivtRun, 9)}, {s(ivtSteal, 4), s(ivtSteal, 12)}}, schedule: []byte{0x05, 0x02, 0x07}},
		// Three Ps, timers moving between them.
		{pre: [ivtTimers]int{4, 0, 2}, threads: [][]fuzz.Step{{s(ivtRun, 8)}, {s(ivtReset, 0*4+1), s(ivtRun, 8)}, {s(ivtAdd, 1*4+0), s(ivtSteal, 8)}}, schedule: []byte{0x0b, 0x03, 0x01}},
	}
}

// FuzzTimersInterleaved fuzzes the timer heaps under the explorer. It runs
// only with -tags schedcheck.
func FuzzTimersInterleaved(f *testing.F) { ivFuzz(f, ivTimersSeeds()) }

func init() { ivRegister("FuzzTimersInterleaved", decodeIVTimers) }

func TestTimersInterleavedSeedsRoundTrip(t *testing.T) {
	ivSeedsRoundTrip(t, ivTimersSeeds(), decodeIVTimers)
}
