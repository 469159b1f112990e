package globalq_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/internal/proptest"
)

// queueUnderTest is the surface of a globalq.Queue[int] that the model test
// and the stress test drive. The real queue is realQueue; the broken
// variants below wrap it, so one checker runs against both.
type queueUnderTest interface {
	Put(t *int)
	PutBatch(ts []*int)
	Get() *int
	GetBatch(requested, procs int, rest []*int) (*int, []*int)
	Len() int
	Empty() bool
	// Queue returns the wrapped queue, for the export_test.go helpers.
	Queue() *globalq.Queue[int]
}

// realQueue is the real queue, unchanged.
type realQueue struct{ q *globalq.Queue[int] }

func newRealQueue() queueUnderTest { return realQueue{new(globalq.Queue[int])} }

func (w realQueue) Put(t *int)                 { w.q.Put(t) }
func (w realQueue) PutBatch(ts []*int)         { w.q.PutBatch(ts) }
func (w realQueue) Get() *int                  { return w.q.Get() }
func (w realQueue) Len() int                   { return w.q.Len() }
func (w realQueue) Empty() bool                { return w.q.Empty() }
func (w realQueue) Queue() *globalq.Queue[int] { return w.q }

func (w realQueue) GetBatch(requested, procs int, rest []*int) (*int, []*int) {
	return w.q.GetBatch(requested, procs, rest)
}

// batchTakesOneMore is a broken queue: GetBatch takes one item more than
// its share whenever one is left.
type batchTakesOneMore struct{ realQueue }

func newBatchTakesOneMore() queueUnderTest {
	return batchTakesOneMore{realQueue{new(globalq.Queue[int])}}
}

func (w batchTakesOneMore) GetBatch(requested, procs int, rest []*int) (*int, []*int) {
	run, rest := w.q.GetBatch(requested, procs, rest)
	if run != nil {
		if extra := w.q.Get(); extra != nil {
			rest = append(rest, extra)
		}
	}
	return run, rest
}

// putBatchDropsLast is a broken queue: PutBatch leaves out the last item.
type putBatchDropsLast struct{ realQueue }

func newPutBatchDropsLast() queueUnderTest {
	return putBatchDropsLast{realQueue{new(globalq.Queue[int])}}
}

func (w putBatchDropsLast) PutBatch(ts []*int) {
	if len(ts) > 0 && !slices.Contains(ts, nil) {
		ts = ts[:len(ts)-1]
	}
	w.q.PutBatch(ts)
}

// itemIDs renders items as their ids (-1 for nil) for failure messages,
// eliding the middle of a long list.
// getBatchRunsNewest is a broken queue: GetBatch runs the newest item of
// the batch and passes the older ones on, so FIFO breaks across a batch.
type getBatchRunsNewest struct{ realQueue }

func newGetBatchRunsNewest() queueUnderTest {
	return getBatchRunsNewest{realQueue{new(globalq.Queue[int])}}
}

func (w getBatchRunsNewest) GetBatch(requested, procs int, rest []*int) (*int, []*int) {
	n := len(rest)
	run, rest := w.q.GetBatch(requested, procs, rest)
	if run == nil {
		return nil, rest
	}
	batch := slices.Concat([]*int{run}, rest[n:]) // oldest first
	return batch[len(batch)-1], append(rest[:n], batch[:len(batch)-1]...)
}

func itemIDs(ps []*int) string {
	ids := make([]int, len(ps))
	for i, p := range ps {
		ids[i] = itemID(p)
	}
	return linearize.DescribeIDs(ids)
}

