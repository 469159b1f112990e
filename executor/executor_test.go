package executor_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/watchdog"
)

// newExec makes an executor for a test and closes it when the test ends
// (a second Close is harmless). The test, its waits (Close, Wait,
// channels) and that Close get a deadline: past it a watchdog ends the
// binary with the test's name and every goroutine's stack, instead of
// the binary's timeout saying nothing.
func newExec(t *testing.T, cfg executor.Config) *executor.Executor {
	t.Helper()
	stop := watchdog.Start(t.Name()+": a test with an executor (its waits and Close)", testDeadline(), nil)
	t.Cleanup(stop) // runs last, after the Close below
	e, err := executor.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// testDeadline is newExec's deadline: far above any test's own run, and
// below the binary's 10 minutes; long mode's tests run longer.
func testDeadline() time.Duration {
	if testing.Short() {
		return 3 * time.Minute
	}
	return 9 * time.Minute
}

func TestNewDefaults(t *testing.T) {
	e := newExec(t, executor.Config{})
	assert.Equal(t, min(runtime.GOMAXPROCS(0), executor.MaxProcs), e.Procs())
	assert.Equal(t, executor.DefaultSlice, e.Stats().Slice)
	require.NoError(t, e.Close())
}

func TestNewBadConfigNamesTheField(t *testing.T) {
	for _, c := range []struct {
		field string
		cfg   executor.Config
	}{
		{"Procs", executor.Config{Procs: -1}},
		{"Procs", executor.Config{Procs: executor.MaxProcs + 1}},
		{"Procs", executor.Config{Procs: 1 << 40}},
		{"Slice", executor.Config{Slice: -time.Millisecond}},
		{"Slice", executor.Config{Slice: time.Nanosecond}},
		{"Slice", executor.Config{Slice: 2 * executor.MaxSlice}},
		{"StealDelay", executor.Config{StealDelay: -1}},
		{"StealDelay", executor.Config{Slice: time.Millisecond, StealDelay: time.Second}},
	} {
		e, err := executor.New(c.cfg)
		assert.Nil(t, e)
		require.ErrorIs(t, err, executor.ErrConfig, "%+v", c.cfg)
		assert.Contains(t, err.Error(), c.field, "%+v", c.cfg)
	}
}

func TestNilTasksPanicNamingTheCall(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	assert.PanicsWithValue(t, "executor: Executor.Go called with a nil func", func() { _ = e.Go(nil) })
	assert.PanicsWithValue(t, "executor: Executor.GoBatch called with a nil func", func() {
		_ = e.GoBatch([]func(executor.Task){func(executor.Task) {}, nil})
	})
	g, _ := e.NewGroup(context.Background())
	assert.PanicsWithValue(t, "executor: Group.Go called with a nil func", func() { g.Go(nil) })
	assert.PanicsWithValue(t, "executor: NewGroup called with a nil context", func() {
		e.NewGroup(nil) //nolint:staticcheck // the misuse under test
	})
	inside := make(chan any, 2)
	require.NoError(t, e.Go(func(t executor.Task) {
		inside <- catch(func() { t.Go(nil) })
		inside <- catch(func() { _ = t.Blocking(nil) })
	}))
	assert.Equal(t, "executor: Task.Go called with a nil func", <-inside)
	assert.Equal(t, "executor: Task.Blocking called with a nil func", <-inside)
	require.NoError(t, e.Close())
	assert.Zero(t, e.Stats().Total.Panics, "the recovered misuse is not a task panic")
}

// catch runs f and returns what it panicked with.
func catch(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

func TestZeroAndStaleTask(t *testing.T) {
	var zero executor.Task
	assert.PanicsWithValue(t, "executor: Task.Go called on the zero Task", func() { zero.Go(func(executor.Task) {}) })
	assert.ErrorIs(t, zero.Blocking(func() { t.Error("Blocking ran f outside a task") }), executor.ErrNotInTask)
	assert.ErrorIs(t, zero.Yield(), executor.ErrNotInTask)
	assert.Nil(t, zero.Executor())

	e := newExec(t, executor.Config{Procs: 2})
	got := make(chan executor.Task, 1)
	g, _ := e.NewGroup(context.Background())
	g.Go(func(t executor.Task) error { got <- t; return nil })
	require.NoError(t, g.Wait()) // the task has returned: its M ends it before the group is done
	stale := <-got
	assert.Same(t, e, stale.Executor())
	assert.PanicsWithValue(t,
		"executor: Task.Go called on a Task whose func has returned (or is waiting in a group's Wait)",
		func() { stale.Go(func(executor.Task) {}) })
	assert.ErrorIs(t, stale.Blocking(func() { t.Error("Blocking ran f on a stale Task") }), executor.ErrNotInTask)
	assert.ErrorIs(t, stale.Yield(), executor.ErrNotInTask)
	assert.Panics(t, func() { stale.NewGroup(context.Background()) })
	require.NoError(t, e.Close())
}

func TestSubmitAfterClose(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	require.NoError(t, e.Close())
	assert.ErrorIs(t, e.Go(func(executor.Task) { t.Error("ran after Close") }), executor.ErrClosed)
	assert.ErrorIs(t, e.GoBatch([]func(executor.Task){func(executor.Task) { t.Error("ran after Close") }}), executor.ErrClosed)
	g, ctx := e.NewGroup(context.Background())
	g.Go(func(executor.Task) error { t.Error("ran after Close"); return nil })
	assert.ErrorIs(t, g.Wait(), executor.ErrClosed)
	assert.ErrorIs(t, context.Cause(ctx), executor.ErrClosed)
}

func TestCloseTwiceAndConcurrently(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	var ran atomic.Int64
	for range 100 {
		require.NoError(t, e.Go(func(executor.Task) { ran.Add(1) }))
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { assert.NoError(t, e.Close()) })
	}
	wg.Wait()
	assert.NoError(t, e.Close())
	assert.Equal(t, int64(100), ran.Load())
}

func TestCloseFromATaskIsAnError(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	errs := make(chan error, 3)
	require.NoError(t, e.Go(func(t executor.Task) {
		errs <- e.Close()
		_, err := e.Shutdown(context.Background())
		errs <- err
		g, _ := t.NewGroup(context.Background())
		g.Go(func(executor.Task) error { return e.Close() }) // from a nested task too
		errs <- g.Wait()
	}))
	for range 3 {
		assert.ErrorIs(t, <-errs, executor.ErrCloseInTask)
	}
	var ran atomic.Bool
	require.NoError(t, e.Go(func(executor.Task) { ran.Store(true) }), "still accepting")
	require.NoError(t, e.Close())
	assert.True(t, ran.Load())
}

func TestLocalSpawnRunsEveryTask(t *testing.T) {
	for _, gq := range []bool{false, true} {
		e := newExec(t, executor.Config{Procs: 3, GlobalQueueOnly: gq})
		var n atomic.Int64
		var tree func(t executor.Task, depth int)
		tree = func(t executor.Task, depth int) {
			n.Add(1)
			if depth == 0 {
				return
			}
			for range 2 {
				t.Go(func(t executor.Task) { tree(t, depth-1) })
			}
		}
		require.NoError(t, e.Go(func(t executor.Task) { tree(t, 12) }))
		require.NoError(t, e.Close())
		assert.Equal(t, int64(1<<13-1), n.Load(), "GlobalQueueOnly=%v", gq)
		s := e.Stats().Total
		assert.Equal(t, uint64(1<<13-1), s.Tasks)
		if gq {
			assert.Zero(t, s.RunnextHits+s.RingGets+s.Steals+s.Overflows, "GlobalQueueOnly uses no local queue: %+v", s)
		} else {
			assert.NotZero(t, s.RunnextHits, "%+v", s)
		}
	}
}

func TestOverflowGoesToTheGlobalQueue(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 1})
	var n atomic.Int64
	require.NoError(t, e.Go(func(t executor.Task) {
		for range 1000 { // more than a ring holds
			t.Go(func(executor.Task) { n.Add(1) })
		}
	}))
	require.NoError(t, e.Close())
	assert.Equal(t, int64(1000), n.Load())
	assert.NotZero(t, e.Stats().Total.Overflows)
}

