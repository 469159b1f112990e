package executor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

func noop(executor.Task) {}

// TestLocalSpawnAllocatesNothing: a local spawn reuses the records of
// tasks that finished on its P (gfget/gfput), so once the P has some, a
// spawn of a func that needs no closure allocates nothing at all.
func TestLocalSpawnAllocatesNothing(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 1})
	allocs := make(chan float64, 1)
	require.NoError(t, e.Go(func(t executor.Task) {
		// Warm the P's free list: 200 tasks that finish on this P.
		g, _ := t.NewGroup(context.Background())
		for range 200 {
			g.Go(func(executor.Task) error { return nil })
		}
		if err := g.Wait(); err != nil {
			panic(err)
		}
		allocs <- testing.AllocsPerRun(100, func() { t.Go(noop) })
	}))
	assert.Zero(t, <-allocs, "allocations per local spawn")
	require.NoError(t, e.Close())
}

// TestSpawnChainAllocatesNothing: a chain of tasks each spawning the next
// (the runnext ping-pong) runs on recycled records: a whole chain of 10,000
// hops allocates a handful of objects (the submit, the closure of its
// first task, the wakeups), not one per hop.
func TestSpawnChainAllocatesNothing(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 1})
	const hops = 10_000
	done := make(chan struct{}, 1)
	n := 0
	var hop func(executor.Task)
	hop = func(t executor.Task) {
		if n++; n < hops {
			t.Go(hop)
		} else {
			done <- struct{}{}
		}
	}
	chain := func() {
		n = 0
		if err := e.Go(hop); err != nil {
			panic(err)
		}
		<-done
	}
	chain() // warm up
	a := testing.AllocsPerRun(5, chain)
	require.NoError(t, e.Close())
	assert.Less(t, a, 20.0, "allocations per %d-hop spawn chain", hops)
	t.Logf("%.0f allocations per chain of %d local spawns", a, hops)
}
