package lfq_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/explore"
	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/lfq"
)

// Bar item 5: the real ring under every interleaving, within the preemption
// bound, of a few small scenarios. Every scheduling point is an atomic
// access of the ring (internal/atomicx), so these run only with
// -tags schedcheck; without it explore.Check skips them.
//
// After each execution two oracles judge it: conservation (every item put
// came out exactly once: from Get, an overflow batch, a steal, or what the
// rings hold at the end) and linearizability of the victim's history
// against linModel, the sequential spec of linearize_test.go.

// xop is one operation of a scenario thread. Thread 0 is the victim's owner;
// the others are thieves, each with its own ring.
type xop uint8

const (
	xPut      xop = iota // owner: Put a new item
	xPutBatch            // owner: PutBatch two new items
	xGet                 // owner: Get
	xDrain               // owner: Drain
	xSteal               // thief: StealHalf into its own ring
	xLen                 // anyone: Len
)

// xScenario is a ring that starts at index start holding pre items, and the
// operations each thread runs on it.
type xScenario struct {
	name    string
	start   uint32
	pre     int
	threads [][]xop
	opts    explore.Options
	long    bool // too slow for -short and the kill matrix
}

// xScenarios are the scenarios for lfq.
var xScenarios = []xScenario{
	{name: "owner-vs-thief", pre: 1, threads: [][]xop{{xPut, xGet, xPut}, {xSteal, xLen}}},
	{name: "owner-vs-two-thieves", pre: 2, threads: [][]xop{{xPut, xGet}, {xSteal}, {xSteal}}},
	{name: "steal-vs-steal", pre: 5, threads: [][]xop{{xLen}, {xSteal}, {xSteal}}},
	{name: "get-vs-steal-last-item", pre: 1, threads: [][]xop{{xGet}, {xSteal}}},
	{name: "get-vs-steal-two-items", pre: 2, threads: [][]xop{{xGet, xGet}, {xSteal}}},
	{name: "drain-and-batch-vs-steal", pre: 3, threads: [][]xop{{xDrain, xPutBatch}, {xSteal}}},
	{name: "wraparound", start: ^uint32(0) - 1, pre: 1, threads: [][]xop{{xPut, xPut, xGet}, {xSteal}}},
	// A full ring: the owner's Put overflows (128 slot reads, one CAS) while
	// the thief steals 128. Sleep sets keep this exhaustive: almost every
	// step reads a different slot.
	{name: "steal-vs-overflow", pre: lfq.Size, threads: [][]xop{{xPut}, {xSteal}},
		opts: explore.Options{Bound: explore.Unbounded, Reduce: true}},
	// The same within bound 2 without reduction: 86,202 executions, a
	// minute and more here.
	{name: "steal-vs-overflow-bound2", pre: lfq.Size, threads: [][]xop{{xPut}, {xSteal}}, long: true},
}

// xRun builds one execution of s: fresh rings, a recorder, the threads and
// the oracles.
func (s xScenario) xRun() explore.Run {
	victim := new(lfq.Ring[int])
	lfq.SetIndices(victim, s.start)
	explore.Name(victim, "victim")
	next := 0
	newItem := func() *int {
		p := new(int)
		*p = next
		explore.Name(p, fmt.Sprintf("item%d", next)) // traces show &item3, not an address
		next++
		return p
	}
	var pre []int
	for range s.pre {
		p := newItem()
		victim.Put(p, nil)
		pre = append(pre, *p)
	}
	// Items are made by the owner as it goes; the ids are fixed here so
	// that the owner thread does not touch shared state to make them.
	owned := make([]*int, 0, 8)
	for range 8 {
		owned = append(owned, newItem())
	}
	total := next

	rec := linearize.New(s.name)
	outs := make([][]int, len(s.threads)) // what each thread consumed
	thieves := make([]*lfq.Ring[int], len(s.threads))
	threads := make([]func(), len(s.threads))
	for k, ops := range s.threads {
		c := rec.Client(k)
		if k > 0 {
			thieves[k] = new(lfq.Ring[int])
			explore.Name(thieves[k], fmt.Sprintf("thief%d", k))
		}
		threads[k] = func() {
			for _, op := range ops {
				outs[k] = xDo(op, c, victim, thieves[k], &owned, outs[k])
			}
		}
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			consumed := slices.Concat(outs...)
			consumed = append(consumed, linIDs(victim.Drain(nil))...)
			if want := total - len(owned); !xExactlyOnce(consumed, want) {
				return fmt.Errorf("conservation: items out %v, want each of 0..%d once", sorted(consumed), want-1)
			}
			res, err := rec.Check(linModel(pre, s.start), 10*time.Second)
			if err != nil {
				return fmt.Errorf("linearizability: %w (%d operations)", err, res.Operations)
			}
			return nil
		},
	}
}

// xDo runs one operation, records it, and appends what it consumed to out.
func xDo(op xop, c *linearize.Client, victim, own *lfq.Ring[int], owned *[]*int, out []int) []int {
	take := func() *int { p := (*owned)[0]; *owned = (*owned)[1:]; return p }
	switch op {
	case xPut:
		p := take()
		c.Begin(linInput{kind: linPut, items: []int{*p}})
		spill := victim.Put(p, nil)
		c.End(linOutput{items: linIDs(spill)})
		return append(out, linIDs(spill)...)
	case xPutBatch:
		batch := []*int{take(), take()}
		c.Begin(linInput{kind: linPutBatch, items: linIDs(batch)})
		n := victim.PutBatch(batch)
		c.End(linOutput{n: n})
		return append(out, linIDs(batch[n:])...) // what did not fit stays with the caller
	case xGet:
		c.Begin(linInput{kind: linGet})
		p := victim.Get()
		if p == nil {
			c.End(linOutput{})
			return out
		}
		c.End(linOutput{items: []int{*p}})
		return append(out, *p)
	case xDrain:
		c.Begin(linInput{kind: linDrain})
		got := linIDs(victim.Drain(nil))
		c.End(linOutput{items: got})
		return append(out, got...)
	case xSteal:
		_, tail := lfq.Indices(victim)
		c.Begin(linInput{kind: linStealHalf, tail: tail})
		p := victim.StealHalf(own)
		got := linIDs(own.Drain(nil)) // own is private: its contents are what was published
		if p != nil {
			got = append(got, *p)
		}
		c.End(linOutput{items: got})
		return append(out, got...)
	case xLen:
		c.Begin(linInput{kind: linLen})
		c.End(linOutput{n: victim.Len()})
		return out
	}
	panic(fmt.Sprintf("xDo: unknown op %d", op))
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

// exploreRing runs every scenario and returns the first failure, for the
// kill matrix; t only receives logs.
func exploreRing(t testing.TB) error {
	for _, s := range xScenarios {
		if s.long {
			continue
		}
		opts := s.opts
		opts.Name = "lfq-" + s.name
		opts.MaxExecutions = 200000
		res, err := explore.Explore(opts, s.xRun)
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
			opts := s.opts
			opts.MaxExecutions = 200000
			opts.Name = "lfq-" + s.name
			res := explore.Check(t, opts, s.xRun)
			if !res.Complete && !res.Replayed {
				t.Errorf("exploration of %s was cut short at %d executions", s.name, res.Executions)
			}
		})
	}
}
