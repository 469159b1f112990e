package runnext_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/runnext"
)

// Bar item 1 for the slot. Every test of the steal delay runs in a
// testing/synctest bubble: time.Sleep, and so atomicx.Sleep, waits on the
// bubble's fake clock, which moves only when every goroutine of the bubble
// is blocked, so nothing here sleeps for real and every elapsed time is
// exact.

// items returns n distinct tasks numbered from first.
func items(first, n int) []*int {
	out := make([]*int, n)
	for i := range out {
		v := first + i
		out[i] = &v
	}
	return out
}

func item(v int) *int { return &v }

func vals(ps []*int) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = *p
	}
	return out
}

func seq(first, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = first + i
	}
	return out
}

// elapsed runs f and returns how far atomicx.Nanotime moved meanwhile.
func elapsed(f func()) time.Duration {
	start := atomicx.Nanotime()
	f()
	return time.Duration(atomicx.Nanotime() - start)
}

// TestNanotimeInsideSynctestBubble checks what every delay test relies on:
// inside a bubble atomicx.Nanotime follows the fake clock exactly. It is
// time.Since of a package-level epoch taken outside any bubble; inside one
// time.Now has no monotonic reading, so the difference is the fake wall
// clock (which starts at 2000-01-01 UTC) minus the real epoch: a large
// negative number that moves with the fake clock, never with real time.
// Differences are all the slot uses, so that is enough; a component that
// took 0 or a negative reading to mean "unset" would break here.
func TestNanotimeInsideSynctestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := atomicx.Nanotime()
		t1 := atomicx.Nanotime()
		assert.Equal(t, t0, t1, "the fake clock stands still while the goroutine runs")
		time.Sleep(5 * time.Microsecond)
		assert.Equal(t, int64(5*time.Microsecond), atomicx.Nanotime()-t0, "it moves by exactly the fake sleep")
		atomicx.Sleep(time.Hour)
		assert.Equal(t, int64(time.Hour+5*time.Microsecond), atomicx.Nanotime()-t0, "atomicx.Sleep is the bubble's sleep")
		t.Logf("atomicx.Nanotime inside the bubble: %d (negative: fake wall clock minus the real epoch)", t0)
	})
}

func TestZeroSlotIsEmptyAndUsable(t *testing.T) {
	var s runnext.Slot[int]
	assert.True(t, s.Empty())
	assert.Nil(t, s.Take())
	assert.Nil(t, s.Steal(), "an empty slot gives a thief nothing, at once")
	assert.Equal(t, runnext.StealDelay, s.StealDelay())
	assert.Equal(t, 3*time.Microsecond, runnext.StealDelay)

	x := item(7)
	assert.Nil(t, s.Put(x))
	assert.False(t, s.Empty())
	assert.Same(t, x, s.Take())
	assert.True(t, s.Empty())
}

func TestSlotPutIsLIFOAndHandsBackTheDisplaced(t *testing.T) {
	var s runnext.Slot[int]
	a, b, c := item(1), item(2), item(3)
	assert.Nil(t, s.Put(a))
	assert.Same(t, a, s.Put(b), "the older task is handed back for the ring's tail")
	assert.Same(t, b, s.Put(c))
	assert.Same(t, c, s.Take(), "the newest task runs next")
	assert.Nil(t, s.Take())
}

func TestSlotPutNilPanicsNamingTheCall(t *testing.T) {
	var s runnext.Slot[int]
	x := item(1)
	s.Put(x)
	assert.PanicsWithValue(t, "runnext: Slot.Put called with a nil task", func() { s.Put(nil) })
	assert.Same(t, x, s.Take(), "a refused put leaves the slot as it was")
}

func TestSetStealDelay(t *testing.T) {
	var s runnext.Slot[int]
	assert.PanicsWithValue(t, "runnext: Slot.SetStealDelay called with a negative delay", func() { s.SetStealDelay(-1) })
	assert.Equal(t, runnext.StealDelay, s.StealDelay(), "a refused delay changes nothing")
	s.SetStealDelay(0)
	assert.Equal(t, time.Duration(0), s.StealDelay())
	s.SetStealDelay(10 * time.Microsecond)
	assert.Equal(t, 10*time.Microsecond, s.StealDelay())
}