func TestGoBatch(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 4})
	var n atomic.Int64
	fs := make([]func(executor.Task), 5000)
	for i := range fs {
		fs[i] = func(executor.Task) { n.Add(1) }
	}
	require.NoError(t, e.GoBatch(fs))
	require.NoError(t, e.GoBatch(nil))
	require.NoError(t, e.Close())
	assert.Equal(t, int64(5000), n.Load())
	s := e.Stats()
	assert.Equal(t, uint64((5000+executor.LatencySample-1)/executor.LatencySample), s.Latency.Count,
		"the latency of one outside task in LatencySample is recorded")
	assert.LessOrEqual(t, s.Latency.P50, s.Latency.P99)
	assert.LessOrEqual(t, s.Latency.P99, s.Latency.Max)
	assert.NotZero(t, s.Total.GlobalBatches)
}

func TestPanicsAreCollectedForClose(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	var after atomic.Int64
	for i := range 3 {
		require.NoError(t, e.Go(func(executor.Task) { panic(i) }))
	}
	require.NoError(t, e.Go(func(executor.Task) { runtime.Goexit() }))
	for range 100 {
		require.NoError(t, e.Go(func(executor.Task) { after.Add(1) }))
	}
	err := e.Close()
	require.Error(t, err)
	var pe *executor.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, string(pe.Stack), "executor_test", "the stack is the panicking task's")
	assert.Contains(t, err.Error(), "a task panicked: 0")
	assert.Contains(t, err.Error(), "runtime.Goexit")
	assert.Equal(t, int64(100), after.Load(), "the Ms survived")
	assert.Equal(t, uint64(4), e.Stats().Total.Panics)
	assert.Equal(t, err, e.Close(), "a second Close returns the same error")
}

