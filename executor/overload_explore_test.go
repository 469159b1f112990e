package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// The explorer on Config.MaxQueued (-tags schedcheck): outside submitters
// as threads beside the executor's M, at a bound of 1 or 2 outside tasks.
// In every interleaving within the preemption bound a submit that returned
// nil ran its task exactly once, a refused one never, Close returns, and
// the count of queued tasks ends at zero (a bound exceeded leaves it below:
// each task frees the room it took). The pairs that race:
//
//	two TryGo at bound 1 (reserve vs reserve)        ReserveLoadStore
//	two Go at bound 1, the second waiting for room   RoomFreedAfterLook,
//	  while the M frees it (awaitRoom's register     ReserveLoadStore
//	  and reserve vs unqueue; reserve vs reserve)
//	the same with GoContext (its AfterFunc set)      both (kill matrix: room2)
//	Close racing a Go waiting for room (closing vs   CloseWakesBeforeClosing
//	  awaitRoom's registration; wakeRoom(all) vs it)   (roomclose; GoBatch: roomclose2)
//
// MustReach asks for each racy shape: both submitters accepted (the M took
// the first task between them) and one refused; the waiter woken by the
// room an M freed, and a waiter that found the room itself; a waiter that
// Close refused.
//
// Not here: a GoContext whose context ends as room frees. The context
// package runs an AfterFunc on a goroutine of its own, outside the
// explorer, so the cancel's wakeup cannot be one of its steps.

// roomCase is one scenario: Procs 1 and one M, the bound, and the
// submitting threads; the last one closes the executor once every other
// is done.
type roomCase struct {
	name      string
	bound     int
	tasks     int
	threads   []func(e *Executor, x *roomRun)
	mustReach []string
	// outcome labels the execution's end state for MustReach.
	outcome func(e *Executor, x *roomRun) string
	// after, if set, checks the executor after Close, beside the rest.
	after func(e *Executor) error
	// closer: a thread of its own closes the executor at once, racing
	// the submitting threads (a refused submit may then say ErrClosed).
	closer bool
}

// roomRun is what one execution's threads share with its check.
type roomRun struct {
	ran      []atomicx.Int32
	release  atomicx.Note // a blocker task waits on it
	accepted []bool       // written by the submitting thread, read after the run
	refused  []error
}

// task i's func: it counts its run.
func (x *roomRun) task(i int) func(Task) { return func(Task) { x.ran[i].Add(1) } }

// blocker is task i's func for a task that holds the only P until the
// submitting thread releases it.
func (x *roomRun) blocker(i int) func(Task) {
	return func(Task) {
		x.release.Sleep()
		x.ran[i].Add(1)
	}
}

// note records the result of task i's submit.
func (x *roomRun) note(i int, err error) {
	x.accepted[i] = err == nil
	x.refused[i] = err
}

func (c roomCase) run() explore.Run {
	var threads []func()
	e, err := build(Config{Procs: 1, MaxQueued: c.bound}, func(f func()) { threads = append(threads, f) }, false)
	if err != nil {
		panic(err)
	}
	e.startM()
	nameCells(e)
	for _, cell := range []struct {
		p    any
		name string
	}{{&e.queued, "queued"}, {&e.nwait, "nwait"}, {&e.roomMu, "roomMu"}} {
		explore.Name(cell.p, cell.name)
	}
	x := &roomRun{ran: make([]atomicx.Int32, c.tasks), accepted: make([]bool, c.tasks), refused: make([]error, c.tasks)}
	for i := range x.ran {
		explore.Name(&x.ran[i], fmt.Sprintf("ran[%d]", i))
	}
	explore.Name(&x.release, "release")
	var closeErr error
	if c.closer {
		for _, f := range c.threads {
			threads = append(threads, func() { f(e, x) })
		}
		threads = append(threads, func() { closeErr = e.Close() })
	} else {
		done := make([]atomicx.Note, len(c.threads)-1)
		for i := range done {
			explore.Name(&done[i], fmt.Sprintf("submitter%dDone", i))
		}
		for i, f := range c.threads {
			threads = append(threads, func() {
				f(e, x)
				if i < len(done) {
					done[i].Wakeup()
					return
				}
				for j := range done {
					done[j].Sleep()
				}
				closeErr = e.Close()
			})
		}
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			if closeErr != nil {
				return closeErr
			}
			for i := range x.ran {
				want := int32(0)
				if x.accepted[i] {
					want = 1
				} else if !errors.Is(x.refused[i], ErrFull) && (!c.closer || !errors.Is(x.refused[i], ErrClosed)) {
					return fmt.Errorf("task %d's submit returned %v, want nil or ErrFull (or ErrClosed, racing Close)", i, x.refused[i])
				}
				if n := x.ran[i].Load(); n != want {
					return fmt.Errorf("task %d: submit accepted=%v, ran %d times", i, x.accepted[i], n)
				}
			}
			if q := e.queued.Load(); q != 0 {
				return fmt.Errorf("MaxQueued's count of queued tasks ends at %d, want 0: the bound of %d was not kept", q, c.bound)
			}
			if n := e.nwait.Load(); n != 0 {
				return fmt.Errorf("%d submitters still counted as waiting for room", n)
			}
			if c.after != nil {
				return c.after(e)
			}
			return nil
		},
		Outcome: func() string {
			if c.outcome == nil {
				return ""
			}
			return c.outcome(e, x)
		},
	}
}

