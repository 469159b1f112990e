package fuzz_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/fuzz"
	"github.com/schedkit/schedkit/globalq"
)

// FuzzGlobalQInterleaved: two or three threads, each a P or a submitter,
// share one global queue; every thread may call every operation.
const (
	ivgPut      = iota // Put a new item
	ivgPutBatch        // PutBatch of arg+1 new items
	ivgGet             // Get
	ivgGetBatch        // GetBatch(requested arg%4+1, procs arg/4+1)
	ivgLen             // Len
	ivgEmpty           // Empty
)

var ivGlobalQSpec = fuzz.Spec{
	MinActors: 2,
	MaxActors: 3,
	Ops: []fuzz.Op{
		ivgPut: {Name: "Put"}, ivgPutBatch: {Name: "PutBatch", Args: 3}, ivgGet: {Name: "Get"},
		ivgGetBatch: {Name: "GetBatch", Args: 12}, ivgLen: {Name: "Len"}, ivgEmpty: {Name: "Empty"},
	},
	MaxSteps: 16,
}

// The queue starts with one of these many items (a chunk holds 254).
var ivGlobalQPre = []int{0, 1, 2, 3, 5, 8, 253, 254, 255}

// ivGlobalQProg is a decoded FuzzGlobalQInterleaved input.
type ivGlobalQProg struct {
	pre      int
	threads  [][]fuzz.Step
	schedule []byte
}

func decodeIVGlobalQ(data []byte) ivGlobalQProg {
	r, schedule := ivInputs(data)
	p := ivGlobalQProg{pre: ivGlobalQPre[r.Intn(len(ivGlobalQPre))], schedule: schedule}
	p.threads = ivGlobalQSpec.Decode(r.Rest()).Threads(ivPerThread)
	return p
}

func (p ivGlobalQProg) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "queue holds %d; schedule %x\n", p.pre, p.schedule)
	ivWriteThreads(&b, "", p.threads, func(_ int, st fuzz.Step) string {
		return fmt.Sprintf("%s(%d)", ivGlobalQSpec.Ops[st.Op].Name, st.Arg)
	})
	return b.String()
}

func (p ivGlobalQProg) encode() []byte {
	setup := []byte{byte(indexOf(ivGlobalQPre, p.pre))}
	return fuzz.JoinInterleaved(append(setup, ivGlobalQSpec.Encode(ivProgram(p.threads))...), p.schedule)
}

// ivGlobalQRun is one execution's state.
type ivGlobalQRun struct {
	h *ivHist
	q *globalq.Queue[item]
	ivFirst
}

func (p ivGlobalQProg) build() explore.Run {
	h := newIVHist("globalq")
	h.fifo[0] = true
	q := new(globalq.Queue[item])
	explore.Name(q, "q")
	m := &ivGlobalQRun{h: h, q: q}
	var pre []*item
	for range p.pre {
		pre = append(pre, h.newItem())
	}
	if len(pre) > 0 {
		q.PutBatch(pre)
		h.putBatch(pre, 0, 0, 0)
	}
	threads := ivThreads(p.threads, m.op)
	return explore.Run{Threads: threads, Check: func() error {
		if m.err != nil {
			return m.err
		}
		// The length cell must have come to rest at the count left.
		n := q.Len()
		left := 0
		for batches := 0; ; batches++ {
			if batches > 1000 { // a working queue empties in one: n = min(1<<20, len, len+1)
				m.fail(fmt.Errorf("final GetBatch: still returning items after %d batches: the queue never empties", batches))
				break
			}
			t, rest := q.GetBatch(1<<20, 1, nil)
			if t == nil {
				break
			}
			for i, x := range append([]*item{t}, rest...) {
				m.fail(h.took(x, 0, never, never, left+i, "final GetBatch"))
			}
			left += 1 + len(rest)
		}
		if n != left {
			m.fail(fmt.Errorf("length: Len() = %d once every thread had returned, but the queue held %d", n, left))
		}
		if !q.Empty() || q.Len() != 0 {
			m.fail(fmt.Errorf("length: Len() = %d, Empty() = %v after the queue was emptied", q.Len(), q.Empty()))
		}
		return m.verdict(h)
	}}
}

