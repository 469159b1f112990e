package fuzz_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/fuzz"
	"github.com/schedkit/schedkit/lfq"
)

// FuzzRingInterleaved: thread 0 owns the victim ring; threads 1 and 2 are
// thieves, each owning a ring of its own that the other may steal from.
// An op index means one thing for the owner and another for a thief.
const (
	ivrPut      = iota // owner: Put a new item (overflows when full)
	ivrPutBatch        // owner: PutBatch of arg+1 new items
	ivrGet             // owner: Get
	ivrDrain           // owner: Drain
	ivrLen             // owner: Len of the victim
)

const (
	ivrStealDrain = iota // thief: StealHalf from the victim into its ring, then Drain its ring
	ivrStealKeep         // thief: StealHalf from the victim into its ring, leaving the rest there
	ivrStealThief        // thief: StealHalf from the other thief's ring into its own
	ivrGetOwn            // thief: Get from its own ring
	ivrLenVictim         // thief: Len of the victim
)

var ivRingOwnerOps = []string{"Put", "PutBatch", "Get", "Drain", "Len"}
var ivRingThiefOps = []string{"StealDrain", "StealKeep", "StealThief", "GetOwn", "Len"}

var ivRingSpec = fuzz.Spec{
	MinActors: 2,
	MaxActors: 3,
	Ops: []fuzz.Op{
		{Name: "Put/StealDrain"}, {Name: "PutBatch/StealKeep", Args: 3}, {Name: "Get/StealThief"},
		{Name: "Drain/GetOwn"}, {Name: "Len/Len"},
	},
	MaxSteps: 16,
}

// ivPerThread bounds each thread's ops, so that an execution stays short.
const ivPerThread = 4

// The victim starts with one of these many items (the last two overflow
// on the owner's first Put), each thief's ring with one of the second.
var (
	ivRingPre  = []int{0, 1, 2, 3, 4, 5, 127, 128, 129, 255, 256}
	ivThiefPre = []int{0, 1, 2, 128}
)

// ivRingProg is a decoded FuzzRingInterleaved input.
type ivRingProg struct {
	pre, thiefPre int
	threads       [][]fuzz.Step
	schedule      []byte
}

func decodeIVRing(data []byte) ivRingProg {
	r, schedule := ivInputs(data)
	p := ivRingProg{pre: ivRingPre[r.Intn(len(ivRingPre))], thiefPre: ivThiefPre[r.Intn(len(ivThiefPre))], schedule: schedule}
	p.threads = ivRingSpec.Decode(r.Rest()).Threads(ivPerThread)
	return p
}

func (p ivRingProg) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "victim holds %d, each thief's ring %d; schedule %x\n", p.pre, p.thiefPre, p.schedule)
	ivWriteThreads(&b, "", p.threads, func(k int, st fuzz.Step) string {
		names := ivRingThiefOps
		if k == 0 {
			names = ivRingOwnerOps
		}
		return fmt.Sprintf("%s(%d)", names[st.Op], st.Arg)
	})
	return b.String()
}

// encode is the input that decodes to p (threads' steps in thread order).
func (p ivRingProg) encode() []byte {
	setup := []byte{byte(indexOf(ivRingPre, p.pre)), byte(indexOf(ivThiefPre, p.thiefPre))}
	return fuzz.JoinInterleaved(append(setup, ivRingSpec.Encode(ivProgram(p.threads))...), p.schedule)
}

func indexOf(xs []int, x int) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	panic(fmt.Sprintf("indexOf: %d not in %v", x, xs))
}

// ivRingRun is one execution's state.
type ivRingRun struct {
	h       *ivHist
	rings   []*lfq.Ring[item] // 0: the victim; k: thief k's
	maxSeen []int             // by thief: the newest victim item its steals returned
	moved   []bool            // by item: it may have moved between rings unseen
	ivFirst
}

// took records t taken from place p, unless t may have moved between
// rings unseen: then only that it came out.
func (m *ivRingRun) took(t *item, p, b, e, pos int, who string) {
	if t != nil && t.id >= 0 && t.id < len(m.moved) && m.moved[t.id] {
		p = -2 // no place: the exit is unknown
	}
	m.fail(m.h.took(t, p, b, e, pos, who))
}

