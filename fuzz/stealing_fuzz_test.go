package fuzz_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/fuzz"
	"github.com/schedkit/schedkit/lfq"
	"github.com/schedkit/schedkit/runnext"
	"github.com/schedkit/schedkit/stealing"
)

// FuzzStealing drives 1 to 6 Ps, each a real runnext.Queue (steal delay 0,
// so that a sequential program never sleeps) behind a wrapper that logs
// every StealHalf, an idle mask, and the thieves' stealing.Stealer, through
// a program decoded from the input. A sequential model (a ring and a
// runnext task per P, and the victim order recomputed from the runtime's
// definition) predicts every pass: the victims in order, each with its
// stealNext, what each StealHalf takes and what Steal returns; at the end
// every item made must have come out exactly once. Every identifier of this
// file but the tests starts with st; it shares item, ids, id, panics and
// the seqTarget helpers of common_test.go.

// stCall is one StealHalf a pass made: from victim into thief's queue.
type stCall struct {
	victim, thief int
	stealNext     bool
}

func (c stCall) String() string {
	if c.stealNext {
		return fmt.Sprintf("%d->%d+next", c.victim, c.thief)
	}
	return fmt.Sprintf("%d->%d", c.victim, c.thief)
}

// stQ is a P's queue: the real runnext.Queue, logging each StealHalf.
type stQ struct {
	q   *runnext.Queue[item]
	id  int
	log *[]stCall
}

// StealHalf makes stQ a stealing.Queue.
func (w *stQ) StealHalf(dst *stQ, stealNext bool) *item {
	*w.log = append(*w.log, stCall{victim: w.id, thief: dst.id, stealNext: stealNext})
	return w.q.StealHalf(dst.q, stealNext)
}

// stStealer is what FuzzStealing drives: the real Stealer, or a broken one
// in TestFuzzStealingCatchesBrokenStealers.
type stStealer interface {
	Steal(self int, rand func() uint32) *item
	Pass(self int, r uint32, stealNext bool) *item
}

type stNewStealer func(qs []*stQ, idle *stealing.IdleMask) (stStealer, error)

func stNewReal(qs []*stQ, idle *stealing.IdleMask) (stStealer, error) { return stealing.New(qs, idle) }

// The operations of a FuzzStealing program. Actor i is P i: it owns queue
// i, and as a thief it steals into it.
const (
	stOpPut      = iota // arg: Put of 1+arg new items into the ring
	stOpPutNext         // a new item as the runnext task
	stOpGet             //
	stOpIdle            // arg 0: mark the P idle; 1: busy
	stOpSteal           // arg: the seed of the pass's random numbers
	stOpPass            // arg: r; stealNext false
	stOpPassNext        // arg: r; stealNext true
	stOpMisuse          // arg%3: the misuse
)

// Misuses, each of which must panic and change nothing.
const (
	stMisStealBadThief = iota // Steal by P -1 or P n
	stMisPassBadThief         // Pass by P n+arg
	stMisStealNilRand         // Steal with a nil random source
)

const (
	stMaxPut = 64
	stArgR   = 1 << 32
)

var stSpec = fuzz.Spec{
	MinActors: 1,
	MaxActors: 6,
	Ops: []fuzz.Op{
		stOpPut:      {Name: "Put", Args: stMaxPut},
		stOpPutNext:  {Name: "PutNext"},
		stOpGet:      {Name: "Get"},
		stOpIdle:     {Name: "Idle", Args: 2},
		stOpSteal:    {Name: "Steal", Args: stArgR},
		stOpPass:     {Name: "Pass", Args: stArgR},
		stOpPassNext: {Name: "PassNext", Args: stArgR},
		stOpMisuse:   {Name: "Misuse", Args: 3 * 8},
	},
	MaxSteps: 512,
}

