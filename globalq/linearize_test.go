package globalq_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/internal/linearize"
)

// Bar item 6: histories of one queue, driven by a few goroutines that all
// put, take and read its length, checked by porcupine against the
// sequential spec below. The lock-free Len and Empty are operations of the
// history like the others, so they must be linearizable too.
//
// Every identifier of this file but the tests starts with lin.

// linKind names an operation of the queue.
type linKind uint8

const (
	linPut linKind = iota
	linPutBatch
	linGet
	linGetBatch
	linLen
	linEmpty
)

// linInput is an operation's input: the item Put appends or the batch
// PutBatch appends (as ids), GetBatch's requested count and procs.
type linInput struct {
	kind             linKind
	items            []int
	requested, procs int
}

// linOutput is an operation's output. Get: items holds the item, or is nil
// when it returned nil. GetBatch: items holds the item to run and then the
// rest, nil when it returned nil. Len: n. Empty: n is 1 for true.
type linOutput struct {
	items []int
	n     int
}

// linStep is the sequential spec: the state is the queue's items, oldest
// first (never written once made, so states can share arrays). Each
// operation takes effect at one instant of its call:
//
//   - Put(x) appends x; PutBatch(xs) appends xs in order.
//   - Get() removes and returns the oldest item, nil if there is none.
//   - GetBatch(r, p) removes the n = min(r, len, len/p + 1) oldest items and
//     returns them oldest first (the first is the one to run); nil if empty.
//   - Len() returns the length; Empty() whether it is 0.
func linStep(state, input, output any) (bool, any) {
	q, in, out := state.([]int), input.(linInput), output.(linOutput)
	switch in.kind {
	case linPut, linPutBatch:
		return true, append(q[:len(q):len(q)], in.items...)
	case linGet:
		if len(q) == 0 {
			return out.items == nil, q
		}
		return len(out.items) == 1 && out.items[0] == q[0], q[1:]
	case linGetBatch:
		if len(q) == 0 {
			return out.items == nil, q
		}
		n := min(in.requested, len(q), len(q)/in.procs+1)
		return slices.Equal(out.items, q[:n]), q[n:]
	case linLen:
		return out.n == len(q), q
	case linEmpty:
		return (out.n == 1) == (len(q) == 0), q
	}
	panic(fmt.Sprintf("linStep: unknown operation %d", in.kind))
}

// linModel is the porcupine model of a queue that starts holding init.
func linModel(init []int) porcupine.Model {
	return porcupine.Model{
		Init:  func() any { return init },
		Step:  linStep,
		Equal: func(a, b any) bool { return slices.Equal(a.([]int), b.([]int)) },
		Hash:  func(state any) uint64 { return linearize.HashWords(nil, state.([]int)) },
		DescribeOperation: func(input, output any) string {
			in, out := input.(linInput), output.(linOutput)
			switch in.kind {
			case linPut:
				return fmt.Sprintf("Put(%d)", in.items[0])
			case linPutBatch:
				return fmt.Sprintf("PutBatch(%s)", linearize.DescribeIDs(in.items))
			case linGet:
				return fmt.Sprintf("Get() -> %s", linearize.DescribeIDs(out.items))
			case linGetBatch:
				return fmt.Sprintf("GetBatch(%d, %d) -> %s", in.requested, in.procs, linearize.DescribeIDs(out.items))
			case linLen:
				return fmt.Sprintf("Len() -> %d", out.n)
			}
			return fmt.Sprintf("Empty() -> %v", out.n == 1)
		},
		DescribeState: func(state any) string {
			q := state.([]int)
			return fmt.Sprintf("len %d %s", len(q), linearize.DescribeIDs(q))
		},
	}
}

// linIDs maps items to their ids; nil for none.
func linIDs(ps []*int) []int { return linearize.IDs(ps) }

// linLenOutsideLock is a broken queue for the linearizability check: it
// keeps its own length counter and updates it after each operation has
// released the queue's lock (and a yield), so a Len read between the two
// is stale. Correct in every sequential run.
type linLenOutsideLock struct {
	realQueue
	n *atomic.Int64
}

