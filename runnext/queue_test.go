package runnext_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/lfq"
	"github.com/schedkit/schedkit/runnext"
)

// Bar item 1 for the queue: the slot in front of an lfq ring.

// getAll gets until the queue is empty, returning the tasks and, for each,
// whether it inherited the time slice.
func getAll(q *runnext.Queue[int]) ([]int, []bool) {
	var got []int
	var inherit []bool
	for {
		t, inh := q.Get()
		if t == nil {
			return got, inherit
		}
		if len(got) > lfq.Size { // the ring and the slot hold at most Size+1
			panic(fmt.Sprintf("getAll: Get returned %d tasks from a queue that holds at most %d: it never says empty", len(got)+1, lfq.Size+1))
		}
		got = append(got, *t)
		inherit = append(inherit, inh)
	}
}

func TestZeroQueueIsEmptyAndUsable(t *testing.T) {
	var q, dst runnext.Queue[int]
	assert.True(t, q.Empty())
	assert.Equal(t, 0, q.Len())
	got, inh := q.Get()
	assert.Nil(t, got)
	assert.False(t, inh)
	assert.Empty(t, q.Drain(nil))
	assert.Nil(t, q.StealHalf(&dst, false))
	assert.Nil(t, q.StealHalf(&dst, true), "nothing to steal: no waiting either")
	assert.Equal(t, runnext.StealDelay, q.StealDelay())

	x := item(7)
	assert.Nil(t, q.PutNext(x, nil))
	assert.False(t, q.Empty())
	assert.Equal(t, 1, q.Len())
	got, inh = q.Get()
	assert.Same(t, x, got)
	assert.True(t, inh)
}

// TestPutNextSendsTheDisplacedToTheTail: runqput(next=true) kicks the old
// runnext task behind everything already queued.
func TestPutNextSendsTheDisplacedToTheTail(t *testing.T) {
	var q runnext.Queue[int]
	require.Nil(t, q.Put(item(1), nil))
	require.Nil(t, q.Put(item(2), nil))
	require.Nil(t, q.PutNext(item(10), nil))
	require.Nil(t, q.PutNext(item(11), nil), "displacing 10 into a ring with room spills nothing")
	require.Nil(t, q.Put(item(3), nil))
	require.Nil(t, q.PutNext(item(12), nil))
	assert.Equal(t, 6, q.Len())

	got, inherit := getAll(&q)
	assert.Equal(t, []int{12, 1, 2, 10, 3, 11}, got)
	assert.Equal(t, []bool{true, false, false, false, false, false}, inherit, "only the runnext task inherits the time slice")
	assert.True(t, q.Empty())
}

func TestPutNextIntoAFullRingHandsBackTheOverflow(t *testing.T) {
	var q runnext.Queue[int]
	require.Equal(t, lfq.Size, q.PutBatch(items(0, lfq.Size)))
	require.Nil(t, q.PutNext(item(1000), nil), "the slot was empty: no displacement")
	spill := q.PutNext(item(1001), nil)

	require.Len(t, spill, lfq.OverflowLen)
	assert.Equal(t, append(seq(0, lfq.Size/2), 1000), vals(spill), "the older half of the ring, then the displaced task")
	assert.Equal(t, lfq.Size/2+1, q.Len())
	got := q.Drain(nil)
	assert.Equal(t, append([]int{1001}, seq(lfq.Size/2, lfq.Size/2)...), vals(got))
}

// The spill idiom: with a reused buffer, a put with room returns nil, so
// "over != nil" counts overflows; a buffer holding items is refused.
func TestPutsReturnNilUnlessTheySpilled(t *testing.T) {
	var q runnext.Queue[int]
	buf := make([]*int, 0, lfq.OverflowLen)
	overflows := 0
	for i, it := range items(0, 1000) {
		var over []*int
		if i%2 == 0 {
			over = q.PutNext(it, buf[:0])
		} else {
			over = q.Put(it, buf[:0])
		}
		if over != nil {
			overflows++
			require.Len(t, over, lfq.OverflowLen)
			assert.Same(t, &buf[:1][0], &over[0], "the batch is in the buffer's array")
		}
	}
	assert.Positive(t, overflows)
	assert.Equal(t, 1000, overflows*lfq.OverflowLen+q.Len())

	held := []*int{item(-1)}
	assert.PanicsWithValue(t, "runnext: Queue.Put called with a buffer holding items (pass nil or buf[:0])",
		func() { q.Put(item(1), held) })
	assert.PanicsWithValue(t, "runnext: Queue.PutNext called with a buffer holding items (pass nil or buf[:0])",
		func() { q.PutNext(item(1), held) })
	assert.Equal(t, 1000-overflows*lfq.OverflowLen, q.Len(), "refused puts put nothing")
}

