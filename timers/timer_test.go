package timers_test

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/proptest"
	"github.com/schedkit/schedkit/timers"
)

// recorder is a timer func that records what fired, in order.
type recorder struct{ fired []fired }

type fired struct {
	id         int
	seq        uint64
	delay      int64
	pendingNow bool // the timer's Pending() inside its func
}

func (r *recorder) timer(id int) *timers.Timer {
	var t *timers.Timer
	t = timers.NewTimer(func(arg any, seq uint64, delay int64) {
		r.fired = append(r.fired, fired{id: arg.(int), seq: seq, delay: delay, pendingNow: t.Pending()})
	}, id)
	return t
}

func (r *recorder) ids() []int {
	var out []int
	for _, f := range r.fired {
		out = append(out, f.id)
	}
	return out
}

func TestZeroHeapIsEmptyAndUsable(t *testing.T) {
	var h timers.Heap
	assert.Equal(t, int64(0), h.Next())
	assert.Equal(t, 0, h.Len())
	assert.Equal(t, 0, h.Run(1<<62, 10))
	var r recorder
	h.Add(r.timer(1), 5)
	assert.Equal(t, int64(5), h.Next())
	assert.Equal(t, 1, h.Len())
	require.NoError(t, timers.CheckInvariants(&h))
}

func TestRunFiresInWhenOrderWithDelay(t *testing.T) {
	var h timers.Heap
	var r recorder
	rng := rand.New(rand.NewPCG(1, 2))
	whens := make([]int64, 200)
	for i := range whens {
		whens[i] = 1 + rng.Int64N(1000)
		h.Add(r.timer(i), whens[i])
	}
	require.NoError(t, timers.CheckInvariants(&h))
	assert.Equal(t, slices.Min(whens), h.Next())
	assert.Equal(t, 200, h.Run(2000, 1000))
	require.Len(t, r.fired, 200)
	for i, f := range r.fired {
		assert.Equal(t, int64(2000)-whens[f.id], f.delay, "fire %d", i)
		assert.Equal(t, uint64(1), f.seq, "the first arming")
		assert.False(t, f.pendingNow, "a firing timer is no longer pending")
		if i > 0 {
			assert.LessOrEqual(t, whens[r.fired[i-1].id], whens[f.id], "fire %d out of when order", i)
		}
	}
	assert.Equal(t, int64(0), h.Next())
	assert.Equal(t, 0, h.Len())
}

func TestRunStopsAtNowAndAtMax(t *testing.T) {
	var h timers.Heap
	var r recorder
	for i, w := range []int64{10, 20, 30, 40, 50} {
		h.Add(r.timer(i), w)
	}
	assert.Equal(t, 0, h.Run(9, 10), "nothing has expired at 9")
	assert.Equal(t, 2, h.Run(25, 10), "10 and 20 at 25")
	assert.Equal(t, []int{0, 1}, r.ids())
	assert.Equal(t, int64(30), h.Next())
	assert.Equal(t, 1, h.Run(100, 1), "max 1")
	assert.Equal(t, 2, h.Run(100, 2), "max 2")
	assert.Equal(t, int64(0), h.Next())
	assert.Equal(t, []int{0, 1, 2, 3, 4}, r.ids())
	assert.Equal(t, []int64{15, 5, 70, 60, 50}, []int64{r.fired[0].delay, r.fired[1].delay, r.fired[2].delay, r.fired[3].delay, r.fired[4].delay})
}

func TestStopBeforeAndAfterFire(t *testing.T) {
	var h timers.Heap
	var r recorder
	a, b := r.timer(1), r.timer(2)
	assert.False(t, a.Stop(), "never armed")
	h.Add(a, 10)
	h.Add(b, 5)
	assert.True(t, a.Pending())
	assert.True(t, a.Stop(), "stopped before it fired")
	assert.False(t, a.Pending())
	assert.False(t, a.Stop(), "already stopped")
	assert.Equal(t, 1, h.Len(), "eager deletion: the entry left at once")
	assert.Equal(t, int64(5), h.Next())
	assert.Equal(t, 1, h.Run(100, 10))
	assert.False(t, b.Stop(), "already fired")
	assert.Equal(t, []int{2}, r.ids())
	require.NoError(t, timers.CheckInvariants(&h))
}

