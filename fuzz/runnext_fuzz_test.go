package fuzz_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/fuzz"
	"github.com/schedkit/schedkit/lfq"
	"github.com/schedkit/schedkit/runnext"
)

// rnQueue is the implementation FuzzRunnext drives: runnext.Queue through
// rnReal, or a broken variant in TestFuzzRunnextCatchesBrokenQueues.
// StealHalf's destination is another queue of the same implementation (or
// nil).
type rnQueue interface {
	PutNext(t *item, spill []*item) []*item
	Put(t *item, spill []*item) []*item
	PutBatch(ts []*item) int
	Get() (*item, bool)
	StealHalf(dst rnQueue, stealNext bool) *item
	Drain(dst []*item) []*item
	Empty() bool
	Len() int
}

// rnNewQueue makes an empty queue with the given steal delay.
type rnNewQueue func(delay time.Duration) rnQueue

// rnReal adapts *runnext.Queue[item] to rnQueue.
type rnReal struct{ q *runnext.Queue[item] }

func newRNReal(delay time.Duration) rnQueue {
	q := new(runnext.Queue[item])
	if delay != runnext.StealDelay {
		q.SetStealDelay(delay)
	}
	return rnReal{q}
}

func (w rnReal) PutNext(t *item, spill []*item) []*item { return w.q.PutNext(t, spill) }
func (w rnReal) Put(t *item, spill []*item) []*item     { return w.q.Put(t, spill) }
func (w rnReal) PutBatch(ts []*item) int                { return w.q.PutBatch(ts) }
func (w rnReal) Get() (*item, bool)                     { return w.q.Get() }
func (w rnReal) Drain(dst []*item) []*item              { return w.q.Drain(dst) }
func (w rnReal) Empty() bool                            { return w.q.Empty() }
func (w rnReal) Len() int                               { return w.q.Len() }
func (w rnReal) real() rnReal                           { return w }

func (w rnReal) StealHalf(dst rnQueue, stealNext bool) *item {
	var d *runnext.Queue[item]
	if r, ok := dst.(interface{ real() rnReal }); ok {
		d = r.real().q
	}
	return w.q.StealHalf(d, stealNext)
}

// The operations of a FuzzRunnext program. Actor i owns queue i; as a thief
// it steals from another queue into queue i.
const (
	rnOpPutNext   = iota // arg 0: spill nil; 1: spill an empty reused buffer
	rnOpPut              // the same
	rnOpPutBatch         // arg: batch length, 0..300
	rnOpGet              //
	rnOpDrain            // arg 0: dst nil; 1: dst holds the sentinel
	rnOpLen              //
	rnOpEmpty            //
	rnOpStealHalf        // arg&1: stealNext; arg>>1: victim (actor+1+arg>>1 % (Q-1)) % Q
	rnOpAdvance          // arg: how far the fake clock moves, rnAdvances[arg]
	rnOpMisuse           // arg: the misuse, each of which must panic and change nothing
)

// rnDelays are the steal delays of queues 0..3.
var rnDelays = [...]time.Duration{runnext.StealDelay, 0, time.Microsecond, 5 * time.Microsecond}

var rnAdvances = [...]time.Duration{0, 250 * time.Nanosecond, 500 * time.Nanosecond, time.Microsecond,
	2 * time.Microsecond, 3 * time.Microsecond, 5 * time.Microsecond, 10 * time.Microsecond}

const (
	rnMisPutNextNil  = iota // PutNext(nil)
	rnMisPutNil             // Put(nil)
	rnMisPutBatchNil        // PutBatch of two tasks and a nil
	rnMisStealSelf          // StealHalf into the victim itself
	rnMisStealNil           // StealHalf into nil
	rnMisuses
)

var runnextSpec = fuzz.Spec{
	MinActors: 2,
	MaxActors: 4,
	Ops: []fuzz.Op{
		rnOpPutNext:   {Name: "PutNext", Args: 2},
		rnOpPut:       {Name: "Put", Args: 2},
		rnOpPutBatch:  {Name: "PutBatch", Args: maxBatch + 1},
		rnOpGet:       {Name: "Get"},
		rnOpDrain:     {Name: "Drain", Args: 2},
		rnOpLen:       {Name: "Len"},
		rnOpEmpty:     {Name: "Empty"},
		rnOpStealHalf: {Name: "StealHalf", Args: 6},
		rnOpAdvance:   {Name: "Advance", Args: len(rnAdvances)},
		rnOpMisuse:    {Name: "Misuse", Args: rnMisuses},
	},
	MaxSteps: 1024,
}

