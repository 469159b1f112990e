package lfq_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
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

func TestZeroRingIsEmptyAndUsable(t *testing.T) {
	var r, dst lfq.Ring[int]
	assert.Equal(t, 0, r.Len())
	assert.Nil(t, r.Get())
	assert.Empty(t, r.Drain(nil))
	assert.Nil(t, r.StealHalf(&dst))
	assert.Equal(t, 0, dst.Len())

	x := 7
	require.Nil(t, r.Put(&x, nil))
	assert.Equal(t, 1, r.Len())
	assert.Same(t, &x, r.Get())
}

func TestPutGetIsFIFO(t *testing.T) {
	var r lfq.Ring[int]
	for _, it := range items(0, 100) {
		require.Nil(t, r.Put(it, nil))
	}
	var got []*int
	for it := r.Get(); it != nil; it = r.Get() {
		got = append(got, it)
		require.LessOrEqual(t, len(got), 100, "Get returned more items than were put")
	}
	assert.Equal(t, seq(0, 100), vals(got))
}

func TestPutNilPanicsNamingTheCall(t *testing.T) {
	var r lfq.Ring[int]
	assert.PanicsWithValue(t, "lfq: Ring.Put called with a nil item", func() { r.Put(nil, nil) })
	assert.Equal(t, 0, r.Len())
}

func TestPutBatchNilPanicsAndPutsNothing(t *testing.T) {
	var r lfq.Ring[int]
	batch := items(0, 3)
	batch[2] = nil
	assert.PanicsWithValue(t, "lfq: Ring.PutBatch called with a nil item", func() { r.PutBatch(batch) })
	assert.Equal(t, 0, r.Len(), "a batch that panicked must not be half published")
	assert.Nil(t, r.Get())

	// A nil beyond what fits is refused too: runnext.Queue.PutBatch agrees.
	require.Equal(t, lfq.Size-1, r.PutBatch(items(0, lfq.Size-1)))
	batch = items(1000, 3)
	batch[2] = nil
	assert.PanicsWithValue(t, "lfq: Ring.PutBatch called with a nil item", func() { r.PutBatch(batch) })
	assert.Equal(t, lfq.Size-1, r.Len(), "not even the item that fitted went in")
}

// PutBatch publishes its items with one store of the tail, so a thief sees
// all of them or none. Counted with an atomicx hook (-tags schedcheck).
func TestPutBatchPublishesWithOneTailStore(t *testing.T) {
	r := new(lfq.Ring4[int])
	r.Put(items(-1, 1)[0], nil)
	n, err := countAccesses(r.TailAddr(), atomicx.OpStore, func() { r.PutBatch(items(0, 3)) })
	if errors.Is(err, errNoHook) {
		t.Skip(err)
	}
	require.NoError(t, err)
	assert.Equal(t, 1, n, "tail stores by one PutBatch of 3")
	assert.Equal(t, 4, r.Len())
	// The count can fail: three Puts store the tail three times.
	r.Drain(nil)
	n, _ = countAccesses(r.TailAddr(), atomicx.OpStore, func() {
		for _, p := range items(0, 3) {
			r.Put(p, nil)
		}
	})
	assert.Equal(t, 3, n, "tail stores by three Puts")
}

func TestPutBatchPutsWhatFitsAndKeepsTheRest(t *testing.T) {
	var r lfq.Ring[int]
	require.Nil(t, r.Put(items(-1, 1)[0], nil))
	batch := items(0, 300)
	n := r.PutBatch(batch)
	assert.Equal(t, lfq.Size-1, n)
	assert.Equal(t, lfq.Size, r.Len())
	assert.Equal(t, 0, r.PutBatch(batch[n:]), "a full ring takes nothing")
	assert.Equal(t, 0, r.PutBatch(nil))
	got := r.Drain(nil)
	assert.Equal(t, append([]int{-1}, seq(0, n)...), vals(got))
}

