package globalq_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/internal/linearize"
)

// Bar item 5: the real queue under every interleaving, within the
// preemption bound, of a few small scenarios. The scheduling points are the
// queue's atomicx operations: Lock, Unlock, and the loads and stores of the
// length cell; so these run only with -tags schedcheck, and without it
// explore.Check skips them.
//
// After each execution three oracles judge it: conservation (every item put
// came out exactly once: from a Get, a GetBatch, or what the queue holds at
// the end), linearizability of the whole history, the lock-free Len and
// Empty included, against linModel, the sequential spec of
// linearize_test.go (with a Len and an Empty read after the threads are
// done), and the queue's storage invariants with the length cell equal to
// what it holds at the end (globalq.CheckInvariants).

// xop is one operation of a scenario thread.
type xop uint8

const (
	xPut      xop = iota // Put a new item
	xPutBatch            // PutBatch of n new items
	xGet                 // Get
	xGetBatch            // GetBatch(n, procs)
	xLen                 // Len
	xEmpty               // Empty
)

// xStep is one operation with its arguments.
type xStep struct {
	op       xop
	n, procs int
}

func put() xStep                          { return xStep{op: xPut} }
func putBatch(n int) xStep                { return xStep{op: xPutBatch, n: n} }
func get() xStep                          { return xStep{op: xGet} }
func getBatch(requested, procs int) xStep { return xStep{op: xGetBatch, n: requested, procs: procs} }
func length() xStep                       { return xStep{op: xLen} }
func empty() xStep                        { return xStep{op: xEmpty} }

// xScenario is a queue that starts holding pre items, and the operations
// each thread runs on it.
type xScenario struct {
	name    string
	pre     int
	threads [][]xStep
	opts    explore.Options
}

// xScenarios are globalq's scenarios. With procs 2, a GetBatch of a queue
// of 3 takes 2 (3/2+1) and one of 5 takes 3, so an off-by-one share shows.
var xScenarios = []xScenario{
	{name: "putbatch-vs-getbatch", pre: 3, threads: [][]xStep{
		{putBatch(2), putBatch(2)},
		{getBatch(4, 2), getBatch(4, 2)},
	}},
	{name: "put-vs-get-last-item", pre: 1, threads: [][]xStep{{get()}, {get()}, {put()}}},
	{name: "len-reader-vs-writer", pre: 1, threads: [][]xStep{
		{putBatch(2), getBatch(4, 1), put()},
		{length(), empty(), length(), empty()},
	}, opts: explore.Options{LongBound: explore.LongBound}},
	{name: "two-consumers-batches", pre: 5, threads: [][]xStep{
		{getBatch(4, 2), get()},
		{getBatch(4, 2)},
		{length(), empty()},
	}, opts: explore.Options{LongBound: explore.LongBound}},
	{name: "two-producers-and-a-reader", threads: [][]xStep{
		{put(), put()},
		{putBatch(2)},
		{empty(), length(), length()},
	}},
	{name: "empty-fast-path-vs-put", threads: [][]xStep{{put(), put()}, {get(), getBatch(2, 1)}}},
	// A batch going in while a P takes its share and another reads the
	// length without the lock: the Len and Empty reads must fit an order of
	// whole operations (a batch appears at once), the share must be of the
	// length under the lock. Bound 3 in long mode.
	{name: "putbatch-vs-getbatch-vs-readers", pre: 1, threads: [][]xStep{
		{putBatch(3)},
		{getBatch(4, 2), get()},
		{length(), empty(), length()},
	}, opts: explore.Options{LongBound: explore.LongBound}},
	{name: "every-operation", threads: [][]xStep{
		{put(), getBatch(3, 2)},
		{putBatch(3), get()},
		{length(), getBatch(128, 3), empty()},
	}, opts: explore.Options{LongBound: explore.LongBound}},
}