// rnRun is the state of one interpretation: the queues under test, the
// sequential model (per queue the ring oldest first and the runnext task)
// and the accounting of every task made.
type rnRun struct {
	qs   []rnQueue
	ring [][]*item
	next []*item
	out  []int32        // by id: notPut, or how many times it came out
	seen map[string]int // how often each path of the model was taken
	slab []item
}

func (m *rnRun) newItem(put bool) *item {
	if len(m.slab) == 0 {
		m.slab = make([]item, 512)
	}
	t := &m.slab[0]
	m.slab = m.slab[1:]
	t.id = len(m.out)
	if put {
		m.out = append(m.out, 0)
	} else {
		m.out = append(m.out, notPut)
	}
	return t
}

// consume records that got came out of queue i by how, as the model says
// (want); it fails on a difference or an item out twice.
func (m *rnRun) consume(got, want []*item, how string, i int) error {
	if !slices.Equal(got, want) {
		return fmt.Errorf("%s on queue %d gave %s, the model %s", how, i, ids(got), ids(want))
	}
	for _, t := range got {
		if t.id < 0 || t.id >= len(m.out) || m.out[t.id] == notPut {
			return fmt.Errorf("%s on queue %d gave item %d, which was never put", how, i, t.id)
		}
		if m.out[t.id]++; m.out[t.id] > 1 {
			return fmt.Errorf("%s on queue %d gave item %d, out %d times", how, i, t.id, m.out[t.id])
		}
	}
	return nil
}

func (m *rnRun) total(i int) int {
	if m.next[i] != nil {
		return len(m.ring[i]) + 1
	}
	return len(m.ring[i])
}

// ringPut is the model of a put into ring i: the overflow batch, or nil.
func (m *rnRun) ringPut(i int, t *item) []*item {
	if len(m.ring[i]) < lfq.Size {
		m.ring[i] = append(m.ring[i], t)
		return nil
	}
	m.seen["overflow"]++
	batch := append(slices.Clone(m.ring[i][:lfq.Size/2]), t)
	m.ring[i] = slices.Clone(m.ring[i][lfq.Size/2:])
	return batch
}

// runRunnext decodes data into a FuzzRunnext program and runs it on queues
// made by newQueue, inside a synctest bubble (the caller's), returning the
// first difference from the model.
func runRunnext(data []byte, newQueue rnNewQueue) error {
	_, err := interpretRunnext(data, newQueue)
	return err
}

func interpretRunnext(data []byte, newQueue rnNewQueue) (map[string]int, error) {
	p := runnextSpec.Decode(data)
	m := &rnRun{seen: map[string]int{}}
	for i := range p.Actors {
		m.qs = append(m.qs, newQueue(rnDelays[i]))
		m.ring = append(m.ring, nil)
		m.next = append(m.next, nil)
	}
	return seqSteps(runnextSpec, p, "actor", m.seen, m.step, m.checkLens, m.finish)
}

func (m *rnRun) checkLens() error {
	for i, q := range m.qs {
		if got, want := q.Len(), m.total(i); got != want {
			return fmt.Errorf("queue %d: Len() = %d, the model holds %d", i, got, want)
		}
	}
	return nil
}

func (m *rnRun) finish() error {
	for i, q := range m.qs {
		want := m.ring[i]
		if m.next[i] != nil {
			want = append([]*item{m.next[i]}, want...)
		}
		var got []*item
		if v := panics(func() { got = q.Drain(nil) }); v != nil {
			return fmt.Errorf("final Drain of queue %d panicked: %v", i, v)
		}
		if err := m.consume(got, want, "final Drain", i); err != nil {
			return err
		}
		if !q.Empty() || q.Len() != 0 {
			return fmt.Errorf("queue %d: Empty() = %v, Len() = %d after the final Drain", i, q.Empty(), q.Len())
		}
	}
	for k, n := range m.out {
		if n != notPut && n != 1 {
			return fmt.Errorf("item %d was put and consumed %d times", k, n)
		}
	}
	return nil
}