// mark makes every item that is not accounted for yet, of the thief rings
// (places 1, 2) or from the victim up to id upTo, an item whose exit is
// unknown: a steal moved some of them between rings, which ones unseen.
func (m *ivRingRun) mark(upTo int, thiefRings bool) {
	for len(m.moved) < len(m.h.items) {
		m.moved = append(m.moved, false)
	}
	for id := range m.h.items {
		it := &m.h.items[id]
		if it.exitKnown || it.outs > 0 {
			continue
		}
		if (it.place == 0 && id <= upTo) || (thiefRings && it.place > 0) {
			m.moved[id] = true
		}
	}
}

func (p ivRingProg) build() explore.Run {
	h := newIVHist("victim", "ring1", "ring2")
	m := &ivRingRun{h: h, maxSeen: make([]int, len(p.threads))}
	for k := range p.threads {
		r := new(lfq.Ring[item])
		h.fifo[k] = true
		if k == 0 {
			explore.Name(r, "victim")
		} else {
			explore.Name(r, fmt.Sprintf("ring%d", k))
		}
		m.rings = append(m.rings, r)
		n := p.thiefPre
		if k == 0 {
			n = p.pre
		}
		for range n {
			t := h.newItem()
			r.Put(t, nil)
			h.put(t, k, 0, 0)
		}
		m.maxSeen[k] = -1
	}
	threads := ivThreads(p.threads, func(k int, st fuzz.Step) {
		if k == 0 {
			m.owner(st)
		} else {
			m.thief(k, st)
		}
	})
	return explore.Run{Threads: threads, Check: func() error {
		if m.err != nil {
			return m.err
		}
		for k, r := range m.rings {
			for i, t := range r.Drain(nil) {
				m.took(t, k, never, never, i, fmt.Sprintf("final Drain of %s", h.place(k)))
			}
		}
		return m.verdict(h)
	}}
}

func (m *ivRingRun) owner(st fuzz.Step) {
	h, v := m.h, m.rings[0]
	switch st.Op {
	case ivrPut:
		t := h.newItem()
		b := h.begin()
		spill := v.Put(t, nil)
		e := h.end()
		if spill == nil {
			h.put(t, 0, b, e)
			return
		}
		h.overflowed(t, spill, 0, b, e, "T0 Put (overflow)", m.took)
	case ivrPutBatch:
		ts := h.newItems(st.Arg + 1)
		b := h.begin()
		n := v.PutBatch(ts)
		e := h.end()
		for _, t := range ts[:n] {
			h.put(t, 0, b, e)
		}
	case ivrGet:
		b := h.begin()
		t := v.Get()
		e := h.end()
		if t == nil {
			h.nothing(0, "Get", 0, b, e)
		} else {
			m.took(t, 0, b, e, -1, "T0 Get")
		}
	case ivrDrain:
		b := h.begin()
		ts := v.Drain(nil)
		h.drained(0, 0, b, h.end(), ts, "T0 Drain", m.took)
	case ivrLen:
		b := h.begin()
		n := v.Len()
		e := h.end()
		h.length(0, "Len", 0, b, e, n)
	}
}

func (m *ivRingRun) thief(k int, st fuzz.Step) {
	h, v, own := m.h, m.rings[0], m.rings[k]
	who := func(what string) string { return fmt.Sprintf("T%d %s", k, what) }
	op := st.Op
	if op == ivrStealThief && len(m.rings) < 3 {
		op = ivrStealKeep // no other thief to steal from
	}
	switch op {
	case ivrStealDrain, ivrStealKeep, ivrStealThief:
		if own.Len() > lfq.Size/2 {
			return // StealHalf's rule: the destination must have room for a half
		}
		src, from := v, 0
		if op == ivrStealThief {
			from = 3 - k
			src = m.rings[from]
		}
		b := h.begin()
		t := src.StealHalf(own)
		// No scheduling point since the steal published its rest: record
		// before any other thread can take from our ring.
		if t != nil && from == 0 {
			m.maxSeen[k] = max(m.maxSeen[k], t.id)
		}
		if t != nil && op == ivrStealThief {
			m.mark(max(m.maxSeen[1], m.maxSeen[2]), true)
		}
		if t != nil && op == ivrStealKeep {
			m.mark(t.id-1, false)
		}
		var rest []*item
		if op == ivrStealDrain {
			rest = own.Drain(nil)
		}
		e := h.end()
		if t == nil {
			h.nothing(k, ivRingThiefOps[op], from, b, e)
		} else {
			m.took(t, from, b, e, -1, who(ivRingThiefOps[op]))
		}
		for _, x := range rest {
			p := 0
			if x != nil && x.id >= 0 && x.id < len(h.items) && h.items[x.id].place == k {
				p = k // its own ring's first items
			}
			m.took(x, p, b, e, -1, who("StealDrain's Drain"))
		}
	case ivrGetOwn:
		b := h.begin()
		t := own.Get()
		e := h.end()
		if t == nil {
			h.nothing(k, "GetOwn", k, b, e)
		} else {
			m.took(t, k, b, e, -1, who("GetOwn"))
		}
	case ivrLenVictim:
		b := h.begin()
		n := v.Len()
		e := h.end()
		h.length(k, "Len", 0, b, e, n)
	}
}