// xRun builds one execution of s: a fresh queue, a recorder, the threads
// and the oracles.
func (s xScenario) xRun() explore.Run {
	q := new(globalq.Queue[int])
	explore.Name(q, "gq")
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
		q.Put(p)
		pre = append(pre, *p)
	}
	// Items are made here so that no thread touches shared state to make
	// them: each thread gets its own, in order.
	owned := make([][]*int, len(s.threads))
	for k, steps := range s.threads {
		for _, st := range steps {
			switch st.op {
			case xPut:
				owned[k] = append(owned[k], newItem())
			case xPutBatch:
				for range st.n {
					owned[k] = append(owned[k], newItem())
				}
			}
		}
	}
	total := next

	rec := linearize.New(s.name)
	outs := make([][]int, len(s.threads)) // what each thread took
	threads := make([]func(), len(s.threads))
	for k, steps := range s.threads {
		c := rec.Client(k)
		threads[k] = func() {
			mine := owned[k]
			for _, st := range steps {
				outs[k], mine = xDo(st, c, q, mine, outs[k])
			}
		}
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			taken := slices.Concat(outs...)
			left := linIDs(globalq.Contents(q))
			if !xExactlyOnce(slices.Concat(taken, left), total) {
				return fmt.Errorf("conservation: taken %v and left %v, want each of 0..%d once", sorted(taken), left, total-1)
			}
			// An observer reads the length once the threads are done: a
			// stale cell shows up as a Len that no order explains.
			obs := rec.Client(len(s.threads))
			xDo(length(), obs, q, nil, nil)
			xDo(empty(), obs, q, nil, nil)
			res, err := rec.Check(linModel(pre), 0)
			if err != nil {
				return fmt.Errorf("linearizability: %w (%d operations)", err, res.Operations)
			}
			if err := globalq.CheckInvariants(q); err != nil {
				return fmt.Errorf("storage: %w", err)
			}
			return nil
		},
	}
}

// xDo runs one operation, records it, and appends what it took to out. It
// returns out and the thread's items not yet put.
func xDo(st xStep, c *linearize.Client, q *globalq.Queue[int], mine []*int, out []int) ([]int, []*int) {
	switch st.op {
	case xPut:
		c.Begin(linInput{kind: linPut, items: []int{*mine[0]}})
		q.Put(mine[0])
		c.End(linOutput{})
		return out, mine[1:]
	case xPutBatch:
		batch := mine[:st.n]
		c.Begin(linInput{kind: linPutBatch, items: linIDs(batch)})
		q.PutBatch(batch)
		c.End(linOutput{})
		return out, mine[st.n:]
	case xGet:
		c.Begin(linInput{kind: linGet})
		p := q.Get()
		if p == nil {
			c.End(linOutput{})
			return out, mine
		}
		c.End(linOutput{items: []int{*p}})
		return append(out, *p), mine
	case xGetBatch:
		c.Begin(linInput{kind: linGetBatch, requested: st.n, procs: st.procs})
		run, rest := q.GetBatch(st.n, st.procs, nil)
		if run == nil {
			c.End(linOutput{})
			return out, mine
		}
		got := append([]int{*run}, linIDs(rest)...)
		c.End(linOutput{items: got})
		return append(out, got...), mine
	case xLen:
		c.Begin(linInput{kind: linLen})
		c.End(linOutput{n: q.Len()})
		return out, mine
	case xEmpty:
		c.Begin(linInput{kind: linEmpty})
		c.End(linOutput{n: btoi(q.Empty())})
		return out, mine
	}
	panic(fmt.Sprintf("xDo: unknown op %d", st.op))
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

// exploreQueue runs every scenario and returns the first failure, for the
// kill matrix; t only receives logs.
func exploreQueue(t testing.TB) error {
	for _, s := range xScenarios {
		opts := s.opts
		opts.Name = "globalq-" + s.name
		opts.MaxExecutions = 200000
		res, err := explore.Explore(opts, s.xRun)
		if err != nil {
			return err
		}
		if res.Failure != nil {
			return errors.New(res.Failure.String())
		}
		t.Log(res.Summary())
	}
	return nil
}

func TestExploreGlobalQ(t *testing.T) {
	for _, s := range xScenarios {
		t.Run(s.name, func(t *testing.T) {
			opts := s.opts
			opts.MaxExecutions = 200000
			opts.Name = "globalq-" + s.name
			res := explore.Check(t, opts, s.xRun)
			if !res.Complete && !res.Replayed {
				t.Errorf("exploration of %s was cut short at %d executions", s.name, res.Executions)
			}
		})
	}
}
