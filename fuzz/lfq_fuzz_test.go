package fuzz_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/fuzz"
	"github.com/schedkit/schedkit/lfq"
)

// ring is the implementation FuzzRing drives: lfq.Ring through lfqRing, or a
// broken wrapper around it in TestFuzzRingCatchesBrokenRing. StealHalf's
// destination is another ring of the same implementation (or nil).
type ring interface {
	Put(t *item, spill []*item) []*item
	PutBatch(ts []*item) int
	Get() *item
	Drain(dst []*item) []*item
	StealHalf(dst ring) *item
	Len() int
	lfq() *lfq.Ring[item]
}

// lfqRing adapts *lfq.Ring[item] to ring.
type lfqRing struct{ r *lfq.Ring[item] }

func newLFQRing() ring { return lfqRing{r: new(lfq.Ring[item])} }

func (q lfqRing) Put(t *item, spill []*item) []*item { return q.r.Put(t, spill) }
func (q lfqRing) PutBatch(ts []*item) int            { return q.r.PutBatch(ts) }
func (q lfqRing) Get() *item                         { return q.r.Get() }
func (q lfqRing) Drain(dst []*item) []*item          { return q.r.Drain(dst) }
func (q lfqRing) Len() int                           { return q.r.Len() }
func (q lfqRing) lfq() *lfq.Ring[item]               { return q.r }

func (q lfqRing) StealHalf(dst ring) *item {
	var d *lfq.Ring[item]
	if dst != nil {
		d = dst.lfq()
	}
	return q.r.StealHalf(d)
}

// The operations of a FuzzRing program. Actor i owns ring i; as a thief it
// steals from another ring into ring i.
const (
	opPut       = iota // arg 0: spill nil; 1: spill an empty reused buffer
	opPutBatch         // arg: batch length, 0..300
	opGet              //
	opDrain            // arg 0: dst nil; 1: dst holds the sentinel
	opLen              //
	opStealHalf        // victim: ring (actor+1+arg%(R-1)) % R
	opMisuse           // arg%4: the misuse; arg/4: a batch length for PutBatch with a nil
)

// Misuses, each of which must panic and leave every ring as it was (a
// PutBatch with a nil too, wherever the nil lies: inside what fits or past
// it).
const (
	misPutNil       = iota // Put(nil, nil)
	misPutBatchNil         // PutBatch of arg/4 items and then a nil
	misStealSelf           // StealHalf into the victim itself
	misStealNilDest        // StealHalf into a nil ring
)

const maxBatch = 300

var ringSpec = fuzz.Spec{
	MinActors: 2,
	MaxActors: 4,
	Ops: []fuzz.Op{
		opPut:       {Name: "Put", Args: 2},
		opPutBatch:  {Name: "PutBatch", Args: maxBatch + 1},
		opGet:       {Name: "Get"},
		opDrain:     {Name: "Drain", Args: 2},
		opLen:       {Name: "Len"},
		opStealHalf: {Name: "StealHalf", Args: 3},
		opMisuse:    {Name: "Misuse", Args: 4 * (maxBatch + 1)},
	},
	MaxSteps: 1024,
}

// notPut marks, in ringRun.out, an item made but not (yet) put.
const notPut = -1

// ringRun is the state of one interpretation: the rings under test, the
// sequential model (one slice per ring, oldest first) and the accounting of
// every item made.
type ringRun struct {
	rings []ring
	model [][]*item
	out   []int32        // by id: notPut, or how many times it came out
	seen  map[string]int // how often each path of the model was taken
	slab  []item         // newItem carves items from it
	spare [maxBatch]item // the tails of batches that do not fit; never put
}

func (m *ringRun) newItem() *item {
	if len(m.slab) == 0 {
		m.slab = make([]item, 512) // one allocation per 512 items
	}
	t := &m.slab[0]
	m.slab = m.slab[1:]
	t.id = len(m.out)
	m.out = append(m.out, notPut)
	return t
}

// consume records that t came out of ring i by how; it fails on an item
// that was never made, never put, or already consumed.
func (m *ringRun) consume(t *item, how string, i int) error {
	if t == nil || t.id < 0 || t.id >= len(m.out) {
		return fmt.Errorf("%s on ring %d gave %s, an item the program never made", how, i, id(t))
	}
	if m.out[t.id] == notPut {
		return fmt.Errorf("%s on ring %d gave item %d, which was never put", how, i, t.id)
	}
	m.out[t.id]++
	if m.out[t.id] > 1 {
		return fmt.Errorf("%s on ring %d gave item %d, consumed %d times", how, i, t.id, m.out[t.id])
	}
	return nil
}

