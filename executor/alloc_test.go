package executor_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

func noop(executor.Task) {}

// localSpawnAllocs: a local spawn reuses the records of tasks that finished
// on its P (gfget/gfput), so once the P has some, a spawn of a func that
// needs no closure allocates nothing at all.
func localSpawnAllocs(*testing.T) error {
	e, err := executor.New(executor.Config{Procs: 1})
	if err != nil {
		return err
	}
	allocs := make(chan float64, 1)
	if err := e.Go(func(t executor.Task) {
		// Warm the P's free list: 200 tasks that finish on this P.
		g, _ := t.NewGroup(context.Background())
		for range 200 {
			g.Go(func(executor.Task) error { return nil })
		}
		if err := g.Wait(); err != nil {
			panic(err)
		}
		allocs <- testing.AllocsPerRun(100, func() { t.Go(noop) })
	}); err != nil {
		return err
	}
	a := <-allocs
	if err := e.Close(); err != nil {
		return err
	}
	if a != 0 {
		return fmt.Errorf("%.2f allocations per local spawn, want 0", a)
	}
	return nil
}

// chainAllocs: a chain of tasks each spawning the next (the runnext
// ping-pong) runs on recycled records: a whole chain of 10,000 hops
// allocates a handful of objects (the submit, the wakeups), not one per hop.
func chainAllocs(t *testing.T) error {
	e, err := executor.New(executor.Config{Procs: 1})
	if err != nil {
		return err
	}
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
	// AllocsPerRun counts the whole process's allocations: the fewest of
	// three measurements leaves out those of goroutines running beside it
	// (the kill matrix's other cells: 23 once, against 1 alone).
	a := testing.AllocsPerRun(5, chain)
	for range 2 {
		a = min(a, testing.AllocsPerRun(5, chain))
	}
	if err := e.Close(); err != nil {
		return err
	}
	t.Logf("%.0f allocations per chain of %d local spawns", a, hops)
	if a >= 20 {
		return fmt.Errorf("%.0f allocations per %d-hop spawn chain, want a handful", a, hops)
	}
	return nil
}

func TestLocalSpawnAllocatesNothing(t *testing.T) { require.NoError(t, localSpawnAllocs(t)) }

func TestSpawnChainAllocatesNothing(t *testing.T) { require.NoError(t, chainAllocs(t)) }
