package fuzz_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/fuzz"
	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/lfq"
)

// FuzzGlobalQ drives one globalq.Queue and the lfq rings of 1 to 4 Ps
// that feed it and take from it. Every identifier of this file but the
// tests starts with gq, to stay clear of the other targets of the package;
// it shares item, ids, id, panics and the seqTarget helpers of
// common_test.go.

// gqQueue is the implementation FuzzGlobalQ drives: globalq.Queue through
// gqReal, or a broken wrapper around it in TestFuzzGlobalQCatchesBrokenQueue.
type gqQueue interface {
	Put(t *item)
	PutBatch(ts []*item)
	Get() *item
	GetBatch(requested, procs int, rest []*item) (*item, []*item)
	Len() int
	Empty() bool
}

// gqReal is the real queue.
type gqReal struct{ *globalq.Queue[item] }

func newGQReal() gqQueue { return gqReal{new(globalq.Queue[item])} }

// The operations of a FuzzGlobalQ program. Actor i is a P: it owns ring i
// and its schedule tick.
const (
	gqOpPut      = iota // Put a new item (a submission from outside)
	gqOpPutBatch        // arg: PutBatch of arg new items, 0..300
	gqOpSpawn           // a new item into the actor's ring; a full ring overflows its batch into the queue
	gqOpGet             //
	gqOpGetBatch        // arg: requested 1 + arg%300, procs 1 + arg/300 (1..8); the batch leaves
	gqOpSchedule        // findRunnable's order: fairness tick, ring, a batch from the queue into the ring
	gqOpLen             // Len and Empty
	gqOpMisuse          // arg%4: the misuse; arg/4: a count
)

// Misuses, each of which must panic and leave the queue as it was.
const (
	gqMisPutNil         = iota // Put(nil)
	gqMisPutBatchNil           // PutBatch of arg/4 new items and a nil
	gqMisGetBatchNoReq         // GetBatch with requested -arg/4 (<= 0)
	gqMisGetBatchNoProc        // GetBatch with procs -arg/4 (<= 0)
)

const (
	gqMaxBatch  = 300
	gqMaxProcs  = 8
	gqBatchArgs = gqMaxBatch * gqMaxProcs
)

var gqSpec = fuzz.Spec{
	MinActors: 1,
	MaxActors: 4,
	Ops: []fuzz.Op{
		gqOpPut:      {Name: "Put"},
		gqOpPutBatch: {Name: "PutBatch", Args: gqMaxBatch + 1},
		gqOpSpawn:    {Name: "Spawn"},
		gqOpGet:      {Name: "Get"},
		gqOpGetBatch: {Name: "GetBatch", Args: gqBatchArgs},
		gqOpSchedule: {Name: "Schedule"},
		gqOpLen:      {Name: "Len"},
		gqOpMisuse:   {Name: "Misuse", Args: 4 * (gqMaxBatch + 1)},
	},
	MaxSteps: 1024,
}

// gqRun is the state of one interpretation: the queue and the rings under
// test, the sequential model (one slice for the queue and one per ring,
// oldest first) and the accounting of every item made.
type gqRun struct {
	q      gqQueue
	rings  []*lfq.Ring[item]
	model  []*item   // the queue
	rmodel [][]*item // the rings
	ticks  []uint32  // each P's schedule tick
	out    []int32   // by id: how many times it came out; gqNotPut if never put
	seen   map[string]int
	slab   []item
	spill  []*item // reused overflow buffer
	buf    []*item // reused rest buffer
}

const gqNotPut = -1

func (m *gqRun) newItem() *item {
	if len(m.slab) == 0 {
		m.slab = make([]item, 512)
	}
	t := &m.slab[0]
	m.slab = m.slab[1:]
	t.id = len(m.out)
	m.out = append(m.out, 0)
	return t
}

func (m *gqRun) newItems(n int) []*item {
	ts := make([]*item, n)
	for i := range ts {
		ts[i] = m.newItem()
	}
	return ts
}

// consume records that the items came out; it fails on an item never made,
// never put or already out.
func (m *gqRun) consume(how string, ts ...*item) error {
	for _, t := range ts {
		if t == nil || t.id < 0 || t.id >= len(m.out) {
			return fmt.Errorf("%s gave %s, an item the program never made", how, id(t))
		}
		if m.out[t.id] == gqNotPut {
			return fmt.Errorf("%s gave item %d, which was never put", how, t.id)
		}
		if m.out[t.id]++; m.out[t.id] > 1 {
			return fmt.Errorf("%s gave item %d, out %d times", how, t.id, m.out[t.id])
		}
	}
	return nil
}