// put runs PutNext (next) or Put on queue i and checks the spill.
func (m *rnRun) put(i int, next, reuse bool) error {
	t := m.newItem(true)
	var spill []*item // nil, or a reused buffer: the result is the batch alone
	if reuse {
		spill = make([]*item, 0, lfq.OverflowLen)
	}
	var got []*item
	var batch []*item
	name := "Put"
	if next {
		name = "PutNext"
		got = m.qs[i].PutNext(t, spill)
		if old := m.next[i]; old != nil {
			m.seen["PutNext displaces"]++
			batch = m.ringPut(i, old)
		} else {
			m.seen["PutNext"]++
		}
		m.next[i] = t
	} else {
		got = m.qs[i].Put(t, spill)
		batch = m.ringPut(i, t)
		m.seen["Put"]++
	}
	if batch == nil && got != nil {
		return fmt.Errorf("%s(%d) on queue %d with no overflow returned %s, not nil", name, t.id, i, ids(got))
	}
	return m.consume(got, batch, name+" overflow", i)
}

func (m *rnRun) step(st fuzz.Step) error {
	i, q := st.Actor, m.qs[st.Actor]
	switch st.Op {
	case rnOpPutNext, rnOpPut:
		return m.put(i, st.Op == rnOpPutNext, st.Arg == 1)
	case rnOpPutBatch:
		ts := make([]*item, st.Arg)
		for k := range ts {
			ts[k] = m.newItem(false)
		}
		n := q.PutBatch(ts)
		if want := min(len(ts), lfq.Size-len(m.ring[i])); n != want {
			return fmt.Errorf("PutBatch of %d into queue %d with ring %d put %d, want %d", len(ts), i, len(m.ring[i]), n, want)
		}
		for _, t := range ts[:n] {
			m.out[t.id] = 0
		}
		m.ring[i] = append(m.ring[i], ts[:n]...)
		m.seen["PutBatch"]++
		if n < len(ts) {
			m.seen["PutBatch partial"]++
		}
		return nil
	case rnOpGet:
		got, inherit := q.Get()
		var want []*item
		wantInherit := false
		switch {
		case m.next[i] != nil:
			want, wantInherit, m.next[i] = []*item{m.next[i]}, true, nil
			m.seen["Get runnext"]++
		case len(m.ring[i]) > 0:
			want, m.ring[i] = m.ring[i][:1], m.ring[i][1:]
			m.seen["Get ring"]++
		default:
			m.seen["Get empty"]++
		}
		if inherit != wantInherit {
			return fmt.Errorf("Get on queue %d: inheritTime %v, the model %v", i, inherit, wantInherit)
		}
		var gotSlice []*item
		if got != nil {
			gotSlice = []*item{got}
		}
		return m.consume(gotSlice, want, "Get", i)
	case rnOpDrain:
		var dst []*item
		if st.Arg == 1 {
			dst = []*item{sentinel}
		}
		got, err := pastSentinel(q.Drain(dst), st.Arg == 1, fmt.Sprintf("Drain on queue %d", i), "dst")
		if err != nil {
			return err
		}
		want := m.ring[i]
		if m.next[i] != nil {
			want = append([]*item{m.next[i]}, want...)
		}
		m.ring[i], m.next[i] = nil, nil
		m.seen["Drain"]++
		return m.consume(got, want, "Drain", i)
	case rnOpLen:
		m.seen["Len"]++
		if got := q.Len(); got != m.total(i) {
			return fmt.Errorf("Len() = %d on queue %d, the model holds %d", got, i, m.total(i))
		}
		return nil
	case rnOpEmpty:
		m.seen["Empty"]++
		if got := q.Empty(); got != (m.total(i) == 0) {
			return fmt.Errorf("Empty() = %v on queue %d, the model holds %d", got, i, m.total(i))
		}
		return nil
	case rnOpStealHalf:
		v := (i + 1 + (st.Arg>>1)%(len(m.qs)-1)) % len(m.qs)
		return m.steal(v, i, st.Arg&1 == 1)
	case rnOpAdvance:
		m.seen["Advance"]++
		time.Sleep(rnAdvances[st.Arg])
		return nil
	case rnOpMisuse:
		return m.misuse(i, st.Arg)
	}
	return fmt.Errorf("unknown op %d", st.Op)
}

