package globalq_test

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/lfq"
)

// The package's tests name items as internal/linearize does: items(first,
// n) are n distinct items with the ids first, first+1, ..., seq(first, n)
// those ids, and vals the ids of items (nil for none, as seq(k, 0)).
var (
	items = linearize.Items
	seq   = linearize.Seq
	vals  = linearize.IDs
)

// fataler is what loopBound needs of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// loopBound guards a loop that a working queue ends within n iterations
// (draining n items, say): the returned func, called once per iteration,
// fails t naming what looped once it has run n+1 times. A queue that stops
// making progress (a batch of 0, a Get that never says empty) then fails
// the test with a message, not the test binary's timeout.
func loopBound(t fataler, what string, n int) (iteration func()) {
	i := 0
	return func() {
		if i++; i > n {
			t.Helper()
			t.Fatalf("%s: still looping after %d iterations, the most a working queue needs: it stopped making progress", what, n)
		}
	}
}

// requireValid fails t if q's storage breaks an invariant.
func requireValid(t *testing.T, q *globalq.Queue[int]) {
	t.Helper()
	require.NoError(t, globalq.CheckInvariants(q))
}

func TestZeroQueueIsEmptyAndUsable(t *testing.T) {
	var q globalq.Queue[int]
	assert.Equal(t, 0, q.Len())
	assert.True(t, q.Empty())
	assert.Nil(t, q.Get())
	prefix := items(-1, 1)
	run, rest := q.GetBatch(128, 4, prefix)
	assert.Nil(t, run)
	assert.Equal(t, []int{-1}, vals(rest), "an empty queue leaves rest as it was")
	requireValid(t, &q)

	x := 7
	q.Put(&x)
	assert.Equal(t, 1, q.Len())
	assert.False(t, q.Empty())
	assert.Same(t, &x, q.Get())
	assert.True(t, q.Empty())
	requireValid(t, &q)
}

func TestPutGetIsFIFOAcrossChunks(t *testing.T) {
	var q globalq.Queue[int]
	n := 3*globalq.ChunkLen + 17
	for _, it := range items(0, n) {
		q.Put(it)
	}
	requireValid(t, &q)
	assert.Equal(t, n, q.Len())
	inUse, _ := globalq.Chunks(&q)
	assert.Equal(t, 4, inUse)
	var got []*int
	next := loopBound(t, "Get until empty", n)
	for it := q.Get(); it != nil; it = q.Get() {
		next()
		got = append(got, it)
		if len(got)%100 == 0 {
			requireValid(t, &q)
		}
	}
	assert.Equal(t, seq(0, n), vals(got))
	requireValid(t, &q)
}

func TestPutBatchAppendsInOrderInOneGo(t *testing.T) {
	var q globalq.Queue[int]
	q.Put(items(-1, 1)[0])
	batch := items(0, 2*globalq.ChunkLen+3) // spans three chunks
	q.PutBatch(batch)
	q.PutBatch(nil)
	q.PutBatch([]*int{})
	requireValid(t, &q)
	assert.Equal(t, len(batch)+1, q.Len())
	assert.Equal(t, append([]int{-1}, seq(0, len(batch))...), vals(globalq.Contents(&q)))
	assert.Equal(t, seq(0, len(batch)), vals(batch), "PutBatch leaves the caller's slice as it was")
}

func TestNilItemsPanicNamingTheCall(t *testing.T) {
	var q globalq.Queue[int]
	q.PutBatch(items(0, 3))
	assert.PanicsWithValue(t, "globalq: Queue.Put called with a nil item", func() { q.Put(nil) })
	batch := items(10, 5)
	batch[4] = nil
	assert.PanicsWithValue(t, "globalq: Queue.PutBatch called with a nil item", func() { q.PutBatch(batch) })
	batch[4], batch[0] = batch[0], nil
	assert.PanicsWithValue(t, "globalq: Queue.PutBatch called with a nil item", func() { q.PutBatch(batch) })
	assert.Equal(t, seq(0, 3), vals(globalq.Contents(&q)), "a batch that panicked puts nothing")
	requireValid(t, &q)
}

