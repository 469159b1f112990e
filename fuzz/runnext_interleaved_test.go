package fuzz_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/fuzz"
	"github.com/schedkit/schedkit/runnext"
)

// FuzzRunnextInterleaved: thread 0 owns the victim queue (its ring and its
// runnext slot); threads 1 and 2 are thieves, each stealing into a queue of
// its own that it drains at once, so that every task's way out is known.
const (
	ivnPutNext  = iota // owner: PutNext a new task (the slot's task moves to the ring)
	ivnPut             // owner: Put a new task into the ring
	ivnPutBatch        // owner: PutBatch of arg+1 new tasks
	ivnGet             // owner: Get (runnext first, inheriting the time slice)
	ivnRequeue         // owner: Get, and PutNext the same task back (a new occupancy of the same pointer)
	ivnDrain           // owner: Drain
	ivnEmpty           // owner: Empty
	ivnRun             // owner: run a task for arg+1 µs of virtual time (atomicx.Sleep)
)

const (
	ivnStealNext   = iota // thief: StealHalf with stealNext (the last pass), then Drain its queue
	ivnSteal              // thief: StealHalf without stealNext (an earlier pass), then Drain its queue
	ivnEmptyVictim        // thief: Empty of the victim
)

var ivRunnextOwnerOps = []string{"PutNext", "Put", "PutBatch", "Get", "Requeue", "Drain", "Empty", "Run"}
var ivRunnextThiefOps = []string{"StealNext", "Steal", "Empty"}

var ivRunnextSpec = fuzz.Spec{
	MinActors: 2,
	MaxActors: 3,
	Ops: []fuzz.Op{
		{Name: "PutNext/StealNext"}, {Name: "Put/Steal"}, {Name: "PutBatch/Empty", Args: 2}, {Name: "Get"},
		{Name: "Requeue"}, {Name: "Drain"}, {Name: "Empty"}, {Name: "Run", Args: 2},
	},
	MaxSteps: 16,
}

// The victim's ring starts with one of these many tasks.
var ivRunnextPre = []int{0, 1, 2, 3, 128, 255, 256}

// ivRunnextProg is a decoded FuzzRunnextInterleaved input.
type ivRunnextProg struct {
	pre       int
	next      bool // the slot starts with a task
	aged      bool // ... that has sat for the delay already
	zeroDelay bool // the victim's steal delay is 0, not runnext.StealDelay
	threads   [][]fuzz.Step
	schedule  []byte
}

func decodeIVRunnext(data []byte) ivRunnextProg {
	r, schedule := ivInputs(data)
	p := ivRunnextProg{pre: ivRunnextPre[r.Intn(len(ivRunnextPre))], schedule: schedule}
	flags, _ := r.Byte()
	p.next, p.aged, p.zeroDelay = flags&1 != 0, flags&2 != 0, flags&4 != 0
	p.threads = ivRunnextSpec.Decode(r.Rest()).Threads(ivPerThread)
	return p
}

func (p ivRunnextProg) delay() time.Duration { return ivDelay(p.zeroDelay) }

// thiefOp is the thief op an op index stands for.
func ivRunnextThiefOp(op int) int { return op % len(ivRunnextThiefOps) }

func (p ivRunnextProg) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "victim ring holds %d, slot full %v (aged %v), delay %v; schedule %x\n", p.pre, p.next, p.aged, p.delay(), p.schedule)
	ivWriteThreads(&b, "", p.threads, func(k int, st fuzz.Step) string {
		if k == 0 {
			return fmt.Sprintf("%s(%d)", ivRunnextOwnerOps[st.Op], st.Arg)
		}
		return ivRunnextThiefOps[ivRunnextThiefOp(st.Op)]
	})
	return b.String()
}

func (p ivRunnextProg) encode() []byte {
	flags := btoi(p.next) | btoi(p.aged)<<1 | btoi(p.zeroDelay)<<2
	setup := []byte{byte(indexOf(ivRunnextPre, p.pre)), byte(flags)}
	return fuzz.JoinInterleaved(append(setup, ivRunnextSpec.Encode(ivProgram(p.threads))...), p.schedule)
}

// ivRunnextRun is one execution's state.
type ivRunnextRun struct {
	h      *ivHist
	victim *runnext.Queue[item]
	delay  time.Duration
	// By record id, for tasks put by PutNext: the virtual time read just
	// before the put, and the stamp of the PutNext that displaced the task
	// into the ring (never: not displaced).
	nextAt      map[int]int64
	displacedAt map[int]int
	lastNext    int // record id of the task the latest PutNext put, -1: none
	ivFirst
}

// fromSlot reports that t, taken by an op that ended at stamp e, surely
// came from the slot: it was put there by PutNext and no later PutNext
// displaced it before e.
// took records that t came out (ivHist.took), keeping a failure.
func (m *ivRunnextRun) took(t *item, p, b, e, pos int, who string) {
	m.fail(m.h.took(t, p, b, e, pos, who))
}

