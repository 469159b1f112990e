package executor_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// TestShutdownBeforeTheDeadlineIsClose: with time enough, Shutdown runs
// every accepted task and reports none dropped.
func TestShutdownBeforeTheDeadlineIsClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, err := executor.New(executor.Config{Procs: 2})
		require.NoError(t, err)
		var ran atomic.Int64
		for range 100 {
			require.NoError(t, e.Go(func(executor.Task) { time.Sleep(time.Millisecond); ran.Add(1) }))
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		n, err := e.Shutdown(ctx)
		require.NoError(t, err)
		assert.Zero(t, n)
		assert.Equal(t, int64(100), ran.Load())
		assert.ErrorIs(t, e.Go(func(executor.Task) {}), executor.ErrClosed)
		require.NoError(t, e.Close(), "Close after Shutdown")
	})
}

// TestShutdownAtTheDeadline: one task holds the only P for a second of the
// bubble's clock (the slice is a minute, so sysmon leaves it alone); the
// tasks queued behind it, a group's among them, are dropped at the
// deadline, counted, and never run; the group's Wait returns ErrAbandoned.
// The running task runs on, and a later Close waits for it.
func TestShutdownAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, err := executor.New(executor.Config{Procs: 1, Slice: time.Minute})
		require.NoError(t, err)
		started := make(chan struct{})
		var longDone, queuedRan atomic.Bool
		require.NoError(t, e.Go(func(t executor.Task) {
			close(started)
			time.Sleep(time.Second)
			t.Go(func(executor.Task) { queuedRan.Store(true) }) // spawned past the deadline: dropped
			longDone.Store(true)
		}))
		<-started
		const queued = 10
		for range queued {
			require.NoError(t, e.Go(func(executor.Task) { queuedRan.Store(true) }))
		}
		g, _ := e.NewGroup(context.Background())
		g.Go(func(executor.Task) error { queuedRan.Store(true); return nil })
		groupErr := make(chan error, 1)
		go func() { groupErr <- g.Wait() }()

		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		begin := time.Now()
		n, err := e.Shutdown(ctx)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, queued+1, n, "the queued tasks and the group's")
		assert.Less(t, time.Since(begin), time.Second, "Shutdown returned before the long task ended")
		assert.False(t, longDone.Load())
		assert.ErrorIs(t, <-groupErr, executor.ErrAbandoned)

		require.NoError(t, e.Close(), "Close waits for the long task")
		assert.True(t, longDone.Load())
		assert.False(t, queuedRan.Load(), "a dropped task ran")
		assert.Equal(t, queued+2, e.Stats().Dropped, "the spawn past the deadline is dropped too")
		n, err = e.Shutdown(context.Background())
		assert.Zero(t, n)
		assert.NoError(t, err, "a Shutdown after Close returns Close's result")
	})
}