func newLinLenOutsideLock() queueUnderTest {
	return linLenOutsideLock{realQueue{new(globalq.Queue[int])}, new(atomic.Int64)}
}

func (w linLenOutsideLock) Put(t *int) {
	w.q.Put(t)
	runtime.Gosched()
	w.n.Add(1)
}

func (w linLenOutsideLock) PutBatch(ts []*int) {
	w.q.PutBatch(ts)
	runtime.Gosched()
	w.n.Add(int64(len(ts)))
}

func (w linLenOutsideLock) Get() *int {
	p := w.q.Get()
	if p != nil {
		runtime.Gosched()
		w.n.Add(-1)
	}
	return p
}

func (w linLenOutsideLock) GetBatch(requested, procs int, rest []*int) (*int, []*int) {
	n := len(rest)
	run, rest := w.q.GetBatch(requested, procs, rest)
	if run != nil {
		runtime.Gosched()
		w.n.Add(-int64(1 + len(rest) - n))
	}
	return run, rest
}

func (w linLenOutsideLock) Len() int    { return int(w.n.Load()) }
func (w linLenOutsideLock) Empty() bool { return w.n.Load() == 0 }

// linConfig describes a series of recorded histories.
type linConfig struct {
	histories int
	ops       int // per client and history
	clients   int
	seed      uint64
	newQueue  func() queueUnderTest
	timeout   time.Duration // porcupine's wall-clock safety net per history: past it, inconclusive
}

// linStats adds up what the histories exercised.
type linStats struct {
	puts, putBatches, gets, emptyGets      int
	getBatches, emptyBatches, multiBatches int
	lens, empties, nonZeroLens             int
}

// linStress is the series cfg describes; st counts what its histories do.
//
// The queue starts with 0 to 40 items (not recorded; the model's initial
// state). Every thread mixes Put, PutBatch (1 to 6 items), Get, GetBatch
// (requested 1 to 6 or 128, procs 1 to 4), Len and Empty, with its own ids.
// Small batches keep porcupine's search short; the chunk boundaries are the
// model test's business.
func linStress(name string, cfg linConfig, st *linStats) *linearize.Stress[linInput, linOutput] {
	return &linearize.Stress[linInput, linOutput]{
		Name:    name,
		Seed:    cfg.seed,
		Timeout: cfg.timeout,
		Setup: func(h int, rng *rand.Rand) linearize.History[linInput, linOutput] {
			q := cfg.newQueue()
			var pre []int
			for i := range rng.IntN(41) {
				p := new(int)
				*p = -1 - i
				pre = append(pre, *p)
				q.Put(p)
			}
			threads := make([]func(*linearize.Worker[linInput, linOutput]), cfg.clients)
			for k := range threads {
				threads[k] = linClient(q, cfg.ops)
			}
			return linearize.History[linInput, linOutput]{Model: linModel(pre), Threads: threads}
		},
		Tally: func(ops []linearize.Op[linInput, linOutput]) {
			for _, op := range ops {
				st.tally(op.Input, op.Output)
			}
		},
	}
}

func (st *linStats) tally(in linInput, out linOutput) {
	switch in.kind {
	case linPut:
		st.puts++
	case linPutBatch:
		st.putBatches++
	case linGet:
		st.gets++
		if out.items == nil {
			st.emptyGets++
		}
	case linGetBatch:
		st.getBatches++
		switch {
		case out.items == nil:
			st.emptyBatches++
		case len(out.items) > 1:
			st.multiBatches++
		}
	case linLen:
		st.lens++
		if out.n > 0 {
			st.nonZeroLens++
		}
	case linEmpty:
		st.empties++
	}
}