// steal is a StealHalf from queue v into queue d, checked against the
// model, the time it waited included.
func (m *rnRun) steal(v, d int, stealNext bool) error {
	if len(m.ring[d]) > lfq.Size/2 {
		m.seen["StealHalf full dst panics"]++
		if panics(func() { m.qs[v].StealHalf(m.qs[d], stealNext) }) == nil {
			return fmt.Errorf("StealHalf into queue %d holding %d did not panic", d, len(m.ring[d]))
		}
		return nil
	}
	before := atomicx.Nanotime()
	got := m.qs[v].StealHalf(m.qs[d], stealNext)
	waited := time.Duration(atomicx.Nanotime() - before)
	var want *item
	var wantWait time.Duration
	how := fmt.Sprintf("StealHalf(stealNext=%v) by %d", stealNext, d)
	switch {
	case len(m.ring[v]) > 0:
		n := len(m.ring[v]) - len(m.ring[v])/2
		want = m.ring[v][n-1]
		m.ring[d] = append(m.ring[d], m.ring[v][:n-1]...)
		m.ring[v] = slices.Clone(m.ring[v][n:])
		m.seen["StealHalf ring"]++
	case m.next[v] != nil && stealNext:
		want, m.next[v] = m.next[v], nil
		// The thief waits the delay from its own look, however long the
		// task sat before: the owner keeps no clock.
		wantWait = rnDelays[v]
		m.seen["StealHalf runnext"]++
		if wantWait > 0 {
			m.seen["StealHalf runnext waited"]++
		}
	case m.next[v] != nil:
		m.seen["StealHalf runnext refused"]++
	default:
		m.seen["StealHalf empty"]++
	}
	if waited != wantWait {
		return fmt.Errorf("%s from queue %d returned %s after %v, want after %v (delay %v)", how, v, id(got), waited, wantWait, rnDelays[v])
	}
	var gotSlice, wantSlice []*item
	if got != nil {
		gotSlice = []*item{got}
	}
	if want != nil {
		wantSlice = []*item{want}
	}
	return m.consume(gotSlice, wantSlice, how, v)
}

func (m *rnRun) misuse(i, kind int) error {
	q := m.qs[i]
	m.seen["Misuse"]++
	var f func()
	switch kind {
	case rnMisPutNextNil:
		f = func() { q.PutNext(nil, nil) }
	case rnMisPutNil:
		f = func() { q.Put(nil, nil) }
	case rnMisPutBatchNil:
		f = func() { q.PutBatch([]*item{m.newItem(false), m.newItem(false), nil}) }
	case rnMisStealSelf:
		f = func() { q.StealHalf(q, true) }
	case rnMisStealNil:
		f = func() { q.StealHalf(nil, true) }
	}
	if v := panics(f); v == nil {
		return fmt.Errorf("misuse %d on queue %d did not panic", kind, i)
	} else if msg := fmt.Sprint(v); !strings.HasPrefix(msg, "runnext: ") {
		return fmt.Errorf("misuse %d on queue %d panicked with %q, not a message naming the runnext call", kind, i, msg)
	}
	return nil
}