// stRand is the random numbers of one Steal: the seed itself first (so a
// seed picks the first pass's start and stride directly), then a mix of it.
func stRand(seed uint32) []uint32 {
	rs := []uint32{seed}
	x := seed
	for len(rs) < stealing.StealTries {
		x = x*0x9e3779b9 + 0x7f4a7c15
		y := x ^ x>>15
		rs = append(rs, y*0x2c1b3c6d^y>>12)
	}
	return rs
}

// stRun is the state of one interpretation.
type stRun struct {
	qs     []*stQ
	log    *[]stCall
	idle   *stealing.IdleMask
	s      stStealer
	ring   [][]*item // the model, oldest first
	next   []*item
	idles  []bool
	out    []int32 // by id: times the item came out
	seen   map[string]int
	nextID int
}

func (m *stRun) newItem() *item {
	t := &item{id: m.nextID}
	m.nextID++
	m.out = append(m.out, 0)
	return t
}

// consume records that t came out by how; it fails on an item that was
// never made or already came out.
func (m *stRun) consume(how string, ts ...*item) error {
	for _, t := range ts {
		if t == nil || t.id < 0 || t.id >= len(m.out) {
			return fmt.Errorf("%s gave %s, an item the program never made", how, id(t))
		}
		m.out[t.id]++
		if m.out[t.id] > 1 {
			return fmt.Errorf("%s gave item %d, out %d times", how, t.id, m.out[t.id])
		}
	}
	return nil
}

// ringPut is the model of a put of t at the tail of ring i: with a full
// ring, its older half and t leave as the overflow batch (returned).
func (m *stRun) ringPut(i int, t *item) []*item {
	if len(m.ring[i]) < lfq.Size {
		m.ring[i] = append(m.ring[i], t)
		return nil
	}
	batch := append(slices.Clone(m.ring[i][:lfq.Size/2]), t)
	m.ring[i] = slices.Clone(m.ring[i][lfq.Size/2:])
	return batch
}

// modelPass predicts one pass of thief self from r with stealNext, applies
// it to the model and returns the calls and the task (nil if none).
func (m *stRun) modelPass(self int, r uint32, stealNext bool, calls []stCall) ([]stCall, *item) {
	n := len(m.qs)
	var strides []int
	for s := 1; s <= n; s++ {
		a, b := s, n
		for b != 0 {
			a, b = b, a%b
		}
		if a == 1 {
			strides = append(strides, s)
		}
	}
	start, stride := int(r%uint32(n)), strides[int(r/uint32(n))%len(strides)]
	for k := range n {
		v := (start + k*stride) % n
		if v == self || m.idles[v] {
			continue
		}
		calls = append(calls, stCall{victim: v, thief: self, stealNext: stealNext})
		if ring := m.ring[v]; len(ring) > 0 {
			k := len(ring) - len(ring)/2
			m.ring[self] = append(m.ring[self], ring[:k-1]...)
			m.ring[v] = slices.Clone(ring[k:])
			m.seen["steal from a ring"]++
			if len(ring) == 1 {
				m.seen["steal the last item of a ring"]++
			}
			return calls, ring[k-1]
		}
		if stealNext && m.next[v] != nil {
			t := m.next[v]
			m.next[v] = nil
			m.seen["steal a runnext task"]++
			return calls, t
		}
	}
	return calls, nil
}

// thiefFull reports whether P self's ring is too full to steal into:
// runnext.Queue.StealHalf panics then, at the first victim it is called on.
func (m *stRun) thiefFull(self int) bool { return len(m.ring[self]) > lfq.Size/2 }

// expectCalls compares the log with the model's calls.
func (m *stRun) expectCalls(what string, want []stCall) error {
	if !slices.Equal(*m.log, want) {
		return fmt.Errorf("%s visited %v, the model expects %v", what, *m.log, want)
	}
	return nil
}

