package fuzz_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/fuzz"
	"github.com/schedkit/schedkit/runnext"
	"github.com/schedkit/schedkit/stealing"
)

// FuzzStealingInterleaved: three Ps, each a runnext queue, under one
// Stealer and idle mask; two or three threads, thread i the M on P i (a P
// without a thread only holds what it started with). A thread puts into
// its own queue, takes from it, steals (Stealer.Steal, then drains its own
// queue, so that every task's way out is known) and marks itself idle or
// busy.
const (
	ivsPut     = iota // Put a new task into the own ring
	ivsPutNext        // PutNext a new task into the own slot
	ivsGet            // Get from the own queue
	ivsSteal          // Steal with random source arg, then Drain the own queue
	ivsIdle           // IdleMask.Set(self)
	ivsBusy           // IdleMask.Clear(self)
)

const ivStealPs = 3

var ivStealingSpec = fuzz.Spec{
	MinActors: 2,
	MaxActors: ivStealPs,
	Ops: []fuzz.Op{
		ivsPut: {Name: "Put"}, ivsPutNext: {Name: "PutNext"}, ivsGet: {Name: "Get"},
		ivsSteal: {Name: "Steal", Args: 256}, ivsIdle: {Name: "Idle"}, ivsBusy: {Name: "Busy"},
	},
	MaxSteps: 16,
}

// ivStealP is how a P starts: ring tasks, a runnext task, marked idle.
type ivStealP struct {
	ring       int
	next, idle bool
}

// ivStealingProg is a decoded FuzzStealingInterleaved input.
type ivStealingProg struct {
	ps        [ivStealPs]ivStealP
	zeroDelay bool
	threads   [][]fuzz.Step
	schedule  []byte
}

func decodeIVStealing(data []byte) ivStealingProg {
	r, schedule := ivInputs(data)
	p := ivStealingProg{schedule: schedule}
	for i := range p.ps {
		b, _ := r.Byte()
		p.ps[i] = ivStealP{ring: int(b & 3), next: b&4 != 0, idle: b&8 != 0}
	}
	flags, _ := r.Byte()
	p.zeroDelay = flags&1 != 0
	p.threads = ivStealingSpec.Decode(r.Rest()).Threads(ivPerThread)
	return p
}

func (p ivStealingProg) delay() time.Duration { return ivDelay(p.zeroDelay) }

func (p ivStealingProg) String() string {
	var b strings.Builder
	for i, q := range p.ps {
		fmt.Fprintf(&b, "P%d ring %d, runnext %v, idle %v; ", i, q.ring, q.next, q.idle)
	}
	fmt.Fprintf(&b, "delay %v; schedule %x\n", p.delay(), p.schedule)
	ivWriteThreads(&b, "", p.threads, func(_ int, st fuzz.Step) string {
		return fmt.Sprintf("%s(%d)", ivStealingSpec.Ops[st.Op].Name, st.Arg)
	})
	return b.String()
}

func (p ivStealingProg) encode() []byte {
	var setup []byte
	for _, q := range p.ps {
		setup = append(setup, byte(q.ring|btoi(q.next)<<2|btoi(q.idle)<<3))
	}
	setup = append(setup, byte(btoi(p.zeroDelay)))
	return fuzz.JoinInterleaved(append(setup, ivStealingSpec.Encode(ivProgram(p.threads))...), p.schedule)
}

// ivMaskOp is a change of a P's idle bit over [b, e].
type ivMaskOp struct {
	p, b, e int
	idle    bool
}

// ivTransit is a thief's window between its steal's return and its
// Drain's: tasks of other Ps sit in its queue, where another thief may
// steal them.
type ivTransit struct {
	thief, b, e int
}

// ivStealingRun is one execution's state.
type ivStealingRun struct {
	h        *ivHist
	qs       []*runnext.Queue[item]
	idle     *stealing.IdleMask
	st       *stealing.Stealer[*runnext.Queue[item], item]
	idle0    [ivStealPs]bool
	masks    []ivMaskOp
	transits []ivTransit
	// By record id: for tasks PutNext put, the stamp of the PutNext that
	// displaced them into the ring (never: not displaced) and the stamp
	// from which a task is surely in its P's ring (never: not surely).
	displacedAt map[int]int
	ringSince   map[int]int
	lastNext    [ivStealPs]int
	ivFirst
}

// busy reports that P v's idle bit was clear for the whole of [b, e]:
// neither set nor cleared during it, and clear before.
func (m *ivStealingRun) busy(v, b, e int) bool {
	idle := m.idle0[v]
	for _, op := range m.masks {
		if op.p != v {
			continue
		}
		if op.b <= e && op.e >= b {
			return false // changed during the call
		}
		if op.e < b {
			idle = op.idle // the latest before the call (a P's ops are in order)
		}
	}
	return !idle
}

// fromSlot reports that t, taken by an op that ended at e, surely came from
// a runnext slot: PutNext put it there and nothing displaced it before e.
func (m *ivStealingRun) fromSlot(t *item, e int) bool {
	d, ok := m.displacedAt[t.id]
	return ok && d > e
}