func TestOverflowHandsBackOlderHalfPlusNewItem(t *testing.T) {
	var r lfq.Ring[int]
	require.Equal(t, lfq.Size, r.PutBatch(items(0, lfq.Size)))
	extra := items(1000, 1)[0]

	spill := r.Put(extra, nil)

	require.Len(t, spill, lfq.OverflowLen)
	assert.Equal(t, seq(0, lfq.Size/2), vals(spill[:lfq.Size/2]), "the older half, oldest first")
	assert.Same(t, extra, spill[lfq.Size/2], "the new item ends the batch")
	assert.Equal(t, lfq.Size/2, r.Len())
	assert.Equal(t, seq(lfq.Size/2, lfq.Size/2), vals(r.Drain(nil)), "the newer half stays, in order")
}

func TestOverflowReusesTheBufferWithoutAllocating(t *testing.T) {
	var r lfq.Ring[int]
	buf := make([]*int, 0, lfq.OverflowLen)
	r.PutBatch(items(0, lfq.Size))
	out := r.Put(items(999, 1)[0], buf)
	require.Len(t, out, lfq.OverflowLen, "the batch alone")
	assert.Same(t, &buf[:1][0], &out[0], "in the buffer's array")

	// 1000 puts into a full ring: every 129th overflows, into the reused
	// buffer, with the idiom of Put's doc.
	it := items(0, 1)[0]
	overflows := 0
	allocs := testing.AllocsPerRun(1000, func() {
		if over := r.Put(it, buf[:0]); over != nil {
			overflows++
			buf = over
		}
	})
	assert.Zero(t, allocs)
	assert.Positive(t, overflows)
}

// The spill idiom: with a reused buffer, a put with room returns nil (not
// the empty buffer), so "over != nil" counts overflows and nothing else.
func TestPutReturnsNilUnlessItSpilled(t *testing.T) {
	var r lfq.Ring[int]
	buf := make([]*int, 0, lfq.OverflowLen)
	overflows, spilled := 0, 0
	for i, it := range items(0, 1000) {
		over := r.Put(it, buf[:0])
		if over == nil {
			continue
		}
		overflows++
		spilled += len(over)
		require.Len(t, over, lfq.OverflowLen, "put %d", i)
	}
	// 256 fit, then every 129th put overflows: 129 items each time.
	assert.Equal(t, (1000-lfq.Size)/(lfq.Size/2+1)+1, overflows)
	assert.Equal(t, 1000, spilled+r.Len(), "every item is in the ring or a batch")
}

func TestPutRefusesABufferHoldingItems(t *testing.T) {
	var r lfq.Ring[int]
	held := items(-1, 1)
	assert.PanicsWithValue(t,
		"lfq: Ring.Put called with a buffer holding items (pass nil or buf[:0]: the result is only the overflow batch)",
		func() { r.Put(items(0, 1)[0], held) })
	assert.Zero(t, r.Len(), "a refused put puts nothing")
}

// batchSink is an Overflow destination that records its batches.
type batchSink struct{ batches [][]*int }

func (s *batchSink) PutBatch(b []*int) { s.batches = append(s.batches, slices.Clone(b)) }

func TestPutOverflowHandsTheBatchToTheDestination(t *testing.T) {
	var r lfq.Ring[int]
	var sink batchSink
	all := items(0, lfq.Size+1)
	for _, it := range all {
		r.PutOverflow(it, &sink)
	}
	require.Len(t, sink.batches, 1, "one overflow, at the 257th put")
	assert.Equal(t, append(seq(0, lfq.Size/2), lfq.Size), vals(sink.batches[0]), "the older half, then the new item")
	assert.Equal(t, seq(lfq.Size/2, lfq.Size/2), vals(r.Drain(nil)))

	assert.PanicsWithValue(t, "lfq: Ring.PutOverflow called with a nil destination",
		func() { r.PutOverflow(all[0], nil) })
	assert.Zero(t, r.Len(), "a refused put puts nothing")
	allocs := testing.AllocsPerRun(100, func() {
		r.PutOverflow(all[0], &sink)
		r.Get()
	})
	assert.Zero(t, allocs, "no allocation while the ring has room")
}

func TestPutOverflowIntoAGlobalQueue(t *testing.T) {
	var r lfq.Ring[int]
	var global globalq.Queue[int]
	for _, it := range items(0, 1000) {
		r.PutOverflow(it, &global)
	}
	assert.Equal(t, 1000, r.Len()+global.Len())
	assert.Equal(t, 0, *global.Get(), "the oldest items went to the global queue first")
}

