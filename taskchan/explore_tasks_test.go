//go:build schedcheck

package taskchan_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/taskchan"
)

// The channel in real tasks under the explorer: the executor's Ms and its
// spare workers are the explorer's threads (executor.NewExploring), so a
// blocked operation is a task's park (Task.Waker, Task.Park: its P goes on
// to a spare) and a wake its Ready into the waker's runnext. A lost wakeup
// shows as Close never returning (a deadlock), a double resume as the
// executor's panic.

// closeVsParkedRecvTask: on 2 Ps a task receives from an unbuffered
// channel that another task closes: the receive gets (0, false) whether
// it parked first or found the channel closed.
func closeVsParkedRecvTask() explore.Run {
	x := executor.NewExploring(executor.Config{Procs: 2}, 0, 1)
	c := taskchan.Make[int](0)
	explore.Name(c, "c")
	var got atomicx.Int32
	var closeErr error
	return explore.Run{
		Threads: append(x.Threads(), func() {
			x.AwaitSpares()
			_ = x.E.Go(func(t executor.Task) {
				if v, ok := c.Recv(t); v == 0 && !ok {
					got.Add(1)
				}
			})
			_ = x.E.Go(func(executor.Task) { c.Close() })
			closeErr = x.E.Close()
			if x.E.Stats().Total.TaskParks != 0 {
				explore.Reached("parked")
			} else {
				explore.Reached("found closed")
			}
		}),
		Check: func() error {
			if got.Load() != 1 {
				return fmt.Errorf("the receive did not return (0, false) once")
			}
			return errors.Join(closeErr, x.Check())
		},
	}
}

// selectVsTwoSendersTask: on 2 Ps a task selects over two unbuffered
// channels, each with a sending task, then receives from the other one:
// each value arrives exactly once, whichever sender the select takes.
func selectVsTwoSendersTask() explore.Run {
	seededPoll()
	x := executor.NewExploring(executor.Config{Procs: 2}, 0, 3)
	a, b := taskchan.Make[int](0), taskchan.Make[int](0)
	explore.Name(a, "a")
	explore.Name(b, "b")
	var sum, n atomicx.Int32
	var closeErr error
	return explore.Run{
		Threads: append(x.Threads(), func() {
			x.AwaitSpares()
			_ = x.E.Go(func(t executor.Task) {
				var va, vb int
				chosen, _ := taskchan.Select(t, a.RecvCase(&va), b.RecvCase(&vb))
				if chosen == 0 {
					explore.Reached("a first")
					vb, _ = b.Recv(t)
				} else {
					explore.Reached("b first")
					va, _ = a.Recv(t)
				}
				sum.Add(int32(va + vb))
				n.Add(1)
			})
			_ = x.E.Go(func(t executor.Task) { a.Send(t, 1) })
			_ = x.E.Go(func(t executor.Task) { b.Send(t, 2) })
			closeErr = x.E.Close()
		}),
		Check: func() error {
			if n.Load() != 1 || sum.Load() != 3 {
				return fmt.Errorf("the select's task got %d in %d runs, want 3 in 1", sum.Load(), n.Load())
			}
			return errors.Join(closeErr, x.Check())
		},
	}
}

// seededPoll gives Select's shuffle (pollRand, cheaprandn's stand-in) a
// source seeded the same at every execution's build, so that the poll
// order is a function of the schedule: with rand.IntN, an execution did
// not repeat on its own schedule (its replay diverged at a step where a
// poll order had moved who parked), and a failure's replay key did not
// replay it.
func seededPoll() {
	r := rand.New(rand.NewPCG(1, 2))
	taskchan.SetPollRand(func(n int) int { return r.IntN(n) })
}

func TestExploreInTasks(t *testing.T) {
	defer taskchan.SetPollRand(nil)()
	// PCT: with two Ms and spares as threads, DFS at bound 1 ran past
	// 100,000 executions (270 s) without finishing the first scenario.
	explore.Check(t, explore.Options{Name: "taskchan-close-vs-parked-recv-task", Mode: explore.PCT, Seed: 1, Seeds: 4,
		MaxExecutions: 300, MustReach: []string{"parked", "found closed"}}, closeVsParkedRecvTask)
	explore.Check(t, explore.Options{Name: "taskchan-select-vs-two-senders-task", Mode: explore.PCT, Seed: 1, Seeds: 4,
		MaxExecutions: 300, MustReach: []string{"a first", "b first"}}, selectVsTwoSendersTask)
}

// TestExploreInTasksRepeats: the same options give the same executions
// (explore/doc.go's promise), here where Select's shuffle runs inside the
// explored tasks: two searches of select-vs-two-senders-task visit the same
// schedules in the same order. With Select's random shuffle they parted
// within the first dozen executions.
func TestExploreInTasksRepeats(t *testing.T) {
	defer taskchan.SetPollRand(nil)()
	var runs [2][]string
	for i := range runs {
		explore.Check(t, explore.Options{Name: "taskchan-select-repeats", Mode: explore.PCT, Seed: 1, MaxExecutions: 40,
			Visit: func(s string) { runs[i] = append(runs[i], s) }}, selectVsTwoSendersTask)
	}
	for i := range max(len(runs[0]), len(runs[1])) {
		if i >= len(runs[0]) || i >= len(runs[1]) || runs[0][i] != runs[1][i] {
			t.Fatalf("two searches with the same options parted at execution %d", i+1)
		}
	}
}