// linClient is one thread: ops random operations on q, putting items of
// its own (ids from w.ID*1,000,000 on).
func linClient(q queueUnderTest, ops int) func(*linearize.Worker[linInput, linOutput]) {
	return func(w *linearize.Worker[linInput, linOutput]) {
		next := w.ID * 1_000_000
		newItems := func(n int) []*int {
			ps := make([]*int, n)
			for i := range ps {
				ps[i] = new(int)
				*ps[i] = next
				next++
			}
			return ps
		}
		buf := make([]*int, 0, 128)
		for range w.Ops(ops) {
			w.Yield(8)
			switch r := w.Rand.IntN(100); {
			case r < 25:
				p := newItems(1)[0]
				w.Begin(linInput{kind: linPut, items: []int{*p}})
				q.Put(p)
				w.End(linOutput{})
			case r < 40:
				ps := newItems(1 + w.Rand.IntN(6))
				w.Begin(linInput{kind: linPutBatch, items: linIDs(ps)})
				q.PutBatch(ps)
				w.End(linOutput{})
			case r < 60:
				w.Begin(linInput{kind: linGet})
				p := q.Get()
				w.EndFunc(func() linOutput {
					if p == nil {
						return linOutput{}
					}
					return linOutput{items: []int{*p}}
				})
			case r < 80:
				requested := 1 + w.Rand.IntN(6)
				if w.Rand.IntN(4) == 0 {
					requested = 128
				}
				procs := 1 + w.Rand.IntN(4)
				w.Begin(linInput{kind: linGetBatch, requested: requested, procs: procs})
				var run *int
				run, buf = q.GetBatch(requested, procs, buf[:0])
				w.EndFunc(func() linOutput {
					if run == nil {
						return linOutput{}
					}
					return linOutput{items: append([]int{*run}, linIDs(buf)...)}
				})
			case r < 90:
				w.Begin(linInput{kind: linLen})
				n := q.Len()
				w.End(linOutput{n: n})
			default:
				w.Begin(linInput{kind: linEmpty})
				e := q.Empty()
				w.End(linOutput{n: btoi(e)})
			}
		}
	}
}

func linDefaultConfig() linConfig {
	return linConfig{
		histories: linearize.Histories(),
		ops:       60,
		clients:   3,
		seed:      rand.Uint64(),
		newQueue:  newRealQueue,
		timeout:   linearize.DefaultTimeout,
	}
}

// TestLinearizable checks many short histories of three goroutines on one
// queue: every one must be linearizable with respect to linStep. A check
// that spends its step budget is neither a pass nor a fail: the history is
// recorded again smaller (linearize.Stress.Run).
func TestLinearizable(t *testing.T) {
	cfg := linDefaultConfig()
	var st linStats
	sum := linStress(t.Name(), cfg, &st).CheckAll(t, cfg.histories)
	t.Logf("coverage: %d Puts, %d PutBatches, %d Gets (%d empty), %d GetBatches (%d empty, %d of 2 or more), %d Lens (%d non-zero), %d Empties",
		st.puts, st.putBatches, st.gets, st.emptyGets, st.getBatches, st.emptyBatches, st.multiBatches, st.lens, st.nonZeroLens, st.empties)
	require.Positive(t, st.multiBatches, "no GetBatch took two or more")
	require.Positive(t, st.emptyGets+st.emptyBatches, "no take found the queue empty")
	require.Positive(t, st.nonZeroLens, "no Len saw items")
	t.Logf("globalq linearizability: %d histories, %d operations, all linearizable", sum.Histories, sum.Operations)
}

// TestLinearizeCatchesBrokenQueue proves the check can fail: the same
// harness, run on broken queues, must produce an Illegal history and its
// visualization. The stale length counter is wrong only when a Len lands
// between an operation and its late update: a race-only catch.
func TestLinearizeCatchesBrokenQueue(t *testing.T) {
	cases := []struct {
		name     string
		newQueue func() queueUnderTest
		catch    linearize.Catch
	}{
		{"GetBatch runs the newest item", newGetBatchRunsNewest, linearize.Catch{}},
		{"GetBatch takes one more than its share", newBatchTakesOneMore, linearize.Catch{}},
		{"Len counted outside the lock", newLinLenOutsideLock, linearize.Catch{RaceOnly: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := linDefaultConfig()
			cfg.newQueue = tc.newQueue
			linStress(t.Name(), cfg, new(linStats)).Catches(t, tc.catch)
		})
	}
}