// stealInto runs one Steal or Pass (run) of thief self, predicted by
// predict, and checks it.
func (m *stRun) stealInto(self int, what string, predict func() ([]stCall, *item), run func() *item) error {
	*m.log = nil
	if m.thiefFull(self) {
		// The first StealHalf must panic; nothing changes.
		ring, next := slices.Clone(m.ring), slices.Clone(m.next)
		calls, _ := predict()
		m.ring, m.next = ring, next
		v := panics(func() { run() })
		if len(calls) == 0 {
			if v != nil {
				return fmt.Errorf("%s with no victim to visit panicked: %v", what, v)
			}
			return m.expectCalls(what, nil)
		}
		if v == nil || !strings.Contains(fmt.Sprint(v), "more than lfq.Size/2") {
			return fmt.Errorf("%s into a ring holding %d: want runnext's panic, got %v", what, len(m.ring[self]), v)
		}
		m.seen["steal into a full ring panics"]++
		return m.expectCalls(what, calls[:1])
	}
	calls, want := predict()
	got := run()
	if err := m.expectCalls(what, calls); err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%s returned %s, the model %s", what, id(got), id(want))
	}
	if got == nil {
		m.seen["steal found nothing"]++
		return nil
	}
	return m.consume(what, got)
}

func (m *stRun) step(st fuzz.Step) error {
	i, q := st.Actor, m.qs[st.Actor].q
	switch st.Op {
	case stOpPut:
		for range 1 + st.Arg {
			t := m.newItem()
			got := q.Put(t, nil)
			want := m.ringPut(i, t)
			if !slices.Equal(got, want) {
				return fmt.Errorf("Put on P %d spilled %s, the model %s", i, ids(got), ids(want))
			}
			if want != nil {
				m.seen["Put overflow"]++
				if err := m.consume("an overflow batch", got...); err != nil {
					return err
				}
			}
		}
		m.seen["Put"]++
	case stOpPutNext:
		t := m.newItem()
		got := q.PutNext(t, nil)
		var want []*item
		if old := m.next[i]; old != nil {
			want = m.ringPut(i, old)
			m.seen["PutNext displaces"]++
		}
		m.next[i] = t
		if !slices.Equal(got, want) {
			return fmt.Errorf("PutNext on P %d spilled %s, the model %s", i, ids(got), ids(want))
		}
		if err := m.consume("an overflow batch", got...); err != nil {
			return err
		}
		m.seen["PutNext"]++
	case stOpGet:
		got, inherit := q.Get()
		var want *item
		wantInherit := m.next[i] != nil
		switch {
		case m.next[i] != nil:
			want, m.next[i] = m.next[i], nil
		case len(m.ring[i]) > 0:
			want, m.ring[i] = m.ring[i][0], m.ring[i][1:]
		}
		if got != want || (got != nil && inherit != wantInherit) {
			return fmt.Errorf("Get on P %d gave %s (inheritTime %v), the model %s (%v)", i, id(got), inherit, id(want), wantInherit)
		}
		if got == nil {
			m.seen["Get empty"]++
			return nil
		}
		m.seen["Get"]++
		return m.consume("Get", got)
	case stOpIdle:
		if st.Arg == 0 {
			m.idle.Set(i)
			m.idles[i] = true
			m.seen["Idle"]++
		} else {
			m.idle.Clear(i)
			m.idles[i] = false
		}
	case stOpSteal:
		rs := stRand(uint32(st.Arg))
		m.seen["Steal"]++
		return m.stealInto(i, fmt.Sprintf("Steal(%d, r=%v)", i, rs),
			func() ([]stCall, *item) {
				var calls []stCall
				for try, r := range rs {
					var t *item
					if calls, t = m.modelPass(i, r, try == stealing.StealTries-1, calls); t != nil {
						if try == stealing.StealTries-1 {
							m.seen["Steal found work on the last pass"]++
						}
						return calls, t
					}
				}
				return calls, nil
			},
			func() *item {
				k := 0
				return m.s.Steal(i, func() uint32 { k++; return rs[(k-1)%len(rs)] })
			})
	case stOpPass, stOpPassNext:
		r, next := uint32(st.Arg), st.Op == stOpPassNext
		m.seen["Pass"]++
		return m.stealInto(i, fmt.Sprintf("Pass(%d, r=%d, stealNext=%v)", i, r, next),
			func() ([]stCall, *item) { return m.modelPass(i, r, next, nil) },
			func() *item { return m.s.Pass(i, r, next) })
	case stOpMisuse:
		return m.misuse(st.Arg%3, st.Arg/3)
	}
	return nil
}

