package future_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/future"
	"github.com/schedkit/schedkit/internal/realtime"
)

// TestTenThousandWaitersNoM parks 10k tasks (1k under -short), each
// waiting on its own future whose func is itself parked on a gate (20k
// parked tasks), and
// samples Stats meanwhile: a parked task costs no M, so Ms stays at most
// Procs + 2 (the lead's TestParkedTasksCostNoM bound). The verdict is on
// counts only; the wait for the parks has only the watchdog's bound.
func TestTenThousandWaitersNoM(t *testing.T) {
	n := 10_000
	if testing.Short() {
		n = 1_000 // the test command's -race run: 10k cost 8 s there, 2k 4 s
	}
	e := newExec(t, executor.Config{Procs: 2})
	gates := make([]gate, n)
	futs := make([]*future.Future[int], n)
	var got atomic.Int64
	for i := range futs {
		f, err := future.Submit(e, func(t executor.Task) (int, error) { gates[i].wait(t); return i, nil })
		require.NoError(t, err)
		futs[i] = f
		require.NoError(t, e.Go(func(t executor.Task) {
			if v, err := f.Wait(t); v == i && err == nil {
				got.Add(1)
			}
		}))
	}
	maxMs := 0
	for {
		s := e.Stats()
		maxMs = max(maxMs, s.Ms)
		if s.Parked == 2*n {
			break
		}
		time.Sleep(time.Millisecond)
	}
	for i := range gates {
		gates[i].release(executor.Task{})
	}
	for _, f := range futs {
		_, _ = f.WaitContext(context.Background())
	}
	require.NoError(t, e.Close())
	s := e.Stats()
	maxMs = max(maxMs, s.Ms)
	assert.LessOrEqual(t, maxMs, e.Procs()+2, "Ms with %d tasks parked", 2*n)
	assert.Equal(t, int64(n), got.Load())
	assert.Zero(t, s.Parked)
	t.Logf("%d tasks parked at once, at most %d Ms, %d Spares at the end", 2*n, maxMs, s.Spares)
}

// TestRealtimeFanIn: on the real runtime at GOMAXPROCS 1 and 2, beside a
// busy child process per core, a task waiting on a future must resume soon
// after the func that sets it returns (readied into the finisher's
// runnext, it runs next there), while 64 other tasks are queued: each
// round measures the time from the func's last statement to the waiter's
// resume, judged against 50 ms (a promise of microseconds, times far more
// than ten) beside the health ticker: a round over the bound while the
// ticker stalled is inconclusive, never a pass or a fail.
func TestRealtimeFanIn(t *testing.T) {
	if testing.Short() {
		t.Skip("real-runtime check: long mode")
	}
	busy, err := realtime.Contend(runtime.NumCPU(), 10*time.Minute)
	require.NoError(t, err)
	defer busy.Stop()
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("GOMAXPROCS%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			check := realtime.Check{Name: fmt.Sprintf("future-fanin-%d", procs), Bound: 50 * time.Millisecond, Rounds: 20}
			check.Run(func(int) realtime.Sample { return fanInRound(procs) }).Apply(t)
		})
	}
}

func fanInRound(procs int) realtime.Sample {
	e, err := executor.New(executor.Config{Procs: procs})
	if err != nil {
		return realtime.Sample{Err: err}
	}
	var set, resumed atomic.Int64
	outer, err := future.Submit(e, func(t executor.Task) (int, error) {
		f := future.Go(t, func(t executor.Task) (int, error) {
			for range 64 {
				t.Go(func(executor.Task) {})
			}
			set.Store(time.Now().UnixNano())
			return 7, nil
		})
		v, err := f.Wait(t)
		resumed.Store(time.Now().UnixNano())
		return v, err
	})
	if err != nil {
		return realtime.Sample{Err: err}
	}
	v, err := outer.WaitContext(context.Background())
	if cerr := e.Close(); err == nil {
		err = cerr
	}
	if err == nil && v != 7 {
		err = fmt.Errorf("value %d, want 7", v)
	}
	return realtime.Sample{Measured: time.Duration(resumed.Load() - set.Load()), Err: err}
}