// consumeAll checks that got equals want item for item and consumes them.
func (m *ringRun) consumeAll(got, want []*item, how string, i int) error {
	if !slices.Equal(got, want) {
		return fmt.Errorf("%s on ring %d gave %s, the model %s", how, i, ids(got), ids(want))
	}
	for _, t := range got {
		if err := m.consume(t, how, i); err != nil {
			return err
		}
	}
	return nil
}

// runRing decodes data into a FuzzRing program, runs it on rings made by
// newRing, and returns the first difference from the model (nil if none).
// A panic that the model does not expect is returned as an error too.
func runRing(data []byte, newRing func() ring) error {
	_, err := interpretRing(data, newRing)
	return err
}

// interpretRing is runRing that also returns how often each path of the
// model was taken (see ringRun.seen).
func interpretRing(data []byte, newRing func() ring) (map[string]int, error) {
	p := ringSpec.Decode(data)
	m := &ringRun{model: make([][]*item, p.Actors), seen: map[string]int{}}
	for k := range m.spare {
		m.spare[k].id = -2
	}
	for range p.Actors {
		m.rings = append(m.rings, newRing())
	}
	return seqSteps(ringSpec, p, "actor", m.seen, m.step, m.checkLens, m.finish)
}

func (m *ringRun) checkLens() error {
	for i, q := range m.rings {
		if got, want := q.Len(), len(m.model[i]); got != want {
			return fmt.Errorf("ring %d: Len() = %d, the model holds %d", i, got, want)
		}
	}
	return nil
}

// finish drains every ring, checks that the items come out in model order
// and that every item put was consumed exactly once.
func (m *ringRun) finish() error {
	for i, q := range m.rings {
		var got []*item
		if v := panics(func() { got = q.Drain(nil) }); v != nil {
			return fmt.Errorf("final Drain of ring %d panicked: %v", i, v)
		}
		if err := m.consumeAll(got, m.model[i], "final Drain", i); err != nil {
			return err
		}
		m.model[i] = nil
		if n := q.Len(); n != 0 {
			return fmt.Errorf("ring %d: Len() = %d after the final Drain", i, n)
		}
	}
	for k, n := range m.out {
		if n != notPut && n != 1 {
			return fmt.Errorf("item %d was put and consumed %d times", k, n)
		}
	}
	return nil
}

func (m *ringRun) step(st fuzz.Step) error {
	i, q := st.Actor, m.rings[st.Actor]
	switch st.Op {
	case opPut:
		return m.put1(i, st.Arg == 1)
	case opPutBatch:
		return m.putBatch(i, st.Arg, false)
	case opGet:
		got := q.Get()
		if len(m.model[i]) == 0 {
			if got != nil {
				return fmt.Errorf("Get on empty ring %d gave %s", i, id(got))
			}
			m.seen["Get empty"]++
			return nil
		}
		m.seen["Get"]++
		want := m.model[i][0]
		m.model[i] = m.model[i][1:]
		return m.consumeAll([]*item{got}, []*item{want}, "Get", i)
	case opDrain:
		var dst []*item
		if st.Arg == 1 {
			dst = []*item{sentinel}
		}
		got, err := pastSentinel(q.Drain(dst), st.Arg == 1, fmt.Sprintf("Drain on ring %d", i), "dst")
		if err != nil {
			return err
		}
		want := m.model[i]
		m.model[i] = nil
		m.seen["Drain"]++
		return m.consumeAll(got, want, "Drain", i)
	case opLen:
		m.seen["Len"]++
		if got := q.Len(); got != len(m.model[i]) {
			return fmt.Errorf("Len() = %d on ring %d, the model holds %d", got, i, len(m.model[i]))
		}
		return nil
	case opStealHalf:
		v := (i + 1 + st.Arg%(len(m.rings)-1)) % len(m.rings)
		return m.steal(v, i)
	case opMisuse:
		return m.misuse(i, st.Arg%4, st.Arg/4)
	}
	return fmt.Errorf("unknown op %d", st.Op)
}

