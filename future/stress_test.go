package future_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/future"
)

// Bar item 4: many futures, each waited on by several tasks (some before
// its result, some after, as the Ps happen to run them) and by one All
// over a run of them; every result must reach every waiter exactly once
// (a count per waiter) and be the future's own. Run it with -race; long
// mode makes about a million waits.

type stressCfg struct {
	procs, futures, waiters int
}

func runStress(c stressCfg) error {
	e, err := executor.New(executor.Config{Procs: c.procs})
	if err != nil {
		return err
	}
	got := make([]atomic.Int32, c.futures*c.waiters)
	var bad atomic.Int64
	var allOK atomic.Int64
	const run = 8 // each All waits for a run of 8 futures
	root, err := future.Submit(e, func(t executor.Task) (int, error) {
		fs := make([]*future.Future[int], c.futures)
		for i := range fs {
			fs[i] = future.Go(t, func(executor.Task) (int, error) { return i, nil })
			for j := range c.waiters {
				t.Go(func(t executor.Task) {
					v, err := fs[i].Wait(t)
					if v != i || err != nil {
						bad.Add(1)
					}
					got[i*c.waiters+j].Add(1)
				})
			}
			if i%run == run-1 {
				lo := i - run + 1
				t.Go(func(t executor.Task) {
					vs, err := future.All(t, fs[lo:lo+run]...)
					for k, v := range vs {
						if v != lo+k || err != nil {
							bad.Add(1)
						}
					}
					allOK.Add(1)
				})
			}
		}
		vs, err := future.All(t, fs...)
		for i, v := range vs {
			if v != i {
				return 0, fmt.Errorf("All: value %d at %d", v, i)
			}
		}
		return len(vs), err
	})
	if err != nil {
		return err
	}
	if err := e.Close(); err != nil {
		return err
	}
	n, rerr := root.Wait(executor.Task{}) // set: Close waited for it
	if rerr != nil || n != c.futures {
		return fmt.Errorf("root: %d, %v", n, rerr)
	}
	for i := range got {
		if g := got[i].Load(); g != 1 {
			return fmt.Errorf("waiter %d of future %d got %d results, want 1", i%c.waiters, i/c.waiters, g)
		}
	}
	if b := bad.Load(); b != 0 {
		return fmt.Errorf("%d wrong results", b)
	}
	if a, want := allOK.Load(), int64(c.futures/run); a != want {
		return fmt.Errorf("%d All waiters done, want %d", a, want)
	}
	if s := e.Stats(); s.Parked != 0 {
		return errors.New("tasks left parked")
	}
	return nil
}

func TestStress(t *testing.T) {
	futures := 100_000
	if testing.Short() {
		futures = 1_000
	}
	for _, procs := range []int{1, 2, 4} {
		require.NoError(t, runStress(stressCfg{procs: procs, futures: futures, waiters: 3}), "procs %d", procs)
	}
}