// putNext is P i's PutNext of t in an op that began at b, recorded before
// it is made.
func (m *ivStealingRun) putNext(i int, t *item, b int) []*item {
	if last := m.lastNext[i]; last >= 0 && m.displacedAt[last] == never {
		m.displacedAt[last] = b
	}
	m.h.putting(t, i, b)
	m.displacedAt[t.id], m.ringSince[t.id], m.lastNext[i] = never, never, t.id
	return m.qs[i].PutNext(t, nil)
}

// putNextDone completes putNext at e: the displaced task is in the ring.
func (m *ivStealingRun) putNextDone(i int, t *item, b, e int, spill []*item) {
	for id, d := range m.displacedAt {
		if d == b && m.ringSince[id] == never && m.h.items[id].place == i {
			m.ringSince[id] = e
		}
	}
	m.h.put(t, i, b, e)
	for k, x := range spill {
		m.fail(m.h.took(x, i, b, e, k, fmt.Sprintf("P%d PutNext (overflow)", i)))
	}
}

func (p ivStealingProg) build() explore.Run {
	names := make([]string, ivStealPs)
	for i := range names {
		names[i] = fmt.Sprintf("P%d", i)
	}
	h := newIVHist(names...)
	m := &ivStealingRun{h: h, displacedAt: map[int]int{}, ringSince: map[int]int{}}
	idle, err := stealing.NewIdleMask(ivStealPs)
	if err != nil {
		panic(err)
	}
	explore.Name(idle, "idle")
	m.idle = idle
	for i, ps := range p.ps {
		q := new(runnext.Queue[item])
		q.SetStealDelay(p.delay())
		explore.Name(q, names[i])
		m.qs = append(m.qs, q)
		m.lastNext[i] = -1
		for range ps.ring {
			t := h.newItem()
			q.Put(t, nil)
			h.put(t, i, 0, 0)
			m.ringSince[t.id] = 0
		}
		if ps.next {
			t := h.newItem()
			m.putNextDone(i, t, 0, 0, m.putNext(i, t, 0))
		}
		if ps.idle {
			idle.Set(i)
		}
		m.idle0[i] = ps.idle
	}
	if m.st, err = stealing.New(m.qs, idle); err != nil {
		panic(err)
	}
	threads := ivThreads(p.threads, m.op)
	return explore.Run{Threads: threads, Check: func() error {
		if m.err != nil {
			return m.err
		}
		// Each P's bit ends as its own last Set or Clear left it: the
		// Ps share the mask's word.
		for v := range ivStealPs {
			want := m.idle0[v]
			for _, op := range m.masks {
				if op.p == v {
					want = op.idle
				}
			}
			if got := idle.Read(v); got != want {
				return fmt.Errorf("idle mask: P%d reads idle %v at the end, but its last Set or Clear made it %v", v, got, want)
			}
		}
		for i, q := range m.qs {
			for k, t := range q.Drain(nil) {
				m.fail(h.took(t, i, never, never, k, fmt.Sprintf("final Drain of P%d", i)))
			}
		}
		return m.verdict(h)
	}}
}

func (m *ivStealingRun) op(i int, st fuzz.Step) {
	h, q := m.h, m.qs[i]
	who := fmt.Sprintf("P%d %s", i, ivStealingSpec.Ops[st.Op].Name)
	switch st.Op {
	case ivsPut:
		t := h.newItem()
		b := h.begin()
		h.putting(t, i, b)
		spill := q.Put(t, nil)
		e := h.end()
		h.put(t, i, b, e)
		m.ringSince[t.id] = e
		for k, x := range spill { // not reached: rings start small
			m.fail(h.took(x, i, b, e, k, who+" (overflow)"))
		}
	case ivsPutNext:
		t := h.newItem()
		b := h.begin()
		spill := m.putNext(i, t, b)
		m.putNextDone(i, t, b, h.end(), spill)
	case ivsGet:
		b := h.begin()
		t, _ := q.Get()
		e := h.end()
		if t == nil {
			h.nothing(i, "Get", i, b, e)
			return
		}
		m.fail(h.took(t, i, b, e, -1, who))
	case ivsSteal:
		x := uint32(st.Arg)*2654435761 + 1
		rand := func() uint32 { x = x*1664525 + 1013904223; return x >> 8 }
		b := h.begin()
		t := m.st.Steal(i, rand)
		// No scheduling point since the steal published its half: open the
		// transit window before another thread can look at our queue.
		tr := len(m.transits)
		m.transits = append(m.transits, ivTransit{thief: i, b: h.end(), e: never})
		rest := q.Drain(nil)
		e := h.end()
		m.transits[tr].e = e
		// While another thief's transit window was open, any task we got
		// (one of ours too, stolen and stolen back) may have come from that
		// thief's queue: its way out of its P is not known.
		crossed := false
		for _, w := range m.transits {
			if w.thief != i && w.b <= e && w.e >= b {
				crossed = true
			}
		}
		took := func(x *item, what string) {
			p := i
			if x != nil && x.id >= 0 && x.id < len(h.items) {
				p = h.items[x.id].place
			}
			if crossed {
				p = -2
			}
			m.fail(h.took(x, p, b, e, -1, what))
		}
		if t == nil {
			h.later = append(h.later, func() error { return m.stealNothing(i, b, e) })
		} else {
			h.later = append(h.later, func() error { return m.checkRunnext(i, t, b, e) })
			took(t, who)
		}
		for _, x := range rest {
			took(x, who+"'s Drain")
		}
	case ivsIdle, ivsBusy:
		b := h.begin()
		if st.Op == ivsIdle {
			m.idle.Set(i)
		} else {
			m.idle.Clear(i)
		}
		m.masks = append(m.masks, ivMaskOp{p: i, b: b, e: h.end(), idle: st.Op == ivsIdle})
	}
}

