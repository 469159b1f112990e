package executor_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/watchdog"
)

// runtime.Goexit in a task that a Wait runs inline (issue 14): it must end
// that task only, as it ends only its goroutine under errgroup. Before the
// fix the inline task ran on the waiting task's goroutine, so its Goexit
// unwound the waiter too: the Wait never returned and the waiter was
// reported as the Goexit. Each scenario runs on the real runtime with its
// own watchdog; a failure is seen directly (the waiter's deferred report
// says its Wait did not return), never by running out of time.

// goexitDeadline bounds each scenario; they take milliseconds.
const goexitDeadline = 2 * time.Minute

// waitOutcome is what a waiting task reports from a deferred call, so that
// it reports even when something unwinds it.
type waitOutcome struct {
	returned bool  // Wait returned and the code after it ran
	err      error // what Wait returned
	inTask   bool  // after Wait the task's goroutine is still recognised as an M
}

// wait is g.Wait in a task of e, its outcome recorded.
func (o *waitOutcome) wait(e *executor.Executor, g *executor.Group) {
	o.err = g.Wait()
	o.returned = true
	o.inTask = errors.Is(e.Close(), executor.ErrCloseInTask)
}

// checkGoexitErr reports whether err is the *PanicError of a Goexit.
func checkGoexitErr(err error) error {
	var pe *executor.PanicError
	if !errors.As(err, &pe) || !pe.Goexit {
		return fmt.Errorf("Wait returned %v, want the child's *PanicError with Goexit set", err)
	}
	return nil
}

// goexitRounds runs iters rounds on e, one at a time: a task that runs
// round, which fills in the outcome (reported from a deferred call, so
// even when something unwinds the task), judged by judge. It stops at the
// first failure, closes e and returns the failure, else Close's error
// (closeNote says why there should be none). The watchdog names what each
// round waits for and counts the rounds reported.
func goexitRounds(e *executor.Executor, watch, who string, procs, iters int, closeNote string,
	round func(t executor.Task, o *waitOutcome), judge func(o waitOutcome) error) error {
	var done atomic.Int64
	stop := watchdog.Start(watch, goexitDeadline,
		func() string { return fmt.Sprintf("%d of %d %s reported", done.Load(), iters, who) })
	defer stop()
	out := make(chan waitOutcome, 1)
	var first error
	for i := range iters {
		if err := e.Go(func(t executor.Task) {
			var o waitOutcome
			defer func() { out <- o }()
			round(t, &o)
		}); err != nil {
			first = err
			break
		}
		o := <-out
		done.Add(1)
		if err := judge(o); err != nil {
			first = fmt.Errorf("iteration %d (Procs %d): %w", i, procs, err)
			break
		}
	}
	closeErr := e.Close()
	if first != nil {
		return first
	}
	if closeErr != nil {
		return fmt.Errorf("Close: %w%s", closeErr, closeNote)
	}
	return nil
}

// goexitChild: a task makes a group whose child calls runtime.Goexit, then
// Waits, iters times. Every Wait must return the child's *PanicError (Goexit
// set) and the parent's code after it must run, on a goroutine the executor
// still knows as its M's; every task counts as ended, the Goexits only.
func goexitChild(procs, iters int) error {
	var events [2]atomic.Int64 // task starts, task ends
	e, err := executor.New(executor.Config{Procs: procs, TaskEvents: true, OnEvent: func(ev executor.Event) {
		switch ev.Kind {
		case executor.EventTaskStart:
			events[0].Add(1)
		case executor.EventTaskEnd:
			events[1].Add(1)
		}
	}})
	if err != nil {
		return err
	}
	if err := goexitRounds(e, fmt.Sprintf("goexitChild(procs=%d): parents whose Wait returned", procs), "parents",
		procs, iters, " (a group's Goexit is the group's error, not Close's)",
		func(t executor.Task, o *waitOutcome) {
			g, _ := t.NewGroup(context.Background())
			g.Go(func(executor.Task) error {
				runtime.Goexit()
				return errors.New("unreachable")
			})
			o.wait(e, g)
		},
		func(o waitOutcome) error {
			switch {
			case !o.returned:
				return errors.New("the parent's Wait did not return: the child's Goexit ended the parent")
			case checkGoexitErr(o.err) != nil:
				return checkGoexitErr(o.err)
			case !o.inTask:
				return errors.New("after Wait the parent's goroutine is not recognised as an M (Close from it did not return ErrCloseInTask)")
			}
			return nil
		}); err != nil {
		return err
	}
	s := e.Stats().Total
	if s.Tasks != uint64(2*iters) || s.Panics != uint64(iters) {
		return fmt.Errorf("Stats: %d tasks and %d panics, want %d and %d", s.Tasks, s.Panics, 2*iters, iters)
	}
	if st, en := events[0].Load(), events[1].Load(); st != int64(2*iters) || en != st {
		return fmt.Errorf("task events: %d starts and %d ends, want %d of each", st, en, 2*iters)
	}
	return nil
}

