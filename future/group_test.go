package future_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/future"
)

// TestWaitInGroupTasks: a group's tasks wait on a future whose func waits
// on a gate that another child of the group opens, while the parent is in
// the group's Wait (which runs queued children inline): every waiter gets
// the result and the Wait returns.
func TestWaitInGroupTasks(t *testing.T) {
	for _, procs := range []int{1, 2} {
		e := newExec(t, executor.Config{Procs: procs})
		outer, err := future.Submit(e, func(t executor.Task) (int, error) {
			var g1 gate
			f := future.Go(t, func(t executor.Task) (int, error) { g1.wait(t); return 5, nil })
			g, _ := t.NewGroup(context.Background())
			var sum atomic.Int64
			for range 4 {
				g.Go(func(t executor.Task) error { v, err := f.Wait(t); sum.Add(int64(v)); return err })
			}
			g.Go(func(t executor.Task) error { g1.release(t); return nil })
			err := g.Wait()
			return int(sum.Load()), err
		})
		require.NoError(t, err)
		v, err := outer.WaitContext(context.Background())
		require.NoError(t, err)
		require.Equal(t, 20, v)
		require.NoError(t, e.Close())
	}
}