// runGQ decodes data into a FuzzGlobalQ program, runs it on a queue made by
// newQueue, and returns the first difference from the model (nil if none).
func runGQ(data []byte, newQueue func() gqQueue) error {
	_, err := interpretGQ(data, newQueue)
	return err
}

// interpretGQ is runGQ that also returns how often each path of the model
// was taken.
func interpretGQ(data []byte, newQueue func() gqQueue) (map[string]int, error) {
	p := gqSpec.Decode(data)
	m := &gqRun{q: newQueue(), seen: map[string]int{}, rmodel: make([][]*item, p.Actors), ticks: make([]uint32, p.Actors)}
	for range p.Actors {
		m.rings = append(m.rings, new(lfq.Ring[item]))
	}
	step := func(st fuzz.Step) error { return m.step(st, p.Actors) }
	return seqSteps(gqSpec, p, "actor", m.seen, step, m.checkLens, m.finish)
}

func (m *gqRun) checkLens() error {
	if got, want := m.q.Len(), len(m.model); got != want {
		return fmt.Errorf("queue: Len() = %d, the model holds %d", got, want)
	}
	if got, want := m.q.Empty(), len(m.model) == 0; got != want {
		return fmt.Errorf("queue: Empty() = %v, the model holds %d", got, len(m.model))
	}
	for i, r := range m.rings {
		if got, want := r.Len(), len(m.rmodel[i]); got != want {
			return fmt.Errorf("ring %d: Len() = %d, the model holds %d", i, got, want)
		}
	}
	return nil
}

// finish takes everything out of the queue (by GetBatch, as Ps would) and
// the rings, in model order, and checks that every item put came out
// exactly once.
func (m *gqRun) finish() error {
	for len(m.model) > 0 {
		if err := m.getBatch(128, 1); err != nil {
			return fmt.Errorf("final GetBatch: %w", err)
		}
	}
	if run, _ := m.q.GetBatch(128, 1, nil); run != nil {
		return fmt.Errorf("GetBatch on the emptied queue gave %d", run.id)
	}
	for i, r := range m.rings {
		got := r.Drain(nil)
		if !slices.Equal(got, m.rmodel[i]) {
			return fmt.Errorf("final Drain of ring %d gave %s, the model %s", i, ids(got), ids(m.rmodel[i]))
		}
		if err := m.consume("final Drain", got...); err != nil {
			return err
		}
	}
	for k, n := range m.out {
		if n != gqNotPut && n != 1 {
			return fmt.Errorf("item %d was put and came out %d times", k, n)
		}
	}
	return nil
}

func (m *gqRun) step(st fuzz.Step, procs int) error {
	i := st.Actor
	switch st.Op {
	case gqOpPut:
		t := m.newItem()
		m.q.Put(t)
		m.model = append(m.model, t)
		m.seen["Put"]++
	case gqOpPutBatch:
		ts := m.newItems(st.Arg)
		m.q.PutBatch(ts)
		m.model = append(m.model, ts...)
		m.seen["PutBatch"]++
		if len(ts) > globalq.ChunkLen {
			m.seen["PutBatch across chunks"]++
		}
	case gqOpSpawn:
		return m.spawn(i)
	case gqOpGet:
		got := m.q.Get()
		if len(m.model) == 0 {
			m.seen["Get empty"]++
			if got != nil {
				return fmt.Errorf("Get on an empty queue gave %d", got.id)
			}
			return nil
		}
		m.seen["Get"]++
		want := m.model[0]
		m.model = m.model[1:]
		if got != want {
			return fmt.Errorf("Get gave %s, the model %d", id(got), want.id)
		}
		return m.consume("Get", got)
	case gqOpGetBatch:
		return m.getBatch(1+st.Arg%gqMaxBatch, 1+st.Arg/gqMaxBatch)
	case gqOpSchedule:
		return m.schedule(i, procs)
	case gqOpLen:
		m.seen["Len"]++ // checkLens compares them after every step
	case gqOpMisuse:
		return m.misuse(st.Arg%4, st.Arg/4)
	default:
		return fmt.Errorf("unknown op %d", st.Op)
	}
	return nil
}