func TestStopOfTheTopUpdatesNext(t *testing.T) {
	var h timers.Heap
	var r recorder
	ts := make([]*timers.Timer, 9)
	for i := range ts {
		ts[i] = r.timer(i)
		h.Add(ts[i], int64(10*(i+1)))
	}
	assert.True(t, ts[0].Stop())
	assert.Equal(t, int64(20), h.Next())
	assert.True(t, ts[5].Stop(), "from the middle")
	require.NoError(t, timers.CheckInvariants(&h))
	assert.Equal(t, 7, h.Run(1000, 100))
	assert.Equal(t, []int{1, 2, 3, 4, 6, 7, 8}, r.ids())
}

func TestResetRearmsAndMovesBetweenHeaps(t *testing.T) {
	var h0, h1 timers.Heap
	var r recorder
	a := r.timer(1)
	assert.False(t, h0.Reset(a, 10), "Reset of a disarmed timer arms it and stops nothing")
	assert.True(t, h1.Reset(a, 30), "Reset of a pending timer stops its arming")
	assert.Equal(t, 0, h0.Len())
	assert.Equal(t, int64(30), h1.Next())
	assert.Equal(t, int64(30), a.When())
	assert.Equal(t, 0, h0.Run(100, 10), "the old arming is gone")
	assert.Equal(t, 0, h1.Run(29, 10))
	assert.Equal(t, 1, h1.Run(30, 10))
	assert.Equal(t, []fired{{id: 1, seq: 2, delay: 0}}, r.fired, "the second arming fired")
	assert.False(t, h1.Reset(a, 40), "fired: Reset stops nothing")
	assert.True(t, h1.Reset(a, 35), "on the same heap")
	assert.Equal(t, 1, h1.Len())
	assert.Equal(t, int64(35), h1.Next())
	require.NoError(t, timers.CheckInvariants(&h0))
	require.NoError(t, timers.CheckInvariants(&h1))
}

func TestWhenBelowOneIsTheEarliest(t *testing.T) {
	var h timers.Heap
	var r recorder
	h.Add(r.timer(1), 0)
	h.Add(r.timer(2), -5)
	assert.Equal(t, int64(1), h.Next(), "Next's 0 means no timer, so when 0 or less is stored as 1")
	assert.Equal(t, 2, h.Run(1, 10))
}

// TestFuncMayUseTheHeap: a func runs with no lock held, so it may re-arm
// its own timer, stop another, and add one, all on the heap that runs it;
// a re-arm that has expired fires in the same Run.
func TestFuncMayUseTheHeap(t *testing.T) {
	var h timers.Heap
	var r recorder
	other, late := r.timer(2), r.timer(3)
	var self *timers.Timer
	n := 0
	self = timers.NewTimer(func(any, uint64, int64) {
		n++
		if n < 3 {
			h.Add(self, int64(10+n)) // expired at now 20: fires in this Run
		}
		if n == 1 {
			assert.True(t, other.Stop())
			h.Add(late, 50)
		}
	}, nil)
	h.Add(self, 10)
	h.Add(other, 15)
	assert.Equal(t, 3, h.Run(20, 100))
	assert.Equal(t, 3, n)
	assert.Empty(t, r.fired, "other was stopped by the func, late is not due")
	assert.Equal(t, int64(50), h.Next())
	require.NoError(t, timers.CheckInvariants(&h))
}

