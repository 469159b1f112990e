package executor

import (
	"errors"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// The explorer on SetProcs (resize.go) with the real M loop: a P taken
// away while a thief robs it, while an outside submit wakes an M, while
// Close looks for quiescence, and a P added while work waits. Every task
// runs exactly once and every run ends (a lost wakeup is a deadlock: Close
// waiting with every M parked while a task is queued).

func spawner(ran []atomicx.Int32, self int, kids ...int) func(Task) {
	return func(t Task) {
		for _, k := range kids {
			t.Go(count(ran, k))
		}
		ran[self].Add(1)
	}
}

func resizeTo(e *Executor, n int) {
	if err := e.SetProcs(n); err != nil && !errors.Is(err, ErrClosed) {
		panic(err)
	}
}

var resizeCases = []exploreCase{
	{
		// A task spawns two children (runnext and ring) on its P, which
		// the other M may rob, while P 1 is taken away.
		name: "resize-vs-steal", procs: 2, tasks: 3,
		submit: func(e *Executor, ran []atomicx.Int32) { _ = e.Go(spawner(ran, 0, 1, 2)) },
		other:  func(e *Executor, _ []atomicx.Int32) { resizeTo(e, 1) },
	},
	{
		// Two outside submits, one spawning, against the removal of P 1:
		// its M lets it go, and the tasks it held reach the global queue
		// with an M woken for them.
		name: "resize-vs-submit", procs: 2, tasks: 3,
		submit: func(e *Executor, ran []atomicx.Int32) {
			_ = e.Go(spawner(ran, 0, 1))
			resizeTo(e, 1)
		},
		other: func(e *Executor, ran []atomicx.Int32) { _ = e.Go(count(ran, 2)) },
	},
	{
		// Close begins while P 1 is taken away with a child in its queue:
		// Close must not find the executor quiescent while SetProcs holds
		// the child.
		name: "resize-vs-close", procs: 2, tasks: 2,
		submit: func(e *Executor, _ []atomicx.Int32) { resizeTo(e, 1) },
		other: func(e *Executor, ran []atomicx.Int32) {
			_ = e.Go(spawner(ran, 0, 1))
			_ = e.Close()
		},
	},
	{
		// A P added while a submit races: the new P starts idle and an M
		// is woken for the work.
		name: "grow-vs-submit", procs: 1, extraM: 1, tasks: 2,
		submit: func(e *Executor, ran []atomicx.Int32) {
			_ = e.Go(spawner(ran, 0, 1))
			resizeTo(e, 2)
		},
	},
}

// resizeOptions: source-DPOR cut at 300 executions, deterministic. Bound 1
// DFS took 4,460 executions (grow-vs-submit) to 82,936 (resize-vs-submit,
// 97 s at load 20): over the test command's budget.
func resizeOptions(c exploreCase) explore.Options {
	return explore.Options{Name: "executor-" + c.name, Mode: explore.DPOR, MaxExecutions: 300}
}

func TestExploreResize(t *testing.T) {
	for _, c := range resizeCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // an executor of its own, as TestExploreExecutor's
			explore.Check(t, resizeOptions(c), c.run)
		})
	}
}

// ExploreResize runs the named resize scenarios at bound 1 for the kill
// matrix; applicable is false without -tags schedcheck.
func ExploreResize(names ...string) (applicable bool, err error) {
	for _, name := range names {
		found := false
		for _, c := range resizeCases {
			if c.name == name {
				found = true
				if applicable, err := exploreCell(name, resizeOptions(c), c.run, false); !applicable || err != nil {
					return applicable, err
				}
			}
		}
		if !found {
			panic("executor: no resize scenario " + name)
		}
	}
	return true, nil
}
