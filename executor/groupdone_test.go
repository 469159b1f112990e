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

// A Wait must not return before its last child has finished, whatever path
// the child took: run inline by the Wait, from runnext, from the ring,
// stolen, from the global queue (a group made outside, or a Task whose P
// was retaken), after Blocking. Each scenario runs in a synctest bubble
// with one slow child (it sleeps on the bubble's clock, which cannot move
// while the returning Wait's goroutine runs), so a Wait that returns early
// is seen every time.

// doneCheck counts a group's children as they are given to Go and as they
// end, before the child's func returns, so a Wait that returns while one
// still runs sees fewer ends than children.
type doneCheck struct {
	given, ended atomic.Int64
}

// wrap is f, counted.
func (d *doneCheck) wrap(f func(executor.Task) error) func(executor.Task) error {
	d.given.Add(1)
	return func(t executor.Task) error {
		defer d.ended.Add(1)
		return f(t)
	}
}

// wait is g.Wait, then the check that every child given had ended.
func (d *doneCheck) wait(g *executor.Group) error {
	err := g.Wait()
	if n, m := d.ended.Load(), d.given.Load(); n != m {
		return fmt.Errorf("Wait returned with %d of its %d children finished", n, m)
	}
	return err
}

// slow is a child that holds its M for a while on the bubble's clock.
func slow(executor.Task) error { time.Sleep(time.Millisecond); return nil }

func fast(executor.Task) error { return nil }

// waitOwnGroup is a task's body that makes a group, gives it its children
// (spawn, through d's wrap) and waits on it.
func waitOwnGroup(spawn func(t executor.Task, g *executor.Group, d *doneCheck)) func(executor.Task) error {
	return func(t executor.Task) error {
		var d doneCheck
		g, _ := t.NewGroup(context.Background())
		spawn(t, g, &d)
		return d.wait(g)
	}
}

// doneInline: on 1 P a task's Wait runs its two children inline.
func doneInline(*testing.T) error {
	e, err := runInTask(executor.Config{Procs: 1}, waitOwnGroup(func(_ executor.Task, g *executor.Group, d *doneCheck) {
		g.Go(d.wrap(slow))
		g.Go(d.wrap(slow))
	}), nil)
	return statsErr(e, err, func(s executor.ProcStats) bool { return s.Helped == 0 }, "no child ran inline in its Wait")
}

// doneFromLocal: a task spawns its group's children into its P's queue
// and returns; the M runs them from runnext (the last) and the ring (the
// one it displaced) while a goroutine outside waits. With ring, a fast
// child in runnext runs before the slow one in the ring; without, the
// slow child is alone, in runnext.
func doneFromLocal(ring bool) scenario {
	return func(*testing.T) error {
		e, err := executor.New(executor.Config{Procs: 1})
		if err != nil {
			return err
		}
		var d doneCheck
		made := make(chan *executor.Group, 1)
		if err := e.Go(func(t executor.Task) {
			g, _ := t.NewGroup(context.Background())
			g.Go(d.wrap(slow)) // to runnext, then displaced to the ring
			if ring {
				g.Go(d.wrap(fast)) // runnext
			}
			made <- g
		}); err != nil {
			return err
		}
		err = joinErr(d.wait(<-made), e.Close())
		return statsErr(e, err, func(s executor.ProcStats) bool { return s.RunnextHits == 0 || ring != (s.RingGets != 0) },
			fmt.Sprintf("the children did not run from runnext and the ring (ring %v)", ring))
	}
}

// doneStolen: on 2 Ps a task spawns its child and then holds its P
// (sleeping, untold), so the other M steals it; it waits after.
func doneStolen(*testing.T) error {
	e, err := runInTask(executor.Config{Procs: 2}, waitOwnGroup(func(_ executor.Task, g *executor.Group, d *doneCheck) {
		g.Go(d.wrap(slow))
		time.Sleep(100 * time.Microsecond) // the other M steals it meanwhile
	}), nil)
	return statsErr(e, err, func(s executor.ProcStats) bool { return s.Steals == 0 }, "no child was stolen")
}

// doneGlobal: a group made outside the executor puts its children in the
// global queue; a goroutine outside waits.
func doneGlobal(*testing.T) error {
	e, err := executor.New(executor.Config{Procs: 2})
	if err != nil {
		return err
	}
	var d doneCheck
	g, _ := e.NewGroup(context.Background())
	g.Go(d.wrap(fast))
	g.Go(d.wrap(slow))
	g.Go(d.wrap(fast))
	return joinErr(d.wait(g), e.Close())
}

// doneRetaken: on 1 P a task holds its P past the slice with a task
// queued, so sysmon retakes it; the child it spawns then goes to the
// global queue, and its Wait waits for it there.
func doneRetaken(*testing.T) error {
	queued := make(chan struct{})
	wait := waitOwnGroup(func(_ executor.Task, g *executor.Group, d *doneCheck) { g.Go(d.wrap(slow)) })
	e, err := runInTask(executor.Config{Procs: 1}, func(t executor.Task) error {
		<-queued
		time.Sleep(3 * executor.DefaultSlice) // untold: sysmon retakes
		return wait(t)
	}, func(e *executor.Executor) error {
		synctest.Wait()
		defer close(queued)
		return e.Go(func(executor.Task) {})
	})
	return statsErr(e, err, func(s executor.ProcStats) bool { return s.Retakes == 0 }, "the task's P was not retaken")
}

// doneAfterBlocking: children that block (Blocking) and end after it,
// waited by the task that made them on 2 Ps; the first blocks longest.
func doneAfterBlocking(*testing.T) error {
	e, err := runInTask(executor.Config{Procs: 2}, waitOwnGroup(func(_ executor.Task, g *executor.Group, d *doneCheck) {
		for i := range 3 {
			g.Go(d.wrap(func(t executor.Task) error {
				d := time.Duration(0)
				if i == 0 { // spawned first, so the Wait runs it inline last
					d = time.Millisecond
				}
				return t.Blocking(func() { time.Sleep(d) })
			}))
		}
	}), nil)
	return statsErr(e, err, func(s executor.ProcStats) bool { return s.Handoffs == 0 }, "no Blocking handed its P off")
}

func TestWaitReturnsAfterEveryChild(t *testing.T) {
	for name, s := range map[string]scenario{
		"inline":        doneInline,
		"runnext":       doneFromLocal(false),
		"ring":          doneFromLocal(true),
		"stolen":        doneStolen,
		"global":        doneGlobal,
		"retaken":       doneRetaken,
		"afterBlocking": doneAfterBlocking,
	} {
		t.Run(name, func(t *testing.T) { require.NoError(t, inBubble(t, s)) })
	}
}