// TestPanickingFuncLeavesTheHeapUsable: a func's panic reaches Run's
// caller; the timer counts as fired and the heap is as it should be.
func TestPanickingFuncLeavesTheHeapUsable(t *testing.T) {
	var h timers.Heap
	var r recorder
	bad := timers.NewTimer(func(any, uint64, int64) { panic("boom") }, nil)
	h.Add(bad, 1)
	h.Add(r.timer(2), 2)
	assert.Equal(t, "boom", proptest.Panicked(func() { h.Run(10, 10) }))
	assert.False(t, bad.Pending())
	require.NoError(t, timers.CheckInvariants(&h))
	assert.Equal(t, 1, h.Run(10, 10))
	assert.Equal(t, []int{2}, r.ids())
}

func TestMisusePanicsNamingTheCall(t *testing.T) {
	var h timers.Heap
	var r recorder
	proptest.ExpectPanic(t, "NewTimer(nil)", "NewTimer", func() { timers.NewTimer(nil, nil) })
	proptest.ExpectPanic(t, "Init(nil)", "Timer.Init", func() { new(timers.Timer).Init(nil, nil) })
	proptest.ExpectPanic(t, "Add(nil)", "Heap.Add", func() { h.Add(nil, 1) })
	proptest.ExpectPanic(t, "Reset(nil)", "Heap.Reset", func() { h.Reset(nil, 1) })
	proptest.ExpectPanic(t, "Add of a zero Timer", "Heap.Add", func() { h.Add(new(timers.Timer), 1) })
	a := r.timer(1)
	h.Add(a, 5)
	proptest.ExpectPanic(t, "Add of a pending timer", "Heap.Add", func() { h.Add(a, 6) })
	for _, bad := range []int{0, -1} {
		proptest.ExpectPanic(t, "Run with max < 1", "Heap.Run", func() { h.Run(10, bad) })
	}
	assert.Equal(t, 1, h.Len(), "a refused call changes nothing")
	assert.Equal(t, int64(5), h.Next())
	require.NoError(t, timers.CheckInvariants(&h))
}

func TestEarliestOfHeaps(t *testing.T) {
	var h0, h1, h2 timers.Heap
	var r recorder
	assert.Equal(t, int64(0), timers.Earliest(nil))
	assert.Equal(t, int64(0), timers.Earliest([]*timers.Heap{&h0, &h1}))
	h1.Add(r.timer(1), 40)
	h2.Add(r.timer(2), 30)
	assert.Equal(t, int64(30), timers.Earliest([]*timers.Heap{&h0, &h1, &h2}))
}

// witem is a timer's argument of 24 bytes, above the tiny allocator's 16,
// so a weak pointer to it goes nil as soon as nothing references it.
type witem struct {
	id int
	_  [2]int
}

// TestHeapKeepsNoStoppedOrFiredTimer: a heap clears the slot of each entry
// it removes, so a stopped or fired timer (and its argument) is collected
// once its owner drops it, while the pending ones stay.
func TestHeapKeepsNoStoppedOrFiredTimer(t *testing.T) {
	h := new(timers.Heap)
	const n = 40
	ws := make([]weak.Pointer[timers.Timer], n)
	func() {
		ts := make([]*timers.Timer, n)
		for i := range ts {
			ts[i] = timers.NewTimer(func(any, uint64, int64) {}, &witem{id: i})
			ws[i] = weak.Make(ts[i])
			h.Add(ts[i], int64(i+1))
		}
		for i := 20; i < 30; i++ {
			ts[i].Stop()
		}
		h.Run(10, n) // fires whens 1..10
	}()
	runtime.GC()
	runtime.GC()
	for i := range n {
		gone := ws[i].Value() == nil
		if dropped := i < 10 || (i >= 20 && i < 30); gone != dropped {
			t.Errorf("timer %d: collected %v, want %v", i, gone, dropped)
		}
	}
	assert.Equal(t, n-20, h.Len())
	runtime.KeepAlive(h)
}