func TestPutOverflowsHandTheBatchToTheGlobalQueue(t *testing.T) {
	var q runnext.Queue[int]
	var global globalq.Queue[int]
	for i, it := range items(0, 1000) {
		if i%2 == 0 {
			q.PutNextOverflow(it, &global)
		} else {
			q.PutOverflow(it, &global)
		}
	}
	assert.Positive(t, global.Len())
	assert.Zero(t, global.Len()%lfq.OverflowLen, "whole batches")
	assert.Equal(t, 1000, q.Len()+global.Len())
	assert.PanicsWithValue(t, "runnext: Queue.PutOverflow called with a nil destination",
		func() { q.PutOverflow(item(1), nil) })
	assert.PanicsWithValue(t, "runnext: Queue.PutNextOverflow called with a nil destination",
		func() { q.PutNextOverflow(item(1), nil) })
	assert.Equal(t, 1000, q.Len()+global.Len(), "refused puts put nothing")
}

func TestNilTasksPanicNamingTheCall(t *testing.T) {
	var q runnext.Queue[int]
	x := item(1)
	q.PutNext(x, nil)
	assert.PanicsWithValue(t, "runnext: Queue.PutNext called with a nil task", func() { q.PutNext(nil, nil) })
	assert.PanicsWithValue(t, "runnext: Queue.Put called with a nil task", func() { q.Put(nil, nil) })
	batch := items(0, 3)
	batch[2] = nil
	assert.PanicsWithValue(t, "runnext: Queue.PutBatch called with a nil task", func() { q.PutBatch(batch) })
	assert.Equal(t, 1, q.Len(), "refused puts put nothing")
	got, _ := q.Get()
	assert.Same(t, x, got)
	assert.PanicsWithValue(t, "runnext: Queue.SetStealDelay called with a negative delay", func() { q.SetStealDelay(-time.Second) })
}

// TestPutBatchWithANilPanicsHavingPutNothing: a nil anywhere in the batch,
// beyond the room left too, is refused before anything is put, as
// lfq.Ring.PutBatch refuses it.
func TestPutBatchWithANilPanicsHavingPutNothing(t *testing.T) {
	var q runnext.Queue[int]
	q.PutBatch(items(0, lfq.Size-2))
	seqBefore := runnext.Seq(&q)
	for _, at := range []int{0, 1, 2, 4} { // within the room of 2 and beyond it
		batch := items(1000, 5)
		batch[at] = nil
		assert.PanicsWithValue(t, "runnext: Queue.PutBatch called with a nil task", func() { q.PutBatch(batch) }, "nil at %d", at)
		assert.Equal(t, lfq.Size-2, q.Len(), "nil at %d: nothing put", at)
		assert.Equal(t, seqBefore, runnext.Seq(&q), "nil at %d: nothing published", at)
	}
	assert.Equal(t, seq(0, lfq.Size-2), vals(q.Drain(nil)))
}

func TestPutBatchPutsWhatFits(t *testing.T) {
	var q runnext.Queue[int]
	q.PutNext(item(-1), nil)
	n := q.PutBatch(items(0, 300))
	assert.Equal(t, lfq.Size, n, "the runnext task takes no ring room")
	assert.Equal(t, 0, q.PutBatch(items(500, 2)))
	assert.Equal(t, 0, q.PutBatch(nil))
	assert.Equal(t, append([]int{-1}, seq(0, lfq.Size)...), vals(q.Drain(nil)))
}

func TestDrainTakesRunnextFirst(t *testing.T) {
	var q runnext.Queue[int]
	q.PutBatch(items(0, 3))
	q.PutNext(item(9), nil)
	prefix := []*int{item(-1)}
	assert.Equal(t, []int{-1, 9, 0, 1, 2}, vals(q.Drain(prefix)))
	assert.True(t, q.Empty())
	assert.Empty(t, q.Drain(nil))
}

func TestEmptyAndLen(t *testing.T) {
	var q runnext.Queue[int]
	assert.True(t, q.Empty())
	q.PutNext(item(1), nil)
	assert.False(t, q.Empty(), "a runnext task alone makes the queue non-empty")
	q.Get()
	assert.True(t, q.Empty())
	q.Put(item(2), nil)
	assert.False(t, q.Empty())
	assert.Equal(t, 1, q.Len())
	q.PutNext(item(3), nil)
	assert.Equal(t, 2, q.Len())
	assert.Equal(t, uint64(0), runnext.Seq(&q)%2, "no move in flight")
}

func TestStealHalfTakesTheRingFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var victim, thief runnext.Queue[int]
		victim.PutBatch(items(0, 5))
		x := item(100)
		victim.PutNext(x, nil)
		time.Sleep(runnext.StealDelay) // x is old enough to steal, but the ring comes first
		got := victim.StealHalf(&thief, true)
		require.NotNil(t, got)
		assert.Equal(t, 2, *got, "the newest of the older half (3 of 5) runs")
		assert.Equal(t, []int{0, 1}, vals(thief.Drain(nil)))
		assert.Same(t, x, runnext.Next(&victim), "runnext untouched while the ring has work")
		assert.Equal(t, 3, victim.Len())
	})
}

// TestStealHalfRunnextOnlyOnTheLastPass: with the ring empty, a steal that
// may not take runnext gets nothing at once; one that may waits out the
// delay and takes it.
func TestStealHalfRunnextOnlyOnTheLastPass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var victim, thief runnext.Queue[int]
		x := item(1)
		victim.PutNext(x, nil)
		var got *int
		assert.Zero(t, elapsed(func() { got = victim.StealHalf(&thief, false) }))
		assert.Nil(t, got)
		assert.Equal(t, runnext.StealDelay, elapsed(func() { got = victim.StealHalf(&thief, true) }))
		assert.Same(t, x, got)
		assert.True(t, victim.Empty())
		assert.True(t, thief.Empty(), "a stolen runnext task is returned, not queued")
	})
}

func TestStealHalfWithZeroDelayTakesRunnextAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var victim, thief runnext.Queue[int]
		victim.SetStealDelay(0)
		assert.Zero(t, victim.StealDelay())
		x := item(1)
		victim.PutNext(x, nil)
		var got *int
		assert.Zero(t, elapsed(func() { got = victim.StealHalf(&thief, true) }))
		assert.Same(t, x, got)
	})
}

// TestStealHalfWaitsThenFindsTheDisplaced: while the thief waits for a fresh
// runnext task, the owner displaces it into the ring; the thief, looking
// again, steals it from the ring (it is no longer the runnext task) and
// leaves the new one alone.
func TestStealHalfWaitsThenFindsTheDisplaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var victim, thief runnext.Queue[int]
		a, b := item(1), item(2)
		victim.PutNext(a, nil)
		stolen := make(chan *int)
		go func() { stolen <- victim.StealHalf(&thief, true) }()
		synctest.Wait()
		require.Nil(t, victim.PutNext(b, nil))
		start := atomicx.Nanotime()
		assert.Same(t, a, <-stolen)
		assert.Equal(t, int64(runnext.StealDelay), atomicx.Nanotime()-start, "stolen when the thief woke")
		assert.Same(t, b, runnext.Next(&victim))
		assert.Equal(t, 1, victim.Len())
	})
}

// TestStealHalfWaitsForAReplacement: while the thief waits for the runnext
// task, the owner runs it and spawns another; the thief, waking, waits the
// whole delay for the new one before it takes it (ThiefNoRecheck takes it
// at once).
func TestStealHalfWaitsForAReplacement(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var victim, thief runnext.Queue[int]
		a, b := item(1), item(2)
		victim.PutNext(a, nil)
		start := atomicx.Nanotime()
		stolen := make(chan *int)
		go func() { stolen <- victim.StealHalf(&thief, true) }()
		synctest.Wait()
		got, _ := victim.Get()
		require.Same(t, a, got)
		require.Nil(t, victim.PutNext(b, nil))
		assert.Same(t, b, <-stolen)
		assert.Equal(t, int64(2*runnext.StealDelay), atomicx.Nanotime()-start, "b was first seen after one delay")
		assert.True(t, victim.Empty())
	})
}

// TestStealHalfWaitsAgainForTheSamePointerPutBack: the owner runs the task
// the thief waits for and spawns the same pointer again: a new occupancy,
// so the thief waits a whole delay for it again (ABA; ThiefComparesPointer
// takes it when it wakes).
func TestStealHalfWaitsAgainForTheSamePointerPutBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var victim, thief runnext.Queue[int]
		a := item(1)
		victim.PutNext(a, nil)
		start := atomicx.Nanotime()
		stolen := make(chan *int)
		go func() { stolen <- victim.StealHalf(&thief, true) }()
		time.Sleep(time.Microsecond)
		got, _ := victim.Get()
		require.Same(t, a, got)
		require.Nil(t, victim.PutNext(a, nil))
		assert.Same(t, a, <-stolen)
		assert.Equal(t, int64(2*runnext.StealDelay), atomicx.Nanotime()-start, "put back at 1µs, seen again at one delay")
	})
}