func itemID(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

// modelStats counts how often the state machine reached the interesting
// paths, over all test cases of one run.
type modelStats struct {
	cases, batches, shareCapped, requestCapped, lenCapped, multiChunk, drainedToCache int
}

// queueModel is the state machine: the queue and its model, a slice of the
// items oldest first.
type queueModel struct {
	q      queueUnderTest
	model  []*int
	nextID int
	buf    []*int // reused rest buffer
	stats  *modelStats
}

func (m *queueModel) newItems(n int) []*int {
	out := make([]*int, n)
	for i := range out {
		p := new(int)
		*p = m.nextID
		m.nextID++
		out[i] = p
	}
	return out
}

// check compares the queue with the model: Len, Empty, the items (without
// taking them), the storage invariants and the chunk bounds.
func (m *queueModel) check(t *rapid.T, after string) {
	t.Helper()
	q := m.q.Queue()
	if got := m.q.Len(); got != len(m.model) {
		t.Fatalf("after %s: Len() = %d, model holds %d", after, got, len(m.model))
	}
	if got := m.q.Empty(); got != (len(m.model) == 0) {
		t.Fatalf("after %s: Empty() = %v with %d items in the model", after, got, len(m.model))
	}
	if got := globalq.Contents(q); !slices.Equal(got, m.model) {
		t.Fatalf("after %s: the queue holds %v, the model %v", after, itemIDs(got), itemIDs(m.model))
	}
	if err := globalq.CheckInvariants(q); err != nil {
		t.Fatalf("after %s: %v", after, err)
	}
	inUse, cached := globalq.Chunks(q)
	if most := (len(m.model)+globalq.ChunkLen-1)/globalq.ChunkLen + 1; inUse > most {
		t.Fatalf("after %s: %d chunks in use for %d items", after, inUse, len(m.model))
	}
	if inUse > 2 {
		m.stats.multiChunk++
	}
	if len(m.model) == 0 && cached > 0 {
		m.stats.drainedToCache++
	}
	_ = cached
}

// getBatch does one GetBatch and checks it against the model:
// n = min(requested, len, len/procs + 1) of the oldest items, the oldest to
// run, the others appended to rest after its prefix.
func (m *queueModel) getBatch(t *rapid.T, requested, procs int, rest []*int) {
	t.Helper()
	prefix := slices.Clone(rest)
	run, out := m.q.GetBatch(requested, procs, rest)
	l := len(m.model)
	if l == 0 {
		if run != nil || !slices.Equal(out, prefix) {
			t.Fatalf("GetBatch(%d, %d) on an empty queue: %d and rest %v, want nil and %v",
				requested, procs, itemID(run), itemIDs(out), itemIDs(prefix))
		}
		return
	}
	n := min(requested, l, l/procs+1)
	m.stats.batches++
	share := l/procs + 1
	switch {
	case share < requested && share < l:
		m.stats.shareCapped++
	case requested < l:
		m.stats.requestCapped++
	default:
		m.stats.lenCapped++
	}
	want := m.model[:n]
	if run != want[0] || !slices.Equal(out, slices.Concat(prefix, want[1:])) {
		t.Fatalf("GetBatch(%d, %d) of a queue of %d: ran %d and rest %v, want n = %d: %d to run and rest %v",
			requested, procs, l, itemID(run), itemIDs(out), n, itemID(want[0]), itemIDs(slices.Concat(prefix, want[1:])))
	}
	m.model = slices.Clone(m.model[n:])
	m.check(t, "GetBatch")
}

func (m *queueModel) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"Put": func(t *rapid.T) {
			it := m.newItems(1)[0]
			m.q.Put(it)
			m.model = append(m.model, it)
		},
		"PutMany": func(t *rapid.T) {
			for _, it := range m.newItems(rapid.IntRange(1, 600).Draw(t, "k")) {
				m.q.Put(it)
				m.model = append(m.model, it)
			}
		},
		// A batch of 0 to 600 items, often an lfq overflow batch (129).
		"PutBatch": func(t *rapid.T) {
			k := rapid.OneOf(rapid.Just(129), rapid.IntRange(0, 600)).Draw(t, "k")
			ts := m.newItems(k)
			orig := slices.Clone(ts)
			m.q.PutBatch(ts)
			if !slices.Equal(ts, orig) {
				t.Fatalf("PutBatch modified its argument")
			}
			m.model = append(m.model, ts...)
			m.check(t, "PutBatch")
		},
		"PutNil": func(t *rapid.T) {
			proptest.ExpectPanic(t, "Put(nil)", "Queue.Put", func() { m.q.Put(nil) })
			m.check(t, "Put(nil)")
		},
		"PutBatchNil": func(t *rapid.T) {
			ts := m.newItems(rapid.IntRange(1, 300).Draw(t, "k"))
			ts[rapid.IntRange(0, len(ts)-1).Draw(t, "nilAt")] = nil
			proptest.ExpectPanic(t, "PutBatch with a nil", "Queue.PutBatch", func() { m.q.PutBatch(ts) })
			m.check(t, "PutBatch with a nil")
		},
		"Get": func(t *rapid.T) {
			got := m.q.Get()
			var want *int
			if len(m.model) > 0 {
				want = m.model[0]
				m.model = m.model[1:]
			}
			if got != want {
				t.Fatalf("Get: got %d, want %d", itemID(got), itemID(want))
			}
		},
		// GetBatch as findRunnable calls it (128, a few Ps) or anyhow,
		// into the reused buffer, nil, or a buffer holding a prefix.
		"GetBatch": func(t *rapid.T) {
			requested := rapid.OneOf(rapid.Just(128), rapid.IntRange(1, 700)).Draw(t, "requested")
			procs := rapid.OneOf(rapid.IntRange(1, 8), rapid.IntRange(1, 1000)).Draw(t, "procs")
			var rest []*int
			switch rapid.IntRange(0, 2).Draw(t, "rest") {
			case 1:
				rest = m.buf[:0]
			case 2:
				rest = append(m.buf[:0], m.newItems(rapid.IntRange(1, 3).Draw(t, "prefix"))...)
			}
			m.getBatch(t, requested, procs, rest)
		},
		// Batches until the queue is empty, as idle Ps would take them.
		"GetBatchUntilEmpty": func(t *rapid.T) {
			procs := rapid.IntRange(1, 8).Draw(t, "procs")
			next := loopBound(t, "GetBatchUntilEmpty", len(m.model))
			for len(m.model) > 0 {
				next()
				m.getBatch(t, 128, procs, m.buf[:0])
			}
		},
		"GetBatchMisuse": func(t *rapid.T) {
			bad := rapid.IntRange(-5, 0).Draw(t, "bad")
			proptest.ExpectPanic(t, "GetBatch with requested <= 0", "Queue.GetBatch", func() { m.q.GetBatch(bad, 1, nil) })
			proptest.ExpectPanic(t, "GetBatch with procs <= 0", "Queue.GetBatch", func() { m.q.GetBatch(1, bad, nil) })
			m.check(t, "GetBatch misuse")
		},
		"Len": func(t *rapid.T) {
			if got := m.q.Len(); got != len(m.model) {
				t.Fatalf("Len() = %d, model holds %d", got, len(m.model))
			}
			if got := m.q.Empty(); got != (len(m.model) == 0) {
				t.Fatalf("Empty() = %v, model holds %d", got, len(m.model))
			}
		},
		"": func(t *rapid.T) {
			m.check(t, "an action")
		},
	}
}