// runnextSeeds are hand-written programs: each exercises one path on purpose.
func runnextSeeds() []fuzz.Program {
	s := seqStep
	steal := func(thief, victimOffset int, stealNext bool) fuzz.Step {
		return s(thief, rnOpStealHalf, victimOffset<<1|btoi(stealNext))
	}
	var progs []fuzz.Program
	// LIFO and the time slice: PutNext twice, Put, Get in order, Drain.
	progs = append(progs, fuzz.Program{Actors: 2, Steps: []fuzz.Step{
		s(0, rnOpPut, 0), s(0, rnOpPutNext, 0), s(0, rnOpPutNext, 1), s(0, rnOpLen, 0), s(0, rnOpEmpty, 0),
		s(0, rnOpGet, 0), s(0, rnOpGet, 0), s(0, rnOpPutNext, 0), s(0, rnOpDrain, 1), s(0, rnOpGet, 0),
		s(0, rnOpEmpty, 0), s(1, rnOpDrain, 0),
	}})
	// The steal delay: queue 0 (3µs) is stolen from by 1 on the last pass
	// (waiting the whole delay from its look, also after an Advance), and
	// not at all on an earlier pass; queue 1 (no delay) at once.
	progs = append(progs, fuzz.Program{Actors: 2, Steps: []fuzz.Step{
		s(0, rnOpPutNext, 0), steal(1, 0, false), steal(1, 0, true),
		s(0, rnOpPutNext, 0), s(0, rnOpAdvance, 3), steal(1, 0, true),
		s(0, rnOpPutNext, 0), s(0, rnOpAdvance, 7), steal(1, 0, true),
		s(1, rnOpPutNext, 0), steal(0, 0, true), steal(0, 0, true),
	}})
	// The ring before runnext; a displaced task stolen from the ring.
	progs = append(progs, fuzz.Program{Actors: 3, Steps: []fuzz.Step{
		s(0, rnOpPutBatch, 5), s(0, rnOpPutNext, 0), steal(1, 0, true), steal(2, 1, true),
		s(0, rnOpPutNext, 0), steal(1, 0, true), steal(1, 0, true), s(2, rnOpAdvance, 5), steal(2, 1, true),
		s(1, rnOpGet, 0),
	}})
	// Overflow through PutNext's displacement and Put; partial PutBatch; a
	// steal into a queue holding more than Size/2 (panics).
	progs = append(progs, fuzz.Program{Actors: 2, Steps: []fuzz.Step{
		s(0, rnOpPutBatch, 256), s(0, rnOpPutNext, 0), s(0, rnOpPutNext, 1), s(0, rnOpPut, 0),
		s(0, rnOpPutBatch, 300), s(1, rnOpPutBatch, 200), steal(1, 0, true), s(1, rnOpDrain, 0), steal(1, 0, true),
	}})
	// Every misuse.
	progs = append(progs, fuzz.Program{Actors: 2, Steps: []fuzz.Step{
		s(0, rnOpPutNext, 0), s(0, rnOpMisuse, rnMisPutNextNil), s(0, rnOpMisuse, rnMisPutNil),
		s(0, rnOpMisuse, rnMisPutBatchNil), s(0, rnOpMisuse, rnMisStealSelf), s(0, rnOpMisuse, rnMisStealNil),
		s(1, rnOpGet, 0), s(1, rnOpEmpty, 0),
	}})
	return progs
}

// FuzzRunnext drives 2 to 4 runnext queues, one owner actor each, with the
// steal delays of rnDelays, through a program decoded from the input, and
// compares every result, and how long every steal waited, with a sequential
// model. Each input runs in a testing/synctest bubble: Advance and the
// thieves' waits move the bubble's fake clock, never real time.
func FuzzRunnext(f *testing.F) { runnextTarget.fuzz(f) }

var runnextTarget = seqTarget{spec: runnextSpec, seeds: runnextSeeds, bubble: true,
	interpret: func(b []byte) (map[string]int, error) { return interpretRunnext(b, newRNReal) }}

// TestRunnextSeeds runs the hand-written seeds, requires that together they
// take every path of the model, and logs how far the corpus files reach.
func TestRunnextSeeds(t *testing.T) {
	runnextTarget.testSeeds(t, []string{
		"PutNext", "PutNext displaces", "Put", "overflow", "PutBatch", "PutBatch partial", "Get runnext",
		"Get ring", "Get empty", "Drain", "Len", "Empty", "StealHalf ring", "StealHalf runnext",
		"StealHalf runnext waited", "StealHalf runnext refused", "StealHalf empty", "StealHalf full dst panics",
		"Advance", "Misuse",
	})
}

// Broken queues for TestFuzzRunnextCatchesBrokenQueues.

// rnNoInherit's Get never reports that a task inherits the time slice.
type rnNoInherit struct{ rnReal }

func (q rnNoInherit) Get() (*item, bool) { t, _ := q.rnReal.Get(); return t, false }

// rnGreedy steals the runnext task on every pass.
type rnGreedy struct{ rnReal }

func (q rnGreedy) StealHalf(dst rnQueue, _ bool) *item { return q.rnReal.StealHalf(dst, true) }