// pairOutcome labels a pair of submits: both accepted, or one refused.
func pairOutcome(_ *Executor, x *roomRun) string {
	if x.accepted[0] && x.accepted[1] {
		return "both accepted"
	}
	return "one refused"
}

// waitOutcome labels a waiting submit: woken by room that an M freed
// (unqueue's wakeRoom), or never woken (it found the room on a look).
// Every thread is done when it runs: roomMu is not needed.
func waitOutcome(e *Executor, _ *roomRun) string {
	if e.roomWakes != 0 {
		return "woken by freed room"
	}
	return "found room"
}

var roomCases = []roomCase{
	{
		name: "trygo-vs-trygo", bound: 1, tasks: 2,
		threads: []func(*Executor, *roomRun){
			func(e *Executor, x *roomRun) { x.note(0, e.TryGo(x.task(0))) },
			func(e *Executor, x *roomRun) { x.note(1, e.TryGo(x.task(1))) },
		},
		outcome: pairOutcome, mustReach: []string{"both accepted", "one refused"},
	},
	{
		name: "go-waits-vs-release", bound: 1, tasks: 2,
		threads: []func(*Executor, *roomRun){
			// Whichever comes second has room only once the M takes the
			// first's task (two threads: at bound 1 the M's unqueue can
			// fall between the waiter's steps with one preemption).
			func(e *Executor, x *roomRun) { x.note(0, e.Go(x.task(0))) },
			func(e *Executor, x *roomRun) { x.note(1, e.Go(x.task(1))) },
		},
		outcome: waitOutcome, mustReach: []string{"woken by freed room", "found room"},
	},
}

// roomCases2 is the second check of both rules (kill matrix: room2).
var roomCases2 = []roomCase{
	{
		name: "gocontext-waits-vs-release", bound: 1, tasks: 2,
		threads: []func(*Executor, *roomRun){
			func(e *Executor, x *roomRun) { x.note(0, e.GoContext(roomCtx, x.task(0))) },
			func(e *Executor, x *roomRun) { x.note(1, e.GoContext(roomCtx, x.task(1))) },
		},
		outcome: waitOutcome, mustReach: []string{"woken by freed room", "found room"},
	},
}

// roomCtx never ends, but can: a GoContext on it registers its AfterFunc
// (which never runs), unlike one on context.Background.
var roomCtx, _ = context.WithCancel(bg)

// closeOutcome labels a waiter's end: refused by Close while it waited
// for room (task 0, the blocker, held the P and task 1 the room), or not.
func closeOutcome(_ *Executor, x *roomRun) string {
	if x.accepted[0] && x.accepted[1] && errors.Is(x.refused[2], ErrClosed) {
		return "waiter closed"
	}
	return "no waiter closed"
}

// waitThenClose is the submitting thread of a Close racing a waiter: a
// blocker takes the only P, a second task fills the bound behind it, and
// a third submit (wait) waits for room that only Close can end; then the
// blocker is released.
func waitThenClose(wait func(e *Executor, f func(Task)) error) func(*Executor, *roomRun) {
	return func(e *Executor, x *roomRun) {
		x.note(0, e.Go(x.blocker(0)))
		x.note(1, e.Go(x.task(1)))
		x.note(2, wait(e, x.task(2)))
		x.release.Wakeup()
	}
}

// roomCloseCases race Close against a submitter waiting for room
// (kill matrix: roomclose, roomclose2): Close must set closing before it
// wakes the waiters, so that one registering in between sees it
// (CloseWakesBeforeClosing leaves it asleep and Close waiting for it).
var roomCloseCases = []roomCase{{
	name: "close-vs-waiter", bound: 1, tasks: 3, closer: true,
	threads:   []func(*Executor, *roomRun){waitThenClose((*Executor).Go)},
	outcome:   closeOutcome,
	mustReach: []string{"waiter closed"},
}, {
	name: "close-vs-batch-waiter", bound: 1, tasks: 3, closer: true,
	threads: []func(*Executor, *roomRun){waitThenClose(func(e *Executor, f func(Task)) error {
		return e.GoBatch([]func(Task){f})
	})},
	outcome:   closeOutcome,
	mustReach: []string{"waiter closed"},
}}

func roomOptions(c roomCase) explore.Options {
	return explore.Options{Name: "executor-room-" + c.name, Bound: 1, LongBound: 2, MustReach: c.mustReach}
}

func TestExploreOverload(t *testing.T) {
	for _, c := range slices.Concat(roomCases, roomCases2, roomCloseCases) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // an executor of its own, as TestExploreExecutor's
			explore.Check(t, roomOptions(c), c.run)
		})
	}
}

// ExploreRoom runs roomCases (second: roomCases2) at bound 1 for the kill
// matrix; applicable is false without -tags schedcheck.
func ExploreRoom(second bool) (applicable bool, err error) {
	cs := roomCases
	if second {
		cs = roomCases2
	}
	return exploreRoomCases(cs)
}

// ExploreRoomClose runs one of roomCloseCases (0 or 1) at bound 1 for the
// kill matrix; applicable is false without -tags schedcheck.
func ExploreRoomClose(i int) (applicable bool, err error) {
	return exploreRoomCases(roomCloseCases[i : i+1])
}

func exploreRoomCases(cs []roomCase) (applicable bool, err error) {
	for _, c := range cs {
		if applicable, err := exploreCell(c.name, roomOptions(c), c.run, false); !applicable || err != nil {
			return applicable, err
		}
	}
	return true, nil
}