// TestSteadyStateDoesNotAllocate: once the heap's slice has grown, arming,
// stopping and running allocate nothing.
func TestSteadyStateDoesNotAllocate(t *testing.T) {
	if schedcheckBuild || raceBuild {
		t.Skip("the explorer's hooks and the race detector allocate")
	}
	var h timers.Heap
	ts := make([]*timers.Timer, 64)
	for i := range ts {
		ts[i] = timers.NewTimer(func(any, uint64, int64) {}, nil)
		h.Add(ts[i], int64(i+1))
	}
	h.Run(1<<40, len(ts))
	now := int64(100)
	allocs := testing.AllocsPerRun(100, func() {
		for i, tm := range ts {
			h.Add(tm, now+int64(i%7))
		}
		for _, tm := range ts[:10] {
			tm.Stop()
		}
		h.Reset(ts[0], now)
		h.Run(now+10, len(ts))
		now += 10
	})
	assert.Zero(t, allocs)
}

// TestUnexpiredPathsTakeNoLock: Run with nothing expired (an idle P's steal
// check of a busy P's heap, a P's schedule with only later timers), Next
// and Len take no lock. Under the explorer, the thread holds the heap's
// lock around the calls, so one that locked would deadlock; with an
// expired timer Run must lock, which shows the check can fail.
func TestUnexpiredPathsTakeNoLock(t *testing.T) {
	run := func(name string, now int64) (explore.Result, error) {
		return explore.Explore(explore.Options{Name: name}, func() explore.Run {
			h := new(timers.Heap)
			h.Add(timers.NewTimer(func(any, uint64, int64) {}, nil), 10)
			empty := new(timers.Heap)
			return explore.Run{Threads: []func(){func() {
				timers.Locked(h, func() {
					h.Run(now, 4)
					h.Next()
					h.Len()
					empty.Run(1<<40, 4)
				})
			}}}
		})
	}
	res, err := run("timers-unexpired-paths", 9)
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip(err)
	}
	require.NoError(t, err)
	require.Nil(t, res.Failure, "a path with nothing expired took the lock")
	t.Log(res.Summary())

	res, err = run("timers-unexpired-paths-expired", 10)
	require.NoError(t, err)
	require.NotNil(t, res.Failure, "Run with an expired timer locks: the check must see it")
	var dl *explore.DeadlockError
	require.ErrorAs(t, res.Failure.Err, &dl)
	t.Logf("the check catches a lock: %v", res.Failure.Err)
}

// TestTakeMovesEveryArming: Take moves src's pending armings to h with
// their when and seq; a stopped one is not moved, a Stop after the move
// stops it on h, and src is left empty.
func TestTakeMovesEveryArming(t *testing.T) {
	var src, h timers.Heap
	var r recorder
	a, b, c, d := r.timer(1), r.timer(2), r.timer(3), r.timer(4)
	src.Add(a, 20)
	src.Add(b, 10)
	src.Add(c, 30)
	h.Add(d, 15)
	assert.True(t, src.Reset(b, 10), "b's second arming: seq 2")
	assert.True(t, c.Stop())
	h.Take(&src)
	assert.Equal(t, 0, src.Len())
	assert.Equal(t, int64(0), src.Next())
	assert.Equal(t, 3, h.Len())
	assert.Equal(t, int64(10), h.Next())
	h.Take(&h) // a no-op
	assert.Equal(t, 3, h.Len())
	assert.True(t, d.Stop(), "a timer that was on h already is untouched")
	assert.Equal(t, 0, src.Run(100, 10))
	assert.Equal(t, 2, h.Run(100, 10))
	assert.Equal(t, []fired{{id: 2, seq: 2, delay: 90}, {id: 1, seq: 1, delay: 80}}, r.fired, "each moved arming fires once, with its seq")
	assert.False(t, a.Stop(), "fired on h")
	h.Add(c, 5)
	src.Take(&h)
	assert.True(t, c.Stop(), "moved back, then stopped on src")
	assert.Equal(t, 0, src.Len())
	require.NoError(t, timers.CheckInvariants(&src))
	require.NoError(t, timers.CheckInvariants(&h))
}