func (m *ivRunnextRun) fromSlot(t *item, e int) bool {
	if t == nil {
		return false
	}
	_, put := m.nextAt[t.id]
	return put && m.displacedAt[t.id] > e
}

// putNext is the owner's PutNext of t in an op that began at b: it reads
// the clock, and records the put before making it, so that a thief that
// takes t (or the task it displaces) before the owner returns finds the
// record there.
func (m *ivRunnextRun) putNext(t *item, b int) (spill []*item) {
	h := m.h
	at := atomicx.Nanotime()
	if m.lastNext >= 0 && m.displacedAt[m.lastNext] == never {
		m.displacedAt[m.lastNext] = b // moves to the ring (or the spill) during this call
	}
	h.putting(t, 0, b)
	m.nextAt[t.id], m.displacedAt[t.id], m.lastNext = at, never, t.id
	return m.victim.PutNext(t, nil)
}

// putNextDone records the end of putNext at e.
func (m *ivRunnextRun) putNextDone(t *item, b, e int, spill []*item) {
	m.h.put(t, 0, b, e)
	for i, x := range spill {
		m.took(x, 0, b, e, i, "T0 PutNext (overflow)")
	}
}

func (p ivRunnextProg) build() explore.Run {
	h := newIVHist("victim")
	v := new(runnext.Queue[item])
	v.SetStealDelay(p.delay())
	explore.Name(v, "victim")
	m := &ivRunnextRun{h: h, victim: v, delay: p.delay(), nextAt: map[int]int64{}, displacedAt: map[int]int{}, lastNext: -1}
	for range p.pre {
		t := h.newItem()
		v.Put(t, nil)
		h.put(t, 0, 0, 0)
	}
	if p.next {
		t := h.newItem()
		m.putNextDone(t, 0, 0, m.putNext(t, 0))
		if p.aged {
			atomicx.Sleep(p.delay())
		}
	}
	owns := make([]*runnext.Queue[item], len(p.threads)) // by thief: the queue it steals into
	for k := 1; k < len(owns); k++ {
		owns[k] = new(runnext.Queue[item])
		explore.Name(owns[k], fmt.Sprintf("q%d", k))
	}
	threads := ivThreads(p.threads, func(k int, st fuzz.Step) {
		if k == 0 {
			m.owner(st)
		} else {
			m.thief(k, owns[k], ivRunnextThiefOp(st.Op))
		}
	})
	return explore.Run{Threads: threads, Check: func() error {
		if m.err != nil {
			return m.err
		}
		for i, t := range v.Drain(nil) {
			m.took(t, 0, never, never, i, "final Drain")
		}
		return m.verdict(h)
	}}
}

func (m *ivRunnextRun) owner(st fuzz.Step) {
	h, v := m.h, m.victim
	switch st.Op {
	case ivnPutNext:
		t := h.newItem()
		b := h.begin()
		spill := m.putNext(t, b)
		m.putNextDone(t, b, h.end(), spill)
	case ivnPut:
		t := h.newItem()
		b := h.begin()
		h.putting(t, 0, b)
		spill := v.Put(t, nil)
		e := h.end()
		if spill == nil {
			h.put(t, 0, b, e)
			return
		}
		h.overflowed(t, spill, 0, b, e, "T0 Put (overflow)", m.took)
	case ivnPutBatch:
		ts := h.newItems(st.Arg + 1)
		b := h.begin()
		n := v.PutBatch(ts)
		e := h.end()
		for _, t := range ts[:n] {
			h.put(t, 0, b, e)
		}
	case ivnGet, ivnRequeue:
		what := ivRunnextOwnerOps[st.Op]
		b := h.begin()
		t, inherit := v.Get()
		mid := h.end() // the Get's end: a Requeue's PutNext starts here
		if t == nil {
			h.nothing(0, what, 0, b, mid)
			return
		}
		// inheritTime says the task came from the slot: only PutNext puts
		// there, and a task PutNext put and nothing displaced is there.
		_, viaNext := m.nextAt[t.id]
		if inherit && !viaNext {
			m.fail(fmt.Errorf("T0 %s at [%d,%d] got item %d with inheritTime, but it was never in the slot", what, b, mid, t.id))
		}
		if !inherit && m.fromSlot(t, mid) {
			m.fail(fmt.Errorf("T0 %s at [%d,%d] got item %d from the slot without inheritTime", what, b, mid, t.id))
		}
		m.took(t, 0, b, mid, -1, "T0 "+what)
		if st.Op == ivnRequeue {
			h.relabel(t) // the same pointer put back is a new item to the history
			spill := m.putNext(t, mid)
			m.putNextDone(t, mid, h.end(), spill)
		}
	case ivnDrain:
		b := h.begin()
		ts := v.Drain(nil)
		h.drained(0, 0, b, h.end(), ts, "T0 Drain", m.took)
	case ivnEmpty:
		b := h.begin()
		empty := v.Empty()
		e := h.end()
		if empty {
			h.nothing(0, "Empty", 0, b, e)
		}
	case ivnRun:
		// The clock moves only while every thread is blocked: this lets a
		// waiting thief's delay run partly before the owner's next op.
		atomicx.Sleep(time.Duration(st.Arg+1) * time.Microsecond)
	}
}