// put1 is the owner's Put on ring i, with overflow when the model is full.
func (m *ringRun) put1(i int, reuse bool) error {
	t := m.newItem()
	m.out[t.id] = 0   // put
	var spill []*item // nil, or a reused buffer: Put's result is the batch alone
	if reuse {
		spill = make([]*item, 0, lfq.OverflowLen)
	}
	got := m.rings[i].Put(t, spill)
	if held := len(m.model[i]); held < lfq.Size {
		m.model[i] = append(m.model[i], t)
		if got != nil {
			return fmt.Errorf("Put of %d into ring %d holding %d spilled %s", t.id, i, held, ids(got))
		}
		m.seen["Put"]++
		return nil
	}
	m.seen["Put overflow"]++
	// Full: the oldest half and the new item leave as one batch.
	want := append(slices.Clone(m.model[i][:lfq.Size/2]), t)
	m.model[i] = m.model[i][lfq.Size/2:]
	return m.consumeAll(got, want, "overflowing Put", i)
}

// putBatch is the owner's PutBatch of n new items on ring i, followed by a
// nil if withNil. Only the prefix that fits is put; with a nil anywhere in
// the batch the model expects a panic with nothing put.
func (m *ringRun) putBatch(i, n int, withNil bool) error {
	fit := min(n+btoi(withNil), lfq.Size-len(m.model[i]))
	ts := make([]*item, n, n+1)
	for k := range ts {
		if k < fit {
			ts[k] = m.newItem()
		} else {
			// Past the room: a correct ring never takes these, so they
			// need not be fresh; if one does come out, consume rejects it.
			ts[k] = &m.spare[k]
		}
	}
	if withNil {
		ts = append(ts, nil)
	}
	var got int
	v := panics(func() { got = m.rings[i].PutBatch(ts) })
	if withNil {
		if v == nil {
			return fmt.Errorf("PutBatch on ring %d with a nil at %d of %d (%d fit) did not panic", i, n, len(ts), fit)
		}
		if fit == len(ts) {
			m.seen["PutBatch nil panics"]++
		} else {
			m.seen["PutBatch nil past the room panics"]++
		}
		return nil // nothing put; Len is checked after the step
	}
	if v != nil {
		panic(v)
	}
	if got != fit {
		return fmt.Errorf("PutBatch of %d on ring %d holding %d put %d, the model %d", len(ts), i, len(m.model[i]), got, fit)
	}
	switch {
	case fit < len(ts):
		m.seen["PutBatch partial"]++
	default:
		m.seen["PutBatch"]++
	}
	for _, t := range ts[:fit] {
		m.out[t.id] = 0 // put
	}
	m.model[i] = append(m.model[i], ts[:fit]...)
	return nil
}

// steal is actor d stealing from ring v into its own ring d.
func (m *ringRun) steal(v, d int) error {
	var got *item
	p := panics(func() { got = m.rings[v].StealHalf(m.rings[d]) })
	if len(m.model[d]) > lfq.Size/2 {
		if p == nil {
			return fmt.Errorf("StealHalf from ring %d into ring %d holding %d did not panic (gave %s)", v, d, len(m.model[d]), id(got))
		}
		m.seen["StealHalf full dst panics"]++
		return nil
	}
	if p != nil {
		panic(p)
	}
	n := len(m.model[v]) - len(m.model[v])/2
	if n == 0 {
		if got != nil {
			return fmt.Errorf("StealHalf from empty ring %d gave %s", v, id(got))
		}
		m.seen["StealHalf empty"]++
		return nil
	}
	m.seen["StealHalf"]++
	if n == lfq.Size/2 {
		m.seen["StealHalf 128"]++
	}
	stolen := m.model[v][:n]
	m.model[v] = m.model[v][n:]
	m.model[d] = append(m.model[d], stolen[:n-1]...)
	return m.consumeAll([]*item{got}, stolen[n-1:], fmt.Sprintf("StealHalf (thief %d)", d), v)
}

func (m *ringRun) misuse(i, kind, n int) error {
	q := m.rings[i]
	m.seen["Misuse"]++
	switch kind {
	case misPutNil:
		if panics(func() { q.Put(nil, nil) }) == nil {
			return errors.New("Put(nil) did not panic")
		}
	case misPutBatchNil:
		return m.putBatch(i, n, true)
	case misStealSelf:
		if panics(func() { q.StealHalf(q) }) == nil {
			return fmt.Errorf("StealHalf from ring %d into itself did not panic", i)
		}
	case misStealNilDest:
		if panics(func() { q.StealHalf(nil) }) == nil {
			return fmt.Errorf("StealHalf from ring %d into nil did not panic", i)
		}
	}
	return nil
}

