package executor_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// Fixed scenarios, each in a synctest bubble so that its verdict does not
// depend on the machine: the steal delay and the slice pass on the
// bubble's clock, which moves only when every goroutine is blocked.

// waitHelps: on 2 Ps, a task waits on a group whose only child sits in its
// own P's runnext slot, while the other M waits out the steal delay on it.
// The Wait must run the child itself at once: no time passes on the
// bubble's clock, which would mean the waiting task idled its P until the
// thief's delay ran out.
func waitHelps(*testing.T) error {
	e, err := runInTask(executor.Config{Procs: 2}, func(t executor.Task) error {
		g, _ := t.NewGroup(context.Background())
		g.Go(func(executor.Task) error { return nil })
		synctest.Wait() // the other M now sleeps out the steal delay on the child
		start := time.Now()
		err := g.Wait()
		if took := time.Since(start); err == nil && took != 0 {
			err = fmt.Errorf("Wait took %v of the bubble's clock with its own child queued on its P", took)
		}
		return err
	}, nil)
	if err == nil && e.Stats().Total.Helped == 0 {
		err = fmt.Errorf("no task was run by a Wait")
	}
	return err
}

// fairnessBurst: on 1 P a task queues 200 local tasks (runnext and ring)
// and then submits one task to the global queue; the global task must
// start within 61 schedule ticks (61 tasks from the ring), not after all.
func fairnessBurst(t *testing.T) error {
	e, err := executor.New(executor.Config{Procs: 1})
	if err != nil {
		return err
	}
	var locals atomic.Int64
	seen := make(chan int64, 1)
	if err := e.Go(func(t executor.Task) {
		for range 200 {
			t.Go(func(executor.Task) { locals.Add(1) })
		}
		if err := e.Go(func(executor.Task) { seen <- locals.Load() }); err != nil {
			panic(err)
		}
	}); err != nil {
		return err
	}
	before := <-seen
	if err := e.Close(); err != nil {
		return err
	}
	if before > 61+1 {
		return fmt.Errorf("the global task started after %d of 200 local tasks, want at most 62 (61 ticks and the runnext task)", before)
	}
	return nil
}

// fairnessTree: on 1 P a tree of local spawns (every node spawns two;
// runnext and ring mixed) runs while its root submits one task to the
// global queue; the global task must start within 61 ticks of the P.
func fairnessTree(t *testing.T) error {
	e, err := executor.New(executor.Config{Procs: 1})
	if err != nil {
		return err
	}
	ticks := func() uint64 {
		s := e.Stats().Procs[0]
		return s.Tasks - s.RunnextHits
	}
	var node func(t executor.Task, d int)
	node = func(t executor.Task, d int) {
		if d > 0 {
			t.Go(func(t executor.Task) { node(t, d-1) })
			t.Go(func(t executor.Task) { node(t, d-1) })
		}
	}
	waited := make(chan uint64, 1)
	if err := e.Go(func(t executor.Task) {
		node(t, 9)
		at := ticks()
		if err := e.Go(func(executor.Task) { waited <- ticks() - at }); err != nil {
			panic(err)
		}
	}); err != nil {
		return err
	}
	w := <-waited
	if err := e.Close(); err != nil {
		return err
	}
	if w > 61+1 {
		return fmt.Errorf("the global task waited %d ticks beside a local tree, want at most 62", w)
	}
	return nil
}

// submitFromTaskWhileSpinnerWaits is submitWhileSpinnerWaits with the
// submit made by a task (Executor.Go, or an outside group's Go, called on
// an M) that then blocks holding its P: the spinner that skipped the
// wakeup must find the task at its drop-and-recheck.
func submitFromTaskWhileSpinnerWaits(viaGroup bool) scenario {
	return func(t *testing.T) error {
		e, err := executor.New(executor.Config{Procs: 2})
		if err != nil {
			return err
		}
		result := make(chan error, 1)
		if err := e.Go(func(t executor.Task) {
			t.Go(func(executor.Task) {
				ran := make(chan struct{})
				x := func(executor.Task) { close(ran) }
				var g *executor.Group
				if viaGroup {
					g, _ = e.NewGroup(context.Background())
					g.Go(func(t executor.Task) error { x(t); return nil })
				} else if err := e.Go(x); err != nil {
					result <- err
					return
				}
				select { // hold this P, blocked: only the spinner can run x
				case <-ran:
					result <- nil
				case <-time.After(time.Second):
					result <- fmt.Errorf("a task submitted from a task while an M spun did not run (group=%v)", viaGroup)
				}
				if g != nil {
					_ = g.Wait()
				}
			})
			synctest.Wait() // the other M sleeps out the steal delay on that child
		}); err != nil {
			return err
		}
		err = <-result
		return joinErr(err, e.Close())
	}
}

// spawnAfterRetake: on 1 P, a task holds the P (blocked) until sysmon
// takes it for a task queued behind, then spawns a child. Its P is no
// longer its own (idle again, or busy with a task of another M, also
// blocked), so the child must go to the global queue, not into that P's
// runnext slot: no task of the run may come out of a runnext slot.
func spawnAfterRetake(busy bool) scenario {
	return func(t *testing.T) error {
		e, err := executor.New(executor.Config{Procs: 1})
		if err != nil {
			return err
		}
		started := make(chan struct{})
		childRan := make(chan struct{})
		if err := e.Go(func(t executor.Task) {
			close(started)
			time.Sleep(5 * executor.DefaultSlice) // sysmon retakes meanwhile
			t.Go(func(executor.Task) { close(childRan) })
		}); err != nil {
			return err
		}
		<-started
		if err := e.Go(func(executor.Task) {
			if busy {
				time.Sleep(10 * executor.DefaultSlice)
			}
		}); err != nil {
			return err
		}
		<-childRan
		if err := e.Close(); err != nil {
			return err
		}
		s := e.Stats().Total
		if s.Retakes == 0 {
			return fmt.Errorf("no retake: the scenario did not take the P from the first task")
		}
		if s.RunnextHits+s.Preempts != 0 { // every task out of a runnext slot counts in one
			return fmt.Errorf("a task whose P was retaken spawned into that P's runnext (busy=%v): %+v", busy, s)
		}
		return nil
	}
}

func TestSpawnAfterRetakeGoesGlobal(t *testing.T) {
	for _, busy := range []bool{false, true} {
		t.Run(fmt.Sprintf("busy=%v", busy), func(t *testing.T) {
			require.NoError(t, inBubble(t, spawnAfterRetake(busy)))
		})
	}
}

func TestWaitHelps(t *testing.T) { require.NoError(t, inBubble(t, waitHelps)) }

func TestFairnessBurst(t *testing.T) { require.NoError(t, inBubble(t, fairnessBurst)) }

func TestFairnessTree(t *testing.T) { require.NoError(t, inBubble(t, fairnessTree)) }

func TestSubmitFromTaskWhileSpinnerWaits(t *testing.T) {
	for _, viaGroup := range []bool{false, true} {
		t.Run(fmt.Sprintf("group=%v", viaGroup), func(t *testing.T) {
			require.NoError(t, inBubble(t, submitFromTaskWhileSpinnerWaits(viaGroup)))
		})
	}
}