func (m *ivGlobalQRun) op(k int, st fuzz.Step) {
	h, q := m.h, m.q
	who := fmt.Sprintf("T%d %s", k, ivGlobalQSpec.Ops[st.Op].Name)
	switch st.Op {
	case ivgPut:
		t := h.newItem()
		b := h.begin()
		h.putting(t, 0, b)
		q.Put(t)
		h.put(t, 0, b, h.end())
	case ivgPutBatch:
		ts := h.newItems(st.Arg + 1)
		b := h.begin()
		for _, t := range ts {
			h.putting(t, 0, b)
		}
		q.PutBatch(ts)
		h.putBatch(ts, 0, b, h.end())
	case ivgGet:
		b := h.begin()
		t := q.Get()
		e := h.end()
		if t == nil {
			h.nothing(k, "Get", 0, b, e)
			return
		}
		m.fail(h.took(t, 0, b, e, 0, who))
	case ivgGetBatch:
		requested, procs := st.Arg%4+1, st.Arg/4+1
		b := h.begin()
		t, rest := q.GetBatch(requested, procs, nil)
		e := h.end()
		if t == nil {
			if len(rest) != 0 {
				m.fail(fmt.Errorf("%s at [%d,%d] returned no item to run but %d more", who, b, e, len(rest)))
			}
			h.nothing(k, "GetBatch", 0, b, e)
			return
		}
		batch := append([]*item{t}, rest...)
		for i, x := range batch {
			m.fail(h.took(x, 0, b, e, i, who))
		}
		// n = min(requested, len, len/procs+1) for the length len under
		// the lock, which lay between what was surely there for the whole
		// call and what may have been there at some instant of it.
		h.later = append(h.later, func() error {
			lo, hi := h.between(0, b, e)
			most := min(requested, hi, hi/procs+1)
			least := min(requested, lo, lo/procs+1)
			if n := len(batch); n > most || n < least {
				return fmt.Errorf("%s(requested %d, procs %d) at [%d,%d] took %d, but the queue held %d to %d items: min(requested, len, len/procs+1) lies in [%d, %d]",
					who, requested, procs, b, e, n, lo, hi, least, most)
			}
			return nil
		})
	case ivgLen:
		b := h.begin()
		n := q.Len()
		h.length(k, "Len", 0, b, h.end(), n)
	case ivgEmpty:
		b := h.begin()
		empty := q.Empty()
		e := h.end()
		if empty {
			h.nothing(k, "Empty", 0, b, e)
		} else {
			h.something(k, "Empty", 0, b, e)
		}
	}
}

// ivGlobalQSeeds are hand-written inputs, each aimed at one race.
func ivGlobalQSeeds() []ivGlobalQProg {
	s := func(op, arg int) fuzz.Step { return fuzz.Step{Op: op, Arg: arg} }
	return []ivGlobalQProg{
		// Put against Get and the lock-free Len and Empty.
		{threads: [][]fuzz.Step{{s(ivgPut, 0), s(ivgPutBatch, 2)}, {s(ivgGet, 0), s(ivgLen, 0), s(ivgEmpty, 0)}}, schedule: []byte{0x09, 0x01, 0x11, 0x01}},
		// Two Ps take batches while a submitter puts.
		{pre: 5, threads: [][]fuzz.Step{{s(ivgPutBatch, 2), s(ivgLen, 0)}, {s(ivgGetBatch, 3+4)}, {s(ivgGetBatch, 3+8), s(ivgGet, 0)}}, schedule: []byte{0x19, 0x02, 0x09, 0x01}},
		// Across a chunk boundary.
		{pre: 253, threads: [][]fuzz.Step{{s(ivgPutBatch, 2), s(ivgGet, 0)}, {s(ivgGetBatch, 3), s(ivgLen, 0)}}, schedule: []byte{0x21, 0x01}},
		// A Get of the last item against a Len.
		{pre: 1, threads: [][]fuzz.Step{{s(ivgGet, 0), s(ivgEmpty, 0)}, {s(ivgLen, 0), s(ivgGetBatch, 0)}}},
		// Two puts race for the length cell.
		{pre: 1, threads: [][]fuzz.Step{{s(ivgPut, 0), s(ivgGet, 0)}, {s(ivgPut, 0), s(ivgLen, 0)}}, schedule: []byte{0x11, 0x01, 0x01}},
	}
}

// FuzzGlobalQInterleaved fuzzes the global queue under the explorer. It
// runs only with -tags schedcheck.
func FuzzGlobalQInterleaved(f *testing.F) { ivFuzz(f, ivGlobalQSeeds()) }

func init() { ivRegister("FuzzGlobalQInterleaved", decodeIVGlobalQ) }

func TestGlobalQInterleavedSeedsRoundTrip(t *testing.T) {
	ivSeedsRoundTrip(t, ivGlobalQSeeds(), decodeIVGlobalQ)
}
