package lfq_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/lfq"
)

// Bar item 5: the real ring under every interleaving, within the preemption
// bound, of a few small scenarios. Every scheduling point is an atomic
// access of the ring (atomicx), so these run only with
// -tags schedcheck; without it explore.Check skips them.
//
// A scenario has rings of one size: 256 slots (Ring's) or 2, 4 or 8
// (lfq.RingN, the same code), small enough that a few steps fill, wrap and
// overflow them. Thread 0 owns the victim, ring 0; thread k >= 1 owns ring
// k, which may start holding items, and steals into it.
//
// After each execution the oracles judge it: conservation (every item came
// out exactly once: from a Get, an overflow batch, a steal, a PutBatch's
// rejected rest, a Drain, or what the rings hold at the end), FIFO (the
// owner's Gets and each steal's items come in put order), and, for 256-slot
// scenarios, linearizability of the victim's history against linModel, the
// sequential spec of linearize_test.go (which is written for Size slots).

// xkind is one operation of a scenario thread.
type xkind uint8

const (
	xPut        xkind = iota // owner: Put a new item into the victim
	xPutBatch                // owner: PutBatch two new items
	xPutBatch3               // owner: PutBatch three new items
	xGet                     // owner: Get from the victim
	xDrain                   // owner: Drain the victim
	xSteal                   // thief k: StealHalf from the victim into ring k
	xStealFrom1              // thief k >= 2: StealHalf from ring 1 into ring k
	xGetOwn                  // thief k: Get from its own ring k
	xLen                     // anyone: Len of the victim
)

// xScenario is a set of rings of size slots and the operations each
// thread runs on them.
type xScenario struct {
	name     string
	size     int    // slots per ring: 2, 4, 8 or lfq.Size
	start    uint32 // every ring's indices start here
	pre      int    // items in the victim at the start
	thiefPre []int  // items in ring k at the start, at index k-1
	threads  [][]xkind
	opts     explore.Options
	// longBound, if not 0, replaces the bound outside -short (long mode).
	longBound int
	long      bool // too slow for -short and the kill matrix
}