func (m *ivRunnextRun) thief(k int, own *runnext.Queue[item], op int) {
	h, v := m.h, m.victim
	who := fmt.Sprintf("T%d %s", k, ivRunnextThiefOps[op])
	switch op {
	case ivnStealNext, ivnSteal:
		b := h.begin()
		t := v.StealHalf(own, op == ivnStealNext)
		var now int64
		if t != nil {
			now = atomicx.Nanotime()
		}
		rest := own.Drain(nil)
		e := h.end()
		if t == nil {
			if op == ivnStealNext {
				h.nothing(k, "StealNext", 0, b, e)
			}
		} else {
			if op == ivnSteal && m.fromSlot(t, e) {
				m.fail(fmt.Errorf("%s at [%d,%d] took item %d from the runnext slot on an earlier pass", who, b, e, t.id))
			}
			if at, ok := m.nextAt[t.id]; ok && m.fromSlot(t, e) && time.Duration(now-at) < m.delay {
				m.fail(fmt.Errorf("%s at [%d,%d] took item %d from the runnext slot %v after it was put, before the steal delay of %v",
					who, b, e, t.id, time.Duration(now-at), m.delay))
			}
			m.took(t, 0, b, e, -1, who)
		}
		for _, x := range rest {
			m.took(x, 0, b, e, -1, who+"'s Drain")
		}
	case ivnEmptyVictim:
		b := h.begin()
		empty := v.Empty()
		e := h.end()
		if empty {
			h.nothing(k, "Empty", 0, b, e)
		}
	}
}

// ivRunnextSeeds are hand-written inputs, each aimed at one race.
func ivRunnextSeeds() []ivRunnextProg {
	s := func(op int) fuzz.Step { return fuzz.Step{Op: op} }
	return []ivRunnextProg{
		// The owner's Get and a last-pass thief race for an aged task.
		{next: true, aged: true, threads: [][]fuzz.Step{{s(ivnGet)}, {s(ivnStealNext)}}, schedule: []byte{0x09, 0x01, 0x01}},
		{next: true, aged: true, threads: [][]fuzz.Step{{s(ivnGet)}, {s(ivnStealNext)}, {s(ivnStealNext)}}, schedule: []byte{0x0a, 0x01, 0x11}},
		// PutNext displaces while a thief steals, and while Empty looks.
		{next: true, threads: [][]fuzz.Step{{s(ivnPutNext), s(ivnGet)}, {s(ivnStealNext)}, {s(ivnEmptyVictim)}}, schedule: []byte{0x01, 0x02, 0x09, 0x01}},
		{next: true, zeroDelay: true, threads: [][]fuzz.Step{{s(ivnPutNext), s(ivnGet)}, {s(ivnStealNext)}, {s(ivnEmptyVictim)}}, schedule: []byte{0x11, 0x01, 0x02}},
		// A fresh task: the thief waits; the owner takes it and puts the
		// same pointer back meanwhile, or another task.
		{next: true, threads: [][]fuzz.Step{{s(ivnRequeue), s(ivnEmpty)}, {s(ivnStealNext)}}, schedule: []byte{0x01, 0x19, 0x01}},
		{next: true, threads: [][]fuzz.Step{{s(ivnGet), s(ivnPutNext)}, {s(ivnStealNext)}}, schedule: []byte{0x01, 0x19, 0x01}},
		{next: true, threads: [][]fuzz.Step{{s(ivnRun), s(ivnGet), s(ivnPutNext)}, {s(ivnStealNext)}}},
		// Earlier passes against puts and gets; Drain against a steal.
		{pre: 2, next: true, aged: true, threads: [][]fuzz.Step{{s(ivnPut), s(ivnGet), s(ivnGet)}, {s(ivnSteal), s(ivnSteal)}}, schedule: []byte{0x09, 0x01, 0x0a}},
		{pre: 1, next: true, aged: true, threads: [][]fuzz.Step{{s(ivnDrain), s(ivnPutNext)}, {s(ivnStealNext)}}, schedule: []byte{0x01, 0x11}},
		// A full ring: PutNext's displacement overflows while a thief steals.
		{pre: 256, next: true, aged: true, threads: [][]fuzz.Step{{s(ivnPutNext), s(ivnGet)}, {s(ivnSteal)}}, schedule: []byte{0x41, 0x01, 0x02}},
	}
}

// FuzzRunnextInterleaved fuzzes a runnext queue and its thieves under the
// explorer, steal delays on its virtual clock. It runs only with -tags
// schedcheck.
func FuzzRunnextInterleaved(f *testing.F) { ivFuzz(f, ivRunnextSeeds()) }

func init() { ivRegister("FuzzRunnextInterleaved", decodeIVRunnext) }

func TestRunnextInterleavedSeedsRoundTrip(t *testing.T) {
	ivSeedsRoundTrip(t, ivRunnextSeeds(), decodeIVRunnext)
}