// spawn puts a new item into ring i; a full ring hands back its overflow
// batch (the older half and the new item), which goes into the queue in
// one PutBatch, as runqputslow does.
func (m *gqRun) spawn(i int) error {
	t := m.newItem()
	m.spill = m.rings[i].Put(t, m.spill[:0])
	if len(m.rmodel[i]) < lfq.Size {
		if len(m.spill) != 0 {
			return fmt.Errorf("Spawn into ring %d holding %d spilled %s", i, len(m.rmodel[i]), ids(m.spill))
		}
		m.rmodel[i] = append(m.rmodel[i], t)
		m.seen["Spawn"]++
		return nil
	}
	want := append(slices.Clone(m.rmodel[i][:lfq.Size/2]), t)
	if !slices.Equal(m.spill, want) {
		return fmt.Errorf("overflow of ring %d gave %s, the model %s", i, ids(m.spill), ids(want))
	}
	m.rmodel[i] = m.rmodel[i][lfq.Size/2:]
	m.q.PutBatch(m.spill)
	m.model = append(m.model, want...)
	m.seen["Spawn overflow into the queue"]++
	return nil
}

// takeBatch does one GetBatch into the reused buffer and checks it against
// the model: n = min(requested, len, len/procs + 1) of the oldest items,
// the oldest to run. It returns the batch, oldest first (nil when empty).
func (m *gqRun) takeBatch(requested, procs int) ([]*item, error) {
	var run *item
	run, m.buf = m.q.GetBatch(requested, procs, m.buf[:0])
	l := len(m.model)
	if l == 0 {
		if run != nil || len(m.buf) != 0 {
			return nil, fmt.Errorf("GetBatch(%d, %d) on an empty queue gave %s and rest %s", requested, procs, id(run), ids(m.buf))
		}
		m.seen["GetBatch empty"]++
		return nil, nil
	}
	n := min(requested, l, l/procs+1)
	want := m.model[:n]
	if run != want[0] || !slices.Equal(m.buf, want[1:]) {
		return nil, fmt.Errorf("GetBatch(%d, %d) of a queue of %d gave %s and rest %s, the model n = %d: %d and rest %s",
			requested, procs, l, id(run), ids(m.buf), n, want[0].id, ids(want[1:]))
	}
	m.model = m.model[n:]
	switch {
	case n == l/procs+1 && n < requested && n < l:
		m.seen["GetBatch capped by len/procs+1"]++
	case n == requested && n < l:
		m.seen["GetBatch capped by requested"]++
	default:
		m.seen["GetBatch takes all"]++
	}
	return want, nil
}

// getBatch is a GetBatch whose whole batch leaves (runs).
func (m *gqRun) getBatch(requested, procs int) error {
	batch, err := m.takeBatch(requested, procs)
	if err != nil {
		return err
	}
	return m.consume("GetBatch", batch...)
}

// schedule is one turn of findRunnable for P i: on a fairness tick one item
// from the queue first; then the P's ring; then a batch from the queue, the
// first to run and the rest into the (empty) ring.
func (m *gqRun) schedule(i, procs int) error {
	tick := m.ticks[i]
	m.ticks[i]++
	if globalq.FairnessTick(tick) && !m.q.Empty() {
		m.seen["Schedule fairness Get"]++
		want := m.model[0]
		m.model = m.model[1:]
		if got := m.q.Get(); got != want {
			return fmt.Errorf("fairness Get on tick %d gave %s, the model %d", tick, id(got), want.id)
		}
		return m.consume("fairness Get", want)
	}
	if t := m.rings[i].Get(); t != nil || len(m.rmodel[i]) > 0 {
		m.seen["Schedule ring"]++
		if len(m.rmodel[i]) == 0 || t != m.rmodel[i][0] {
			return fmt.Errorf("ring %d Get gave %s, the model %s", i, id(t), ids(m.rmodel[i][:min(1, len(m.rmodel[i]))]))
		}
		m.rmodel[i] = m.rmodel[i][1:]
		return m.consume("ring Get", t)
	}
	batch, err := m.takeBatch(lfq.Size/2, procs)
	if err != nil || batch == nil {
		return err
	}
	m.seen["Schedule batch into the ring"]++
	if n := m.rings[i].PutBatch(m.buf); n != len(m.buf) {
		return fmt.Errorf("the empty ring %d took %d of a rest of %d", i, n, len(m.buf))
	}
	m.rmodel[i] = append(m.rmodel[i], batch[1:]...)
	return m.consume("Schedule batch", batch[0])
}

