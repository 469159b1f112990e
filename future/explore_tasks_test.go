//go:build schedcheck

package future_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/future"
)

// completeVsWaitTasks: on 2 Ps a task spawns a future's func (to its
// ring, behind a spawn that takes runnext, so the other P may steal it at
// once) and waits on it: the waiter gets the value once, whether it parked
// before the func finished or found it done. The executor's Ms and spare
// workers are the explorer's threads (executor.NewExploring), so the wait
// is a real park and the completion a real ready. It checks the two
// together; the future's own mutants are caught by explore_test.go's
// scenarios on the cell (CheckOutsideLock's window, between the check and
// the publish, was not hit here in 1,000 PCT executions: 997 parked first).
func completeVsWaitTasks() explore.Run {
	x := executor.NewExploring(executor.Config{Procs: 2}, 0, 2)
	var got atomicx.Int32
	var closeErr error
	return explore.Run{
		Threads: append(x.Threads(), func() {
			x.AwaitSpares()
			_ = x.E.Go(func(t executor.Task) {
				f := future.Go(t, func(executor.Task) (int, error) { return 7, nil })
				t.Go(func(executor.Task) {}) // f's task to the ring: the other P may steal it at once
				if v, err := f.Wait(t); v == 7 && err == nil {
					got.Add(1)
				}
			})
			closeErr = x.E.Close()
			if x.E.Stats().Total.TaskParks != 0 {
				explore.Reached("waiter parked")
			} else {
				explore.Reached("done first")
			}
		}),
		Check: func() error {
			if got.Load() != 1 {
				return fmt.Errorf("the waiter got the value %d times, want 1", got.Load())
			}
			return errors.Join(closeErr, x.Check())
		},
	}
}

func TestExploreInTasks(t *testing.T) {
	explore.Check(t, explore.Options{Name: "future-complete-vs-wait-task", Mode: explore.PCT, Seed: 1,
		MaxExecutions: 300, MustReach: []string{"waiter parked", "done first"}}, completeVsWaitTasks)
}