// ivRingSeeds are hand-written inputs, each aimed at one race; the empty
// schedule runs each thread until it blocks or ends, the others switch
// early.
func ivRingSeeds() []ivRingProg {
	s := func(op, arg int) fuzz.Step { return fuzz.Step{Op: op, Arg: arg} }
	return []ivRingProg{
		// The owner's Get against a steal of the last item.
		{pre: 1, threads: [][]fuzz.Step{{s(ivrGet, 0), s(ivrGet, 0)}, {s(ivrStealDrain, 0)}}, schedule: []byte{0x00, 0x01, 0x11}},
		// Get against a steal of two: the Get's CAS fails and must retry.
		{pre: 3, threads: [][]fuzz.Step{{s(ivrGet, 0), s(ivrLen, 0)}, {s(ivrStealDrain, 0)}}, schedule: []byte{0x08, 0x19, 0x01}},
		// Put and PutBatch against two thieves.
		{pre: 2, threads: [][]fuzz.Step{{s(ivrPut, 0), s(ivrPutBatch, 2), s(ivrGet, 0)}, {s(ivrStealKeep, 0), s(ivrGetOwn, 0)}, {s(ivrStealDrain, 0)}},
			schedule: []byte{0x11, 0x0a, 0x21, 0x01}},
		// Steal against steal.
		{pre: 5, threads: [][]fuzz.Step{{s(ivrLen, 0)}, {s(ivrStealDrain, 0)}, {s(ivrStealDrain, 0)}}, schedule: []byte{0x01, 0x19, 0x0a}},
		// A thief whose own ring is not empty steals into it while the other
		// thief steals from it.
		{pre: 4, thiefPre: 2, threads: [][]fuzz.Step{{s(ivrPut, 0)}, {s(ivrStealKeep, 0), s(ivrStealDrain, 0)}, {s(ivrStealThief, 0), s(ivrGetOwn, 0)}},
			schedule: []byte{0x09, 0x02, 0x31, 0x01}},
		// Overflow against a steal.
		{pre: 256, threads: [][]fuzz.Step{{s(ivrPut, 0), s(ivrGet, 0)}, {s(ivrStealDrain, 0)}}, schedule: []byte{0xf8, 0x41, 0x02}},
		// A thief whose ring holds 128 loads the victim's full head; the
		// owner drains and puts one before the thief loads the tail: its
		// inconsistent read spans more than a ring, and grab must retry
		// rather than copy 129 items over the thief's own (GrabPastFreeHalf).
		{pre: 256, thiefPre: 128, threads: [][]fuzz.Step{{s(ivrDrain, 0), s(ivrPutBatch, 0)}, {s(ivrStealKeep, 0)}}, schedule: []byte{0x31, 0x01}},
		// Drain and PutBatch against a steal.
		{pre: 3, threads: [][]fuzz.Step{{s(ivrDrain, 0), s(ivrPutBatch, 1)}, {s(ivrStealDrain, 0), s(ivrLenVictim, 0)}}, schedule: []byte{0x09, 0x01}},
	}
}

// FuzzRingInterleaved fuzzes lfq rings under the explorer: the bytes choose
// the threads' ops and the interleaving (see ivRingSpec and
// fuzz.SplitInterleaved). It runs only with -tags schedcheck.
func FuzzRingInterleaved(f *testing.F) { ivFuzz(f, ivRingSeeds()) }

func init() { ivRegister("FuzzRingInterleaved", decodeIVRing) }

// TestRingInterleavedSeedsRoundTrip: the hand-written seeds decode to what
// they were written as.
func TestRingInterleavedSeedsRoundTrip(t *testing.T) {
	ivSeedsRoundTrip(t, ivRingSeeds(), decodeIVRing)
}