func (m *stRun) misuse(kind, k int) error {
	n := len(m.qs)
	*m.log = nil
	m.seen["Misuse"]++
	var v any
	switch kind {
	case stMisStealBadThief:
		self := -1
		if k%2 == 1 {
			self = n
		}
		v = panics(func() { m.s.Steal(self, func() uint32 { return 0 }) })
	case stMisPassBadThief:
		v = panics(func() { m.s.Pass(n+k, 0, true) })
	case stMisStealNilRand:
		v = panics(func() { m.s.Steal(0, nil) })
	}
	if v == nil {
		return fmt.Errorf("misuse %d did not panic", kind)
	}
	if !strings.Contains(fmt.Sprint(v), "Stealer.") {
		return fmt.Errorf("misuse %d panicked without naming the call: %v", kind, v)
	}
	return m.expectCalls("a misuse", nil)
}

func (m *stRun) checkLens() error {
	for i, w := range m.qs {
		want := len(m.ring[i])
		if m.next[i] != nil {
			want++
		}
		if got := w.q.Len(); got != want {
			return fmt.Errorf("P %d: Len() = %d, the model holds %d", i, got, want)
		}
	}
	return nil
}

// finish drains every queue in model order and checks that every item made
// came out exactly once.
func (m *stRun) finish() error {
	for i, w := range m.qs {
		want := m.ring[i]
		if m.next[i] != nil {
			want = append([]*item{m.next[i]}, want...)
		}
		got := w.q.Drain(nil)
		if !slices.Equal(got, want) {
			return fmt.Errorf("final Drain of P %d gave %s, the model %s", i, ids(got), ids(want))
		}
		if err := m.consume("the final Drain", got...); err != nil {
			return err
		}
	}
	for k, n := range m.out {
		if n != 1 {
			return fmt.Errorf("item %d came out %d times", k, n)
		}
	}
	return nil
}

// interpretStealing runs data as a FuzzStealing program on a stealer made
// by newS, and returns how often each path of the model was taken.
func interpretStealing(data []byte, newS stNewStealer) (map[string]int, error) {
	p := stSpec.Decode(data)
	m := &stRun{log: new([]stCall), seen: map[string]int{}}
	var err error
	if m.idle, err = stealing.NewIdleMask(p.Actors); err != nil {
		return nil, err
	}
	for i := range p.Actors {
		q := new(runnext.Queue[item])
		q.SetStealDelay(0)
		m.qs = append(m.qs, &stQ{q: q, id: i, log: m.log})
	}
	m.ring, m.next, m.idles = make([][]*item, p.Actors), make([]*item, p.Actors), make([]bool, p.Actors)
	if m.s, err = newS(m.qs, m.idle); err != nil {
		return nil, err
	}
	return seqSteps(stSpec, p, "P", m.seen, m.step, m.checkLens, m.finish)
}

func runStealing(data []byte, newS stNewStealer) error {
	_, err := interpretStealing(data, newS)
	return err
}

