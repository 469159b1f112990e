package executor

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// Outside submits racing Close, in the explorer (-tags schedcheck): the
// executor's M runs as a thread, beside a thread that submits one task and
// a thread that closes. In every interleaving within the bound, a submit
// that returned nil (a group whose Wait returned nil) ran its task exactly
// once, before Close returned; a refused one never ran. A submit that
// checked closing before counting itself in flight would let Close find
// the executor quiet, stop the Ms and return while the task is being
// queued: it would never run.
//
// The -vs-shutdown scenarios close with Shutdown and a fourth thread whose
// deadline passes at any point (wakeQuiet(2), as the context's AfterFunc
// does): a submit that returned nil ran its task or is in Shutdown's
// count, never both, and nothing ran after Shutdown returned. A Shutdown
// that abandoned without waiting for a submit in flight would return
// while the task is being queued: accepted, never run, never counted.

// closeRace is one such scenario: submit makes the submit and reports
// whether it was accepted; f is the task.
type closeRace struct {
	name     string
	submit   func(e *Executor, f func(Task)) (accepted bool)
	deadline bool // Shutdown, with a deadline that passes, instead of Close
	// early: the submitting thread passes the deadline itself, before its
	// submit (one thread less), and the search is DPOR's, cut short.
	early bool
}

var closeRaces = []closeRace{
	{name: "go-vs-close", submit: func(e *Executor, f func(Task)) bool { return e.Go(f) == nil }},
	{name: "batch-vs-close", submit: func(e *Executor, f func(Task)) bool { return e.GoBatch([]func(Task){f}) == nil }},
	{name: "group-vs-close", submit: func(e *Executor, f func(Task)) bool {
		g, _ := e.NewGroup(bg)
		g.Go(func(t Task) error { f(t); return nil })
		return g.Wait() == nil // waits for an accepted task to end
	}},
	{name: "go-vs-shutdown", deadline: true, submit: func(e *Executor, f func(Task)) bool { return e.Go(f) == nil }},
	{name: "batch-vs-shutdown", deadline: true, submit: func(e *Executor, f func(Task)) bool {
		return e.GoBatch([]func(Task){f}) == nil
	}},
	// Shutdown's look past the deadline against the M taking the P for a
	// submitted task: the look reads the Ps' take counts after the M's
	// takeP counted its take, the P still idle, and the queues after the
	// M took the task out. Without the look's second pass over the Ps
	// (AbandonNoSecondLook, the code before issue 22) Shutdown returned 0
	// and the M dropped the task after: accepted, never run, never
	// counted. The deadline is passed by the submitting thread before its
	// submit (a fourth thread made the search 10 times dearer). DFS at
	// bound 2 never reached it (39709 executions); DPOR did in 1001, and
	// as the deadline's poll loop makes its search unbounded, it is cut at
	// 2000 executions (a fixed prefix of DPOR's order: deterministic).
	{name: "go-vs-deadline", deadline: true, early: true, submit: func(e *Executor, f func(Task)) bool { return e.Go(f) == nil }},
	{name: "batch-vs-deadline", deadline: true, early: true, submit: func(e *Executor, f func(Task)) bool {
		return e.GoBatch([]func(Task){f}) == nil
	}},
}

func (c closeRace) run() explore.Run {
	var threads []func()
	e, err := build(Config{Procs: 1}, func(f func()) { threads = append(threads, f) }, false)
	if err != nil {
		panic(err)
	}
	e.startM()
	nameCells(e)
	var ran, late atomicx.Int32
	var closed atomicx.Uint32
	explore.Name(&ran, "ran")
	explore.Name(&late, "late")
	explore.Name(&closed, "closeReturned")
	var accepted bool
	var closeErr error
	notRun := 0
	threads = append(threads,
		func() {
			if c.early {
				e.wakeQuiet(2)
			}
			accepted = c.submit(e, func(Task) {
				ran.Add(1)
				if closed.Load() != 0 {
					late.Add(1)
				}
			})
		},
		func() {
			if c.deadline {
				notRun, closeErr = e.Shutdown(context.Background())
			} else {
				closeErr = e.Close()
			}
			closed.Store(1)
		})
	if c.deadline && !c.early {
		threads = append(threads, func() { e.wakeQuiet(2) })
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			if closeErr != nil {
				return closeErr
			}
			want := int32(0)
			if accepted {
				want = 1
			}
			if n := ran.Load() + int32(notRun); n != want {
				return fmt.Errorf("the submit was accepted=%v; its task ran %d times and Shutdown counted %d not run, want %d in all",
					accepted, ran.Load(), notRun, want)
			}
			if late.Load() != 0 {
				return errors.New("an accepted task ran after Close returned")
			}
			return nil
		},
		Outcome: func() string {
			switch {
			case !accepted:
				return "refused"
			case notRun == 1:
				return "counted not run"
			}
			return "ran"
		},
	}
}

func closeRaceOptions(c closeRace) explore.Options {
	if c.early {
		return explore.Options{Name: "executor-" + c.name, Mode: explore.DPOR, MaxExecutions: 2000,
			MustReach: []string{"counted not run", "ran"}}
	}
	return explore.Options{Name: "executor-" + c.name, Bound: 1, LongBound: 2}
}

func TestExploreCloseRace(t *testing.T) {
	for _, c := range closeRaces {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // an executor of its own, as TestExploreExecutor's
			explore.Check(t, closeRaceOptions(c), c.run)
		})
	}
}

// ExploreCloseRace runs the named close-race scenarios at bound 1 for the
// kill matrix; applicable is false without -tags schedcheck.
func ExploreCloseRace(names ...string) (applicable bool, err error) {
	for _, name := range names {
		i := 0
		for i < len(closeRaces) && closeRaces[i].name != name {
			i++
		}
		if i == len(closeRaces) {
			panic("executor: no close race " + name)
		}
		if applicable, err := exploreCell(name, closeRaceOptions(closeRaces[i]), closeRaces[i].run, false); !applicable || err != nil {
			return applicable, err
		}
	}
	return true, nil
}