// goexitHelped: a plain task that calls runtime.Goexit is queued on the
// waiter's P (its runnext) before the waiter Waits on a group made outside,
// whose child is in the global queue: the Wait's help (helpOnce) runs the
// Goexit task inline. The waiter's task must go on after Wait; the
// Goexit is reported to the panic handler as the plain task's, once.
func goexitHelped(procs, iters int) error {
	var goexits, others atomic.Int64
	e, err := executor.New(executor.Config{Procs: procs, PanicHandler: func(p *executor.PanicError) {
		if p.Goexit {
			goexits.Add(1)
		} else {
			others.Add(1)
		}
	}})
	if err != nil {
		return err
	}
	var ranX, xInTask atomic.Int64
	if err := goexitRounds(e, fmt.Sprintf("goexitHelped(procs=%d): waiters whose Wait returned", procs), "waiters",
		procs, iters, "",
		func(t executor.Task, o *waitOutcome) {
			t.Go(func(executor.Task) {
				ranX.Add(1)
				if errors.Is(e.Close(), executor.ErrCloseInTask) {
					xInTask.Add(1) // the goroutine running it inline is known as the M
				}
				runtime.Goexit()
			})
			g, _ := e.NewGroup(context.Background())
			g.Go(func(executor.Task) error { return nil })
			o.wait(e, g)
		},
		func(o waitOutcome) error {
			switch {
			case !o.returned:
				return errors.New("the waiter's Wait did not return: the Goexit of the task it helped ended it")
			case o.err != nil:
				return fmt.Errorf("Wait returned %v, want nil", o.err)
			case !o.inTask:
				return errors.New("after Wait the waiter's goroutine is not recognised as an M")
			}
			return nil
		}); err != nil {
		return err
	}
	if n := goexits.Load(); n != int64(iters) || others.Load() != 0 || ranX.Load() != int64(iters) {
		return fmt.Errorf("%d Goexits and %d panics reported for %d Goexit tasks run, want %d and 0", n, others.Load(), ranX.Load(), iters)
	}
	if xInTask.Load() != int64(iters) {
		return fmt.Errorf("%d of %d Goexit tasks ran on a goroutine not recognised as an M", int64(iters)-xInTask.Load(), iters)
	}
	s := e.Stats().Total
	if s.Tasks != uint64(3*iters) || s.Panics != uint64(iters) {
		return fmt.Errorf("Stats: %d tasks and %d panics, want %d and %d", s.Tasks, s.Panics, 3*iters, iters)
	}
	return nil
}

// goexitNested: a chain of depth Waits, each level's task waiting on a group
// whose child is the next level; the deepest child calls runtime.Goexit.
// Every level's Wait must return the *PanicError (each level passes it up)
// and run its code after Wait, and the nesting of Waits on an M must not
// grow from one iteration to the next (a Goexit unwinds one level only).
func goexitNested(procs, depth, iters int) error {
	var deepest atomic.Int64
	restore := executor.SetNestHook(func(d int) {
		for {
			m := deepest.Load()
			if int64(d) <= m || deepest.CompareAndSwap(m, int64(d)) {
				return
			}
		}
	})
	defer restore()
	e, err := executor.New(executor.Config{Procs: procs})
	if err != nil {
		return err
	}
	var after atomic.Int64 // levels whose Wait returned the Goexit
	var level func(t executor.Task, d int) error
	level = func(t executor.Task, d int) error {
		if d == 0 {
			runtime.Goexit()
		}
		g, _ := t.NewGroup(context.Background())
		g.Go(func(t executor.Task) error { return level(t, d-1) })
		err := g.Wait()
		if checkGoexitErr(err) == nil {
			after.Add(1)
		}
		return err
	}
	if err := goexitRounds(e, fmt.Sprintf("goexitNested(procs=%d, depth=%d): chains whose top Wait returned", procs, depth), "chains",
		procs, iters, "",
		func(t executor.Task, o *waitOutcome) {
			after.Store(0) // the round before has ended: its levels are counted
			o.err = level(t, depth)
			o.returned = true
		},
		func(o waitOutcome) error {
			switch {
			case !o.returned:
				return fmt.Errorf("the top task's Wait did not return: a Goexit %d Waits down ended it", depth)
			case checkGoexitErr(o.err) != nil:
				return checkGoexitErr(o.err)
			case after.Load() != int64(depth):
				return fmt.Errorf("%d of %d levels' Waits returned the Goexit", after.Load(), depth)
			}
			return nil
		}); err != nil {
		return err
	}
	if d := deepest.Load(); procs == 1 && d > int64(depth) {
		return fmt.Errorf("Waits nested %d deep on one P for a chain of %d: a Goexit left its level counted", d, depth)
	}
	s := e.Stats().Total
	if want := uint64((depth + 1) * iters); s.Tasks != want || s.Panics != uint64(iters) {
		return fmt.Errorf("Stats: %d tasks and %d panics, want %d and %d", s.Tasks, s.Panics, want, iters)
	}
	return nil
}

// withGOMAXPROCS runs f for GOMAXPROCS 1 and 2 and Procs 1 and 2.
func withGOMAXPROCS(t *testing.T, f func(t *testing.T, procs int)) {
	for _, gmp := range []int{1, 2} {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("GOMAXPROCS=%d/Procs=%d", gmp, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(gmp))
				f(t, procs)
			})
		}
	}
}

func TestGoexitInGroupChild(t *testing.T) {
	withGOMAXPROCS(t, func(t *testing.T, procs int) { require.NoError(t, goexitChild(procs, 200)) })
}

func TestGoexitInHelpedTask(t *testing.T) {
	withGOMAXPROCS(t, func(t *testing.T, procs int) { require.NoError(t, goexitHelped(procs, 200)) })
}

func TestGoexitNested(t *testing.T) {
	withGOMAXPROCS(t, func(t *testing.T, procs int) { require.NoError(t, goexitNested(procs, 5, 100)) })
}