// checkQueueModel is the model property over queues made by newQueue. It is
// run against the real queue by TestGlobalQModel and against broken ones by
// TestGlobalQModelCatchesBrokenQueue.
func checkQueueModel(t *rapid.T, newQueue func() queueUnderTest, stats *modelStats) {
	stats.cases++
	m := &queueModel{q: newQueue(), stats: stats}
	t.Repeat(m.actions())
	// At the end, take everything out through the public API.
	var got []*int
	next := loopBound(t, "the final Gets", len(m.model))
	for p := m.q.Get(); p != nil; p = m.q.Get() {
		next()
		got = append(got, p)
	}
	if !slices.Equal(got, m.model) {
		t.Fatalf("final Gets: got %v, want %v", itemIDs(got), itemIDs(m.model))
	}
	m.model = nil
	m.check(t, "the final Gets")
	if inUse, cached := globalq.Chunks(m.q.Queue()); inUse != 0 || cached > globalq.CachedChunks {
		t.Fatalf("drained queue: %d chunks in use, %d cached", inUse, cached)
	}
}

func TestGlobalQModel(t *testing.T) {
	var stats modelStats
	rapid.Check(t, func(t *rapid.T) {
		checkQueueModel(t, newRealQueue, &stats)
	})
	t.Logf("globalq model coverage: %d batches (%d capped by len/procs+1, %d by requested, %d by len), %d checks with more than 2 chunks in use, %d with a drained queue caching chunks",
		stats.batches, stats.shareCapped, stats.requestCapped, stats.lenCapped, stats.multiChunk, stats.drainedToCache)
	if !testing.Short() && (stats.shareCapped == 0 || stats.requestCapped == 0 || stats.lenCapped == 0 || stats.multiChunk == 0 || stats.drainedToCache == 0) {
		t.Errorf("the state machine missed a path: %+v", stats)
	}
	t.Logf("globalq model: %d checks passed", stats.cases)
}

// TestGlobalQModelCatchesBrokenQueue proves the model test can fail: each
// broken queue must be reported by rapid, for the expected reason.
func TestGlobalQModelCatchesBrokenQueue(t *testing.T) {
	broken := []struct {
		name     string
		newQueue func() queueUnderTest
		reason   string
	}{
		{"GetBatch takes one more than its share", newBatchTakesOneMore, "GetBatch"},
		{"PutBatch drops the last item", newPutBatchDropsLast, "after PutBatch"},
		{"GetBatch runs the newest item", newGetBatchRunsNewest, "GetBatch"},
	}
	for _, b := range broken {
		t.Run(b.name, func(t *testing.T) {
			var stats modelStats
			first, err := killmatrix.ModelCatch(t, func(rt *rapid.T) { checkQueueModel(rt, b.newQueue, &stats) }, b.reason)
			if err != nil {
				t.Fatalf("the broken queue %q: %v", b.name, err)
			}
			t.Logf("caught: %s", first)
		})
	}
}