// TestSlotVersionCountsFillsAndTakes: the version every thief's wait relies
// on is odd exactly while the slot holds a task and moves on at every fill
// and every take, so no two occupancies share one, whatever the pointer.
func TestSlotVersionCountsFillsAndTakes(t *testing.T) {
	var s runnext.Slot[int]
	a, b := item(1), item(2)
	assert.Equal(t, uint64(0), runnext.Version(&s), "the zero slot: empty, version 0")
	s.Put(a)
	assert.Equal(t, uint64(1), runnext.Version(&s), "a fill: odd")
	s.Put(b)
	assert.Equal(t, uint64(3), runnext.Version(&s), "a displacement is a take and a fill")
	s.Take()
	assert.Equal(t, uint64(4), runnext.Version(&s), "a take: even")
	assert.Nil(t, s.Take())
	assert.Equal(t, uint64(4), runnext.Version(&s), "a take of nothing changes nothing")
	s.Put(b)
	assert.Equal(t, uint64(5), runnext.Version(&s), "the same pointer put back is a new occupancy")
	synctest.Test(t, func(t *testing.T) {
		var s runnext.Slot[int]
		s.Put(a)
		s.Steal()
		assert.Equal(t, uint64(2), runnext.Version(&s), "a thief's take moves it on too")
	})
}

// TestSlotStealWaitsTheDelayFromItsOwnLook: a thief waits the whole delay
// from when it first sees the task, however long the task sat before: the
// owner's put reads no clock, so only the thief's own look counts, as with
// runqgrab's usleep(3).
func TestSlotStealWaitsTheDelayFromItsOwnLook(t *testing.T) {
	for _, d := range []time.Duration{0, time.Nanosecond, time.Microsecond, runnext.StealDelay, time.Millisecond} {
		synctest.Test(t, func(t *testing.T) {
			var s runnext.Slot[int]
			if d != runnext.StealDelay {
				s.SetStealDelay(d)
			}
			x := item(1)
			s.Put(x)
			var got *int
			assert.Equal(t, d, elapsed(func() { got = s.Steal() }), "delay %v: a fresh task", d)
			assert.Same(t, x, got)

			s.Put(x)
			time.Sleep(d + 10*time.Microsecond)
			assert.Equal(t, d, elapsed(func() { got = s.Steal() }), "delay %v: a task that sat long before the thief looked", d)
			assert.Same(t, x, got)
		})
	}
}

// TestSlotOwnerTakesWhileThiefWaits: the owner runs its task inside the
// delay; the waiting thief then finds the slot empty and gets nothing.
func TestSlotOwnerTakesWhileThiefWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s runnext.Slot[int]
		x := item(1)
		s.Put(x)
		stolen := make(chan *int)
		go func() { stolen <- s.Steal() }()
		synctest.Wait() // the thief sleeps out the delay
		assert.Same(t, x, s.Take())
		start := atomicx.Nanotime()
		assert.Nil(t, <-stolen)
		assert.Equal(t, int64(runnext.StealDelay), atomicx.Nanotime()-start, "the thief looked again after the delay")
	})
}

// TestSlotThiefWaitsForAReplacement: while the thief waits for one task the
// owner replaces it; the thief, waking, finds a task it has not waited for
// and waits the whole delay for it in its turn (ThiefNoRecheck takes it at
// once).
func TestSlotThiefWaitsForAReplacement(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s runnext.Slot[int]
		a, b := item(1), item(2)
		start := atomicx.Nanotime()
		s.Put(a)
		stolen := make(chan *int)
		go func() { stolen <- s.Steal() }()
		time.Sleep(time.Microsecond)
		assert.Same(t, a, s.Put(b)) // the owner would queue a at its ring's tail
		assert.Same(t, b, <-stolen)
		assert.Equal(t, int64(2*runnext.StealDelay), atomicx.Nanotime()-start,
			"b, first seen when the thief woke at one delay, is stolen a delay later")
	})
}

// TestSlotThiefWaitsAgainForTheSamePointerPutBack: the owner takes the task
// the thief waits for and puts the same pointer back: a new occupancy,
// which the thief must wait the whole delay for again (ABA;
// ThiefComparesPointer takes it when it wakes).
func TestSlotThiefWaitsAgainForTheSamePointerPutBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s runnext.Slot[int]
		a := item(1)
		start := atomicx.Nanotime()
		s.Put(a)
		stolen := make(chan *int)
		go func() { stolen <- s.Steal() }()
		time.Sleep(time.Microsecond)
		require.Same(t, a, s.Take())
		require.Nil(t, s.Put(a), "the same task, spawned again")
		assert.Same(t, a, <-stolen)
		assert.Equal(t, int64(2*runnext.StealDelay), atomicx.Nanotime()-start,
			"put back at 1µs, seen at one delay, stolen a delay later")
	})
}
