package executor_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// Stats' Tasks is derived (stats.go, procStats): a task that inherits the
// slice from runnext, every chain task, is counted only in RunnextHits, and
// a runnext hit that is not such a task (a resume token that hands a P to a
// Wait readied by its group's last child) is taken off. These scenarios
// wake Waits through runnext and compare Tasks, after Close, with the task
// funcs that ran: a token counted as a task makes Tasks too large, a chain
// task counted twice (or not at all) makes it wrong too.

// tasksAfter checks Tasks against ran, the task funcs that ran, once e has
// closed, and that a Wait was woken by a resume token (else the scenario
// no longer tests one).
func tasksAfter(e *executor.Executor, err error, ran int64) error {
	if err != nil {
		return err
	}
	s := e.Stats().Total
	if s.Resumes == 0 || s.RunnextHits == 0 {
		return fmt.Errorf("no Wait was woken through runnext (the scenario no longer tests a token): %+v", s)
	}
	if s.Tasks != uint64(ran) {
		return fmt.Errorf("Stats counted %d tasks, %d ran (%d runnext hits, %d resumes)", s.Tasks, ran, s.RunnextHits, s.Resumes)
	}
	return nil
}

// slowChild makes a group on t with one child that counts itself in ran
// and sleeps 1ms: long enough for another M to take it, or for its P to
// be handed away, before the Wait.
func slowChild(t executor.Task, ran *atomic.Int64) *executor.Group {
	g, _ := t.NewGroup(context.Background())
	g.Go(func(executor.Task) error {
		ran.Add(1)
		time.Sleep(time.Millisecond)
		return nil
	})
	return g
}

// tasksStolenWait: on 2 Ps a task spawns a slow child and holds its P
// (sleeping) while the other M steals the child, then waits; the child's
// end readies the Wait through its M's runnext. Then a chain of 100
// runnext spawns. 102 tasks in all besides the one that starts the chain.
func tasksStolenWait(*testing.T) error {
	var ran atomic.Int64
	var hop func(t executor.Task, n int)
	hop = func(t executor.Task, n int) {
		ran.Add(1)
		if n > 0 {
			t.Go(func(t executor.Task) { hop(t, n-1) })
		}
	}
	e, err := runInTask(executor.Config{Procs: 2}, func(t executor.Task) error {
		ran.Add(1)
		g := slowChild(t, &ran)
		time.Sleep(100 * time.Microsecond) // the other M steals it meanwhile
		if err := g.Wait(); err != nil {
			return err
		}
		t.Go(func(t executor.Task) { hop(t, 99) })
		return nil
	}, nil)
	return tasksAfter(e, err, ran.Load())
}

// tasksBlockedWait: on 2 Ps a task spawns a slow child into runnext and
// then blocks in Blocking, handing its P, with the child, to another M;
// back with the idle P, it waits for the child, which still runs, and the
// child's end readies the Wait through the runnext of the P it ran on.
func tasksBlockedWait(*testing.T) error {
	var ran atomic.Int64
	e, err := runInTask(executor.Config{Procs: 2}, func(t executor.Task) error {
		ran.Add(1)
		g := slowChild(t, &ran)
		if err := t.Blocking(func() { time.Sleep(100 * time.Microsecond) }); err != nil {
			return err
		}
		return g.Wait()
	}, nil)
	return tasksAfter(e, err, ran.Load())
}

func TestTasksCountedOnce(t *testing.T) {
	for name, s := range map[string]scenario{"stolen-wait": tasksStolenWait, "blocked-wait": tasksBlockedWait} {
		t.Run(name, func(t *testing.T) { require.NoError(t, inBubble(t, s)) })
	}
}