func TestPanicHandler(t *testing.T) {
	var got []any
	var mu sync.Mutex
	e := newExec(t, executor.Config{Procs: 1, PanicHandler: func(p *executor.PanicError) {
		mu.Lock()
		got = append(got, p.Value)
		mu.Unlock()
	}})
	boom := errors.New("boom")
	require.NoError(t, e.Go(func(executor.Task) { panic(boom) }))
	require.NoError(t, e.Close(), "a handler takes the panics")
	assert.Equal(t, []any{boom}, got)
}

func TestGroupFromOutside(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	g, ctx := e.NewGroup(context.Background())
	var n atomic.Int64
	for range 100 {
		g.Go(func(executor.Task) error { n.Add(1); return nil })
	}
	require.NoError(t, g.Wait())
	assert.Equal(t, int64(100), n.Load())
	assert.ErrorIs(t, ctx.Err(), context.Canceled, "Wait cancels the context, as errgroup's does")
	require.NoError(t, g.Wait(), "a second Wait")
	assert.PanicsWithValue(t, "executor: Group.Go called after Wait returned: make a new group", func() {
		g.Go(func(executor.Task) error { return nil })
	})
	require.NoError(t, e.Close())
}

func TestGroupFirstErrorCancels(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	first := errors.New("first")
	errs := make(chan error, 1)
	require.NoError(t, e.Go(func(t executor.Task) {
		g, ctx := t.NewGroup(context.Background())
		g.Go(func(executor.Task) error { return first })
		g.Go(func(executor.Task) error {
			<-ctx.Done() // cancelled by the first error
			return errors.New("second")
		})
		errs <- g.Wait()
	}))
	assert.Equal(t, first, <-errs)
	require.NoError(t, e.Close())
}

func TestGroupPanicIsTheGroupsError(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	errs := make(chan error, 1)
	require.NoError(t, e.Go(func(t executor.Task) {
		g, _ := t.NewGroup(context.Background())
		g.Go(func(executor.Task) error { panic("in a group") })
		errs <- g.Wait()
	}))
	err := <-errs
	var pe *executor.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "in a group", pe.Value)
	require.NoError(t, e.Close(), "a group's panic is its error, not Close's")
}

func TestBlockingHandsThePOff(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 1})
	release := make(chan struct{})
	done := make(chan struct{})
	require.NoError(t, e.Go(func(t executor.Task) {
		// The only P goes to another M while this task blocks, so the
		// task that releases it can run.
		t.Go(func(executor.Task) { close(release) })
		require.NoError(t2(t), t.Blocking(func() { <-release }))
		t.Go(func(executor.Task) { close(done) }) // the task holds a P again
	}))
	<-done
	require.NoError(t, e.Close())
	s := e.Stats().Total
	assert.Equal(t, uint64(1), s.Handoffs)
}

// t2 adapts a Task-shaped closure's failures to require: the tests' funcs
// run on Ms, where require's FailNow (runtime.Goexit) would end only the
// task; a panic-free assertion is enough there.
func t2(executor.Task) require.TestingT { return panicT{} }

type panicT struct{}

func (panicT) Errorf(format string, args ...any) { panic("assertion failed in a task") }
func (panicT) FailNow()                          { panic("assertion failed in a task") }

func TestYield(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 1})
	var steps, others atomic.Int64
	require.NoError(t, e.Go(func(t executor.Task) {
		assert.NoError(t2(t), t.Yield(), "nothing waits: Yield returns at once")
		for range 10 {
			t.Go(func(executor.Task) { others.Add(1) })
		}
		// The only P runs the queued tasks while this one yields; it
		// would spin here forever if Yield kept the P.
		for others.Load() != 10 {
			steps.Add(1)
			if err := t.Yield(); err != nil {
				panic(err)
			}
		}
	}))
	require.NoError(t, e.Close())
	assert.NotZero(t, steps.Load())
	assert.Equal(t, uint64(steps.Load()), e.Stats().Total.Yields, "every Yield with work waiting gave the P away")
}

func TestEventsAndStats(t *testing.T) {
	var mu sync.Mutex
	kinds := map[executor.EventKind]int{}
	e := newExec(t, executor.Config{Procs: 2, OnEvent: func(ev executor.Event) {
		mu.Lock()
		kinds[ev.Kind]++
		mu.Unlock()
	}})
	for range 10 {
		require.NoError(t, e.Go(func(t executor.Task) {
			for range 300 {
				t.Go(func(executor.Task) {})
			}
		}))
	}
	require.NoError(t, e.Close())
	s := e.Stats()
	assert.Equal(t, uint64(10+3000), s.Total.Tasks)
	assert.Len(t, s.Procs, 2)
	mu.Lock()
	defer mu.Unlock()
	assert.NotZero(t, kinds[executor.EventPark], "%v", kinds)
	assert.Equal(t, int(s.Total.Overflows), kinds[executor.EventOverflow])
	assert.Equal(t, int(s.Total.Parks), kinds[executor.EventPark])
	assert.Equal(t, "park", executor.EventPark.String())
}