// ringSeeds are hand-written programs: each exercises one path on purpose.
func ringSeeds() []fuzz.Program {
	s := seqStep
	fill := func(actor int) []fuzz.Step { // 256 items in two batches
		return []fuzz.Step{s(actor, opPutBatch, 200), s(actor, opPutBatch, 56)}
	}
	var progs []fuzz.Program
	// Puts and Gets in FIFO order, a Drain into a buffer, Len.
	progs = append(progs, fuzz.Program{Actors: 2, Steps: []fuzz.Step{
		s(0, opPut, 0), s(0, opPut, 1), s(0, opPut, 0), s(0, opGet, 0), s(0, opLen, 0),
		s(0, opDrain, 1), s(0, opGet, 0), s(1, opDrain, 0),
	}})
	// Overflow: fill, then Put twice (nil spill and reused spill), then more.
	progs = append(progs, fuzz.Program{Actors: 2, Steps: slices.Concat(fill(0), []fuzz.Step{
		s(0, opPut, 0), s(0, opPutBatch, 128), s(0, opPut, 1), s(0, opGet, 0),
	})})
	// PutBatch larger than the ring, and into a partly full ring.
	progs = append(progs, fuzz.Program{Actors: 2, Steps: []fuzz.Step{
		s(1, opPutBatch, 300), s(1, opGet, 0), s(1, opGet, 0), s(1, opPutBatch, 5), s(1, opPutBatch, 0),
	}})
	// Steals: from a full ring, an odd count, an empty ring, into a ring at
	// the limit of 128 and (panicking) past it; three and four rings.
	progs = append(progs, fuzz.Program{Actors: 3, Steps: slices.Concat(fill(0), []fuzz.Step{
		// Ring sizes after each step, as (ring 0, ring 1, ring 2).
		s(1, opStealHalf, 1), // 1 steals 128 from 0: (128, 127, 0)
		s(1, opStealHalf, 0), // 1 steals from empty 2
		s(2, opStealHalf, 0), // 2 steals 64 from 0: (64, 127, 63)
		s(2, opStealHalf, 1), // 2 steals 64 from 1: (64, 63, 126)
		s(0, opPut, 0),       // (65, 63, 126)
		s(2, opStealHalf, 1), // 2 steals 32 from 1: (65, 31, 157)
		s(2, opStealHalf, 0), // 2 holds 157 > 128: panics
		s(0, opPutBatch, 7),  // (72, 31, 157)
		s(1, opStealHalf, 1), // 1 steals 36 from 0: (36, 66, 157)
		s(1, opPutBatch, 62), // (36, 128, 157)
		s(1, opStealHalf, 1), // 1 holds exactly 128: steals 18 from 0
		s(1, opStealHalf, 0), // 1 holds 145: panics
		s(2, opGet, 0),
	})})
	progs = append(progs, fuzz.Program{Actors: 4, Steps: slices.Concat(fill(3), []fuzz.Step{
		s(0, opStealHalf, 2), s(1, opStealHalf, 1), s(2, opStealHalf, 0), s(3, opStealHalf, 0),
		s(0, opPutBatch, 300), s(0, opPut, 1), s(1, opStealHalf, 2), s(3, opDrain, 0),
	})})
	// Misuse: each kind, PutBatch with a nil inside and past what fits.
	progs = append(progs, fuzz.Program{Actors: 2, Steps: []fuzz.Step{
		s(0, opMisuse, misPutNil), s(0, opMisuse, 4*3+misPutBatchNil), s(0, opMisuse, misStealSelf),
		s(0, opMisuse, misStealNilDest), s(0, opPutBatch, 250), s(0, opMisuse, 4*10+misPutBatchNil),
		s(0, opMisuse, 4*6+misPutBatchNil), s(0, opPut, 0),
	}})
	return progs
}

// FuzzRing drives 2 to 4 lfq rings, one owner actor each, through a program
// decoded from the input and compares every result with a sequential model.
//
// The rings start at index 0: lfq exports no way to start near the uint32
// wrap, and reaching it by operations would take some 2^32 of them, so
// wraparound is left to lfq's own tests.
func FuzzRing(f *testing.F) { ringTarget.fuzz(f) }