func TestGetBatchMisusePanicsNamingTheCall(t *testing.T) {
	for _, filled := range []bool{false, true} {
		var q globalq.Queue[int]
		if filled {
			q.PutBatch(items(0, 10))
		}
		for _, bad := range []int{0, -1, -1 << 40} {
			assert.PanicsWithValue(t, "globalq: Queue.GetBatch called with a non-positive requested count",
				func() { q.GetBatch(bad, 4, nil) }, "filled %v, requested %d", filled, bad)
			assert.PanicsWithValue(t, "globalq: Queue.GetBatch called with a non-positive procs",
				func() { q.GetBatch(128, bad, nil) }, "filled %v, procs %d", filled, bad)
		}
		assert.Equal(t, 10*btoi(filled), q.Len(), "a refused GetBatch takes nothing")
		requireValid(t, &q)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestGetBatchSize checks n = min(requested, len, len/procs + 1) and that
// the batch is the oldest n items, the oldest one to run.
func TestGetBatchSize(t *testing.T) {
	cases := []struct{ length, requested, procs, want int }{
		{1, 128, 1, 1},
		{1, 128, 64, 1},
		{10, 128, 1, 10},    // len caps
		{10, 4, 1, 4},       // requested caps
		{10, 128, 4, 3},     // the share caps: 10/4 + 1
		{3, 3, 2, 2},        // 3/2 + 1
		{7, 128, 8, 1},      // 7/8 + 1
		{8, 128, 8, 2},      // 8/8 + 1
		{1000, 128, 2, 128}, // the runtime's call: len(pp.runq)/2
		{1000, 128, 16, 63}, // 1000/16 + 1
		{600, 600, 1, 600},  // across three chunks
		{256, 300, 1, 256},  // a whole chunk and one more
		{129, 128, 1, 128},  // an overflow batch back, but one
		{5, 1, 1, 1},        // requested 1: just the item to run
		{1 << 12, 1 << 20, 1, 1 << 12},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("len=%d/requested=%d/procs=%d", c.length, c.requested, c.procs), func(t *testing.T) {
			var q globalq.Queue[int]
			q.PutBatch(items(0, c.length))
			prefix := items(-3, 2)
			run, rest := q.GetBatch(c.requested, c.procs, prefix)
			require.NotNil(t, run, "GetBatch(%d, %d) of %d items returned nothing", c.requested, c.procs, c.length)
			assert.Equal(t, 0, *run, "the oldest item is the one to run")
			assert.Equal(t, append([]int{-3, -2}, seq(1, c.want-1)...), vals(rest), "the rest follow rest's prefix, oldest first")
			assert.Equal(t, c.length-c.want, q.Len())
			requireValid(t, &q)
			if c.want < c.length {
				assert.Equal(t, c.want, *q.Get(), "the queue goes on after the batch")
			}
		})
	}
}

func TestGetBatchAppendsWithoutAllocatingWhenRestHasRoom(t *testing.T) {
	var q globalq.Queue[int]
	buf := make([]*int, 0, lfq.Size/2)
	q.PutBatch(items(0, 1000))
	run, out := q.GetBatch(lfq.Size/2, 1, buf[:0])
	require.NotNil(t, run)
	require.Len(t, out, lfq.Size/2-1)
	assert.Same(t, &buf[:1][0], &out[0], "rest keeps its backing array while capacity suffices")
}

func TestGetBatchFeedsAnLFQRing(t *testing.T) {
	var q globalq.Queue[int]
	var ring lfq.Ring[int]
	q.PutBatch(items(0, 500))
	buf := make([]*int, 0, lfq.Size/2)
	run, buf := q.GetBatch(lfq.Size/2, 2, buf[:0])
	require.NotNil(t, run)
	assert.Equal(t, 0, *run)
	require.Equal(t, len(buf), ring.PutBatch(buf), "an empty ring takes the whole rest")
	assert.Equal(t, seq(1, lfq.Size/2-1), vals(ring.Drain(nil)))
	assert.Equal(t, 500-lfq.Size/2, q.Len())
}

func TestOverflowBatchFromLFQGoesInWhole(t *testing.T) {
	var q globalq.Queue[int]
	var ring lfq.Ring[int]
	spill := make([]*int, 0, lfq.OverflowLen)
	for _, it := range items(0, lfq.Size+1) {
		if spill = ring.Put(it, spill[:0]); len(spill) > 0 {
			q.PutBatch(spill)
		}
	}
	require.Equal(t, lfq.OverflowLen, q.Len())
	want := append(seq(0, lfq.Size/2), lfq.Size)
	assert.Equal(t, want, vals(globalq.Contents(&q)), "the older half, then the new item")
}

func TestFairnessTick(t *testing.T) {
	assert.Equal(t, 61, globalq.FairnessPeriod)
	var hits []uint32
	for tick := range uint32(3*globalq.FairnessPeriod + 1) {
		if globalq.FairnessTick(tick) {
			hits = append(hits, tick)
		}
	}
	assert.Equal(t, []uint32{0, 61, 122, 183}, hits)
	// Around the uint32 wrap: the last multiple of 61, then 0 again.
	last := ^uint32(0) - ^uint32(0)%globalq.FairnessPeriod
	assert.True(t, globalq.FairnessTick(last))
	assert.False(t, globalq.FairnessTick(last+1))
	assert.True(t, globalq.FairnessTick(last+(^uint32(0)-last)+1), "tick 0 after the wrap")
}

// skipAllocsUnderSchedcheck skips an allocation count in a schedcheck
// build: the counts are of the normal build.
func skipAllocsUnderSchedcheck(t *testing.T) {
	if schedcheckBuild {
		t.Skip("allocation counts are for the normal build: under -tags schedcheck atomicx's Mutex goes through the explorer's hook")
	}
}

func TestPutGetDoNotAllocate(t *testing.T) {
	skipAllocsUnderSchedcheck(t)
	var q globalq.Queue[int]
	its := items(0, 2*globalq.ChunkLen)
	q.PutBatch(its[:100]) // warm-up: one chunk in use, and a steady walk over chunks below
	i := 0
	allocs := testing.AllocsPerRun(10_000, func() {
		q.Put(its[i%len(its)])
		q.Get()
		i++
	})
	assert.Zero(t, allocs, "Put+Get allocations per run after warm-up (crossing %d chunk boundaries)", 10_000/globalq.ChunkLen)
	requireValid(t, &q)
}

func TestBatchesDoNotAllocate(t *testing.T) {
	skipAllocsUnderSchedcheck(t)
	var q globalq.Queue[int]
	overflow := items(0, lfq.OverflowLen)
	buf := make([]*int, 0, lfq.Size/2)
	// Warm-up fills the cache: up to 3 overflow batches queued at once.
	for range 3 {
		q.PutBatch(overflow)
	}
	next := loopBound(t, "the warm-up's GetBatch until empty", q.Len())
	for q.Len() > 0 {
		next()
		_, buf = q.GetBatch(lfq.Size/2, 1, buf[:0])
	}
	allocs := testing.AllocsPerRun(2000, func() {
		q.PutBatch(overflow)
		q.PutBatch(overflow)
		_, buf = q.GetBatch(lfq.Size/2, 1, buf[:0])
		_, buf = q.GetBatch(lfq.Size/2, 2, buf[:0])
		for i := 0; q.Len() > 100; i++ { // a plain bound: a loopBound closure would allocate
			if i > 2*lfq.OverflowLen {
				t.Fatalf("GetBatch down to 100 items: still looping after %d batches: the queue stopped making progress", i)
			}
			_, buf = q.GetBatch(lfq.Size/2, 1, buf[:0])
		}
	})
	assert.Zero(t, allocs, "PutBatch+GetBatch allocations per run after warm-up")
	requireValid(t, &q)
}

// TestNoAllocationWithin763Items checks the bound CachedChunks documents:
// a queue whose length never passes 3*ChunkLen+1 = 763, wherever in a chunk
// its head stands, allocates nothing once it has reached that length.
func TestNoAllocationWithin763Items(t *testing.T) {
	skipAllocsUnderSchedcheck(t)
	const peak = 3*globalq.ChunkLen + 1
	var q globalq.Queue[int]
	its := items(0, peak)
	cycle := func(off int) {
		q.Put(its[0]) // one item stays while the head walks to off
		for _, it := range its[1 : off+1] {
			q.Put(it)
			q.Get()
		}
		for _, it := range its[1:peak] {
			q.Put(it)
		}
		for i := 0; q.Get() != nil; i++ { // a plain bound: a loopBound closure would allocate
			if i > peak {
				t.Fatalf("Get until empty: still looping after %d Gets of %d items: the queue stopped making progress", i, peak)
			}
		}
	}
	cycle(globalq.ChunkLen - 1) // warm-up: the peak, head at a chunk's last slot
	for off := range globalq.ChunkLen {
		if allocs := testing.AllocsPerRun(1, func() { cycle(off) }); allocs != 0 {
			t.Fatalf("head offset %d: %v allocations in a cycle up to %d items", off, allocs, peak)
		}
	}
	_, cached := globalq.Chunks(&q)
	assert.Equal(t, globalq.CachedChunks, cached)
}

// TestMemoryReturnedAfterDrain fills a queue to 1,000,000 items, drains it
// (by Get, and by GetBatch), and requires that it then holds no chunk in
// use and at most CachedChunks cached.
func TestMemoryReturnedAfterDrain(t *testing.T) {
	const big = 1_000_000
	its := items(0, big)
	for _, drain := range []string{"Get", "GetBatch"} {
		t.Run(drain, func(t *testing.T) {
			var q globalq.Queue[int]
			q.PutBatch(its)
			inUse, _ := globalq.Chunks(&q)
			assert.Equal(t, (big+globalq.ChunkLen-1)/globalq.ChunkLen, inUse)
			var buf []*int
			n := 0
			next := loopBound(t, "drain by "+drain, big)
			for q.Len() > 0 {
				next()
				if drain == "Get" {
					q.Get()
					n++
					continue
				}
				var run *int
				run, buf = q.GetBatch(lfq.Size/2, 1, buf[:0])
				n += 1 + len(buf)
				require.NotNil(t, run)
			}
			require.Equal(t, big, n)
			inUse, cached := globalq.Chunks(&q)
			assert.Zero(t, inUse)
			assert.LessOrEqual(t, cached, globalq.CachedChunks)
			requireValid(t, &q)
			t.Logf("after filling to %d and draining by %s: %d chunks in use, %d cached (bound %d)", big, drain, inUse, cached, globalq.CachedChunks)
		})
	}
}

// TestBytesPerItem logs what the queue's storage costs at a few sizes and
// requires one allocation per chunk: none per item.
func TestBytesPerItem(t *testing.T) {
	skipAllocsUnderSchedcheck(t)
	its := items(0, 1_000_000)
	// TotalAlloc counts every byte allocated, freed or not: the delta over
	// the Puts is exactly what the queue allocated for them.
	var report []string
	for _, size := range []int{1, 100, globalq.ChunkLen, globalq.ChunkLen + 1, 10_000, len(its)} {
		q := new(globalq.Queue[int])
		before, mallocs := totalAlloc()
		for _, it := range its[:size] {
			q.Put(it)
		}
		after, mallocs2 := totalAlloc()
		inUse, _ := globalq.Chunks(q)
		assert.Equal(t, (size+globalq.ChunkLen-1)/globalq.ChunkLen, inUse, "%d items", size)
		// One allocation per chunk; the slack of 2 is for the runtime or
		// the test framework allocating meanwhile, never per item.
		assert.LessOrEqual(t, mallocs2-mallocs, uint64(inUse)+2, "%d items: one allocation per chunk", size)
		if strconv.IntSize == 64 {
			// ChunkLen's claim: a chunk is exactly the 2,048-byte size
			// class (the slack is for what else the runtime allocates meanwhile).
			extra := int64(after-before) - 2048*int64(inUse)
			assert.True(t, extra >= 0 && extra < 512, "%d items: %d B for %d chunks, want 2048 B each", size, after-before, inUse)
		}
		report = append(report, fmt.Sprintf("%d items: %d B in %d chunks, %.2f B/item",
			size, after-before, inUse, float64(after-before)/float64(size)))
		runtime.KeepAlive(q)
	}
	t.Logf("queue storage by size (a chunk is %d items): %s", globalq.ChunkLen, strings.Join(report, "; "))
}

func totalAlloc() (bytes, mallocs uint64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc, ms.Mallocs
}

// TestPutBatchWithANilAnywherePutsNothing: a nil at any position of a
// batch, in the unrolled part of the check or its tail, panics naming the
// call, and the queue is left as it was.
func TestPutBatchWithANilAnywherePutsNothing(t *testing.T) {
	var q globalq.Queue[int]
	q.PutBatch(items(-2, 2))
	for n := 1; n <= 20; n++ {
		for at := range n {
			batch := items(0, n)
			batch[at] = nil
			require.PanicsWithValue(t, "globalq: Queue.PutBatch called with a nil item", func() { q.PutBatch(batch) },
				"batch of %d, nil at %d", n, at)
			require.Equal(t, []int{-2, -1}, vals(globalq.Contents(&q)), "batch of %d, nil at %d: nothing put", n, at)
		}
	}
	requireValid(t, &q)
}

// TestPutBatchCallerMayReuseTheSlice: the queue keeps the items, not the
// caller's slice, so overwriting the slice afterwards changes nothing.
func TestPutBatchCallerMayReuseTheSlice(t *testing.T) {
	var q globalq.Queue[int]
	batch := items(0, 5)
	q.PutBatch(batch)
	copy(batch, items(100, 5))
	q.PutBatch(batch[:2])
	assert.Equal(t, []int{0, 1, 2, 3, 4, 100, 101}, vals(globalq.Contents(&q)))
}

// TestEmptyPathsTakeNoLock checks the paths doc.go says take no lock: an
// empty batch, and Get, GetBatch, Len and Empty of an empty queue (one
// atomic load). Each runs while the test holds the queue's lock, under the
// explorer: a call that took the lock would deadlock, which the explorer
// reports. The same check on a queue holding an item must fail, since Get
// then locks. Without -tags schedcheck it skips.
func TestEmptyPathsTakeNoLock(t *testing.T) {
	run := func(name string, filled bool) (explore.Result, error) {
		return explore.Explore(explore.Options{Name: name}, func() explore.Run {
			q := new(globalq.Queue[int])
			if filled {
				q.Put(items(0, 1)[0])
			}
			return explore.Run{Threads: []func(){func() {
				globalq.Locked(q, func() {
					q.PutBatch(nil)
					q.PutBatch([]*int{})
					q.Len()
					q.Empty()
					q.GetBatch(4, 2, nil)
					q.Get()
				})
			}}}
		})
	}
	res, err := run("globalq-empty-paths", false)
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip(err)
	}
	require.NoError(t, err)
	require.Nil(t, res.Failure, "an empty path took the lock")
	t.Log(res.Summary())

	res, err = run("globalq-empty-paths-filled", true)
	require.NoError(t, err)
	require.NotNil(t, res.Failure, "Get of a queue holding an item locks: the check must see it")
	var dl *explore.DeadlockError
	require.ErrorAs(t, res.Failure.Err, &dl)
	t.Logf("the check catches a lock: %v", res.Failure.Err)
}
