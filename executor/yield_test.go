package executor_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// readiedGoroutineRuns: with GOMAXPROCS 1 and one P, a task readies a
// goroutine outside the executor (the shape of sysmon, a handoff's new M
// or a waiter: all goroutines that need the one Go P), then a runnext
// chain of short tasks runs until that goroutine has run. The M loop's
// yield (every YieldEvery tasks) must let it in within two periods; without
// it the goroutine waits for the runtime's own preemption, 10 ms of tasks
// (tens of thousands). The count is of tasks, not time: with one Go P the
// goroutine can run only when the M's goroutine yields or is preempted.
// viaWait makes the goroutine a Group.Wait outside any task, readied by
// the end of the group's one task (the executor's own wakeup, a note), the
// task that starts the chain.
func readiedGoroutineRuns(viaWait bool) error {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	e, err := executor.New(executor.Config{Procs: 1})
	if err != nil {
		return err
	}
	const limit = 1 << 20
	var outside atomic.Bool
	var after atomic.Int64 // chain tasks run after the goroutine was readied
	done := make(chan struct{})
	var hop func(executor.Task)
	hop = func(t executor.Task) {
		if outside.Load() || after.Add(1) >= limit {
			close(done)
			return
		}
		t.Go(hop)
	}
	if viaWait {
		// The group's one task starts the chain and returns: the group is
		// done, and its Wait's goroutine is readied (or, not yet asleep,
		// finds it done when it first runs).
		g, _ := e.NewGroup(context.Background())
		g.Go(func(t executor.Task) error { t.Go(hop); return nil })
		go func() {
			_ = g.Wait()
			outside.Store(true)
		}()
	} else {
		ready := make(chan struct{})
		go func() {
			<-ready
			outside.Store(true)
		}()
		if err := e.Go(func(t executor.Task) {
			close(ready) // the goroutine goes to the Go P's runnext
			t.Go(hop)
		}); err != nil {
			return err
		}
	}
	<-done
	if err := e.Close(); err != nil {
		return err
	}
	if n := after.Load(); n > 2*executor.YieldEvery {
		return fmt.Errorf("a goroutine readied on the only Go P ran after %d more tasks (want at most %d): the M loop does not yield", n, 2*executor.YieldEvery)
	}
	return nil
}

func TestMLoopYields(t *testing.T) {
	for _, viaWait := range []bool{false, true} {
		t.Run(fmt.Sprintf("viaWait=%v", viaWait), func(t *testing.T) {
			within(t, time.Minute, "a chain of tasks beside a readied goroutine, and Close", func() {
				require.NoError(t, readiedGoroutineRuns(viaWait))
			})
		})
	}
}