func (m *gqRun) misuse(kind, n int) error {
	m.seen["Misuse"]++
	switch kind {
	case gqMisPutNil:
		if panics(func() { m.q.Put(nil) }) == nil {
			return errors.New("Put(nil) did not panic")
		}
	case gqMisPutBatchNil:
		ts := append(m.newItems(n), nil)
		for _, t := range ts[:n] {
			m.out[t.id] = gqNotPut
		}
		if panics(func() { m.q.PutBatch(ts) }) == nil {
			return fmt.Errorf("PutBatch of %d items and a nil did not panic", n)
		}
	case gqMisGetBatchNoReq:
		if panics(func() { m.q.GetBatch(-n, 1, nil) }) == nil {
			return fmt.Errorf("GetBatch(%d, 1) did not panic", -n)
		}
	case gqMisGetBatchNoProc:
		if panics(func() { m.q.GetBatch(1, -n, nil) }) == nil {
			return fmt.Errorf("GetBatch(1, %d) did not panic", -n)
		}
	}
	return nil
}

// gqSeeds are hand-written programs: each exercises paths on purpose.
func gqSeeds() []fuzz.Program {
	s := seqStep
	batch := func(requested, procs int) int { return (requested - 1) + gqMaxBatch*(procs-1) }
	var progs []fuzz.Program
	// Puts and Gets, batches of every cap.
	progs = append(progs, fuzz.Program{Actors: 1, Steps: []fuzz.Step{
		s(0, gqOpPut, 0), s(0, gqOpPut, 0), s(0, gqOpGet, 0), s(0, gqOpLen, 0), s(0, gqOpGet, 0), s(0, gqOpGet, 0),
		s(0, gqOpPutBatch, 300), s(0, gqOpPutBatch, 0), s(0, gqOpGetBatch, batch(128, 4)),
		s(0, gqOpGetBatch, batch(5, 1)), s(0, gqOpGetBatch, batch(300, 1)), s(0, gqOpGetBatch, batch(1, 8)),
	}})
	// Two Ps spawning past a full ring: the overflow goes to the queue and
	// comes back as batches into the other P's ring.
	spawns := make([]fuzz.Step, lfq.Size+3)
	for k := range spawns {
		spawns[k] = s(0, gqOpSpawn, 0)
	}
	progs = append(progs, fuzz.Program{Actors: 2, Steps: slices.Concat(spawns, []fuzz.Step{
		s(1, gqOpSchedule, 0), s(1, gqOpSchedule, 0), s(1, gqOpSchedule, 0), s(0, gqOpSchedule, 0),
		s(1, gqOpLen, 0), s(1, gqOpGetBatch, batch(128, 2)),
	})})
	// One P scheduling past a fairness tick, with the queue and its ring
	// both holding work.
	sched := []fuzz.Step{s(0, gqOpPutBatch, 200), s(0, gqOpSpawn, 0), s(0, gqOpSpawn, 0)}
	for range 2*globalq.FairnessPeriod + 2 {
		sched = append(sched, s(0, gqOpSchedule, 0))
	}
	progs = append(progs, fuzz.Program{Actors: 1, Steps: sched})
	// Misuse of each kind.
	progs = append(progs, fuzz.Program{Actors: 1, Steps: []fuzz.Step{
		s(0, gqOpPut, 0), s(0, gqOpMisuse, gqMisPutNil), s(0, gqOpMisuse, 4*3+gqMisPutBatchNil),
		s(0, gqOpMisuse, gqMisPutBatchNil), s(0, gqOpMisuse, gqMisGetBatchNoReq), s(0, gqOpMisuse, 4*7+gqMisGetBatchNoProc),
		s(0, gqOpGet, 0),
	}})
	return progs
}

// FuzzGlobalQ drives one globalq.Queue, fed by Puts, PutBatches and the
// overflow of 1 to 4 lfq rings, and drained by Gets, GetBatches and
// findRunnable-like schedule turns that move batches into the rings,
// through a program decoded from the input; every result is compared with
// a sequential model.
func FuzzGlobalQ(f *testing.F) { gqTarget.fuzz(f) }

var gqTarget = seqTarget{spec: gqSpec, seeds: gqSeeds,
	interpret: func(b []byte) (map[string]int, error) { return interpretGQ(b, newGQReal) }}

// TestGlobalQSeeds runs the hand-written seeds, requires that together they
// take every path of the model, and logs how far the corpus files reach.
func TestGlobalQSeeds(t *testing.T) {
	gqTarget.testSeeds(t, []string{
		"Put", "PutBatch", "PutBatch across chunks", "Spawn", "Spawn overflow into the queue", "Get", "Get empty",
		"GetBatch empty", "GetBatch capped by len/procs+1", "GetBatch capped by requested", "GetBatch takes all",
		"Schedule fairness Get", "Schedule ring", "Schedule batch into the ring", "Len", "Misuse",
	})
}