// xScenarios are lfq's scenarios. Those on 4-slot rings reach, in a few
// steps, what a 256-slot ring reaches only in hundreds: a full ring, an
// overflow, an inconsistent head/tail read, a thief's ring that is
// half full, indices about to wrap.
var xScenarios = []xScenario{
	{name: "owner-vs-thief", size: lfq.Size, pre: 1, threads: [][]xkind{{xPut, xGet, xPut}, {xSteal, xLen}}},
	{name: "owner-vs-two-thieves", size: lfq.Size, pre: 2, threads: [][]xkind{{xPut, xGet}, {xSteal}, {xSteal}}},
	{name: "steal-vs-steal", size: lfq.Size, pre: 5, threads: [][]xkind{{xLen}, {xSteal}, {xSteal}}},
	{name: "get-vs-steal-last-item", size: lfq.Size, pre: 1, threads: [][]xkind{{xGet}, {xSteal}}, longBound: 3},
	{name: "get-vs-steal-two-items", size: lfq.Size, pre: 2, threads: [][]xkind{{xGet, xGet}, {xSteal}}, longBound: 3},
	{name: "drain-and-batch-vs-steal", size: lfq.Size, pre: 3, threads: [][]xkind{{xDrain, xPutBatch}, {xSteal}}},
	{name: "len-vs-owner", size: lfq.Size, pre: 1, threads: [][]xkind{{xGet, xPut}, {xLen, xLen}}, longBound: 3},
	{name: "wraparound", size: lfq.Size, start: ^uint32(0) - 1, pre: 1, threads: [][]xkind{{xPut, xPut, xGet}, {xSteal}}},
	// A full 256-slot ring: the owner's Put overflows (128 slot reads, one
	// CAS) while the thief steals 128. Sleep sets keep this exhaustive:
	// almost every step reads a different slot.
	{name: "steal-vs-overflow", size: lfq.Size, pre: lfq.Size, threads: [][]xkind{{xPut}, {xSteal}},
		opts: explore.Options{Bound: explore.Unbounded, Reduce: true}},
	// The same within bound 2 without reduction: 86,202 executions, a
	// minute and more here.
	{name: "steal-vs-overflow-bound2", size: lfq.Size, pre: lfq.Size, threads: [][]xkind{{xPut}, {xSteal}}, long: true},

	// The thief's own ring already holds half a ring: the stolen half must
	// land after its items, and fill it exactly.
	{name: "tiny-thief-with-own-items", size: 4, pre: 3, thiefPre: []int{2},
		threads: [][]xkind{{xPut, xGet}, {xSteal, xGetOwn}}, longBound: 3},
	// The thief reads head, the owner takes two and puts two, the thief
	// reads tail: tail-head = 6 > 4, an inconsistent read. It must retry,
	// and copy nothing past its ring's free half (2 slots) meanwhile.
	{name: "tiny-inconsistent-read-into-half-full", size: 4, pre: 4, thiefPre: []int{2},
		threads: [][]xkind{{xGet, xGet, xPut, xPut}, {xSteal}}},
	// Thief 1 steals into ring 1 while thief 2 steals from ring 1.
	{name: "tiny-steal-from-a-ring-being-stolen-into", size: 4, pre: 3, thiefPre: []int{1, 0},
		threads: [][]xkind{{xPut}, {xSteal}, {xStealFrom1}}},
	// Thief 1 takes from its own ring while thief 2 steals from it.
	{name: "tiny-get-own-vs-steal-from-it", size: 4, pre: 0, thiefPre: []int{2, 0},
		threads: [][]xkind{{xLen}, {xGetOwn, xGetOwn}, {xStealFrom1}}, longBound: 3},
	// PutBatch publishes two (then three, of which one fits) while a thief
	// steals.
	{name: "tiny-putbatch-vs-steal", size: 4, pre: 1, threads: [][]xkind{{xPutBatch, xPutBatch3}, {xSteal}}, longBound: 3},
	// A full ring overflows (2 items + the new one leave) while a thief
	// steals half.
	{name: "tiny-overflow-vs-steal", size: 4, pre: 4, threads: [][]xkind{{xPut, xGet}, {xSteal}}, longBound: 3},
	{name: "tiny-overflow-vs-two-thieves", size: 4, pre: 4, threads: [][]xkind{{xPut}, {xSteal}, {xSteal}}},
	// Indices about to wrap: head and tail cross 2^32 during the run, on
	// both rings.
	{name: "tiny-wraparound", size: 4, start: ^uint32(0) - 2, pre: 3, thiefPre: []int{1},
		threads: [][]xkind{{xPut, xPut, xGet}, {xSteal, xGetOwn}}, longBound: 3},
	// Two slots: every Put after the first two overflows.
	{name: "two-slots-overflow-vs-steal", size: 2, pre: 2, threads: [][]xkind{{xPut, xPut}, {xSteal}}, longBound: 3},
}

// xRun builds one execution of s.
func (s xScenario) xRun() explore.Run {
	switch s.size {
	case 2:
		return xRunSized[[2]atomicx.Pointer[int]](s)
	case 4:
		return xRunSized[[4]atomicx.Pointer[int]](s)
	case 8:
		return xRunSized[[8]atomicx.Pointer[int]](s)
	case lfq.Size:
		return xRunSized[[lfq.Size]atomicx.Pointer[int]](s)
	}
	panic(fmt.Sprintf("scenario %s: no ring of %d slots", s.name, s.size))
}