// rnDrainDropsNext's Drain loses the runnext task.
type rnDrainDropsNext struct{ rnReal }

func (q rnDrainDropsNext) Drain(dst []*item) []*item {
	if t, inherit := q.q.Get(); t != nil && !inherit {
		dst = append(dst, t) // no runnext task: t was the ring's oldest
	}
	return q.q.Drain(dst)
}

// rnImpatient is assembled from a runnext.Slot with no delay and an
// lfq.Ring, whatever delay it was asked for: its thieves never wait.
type rnImpatient struct {
	slot *runnext.Slot[item]
	ring *lfq.Ring[item]
}

func newRNImpatient(time.Duration) rnQueue {
	q := rnImpatient{new(runnext.Slot[item]), new(lfq.Ring[item])}
	q.slot.SetStealDelay(0)
	return q
}

func (q rnImpatient) PutNext(t *item, spill []*item) []*item {
	if old := q.slot.Put(t); old != nil {
		return q.ring.Put(old, spill)
	}
	return spill
}
func (q rnImpatient) Put(t *item, spill []*item) []*item { return q.ring.Put(t, spill) }
func (q rnImpatient) PutBatch(ts []*item) int            { return q.ring.PutBatch(ts) }
func (q rnImpatient) Empty() bool                        { return q.ring.Len() == 0 && q.slot.Empty() }
func (q rnImpatient) Len() int                           { return q.ring.Len() + btoi(!q.slot.Empty()) }

func (q rnImpatient) Get() (*item, bool) {
	if t := q.slot.Take(); t != nil {
		return t, true
	}
	return q.ring.Get(), false
}

func (q rnImpatient) StealHalf(dst rnQueue, stealNext bool) *item {
	var r *lfq.Ring[item]
	if d, ok := dst.(rnImpatient); ok {
		r = d.ring
	}
	if t := q.ring.StealHalf(r); t != nil || !stealNext {
		return t
	}
	return q.slot.Steal()
}

func (q rnImpatient) Drain(dst []*item) []*item {
	if t := q.slot.Take(); t != nil {
		dst = append(dst, t)
	}
	return q.ring.Drain(dst)
}

// TestFuzzRunnextCatchesBrokenQueues shows FuzzRunnext's interpreter can
// fail: on one fixed program it must report a mismatch for each broken
// queue, and none for the real one.
func TestFuzzRunnextCatchesBrokenQueues(t *testing.T) {
	s := seqStep
	prog := runnextSpec.Encode(fuzz.Program{Actors: 2, Steps: []fuzz.Step{
		s(0, rnOpPutNext, 0), s(0, rnOpPutNext, 0), // one displaced into the ring
		s(1, rnOpStealHalf, 0), // an earlier pass: takes the ring's task only
		s(1, rnOpStealHalf, 0), // another: the ring is empty, runnext is not for it
		s(1, rnOpStealHalf, 1), // the last pass: waits the delay for the runnext task
		s(0, rnOpPutNext, 0), s(0, rnOpPut, 0),
		s(0, rnOpDrain, 0),                     // runnext first, then the ring
		s(0, rnOpPutNext, 0), s(0, rnOpGet, 0), // the runnext task inherits the time slice
	}})
	synctest.Test(t, func(t *testing.T) {
		if err := runRunnext(prog, newRNReal); err != nil {
			t.Fatalf("the real queue fails the fixed program: %v", err)
		}
	})
	catchesBroken(t, "queue", []brokenVariant[rnNewQueue]{
		{"Get ignores inheritTime", func(d time.Duration) rnQueue { return rnNoInherit{newRNReal(d).(rnReal)} }, "inheritTime"},
		{"every steal takes runnext", func(d time.Duration) rnQueue { return rnGreedy{newRNReal(d).(rnReal)} }, "StealHalf(stealNext=false)"},
		{"Drain loses runnext", func(d time.Duration) rnQueue { return rnDrainDropsNext{newRNReal(d).(rnReal)} }, "Drain on queue 0"},
		{"thieves ignore the delay", newRNImpatient, "want after 3µs"},
	}, func(t *testing.T, newQueue rnNewQueue) (err error) {
		synctest.Test(t, func(*testing.T) { err = runRunnext(prog, newQueue) })
		return err
	})
}
