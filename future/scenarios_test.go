package future_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/future"
)

// The deterministic scenarios: each runs a real executor in a synctest
// bubble, where synctest.Wait returns only once every goroutine (the Ms,
// sysmon, the parked tasks) is durably blocked, so "every waiter has its
// result" is judged at a point where nothing more can happen.

// manyWaiters: one future, waiters tasks parked on it, two outside
// goroutines in WaitContext and a Ready channel taken before the result;
// the func itself parked on a gate. Opening the gate from outside must
// deliver the one result to every waiter exactly once, close the channel
// (and make a closed one for a late Ready), leave no task parked, and the
// waiters' readies must go into the finishing task's runnext (the gate's
// Ready is the only outside one).
func manyWaiters(procs, waiters int) scenario {
	return func() error {
		e, err := executor.New(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		var g gate
		fut, err := future.Submit(e, func(t executor.Task) (int, error) {
			g.wait(t)
			return 42, nil
		})
		if err != nil {
			return err
		}
		got := make([]atomic.Int32, waiters+2)
		vals := make([]int, waiters+2)
		for i := range waiters {
			if err := e.Go(func(t executor.Task) {
				v, err := fut.Wait(t)
				if err == nil {
					vals[i] = v
				}
				got[i].Add(1)
			}); err != nil {
				return err
			}
		}
		early := fut.Ready()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		for i := waiters; i < waiters+2; i++ {
			go func() {
				v, err := fut.WaitContext(ctx)
				if err == nil {
					vals[i] = v
					got[i].Add(1)
				}
			}()
		}
		settle()
		if s := e.Stats(); s.Parked != waiters+1 || fut.Done() {
			return fmt.Errorf("before the result: %d tasks parked (want %d), Done %v", s.Parked, waiters+1, fut.Done())
		}
		for i := range got {
			if got[i].Load() != 0 {
				return fmt.Errorf("waiter %d has a result before it was set", i)
			}
		}
		g.release(executor.Task{})
		settle()
		for i := range got {
			if n := got[i].Load(); n != 1 || vals[i] != 42 {
				return fmt.Errorf("procs %d: waiter %d of %d (the last 2 outside) got %d results, value %d; want 1, 42",
					procs, i, waiters+2, n, vals[i])
			}
		}
		for _, ch := range []<-chan struct{}{early, fut.Ready()} {
			select {
			case <-ch:
			default:
				return fmt.Errorf("procs %d: a Ready channel is open after the result", procs)
			}
		}
		s := e.Stats()
		if s.Parked != 0 || s.OutsideReadies != 1 || s.Total.TaskReadies != uint64(waiters) {
			return fmt.Errorf("procs %d: after the result: Parked %d, OutsideReadies %d (want 1: the gate's), TaskReadies %d (want %d: each waiter into the finisher's runnext)",
				procs, s.Parked, s.OutsideReadies, s.Total.TaskReadies, waiters)
		}
		return e.Close()
	}
}

// readiedIntoRunnext: at one P, a task A spawns a future F, then Q1 and
// Q2, and waits on F: runnext Q2, ring F Q1. The P runs Q2, then F, whose
// result readies A into the runnext: A must run before Q1 (goready's
// runqput next=true). From the global queue A would run after Q1.
func readiedIntoRunnext() error {
	e, err := executor.New(executor.Config{Procs: 1})
	if err != nil {
		return err
	}
	var mu sync.Mutex
	var order []string
	note := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	done := make(chan struct{})
	if err := e.Go(func(t executor.Task) {
		defer close(done)
		f := future.Go(t, func(executor.Task) (string, error) { note("F"); return "A", nil })
		t.Go(func(executor.Task) { note("Q1") })
		t.Go(func(executor.Task) { note("Q2") })
		v, _ := f.Wait(t)
		note(v)
	}); err != nil {
		return err
	}
	<-done
	settle()
	if err := e.Close(); err != nil {
		return err
	}
	if want := []string{"Q2", "F", "A", "Q1"}; !slices.Equal(order, want) {
		return fmt.Errorf("run order %v, want %v: the waiter readied by F must run next on F's P", order, want)
	}
	if s := e.Stats(); s.Total.TaskReadies != 1 || s.OutsideReadies != 0 {
		return fmt.Errorf("TaskReadies %d (want 1), OutsideReadies %d (want 0)", s.Total.TaskReadies, s.OutsideReadies)
	}
	return nil
}

func TestManyWaiters(t *testing.T) {
	for _, procs := range []int{1, 2} {
		require.NoError(t, bubble(t, manyWaiters(procs, 8)))
	}
}

func TestReadiedIntoRunnext(t *testing.T) {
	require.NoError(t, bubble(t, readiedIntoRunnext))
}