// xRunSized builds one execution of s on rings of slot array A: fresh
// rings, a recorder, the threads and the oracles.
func xRunSized[A lfq.SlotArray[int]](s xScenario) explore.Run {
	type ring = lfq.RingN[int, A]
	rings := make([]*ring, len(s.threads))
	for k := range rings {
		rings[k] = new(ring)
		rings[k].SetIndices(s.start)
		if k == 0 {
			explore.Name(rings[k], "victim")
		} else {
			explore.Name(rings[k], fmt.Sprintf("ring%d", k))
		}
	}
	next := 0
	newItem := func() *int {
		p := new(int)
		*p = next
		explore.Name(p, fmt.Sprintf("item%d", next)) // traces show &item3, not an address
		next++
		return p
	}
	fill := func(r *ring, n int) []int {
		var ids []int
		for range n {
			p := newItem()
			if r.Put(p, nil) != nil {
				panic("scenario " + s.name + ": prefill overflowed")
			}
			ids = append(ids, *p)
		}
		return ids
	}
	pre := fill(rings[0], s.pre)
	for k, n := range s.thiefPre {
		fill(rings[k+1], n)
	}
	// Items are made by the owner as it goes; the ids are fixed here so
	// that the owner thread does not touch shared state to make them.
	owned := make([]*int, 0, 8)
	for range 8 {
		owned = append(owned, newItem())
	}
	total := next

	lin := s.size == lfq.Size
	rec := linearize.New(s.name)
	outs := make([][]int, len(s.threads))     // what each thread consumed
	gets := make([][]int, len(s.threads))     // what each thread's Gets returned
	steals := make([][][]int, len(s.threads)) // each steal's items in ring order
	threads := make([]func(), len(s.threads))
	for k, ops := range s.threads {
		c := rec.Client(k)
		threads[k] = func() {
			x := xThread[A]{k: k, c: c, rings: rings, owned: &owned, lin: lin}
			for _, op := range ops {
				x.do(op)
			}
			outs[k], gets[k], steals[k] = x.out, x.gets, x.steals
		}
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			consumed := slices.Concat(outs...)
			for k, r := range rings {
				// Drain spins on tail-head > size, and Check is not a
				// thread: the explorer's step limit does not stop it.
				if h, tl := r.Indices(); tl-h > uint32(s.size) {
					return fmt.Errorf("ring %d ends with head %d, tail %d: more than %d items", k, h, tl, s.size)
				}
				consumed = append(consumed, linIDs(r.Drain(nil))...)
			}
			if want := total - len(owned); !xExactlyOnce(consumed, want) {
				return fmt.Errorf("conservation: items out %v, want each of 0..%d once", sorted(consumed), want-1)
			}
			if !slices.IsSorted(gets[0]) {
				return fmt.Errorf("FIFO: the owner's Gets returned %v", gets[0])
			}
			for k, ss := range steals {
				for _, st := range ss {
					if !slices.IsSorted(st) {
						return fmt.Errorf("FIFO: a steal of thread %d took %v, not in put order", k, st)
					}
				}
			}
			if !lin {
				return nil
			}
			res, err := rec.Check(linModel(pre, s.start), 0)
			if err != nil {
				return fmt.Errorf("linearizability: %w (%d operations)", err, res.Operations)
			}
			return nil
		},
	}
}

// xThread is one scenario thread's state.
type xThread[A lfq.SlotArray[int]] struct {
	k      int
	c      *linearize.Client
	rings  []*lfq.RingN[int, A]
	owned  *[]*int
	lin    bool // record the victim's operations
	out    []int
	gets   []int
	steals [][]int
}

func (x *xThread[A]) take() *int { p := (*x.owned)[0]; *x.owned = (*x.owned)[1:]; return p }

func (x *xThread[A]) begin(in linInput) {
	if x.lin {
		x.c.Begin(in)
	}
}

func (x *xThread[A]) end(out linOutput) {
	if x.lin {
		x.c.End(out)
	}
}