// TestStealHalfOwnerWinsTheRace: the owner runs its runnext task within the
// delay; the thief gets nothing and returns once it finds the queue empty.
func TestStealHalfOwnerWinsTheRace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var victim, thief runnext.Queue[int]
		a := item(1)
		victim.PutNext(a, nil)
		stolen := make(chan *int)
		go func() { stolen <- victim.StealHalf(&thief, true) }()
		synctest.Wait()
		got, inh := victim.Get()
		assert.Same(t, a, got)
		assert.True(t, inh)
		assert.Nil(t, <-stolen)
	})
}

func TestStealHalfMisusePanics(t *testing.T) {
	var q, full runnext.Queue[int]
	q.PutBatch(items(0, 4))
	assert.PanicsWithValue(t, "runnext: Queue.StealHalf called with a nil destination", func() { q.StealHalf(nil, true) })
	assert.PanicsWithValue(t, "runnext: Queue.StealHalf called with the victim as destination", func() { q.StealHalf(&q, true) })
	full.PutBatch(items(100, lfq.Size/2+1))
	assert.PanicsWithValue(t, "runnext: Queue.StealHalf: destination ring holds more than lfq.Size/2 tasks", func() { q.StealHalf(&full, false) })
	assert.Equal(t, 4, q.Len(), "a refused steal takes nothing")
	assert.Equal(t, lfq.Size/2+1, full.Len())
	full.Get()
	require.NotNil(t, q.StealHalf(&full, false), "exactly lfq.Size/2 in the destination is allowed")
}

func TestOwnerHotPathsDoNotAllocate(t *testing.T) {
	var q runnext.Queue[int]
	x, y := item(1), item(2)
	q.Put(y, nil)
	allocs := testing.AllocsPerRun(1000, func() {
		q.PutNext(x, nil)
		q.Get()
	})
	assert.Zero(t, allocs)
	var s runnext.Slot[int]
	allocs = testing.AllocsPerRun(1000, func() {
		s.Put(x)
		s.Take()
	})
	assert.Zero(t, allocs)
}

// TestSeqCountsEveryPublication: each bump of seq that Empty and an
// empty-handed steal rely on to see the owner add work between their reads:
// +2 for Put, for a PutBatch that put something, for a steal into the
// queue, and for a PutNext that displaces (odd while it does, and while
// Drain drains: TestSeqIsOddWhileATaskMoves); nothing for what publishes
// nothing into the ring.
func TestSeqCountsEveryPublication(t *testing.T) {
	var q, victim runnext.Queue[int]
	step := func(what string, want uint64, f func()) {
		t.Helper()
		before := runnext.Seq(&q)
		f()
		assert.Equal(t, want, runnext.Seq(&q)-before, what)
	}
	step("Put", 2, func() { q.Put(item(1), nil) })
	step("PutBatch of 2", 2, func() { q.PutBatch(items(2, 2)) })
	step("PutBatch of none", 0, func() { q.PutBatch(nil) })
	step("PutNext into an empty slot", 0, func() { q.PutNext(item(4), nil) })
	step("PutNext that displaces", 2, func() { q.PutNext(item(5), nil) })
	step("Get", 0, func() { q.Get() })
	victim.PutBatch(items(10, 4))
	step("a steal into the queue", 2, func() { victim.StealHalf(&q, false) })
	step("a steal from the queue", 0, func() { q.StealHalf(&victim, false) })
	step("Drain", 2, func() { q.Drain(nil) })
	step("Drain of an empty queue", 2, func() { q.Drain(nil) })
	assert.Zero(t, runnext.Seq(&q)%2)
}

// TestStealHalfDoesNotAllocate: a thief's path, the wait included,
// allocates nothing.
func TestStealHalfDoesNotAllocate(t *testing.T) {
	var victim, thief runnext.Queue[int]
	victim.SetStealDelay(0)
	xs := items(0, 8)
	allocs := testing.AllocsPerRun(100, func() {
		victim.PutBatch(xs[:4])
		victim.PutNext(xs[4], nil)
		for victim.StealHalf(&thief, true) != nil {
			thief.Drain(xs[:0])
		}
	})
	assert.Zero(t, allocs)
}