var ringTarget = seqTarget{spec: ringSpec, seeds: ringSeeds,
	interpret: func(b []byte) (map[string]int, error) { return interpretRing(b, newLFQRing) }}

// TestRingSeeds runs the hand-written seeds, requires that together they
// take every path of the model, and logs how far the corpus files reach.
func TestRingSeeds(t *testing.T) {
	ringTarget.testSeeds(t, []string{
		"Put", "Put overflow", "PutBatch", "PutBatch partial", "PutBatch nil panics",
		"PutBatch nil past the room panics", "Get", "Get empty", "Drain", "Len", "StealHalf",
		"StealHalf 128", "StealHalf empty", "StealHalf full dst panics", "Misuse",
	})
}

// Broken rings for TestFuzzRingCatchesBrokenRing. Each embeds a correct
// lfqRing and breaks one operation.

// stealTwice's StealHalf also leaves the returned item in the destination,
// so it comes out twice.
type stealTwice struct{ lfqRing }

func (q stealTwice) StealHalf(dst ring) *item {
	t := q.lfqRing.StealHalf(dst)
	if t != nil {
		dst.Put(t, nil)
	}
	return t
}

// overflowDropsNew's overflow batch leaves out the new item.
type overflowDropsNew struct{ lfqRing }

func (q overflowDropsNew) Put(t *item, spill []*item) []*item {
	n := len(spill)
	out := q.lfqRing.Put(t, spill)
	if len(out) > n {
		out = out[:len(out)-1]
	}
	return out
}

// drainReversed's Drain hands the items back newest first: right count,
// wrong order.
type drainReversed struct{ lfqRing }

func (q drainReversed) Drain(dst []*item) []*item {
	n := len(dst)
	out := q.lfqRing.Drain(dst)
	slices.Reverse(out[n:])
	return out
}

// putBatchNoCheck's PutBatch silently skips nil items instead of panicking.
type putBatchNoCheck struct{ lfqRing }

func (q putBatchNoCheck) PutBatch(ts []*item) int {
	return q.lfqRing.PutBatch(slices.DeleteFunc(slices.Clone(ts), func(t *item) bool { return t == nil }))
}

// TestFuzzRingCatchesBrokenRing shows FuzzRing's interpreter can fail: on
// fixed programs it must report a mismatch for each broken ring, and none
// for the real one.
func TestFuzzRingCatchesBrokenRing(t *testing.T) {
	s := seqStep
	prog := ringSpec.Encode(fuzz.Program{Actors: 2, Steps: []fuzz.Step{
		s(0, opPutBatch, 256), s(0, opPut, 0), // overflow
		s(1, opStealHalf, 0),                  // steal 64 of 128
		s(0, opPutBatch, 3), s(0, opDrain, 1), // Drain 67 items
		s(1, opMisuse, 4*2+misPutBatchNil), // a nil that fits
	}})
	if err := runRing(prog, newLFQRing); err != nil {
		t.Fatalf("the real ring fails the fixed program: %v", err)
	}
	catchesBroken(t, "ring", []brokenVariant[func() ring]{
		{"StealHalf returns an item twice", func() ring { return stealTwice{newLFQRing().(lfqRing)} }, "Len()"},
		{"overflow drops the new item", func() ring { return overflowDropsNew{newLFQRing().(lfqRing)} }, "overflowing Put"},
		{"Drain reverses", func() ring { return drainReversed{newLFQRing().(lfqRing)} }, "Drain on ring 0"},
		{"PutBatch skips nil", func() ring { return putBatchNoCheck{newLFQRing().(lfqRing)} }, "did not panic"},
	}, func(_ *testing.T, newRing func() ring) error { return runRing(prog, newRing) })
}

// BenchmarkRingProgram4KiB measures one FuzzRing execution on 4 KiB inputs:
// the worst case (full batches of 300, each ring drained between them, so
// 256 new items every other step) and random bytes.
func BenchmarkRingProgram4KiB(b *testing.B) {
	s := seqStep
	worst := fuzz.Program{Actors: 4}
	for n := range ringSpec.MaxSteps / 2 {
		worst.Steps = append(worst.Steps, s(n%4, opPutBatch, maxBatch), s(n%4, opDrain, 0))
	}
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(i*131 + i>>8)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{{"batches", ringSpec.Encode(worst)}, {"bytes", random}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := runRing(c.data, newLFQRing); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