func TestPutGetDoNotAllocate(t *testing.T) {
	var r lfq.Ring[int]
	it := items(0, 1)[0]
	allocs := testing.AllocsPerRun(1000, func() {
		r.Put(it, nil)
		r.Get()
	})
	assert.Zero(t, allocs)
}

func TestStealHalfTakesOlderHalfRoundedUp(t *testing.T) {
	for _, n := range []int{1, 2, 5, 128, 255, 256} {
		var victim, thief lfq.Ring[int]
		victim.PutBatch(items(0, n))
		stolen := n - n/2

		got := victim.StealHalf(&thief)

		require.NotNil(t, got, "n=%d", n)
		assert.Equal(t, stolen-1, *got, "n=%d: the thief runs the newest stolen item", n)
		assert.Equal(t, seq(0, stolen-1), vals(thief.Drain(nil)), "n=%d: the rest sit in the thief's ring", n)
		assert.Equal(t, seq(stolen, n-stolen), vals(victim.Drain(nil)), "n=%d: the victim keeps the newer half", n)
	}
}

func TestStealHalfAppendsAfterThiefsOwnItems(t *testing.T) {
	var victim, thief lfq.Ring[int]
	thief.PutBatch(items(100, 3))
	victim.PutBatch(items(0, 6))
	got := victim.StealHalf(&thief)
	require.NotNil(t, got)
	assert.Equal(t, 2, *got)
	assert.Equal(t, []int{100, 101, 102, 0, 1}, vals(thief.Drain(nil)))
}

func TestStealHalfMisusePanics(t *testing.T) {
	var r, full lfq.Ring[int]
	r.PutBatch(items(0, 4))
	assert.PanicsWithValue(t, "lfq: Ring.StealHalf called with the victim as destination", func() { r.StealHalf(&r) })
	assert.PanicsWithValue(t, "lfq: Ring.StealHalf called with a nil destination", func() { r.StealHalf(nil) })
	full.PutBatch(items(100, lfq.Size/2+1))
	assert.PanicsWithValue(t, "lfq: Ring.StealHalf: destination holds more than Size/2 items", func() { r.StealHalf(&full) })
	assert.Equal(t, 4, r.Len(), "a refused steal takes nothing")
	assert.Equal(t, lfq.Size/2+1, full.Len())
}

func TestDrainTakesEverythingInOrder(t *testing.T) {
	var r lfq.Ring[int]
	r.PutBatch(items(0, 10))
	r.Get()
	prefix := items(-1, 1)
	got := r.Drain(prefix)
	assert.Equal(t, append([]int{-1}, seq(1, 9)...), vals(got))
	assert.Equal(t, 0, r.Len())
	assert.Empty(t, r.Drain(nil))
}

func TestIndicesWrapAround(t *testing.T) {
	// Walk head and tail across 2^32 many times over by cycling a nearly
	// full ring; every 2^32 the index wraps and FIFO must hold throughout.
	var r lfq.Ring[int]
	lfq.SetIndices(&r, ^uint32(0)-100)
	next, want := 0, 0
	for range 3 {
		for i := 0; r.Len() < lfq.Size; i++ {
			require.Less(t, i, lfq.Size, "Put %d times and Len still %d: the ring stopped counting", i, r.Len())
			require.Nil(t, r.Put(items(next, 1)[0], nil))
			next++
		}
		for i := 0; r.Len() > 10; i++ {
			require.Less(t, i, lfq.Size, "Get %d times and Len still %d: the ring stopped giving items up", i, r.Len())
			got := r.Get()
			require.NotNil(t, got)
			require.Equal(t, want, *got)
			want++
		}
	}
	var thief lfq.Ring[int]
	lfq.SetIndices(&thief, ^uint32(0)-2)
	stolen := r.StealHalf(&thief)
	require.NotNil(t, stolen)
	assert.Equal(t, want+4, *stolen)
	assert.Equal(t, seq(want, 4), vals(thief.Drain(nil)))
	assert.Equal(t, seq(want+5, 5), vals(r.Drain(nil)))
}