// do runs one operation, records it if it is on the victim, and notes what
// it consumed.
func (x *xThread[A]) do(op xkind) {
	victim, own := x.rings[0], x.rings[x.k]
	switch op {
	case xPut:
		p := x.take()
		x.begin(linInput{kind: linPut, items: []int{*p}})
		spill := linIDs(victim.Put(p, nil))
		x.end(linOutput{items: spill})
		x.out = append(x.out, spill...)
	case xPutBatch, xPutBatch3:
		batch := []*int{x.take(), x.take()}
		if op == xPutBatch3 {
			batch = append(batch, x.take())
		}
		x.begin(linInput{kind: linPutBatch, items: linIDs(batch)})
		n := victim.PutBatch(batch)
		x.end(linOutput{n: n})
		x.out = append(x.out, linIDs(batch[n:])...) // what did not fit stays with the caller
	case xGet:
		x.begin(linInput{kind: linGet})
		p := victim.Get()
		if p == nil {
			x.end(linOutput{})
			return
		}
		x.end(linOutput{items: []int{*p}})
		x.out = append(x.out, *p)
		x.gets = append(x.gets, *p)
	case xDrain:
		x.begin(linInput{kind: linDrain})
		got := linIDs(victim.Drain(nil))
		x.end(linOutput{items: got})
		x.out = append(x.out, got...)
	case xSteal, xStealFrom1:
		from := victim
		if op == xStealFrom1 {
			from = x.rings[1]
		}
		rec := x.lin && from == victim
		if rec {
			x.c.Begin(linInput{kind: linStealHalf, tail: from.Tail()})
		}
		before := own.Tail() // only this thread stores own's tail
		p := from.StealHalf(own)
		after := own.Tail()
		var got []int
		for i := before; i != after; i++ {
			got = append(got, *own.Slot(i)) // published by this steal; only we write own's slots
		}
		if p != nil {
			got = append(got, *p)
			x.out = append(x.out, *p)
		}
		if rec {
			x.c.End(linOutput{items: got})
		}
		x.steals = append(x.steals, got)
	case xGetOwn:
		if p := own.Get(); p != nil {
			x.out = append(x.out, *p)
		}
	case xLen:
		x.begin(linInput{kind: linLen})
		x.end(linOutput{n: victim.Len()})
	default:
		panic(fmt.Sprintf("xThread.do: unknown op %d", op))
	}
}

// xExactlyOnce reports whether ids holds each of 0..n-1 exactly once.
func xExactlyOnce(ids []int, n int) bool {
	if len(ids) != n {
		return false
	}
	s := sorted(ids)
	for i, v := range s {
		if v != i {
			return false
		}
	}
	return true
}

func sorted(ids []int) []int { s := slices.Clone(ids); slices.Sort(s); return s }

// options are s's explorer options: its own, the bound for long mode if
// long, and the limits.
func (s xScenario) options(long bool) explore.Options {
	opts := s.opts
	opts.Name = "lfq-" + s.name
	opts.MaxExecutions = 200000
	if s.longBound != 0 && long {
		opts.Bound = s.longBound
	}
	return opts
}

// exploreRing runs every scenario but the long ones, at their -short
// bound, and returns the first failure: the kill matrix's explorer column,
// the same in -short and long mode. t only receives logs.
func exploreRing(t testing.TB) error {
	for _, s := range xScenarios {
		if s.long {
			continue
		}
		res, err := explore.Explore(s.options(false), s.xRun)
		if err != nil {
			return err
		}
		if res.Failure != nil {
			return errors.New(res.Failure.String())
		}
	}
	return nil
}

func TestExploreRing(t *testing.T) {
	for _, s := range xScenarios {
		t.Run(s.name, func(t *testing.T) {
			if s.long && testing.Short() {
				t.Skip("long mode only")
			}
			res := explore.Check(t, s.options(!testing.Short()), s.xRun)
			if !res.Complete && !res.Replayed {
				t.Errorf("exploration of %s was cut short at %d executions", s.name, res.Executions)
			}
		})
	}
}