// stSeeds are hand-written programs: each exercises paths on purpose.
func stSeeds() []fuzz.Program {
	s := seqStep
	var progs []fuzz.Program
	// One P: nothing to steal from, whatever the seed.
	progs = append(progs, fuzz.Program{Actors: 1, Steps: []fuzz.Step{
		s(0, stOpPut, 3), s(0, stOpGet, 0), s(0, stOpSteal, 12345), s(0, stOpPassNext, 7),
	}})
	// Four Ps: work in one ring, stolen by halves; runnext only on the
	// last pass; an idle P skipped; a steal from a ring of one.
	progs = append(progs, fuzz.Program{Actors: 4, Steps: []fuzz.Step{
		s(2, stOpPut, 9), s(0, stOpSteal, 1), s(1, stOpSteal, 6), s(3, stOpPass, 2),
		s(1, stOpPutNext, 0), s(1, stOpPutNext, 0), s(2, stOpGet, 0), s(2, stOpGet, 0), s(2, stOpGet, 0),
		s(0, stOpGet, 0), s(0, stOpGet, 0), s(0, stOpGet, 0), s(0, stOpGet, 0), s(1, stOpGet, 0), s(1, stOpGet, 0),
		s(3, stOpGet, 0), s(3, stOpGet, 0), s(3, stOpSteal, 0), s(3, stOpPassNext, 5),
		s(2, stOpIdle, 0), s(0, stOpPut, 0), s(0, stOpIdle, 0), s(3, stOpSteal, 4), s(0, stOpIdle, 1),
		s(3, stOpSteal, 4), s(2, stOpIdle, 1), s(3, stOpPass, 8),
	}})
	// Three Ps: only a runnext task, taken on the last pass.
	progs = append(progs, fuzz.Program{Actors: 3, Steps: []fuzz.Step{
		s(1, stOpPutNext, 0), s(0, stOpSteal, 0), s(0, stOpGet, 0), s(2, stOpPutNext, 0), s(2, stOpPut, 0),
		s(1, stOpPassNext, 2), s(1, stOpPassNext, 2), s(1, stOpGet, 0),
	}})
	// A thief whose ring is more than half full: runnext's panic; an
	// overflow; misuse of each kind.
	progs = append(progs, fuzz.Program{Actors: 3, Steps: []fuzz.Step{
		s(0, stOpPut, 63), s(0, stOpPut, 63), s(0, stOpPut, 63), s(0, stOpPut, 63), s(0, stOpPut, 10),
		s(1, stOpPut, 2), s(0, stOpSteal, 3), s(0, stOpPass, 1), s(1, stOpSteal, 0),
		s(2, stOpMisuse, stMisStealBadThief), s(2, stOpMisuse, 3+stMisStealBadThief),
		s(1, stOpMisuse, 3*4+stMisPassBadThief), s(0, stOpMisuse, stMisStealNilRand),
	}})
	return progs
}

// FuzzStealing runs a program of Put, PutNext and Get on each P's queue,
// idle marks, Steal and Pass by any P, and misuse, and compares every
// result with the model.
func FuzzStealing(f *testing.F) { stTarget.fuzz(f) }

var stTarget = seqTarget{spec: stSpec, seeds: stSeeds,
	interpret: func(b []byte) (map[string]int, error) { return interpretStealing(b, stNewReal) }}

// TestStealingSeeds runs the hand-written seeds, requires that together
// they take every path of the model, and logs how far the corpus files
// reach.
func TestStealingSeeds(t *testing.T) {
	stTarget.testSeeds(t, []string{
		"Put", "Put overflow", "PutNext", "PutNext displaces", "Get", "Get empty", "Idle", "Steal", "Pass",
		"steal from a ring", "steal the last item of a ring", "steal a runnext task", "steal found nothing",
		"Steal found work on the last pass", "steal into a full ring panics", "Misuse",
	})
}

// stHand is a stealer written by hand over the queues, with knobs that
// break one rule each; with no knob it is correct (the test below checks).
type stHand struct {
	qs    []*stQ
	idle  *stealing.IdleMask
	order stealing.Order
	// The knobs.
	indexOrder    bool // visit the Ps in index order from P 0
	nextEveryPass bool // stealNext on every pass
	noSelfSkip    bool // steal from the thief's own P too
	invertIdle    bool // skip the busy Ps, visit the idle ones
	returnsFirst  bool // return the oldest of the stolen half and leave the newest in the ring twice
}