// stealNothing checks a Steal by thief i over [b, e] that found nothing:
// every other P it must have visited (busy for the whole call) was empty at
// some instant of it.
func (m *ivStealingRun) stealNothing(i, b, e int) error {
	for v := range ivStealPs {
		if v == i || !m.busy(v, b, e) {
			continue
		}
		for id := range m.h.items {
			if it := &m.h.items[id]; it.surely(v, b, e) {
				return fmt.Errorf("empty rule: P%d's Steal at [%d,%d] found nothing, but P%d was busy and held item %d for the whole call (put by [%d,%d], taken by %s)",
					i, b, e, v, id, it.putB, it.putE, strings.Join(it.by, ", "))
			}
		}
	}
	return nil
}

// checkRunnext checks a task thief i's Steal over [b, e] returned: one
// from a runnext slot only if no busy P's ring held a task for the whole
// call (the first three passes take only from rings, and visit every busy
// P).
func (m *ivStealingRun) checkRunnext(i int, t *item, b, e int) error {
	if t.id < 0 || t.id >= len(m.h.items) || !m.fromSlot(t, e) {
		return nil
	}
	for v := range ivStealPs {
		if v == i || !m.busy(v, b, e) {
			continue
		}
		for id := range m.h.items {
			it := &m.h.items[id]
			if since, ok := m.ringSince[id]; ok && since < b && it.surely(v, b, e) {
				return fmt.Errorf("P%d's Steal at [%d,%d] took item %d from P%d's runnext slot, but busy P%d's ring held item %d for the whole call",
					i, b, e, t.id, m.h.items[t.id].place, v, id)
			}
		}
	}
	return nil
}

// ivStealingSeeds are hand-written inputs, each aimed at one shape.
func ivStealingSeeds() []ivStealingProg {
	s := func(op, arg int) fuzz.Step { return fuzz.Step{Op: op, Arg: arg} }
	return []ivStealingProg{
		// Two thieves split P0's ring while its owner takes and puts.
		{ps: [3]ivStealP{{ring: 3}, {}, {}}, threads: [][]fuzz.Step{{s(ivsGet, 0), s(ivsPut, 0)}, {s(ivsSteal, 1)}, {s(ivsSteal, 2)}}, schedule: []byte{0x09, 0x02, 0x11, 0x01}},
		// Only a runnext task: the last pass takes it, or the owner runs it.
		{ps: [3]ivStealP{{next: true}, {}, {}}, zeroDelay: true, threads: [][]fuzz.Step{{s(ivsGet, 0)}, {s(ivsSteal, 3)}, {s(ivsSteal, 4)}}, schedule: []byte{0x21, 0x02, 0x01}},
		// A runnext task on one P, ring work on another: the rings first.
		{ps: [3]ivStealP{{next: true}, {}, {ring: 2}}, zeroDelay: true, threads: [][]fuzz.Step{{s(ivsPutNext, 0)}, {s(ivsSteal, 5), s(ivsSteal, 6)}}, schedule: []byte{0x01, 0x01}},
		// P2 is idle and skipped; it wakes while a thief passes.
		{ps: [3]ivStealP{{ring: 1}, {}, {ring: 2, idle: true}}, threads: [][]fuzz.Step{{s(ivsGet, 0)}, {s(ivsSteal, 7)}, {s(ivsBusy, 0), s(ivsGet, 0), s(ivsIdle, 0)}}, schedule: []byte{0x0a, 0x01, 0x02}},
		// A thief steals from a thief's queue while it holds a stolen half.
		{ps: [3]ivStealP{{ring: 3}, {ring: 1}, {}}, threads: [][]fuzz.Step{{s(ivsPut, 0)}, {s(ivsSteal, 8)}, {s(ivsSteal, 9), s(ivsSteal, 10)}}, schedule: []byte{0x31, 0x01, 0x11}},
	}
}

// FuzzStealingInterleaved fuzzes the Stealer over real runnext queues under
// the explorer. It runs only with -tags schedcheck.
func FuzzStealingInterleaved(f *testing.F) { ivFuzz(f, ivStealingSeeds()) }

func init() { ivRegister("FuzzStealingInterleaved", decodeIVStealing) }

func TestStealingInterleavedSeedsRoundTrip(t *testing.T) {
	ivSeedsRoundTrip(t, ivStealingSeeds(), decodeIVStealing)
}
