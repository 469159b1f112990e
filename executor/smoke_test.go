package executor_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

func TestSmoke(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		e, err := executor.New(executor.Config{Procs: procs})
		require.NoError(t, err)
		var n atomic.Int64
		for range 1000 {
			require.NoError(t, e.Go(func(t executor.Task) {
				n.Add(1)
				t.Go(func(executor.Task) { n.Add(1) })
			}))
		}
		require.NoError(t, e.Close())
		require.Equal(t, int64(2000), n.Load())
		t.Logf("procs %d: %+v", procs, e.Stats().Total)
	}
}