func (h *stHand) Steal(self int, rand func() uint32) *item {
	if self < 0 || self >= len(h.qs) || rand == nil {
		panic("stHand: Stealer.Steal misused")
	}
	for try := range stealing.StealTries {
		if t := h.Pass(self, rand(), try == stealing.StealTries-1 || h.nextEveryPass); t != nil {
			return t
		}
	}
	return nil
}

func (h *stHand) Pass(self int, r uint32, stealNext bool) *item {
	if self < 0 || self >= len(h.qs) {
		panic("stHand: Stealer.Pass misused")
	}
	n := len(h.qs)
	e := h.order.Start(r)
	start, stride := e.Position(), e.Stride()
	if h.indexOrder {
		start, stride = 0, 1
	}
	for k := range n {
		v := (start + k*stride) % n
		if (v == self && !h.noSelfSkip) || h.idle.Read(v) != h.invertIdle {
			continue
		}
		if h.noSelfSkip && v == self {
			// runnext.Queue would panic; a fake that "steals" from itself
			// changes nothing and goes on.
			*h.log() = append(*h.log(), stCall{victim: v, thief: self, stealNext: stealNext})
			continue
		}
		if t := h.qs[v].StealHalf(h.qs[self], stealNext); t != nil {
			if h.returnsFirst && h.qs[self].q.Len() > 0 {
				h.qs[self].q.Put(t, nil) // t is now both returned and queued
			}
			return t
		}
	}
	return nil
}

func (h *stHand) log() *[]stCall { return h.qs[0].log }

func stNewHand(knobs stHand) stNewStealer {
	return func(qs []*stQ, idle *stealing.IdleMask) (stStealer, error) {
		h := knobs
		h.qs, h.idle = qs, idle
		return &h, h.order.Reset(len(qs))
	}
}

// TestFuzzStealingCatchesBrokenStealers shows FuzzStealing's interpreter can
// fail: on one fixed program it must report each broken stealer, for the
// expected reason, and accept the real one and the hand-written one with no
// knob.
func TestFuzzStealingCatchesBrokenStealers(t *testing.T) {
	s := seqStep
	prog := stSpec.Encode(fuzz.Program{Actors: 4, Steps: []fuzz.Step{
		s(3, stOpPutNext, 0), s(2, stOpIdle, 0), // P 3: a runnext task only; P 2 idle
		s(0, stOpSteal, 4), // start at P 0 (itself), stride 1: 1, 2 (idle), 3
		s(1, stOpPut, 5),   // P 1: 6 items
		s(0, stOpSteal, 0), // start at P 0, stride 1: steals 3 from P 1
		s(1, stOpGet, 0), s(0, stOpGet, 0),
	}})
	for name, newS := range map[string]stNewStealer{"real": stNewReal, "hand-written, no knob": stNewHand(stHand{})} {
		if err := runStealing(prog, newS); err != nil {
			t.Fatalf("the %s stealer fails the fixed program: %v", name, err)
		}
	}
	catchesBroken(t, "stealer", []brokenVariant[stNewStealer]{
		{"visits in index order", stNewHand(stHand{indexOrder: true}), "the model expects"},
		{"runnext on every pass", stNewHand(stHand{nextEveryPass: true}), "the model expects"},
		{"steals from itself", stNewHand(stHand{noSelfSkip: true}), "the model expects"},
		{"skips the busy Ps", stNewHand(stHand{invertIdle: true}), "the model expects"},
		{"returns a task it also queued", stNewHand(stHand{returnsFirst: true}), "Len()"},
	}, func(_ *testing.T, newS stNewStealer) error { return runStealing(prog, newS) })
	if err := runStealing(prog, func([]*stQ, *stealing.IdleMask) (stStealer, error) {
		return nil, errors.New("no stealer")
	}); err == nil {
		t.Fatal("a constructor error was not reported")
	}
}