// Broken queues for TestFuzzGlobalQCatchesBrokenQueue. Each embeds the real
// queue and breaks one operation.

// gqDropsLast's PutBatch leaves out the last item (an overflow's new item).
type gqDropsLast struct{ gqReal }

func (q gqDropsLast) PutBatch(ts []*item) {
	if len(ts) > 0 && !slices.Contains(ts, nil) {
		ts = ts[:len(ts)-1]
	}
	q.gqReal.PutBatch(ts)
}

// gqRunsNewest's GetBatch runs the newest item of the batch.
type gqRunsNewest struct{ gqReal }

func (q gqRunsNewest) GetBatch(requested, procs int, rest []*item) (*item, []*item) {
	n := len(rest)
	run, rest := q.gqReal.GetBatch(requested, procs, rest)
	if run == nil {
		return nil, rest
	}
	batch := slices.Concat([]*item{run}, rest[n:])
	return batch[len(batch)-1], append(rest[:n], batch[:len(batch)-1]...)
}

// gqShareOffByOne's GetBatch takes len/procs + 2 when that is the cap.
type gqShareOffByOne struct{ gqReal }

func (q gqShareOffByOne) GetBatch(requested, procs int, rest []*item) (*item, []*item) {
	l := q.Len()
	run, rest := q.gqReal.GetBatch(requested, procs, rest)
	if run != nil && l/procs+1 < min(requested, l) {
		if extra := q.gqReal.Get(); extra != nil {
			rest = append(rest, extra)
		}
	}
	return run, rest
}

// gqNilAccepted's Put silently drops a nil instead of panicking.
type gqNilAccepted struct{ gqReal }

func (q gqNilAccepted) Put(t *item) {
	if t != nil {
		q.gqReal.Put(t)
	}
}

// gqEmptyLies's Empty reports true once the queue holds one item.
type gqEmptyLies struct{ gqReal }

func (q gqEmptyLies) Empty() bool { return q.Len() <= 1 }

// TestFuzzGlobalQCatchesBrokenQueue shows FuzzGlobalQ's interpreter can
// fail: on fixed programs it must report a mismatch for each broken queue,
// and none for the real one.
func TestFuzzGlobalQCatchesBrokenQueue(t *testing.T) {
	s := seqStep
	steps := make([]fuzz.Step, 0, lfq.Size+10)
	for range lfq.Size + 1 {
		steps = append(steps, s(0, gqOpSpawn, 0)) // the last overflows 129 into the queue
	}
	steps = append(steps,
		s(1, gqOpSchedule, 0),                // tick 0: a fairness Get
		s(1, gqOpSchedule, 0),                // GetBatch(128, 2) of 128: 65, 64 into ring 1
		s(0, gqOpGetBatch, 127+gqMaxBatch*1), // GetBatch(128, 2) of 63: 32
		s(0, gqOpGetBatch, gqMaxBatch-1),     // GetBatch(300, 1): the other 31
		s(0, gqOpPut, 0), s(0, gqOpLen, 0),   // one item
		s(0, gqOpMisuse, gqMisPutNil),
	)
	prog := gqSpec.Encode(fuzz.Program{Actors: 2, Steps: steps})
	if err := runGQ(prog, newGQReal); err != nil {
		t.Fatalf("the real queue fails the fixed program: %v", err)
	}
	catchesBroken(t, "queue", []brokenVariant[func() gqQueue]{
		{"PutBatch drops the last item", func() gqQueue { return gqDropsLast{newGQReal().(gqReal)} }, "Len()"},
		{"GetBatch runs the newest item", func() gqQueue { return gqRunsNewest{newGQReal().(gqReal)} }, "GetBatch(128, 2)"},
		{"GetBatch share off by one", func() gqQueue { return gqShareOffByOne{newGQReal().(gqReal)} }, "GetBatch(128, 2)"},
		{"Put accepts nil", func() gqQueue { return gqNilAccepted{newGQReal().(gqReal)} }, "did not panic"},
		{"Empty true with one item", func() gqQueue { return gqEmptyLies{newGQReal().(gqReal)} }, "Empty()"},
	}, func(_ *testing.T, newQueue func() gqQueue) error { return runGQ(prog, newQueue) })
}
