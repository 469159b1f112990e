package executor

import (
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// Work conservation for Task.Join (issue 22): every way a Join makes work
// runnable wakes an idle P, checked as wakeup_test.go checks spawns and
// submits. With the other M parked before the Join (so the thief is an M
// the Join's push woke), b must start on the idle P within wakeBound of
// the bubble's clock while a waits for it; then, with the joiner parked
// and its P idle, b's finish on that woken thief must ready the joiner
// within the bound. The nested form pushes from the thief's P while the
// joiner's P idles: a Join run on any P wakes the idle one.

// joinWakeChecks are this file's checks by name, for the kill matrix.
var joinWakeChecks = map[string]func(*testing.T) error{
	"push":        bubbled(joinWakePush(false), joinWakePush(true)),
	"push-nested": bubbled(joinWakePushNested),
}

// JoinWakeCheck returns the check of join_wake_test.go named name, for
// the kill matrix; it panics for an unknown name.
func JoinWakeCheck(name string) func(*testing.T) error {
	c, ok := joinWakeChecks[name]
	if !ok {
		panic("executor: no Join wakeup check " + name)
	}
	return c
}

func TestJoinWake(t *testing.T) {
	for _, name := range []string{"push", "push-nested"} {
		t.Run(name, func(t *testing.T) { requireNoError(t, JoinWakeCheck(name)(t)) })
	}
}

func requireNoError(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// joinerParked is the state in which the joiner waits for b's finish
// alone: b's thief blocked in b, the joiner's P idle, nothing spinning.
// Call it after synctest.Wait.
func joinerParked(e *Executor) error {
	if n := e.sched.NPIdle(); n != 1 || e.sched.NMSpinning() != 0 {
		return fmt.Errorf("precondition: %d Ps idle and %d Ms spinning, want the joiner's P idle and none spinning", n, e.sched.NMSpinning())
	}
	return nil
}

// joinWakePush: on 2 Ps, the other M parked, a task joins a and b; a
// waits for b to start, which only the push's wakeup of the idle P
// allows (b in the ring, or with gqOnly in the global queue). Then, b
// blocked on the woken thief and the joiner parked, b's finish must ready
// the joiner.
func joinWakePush(gqOnly bool) func(*testing.T) error {
	return func(t *testing.T) error { return joinWakePushOn(gqOnly) }
}

func joinWakePushOn(gqOnly bool) error {
	e, err := New(Config{Procs: 2, Slice: wakeSlice, GlobalQueueOnly: gqOnly})
	if err != nil {
		return err
	}
	spawn, release := make(chan struct{}), make(chan struct{})
	bIn, giveUp, bRelease, joined := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
	var stolen atomic.Bool
	var joinErr atomic.Pointer[error]
	err = holder(e, spawn, release, func(t Task) {
		jerr := t.Join(func(Task) {
			select {
			case <-bIn:
			case <-giveUp:
			}
		}, func(bt Task) {
			stolen.Store(bt != t)
			close(bIn)
			<-bRelease
		})
		joinErr.Store(&jerr)
		close(joined)
	})
	close(spawn)
	if err == nil {
		err = awaitRun(bIn, fmt.Sprintf("Join's b, pushed with the other M parked (global queue only: %v)", gqOnly))
	}
	if err == nil {
		synctest.Wait() // b blocks on its thief; the joiner parks
		err = joinerParked(e)
	}
	close(giveUp)
	close(bRelease)
	if err == nil {
		err = awaitRun(joined, "the parked joiner, once b finished on the woken thief")
	}
	if err == nil && !stolen.Load() {
		err = fmt.Errorf("b was not stolen (the scenario no longer tests a thief)")
	}
	close(release)
	err = joinErrs(err, e.Close())
	if p := joinErr.Load(); err == nil && (p == nil || *p != nil) {
		err = fmt.Errorf("Join returned %v", p)
	}
	return err
}

// joinWakePushNested: on 2 Ps, the other M parked, a task joins a and b;
// a spawns x (whose wakeup gets b stolen from the ring) and waits for b to
// start; the joiner then parks, its P idle. b joins c and d on the
// thief's P: c waits for d to start, which only the push's wakeup of the
// idle P allows.
func joinWakePushNested(*testing.T) error {
	e, err := New(Config{Procs: 2, Slice: wakeSlice})
	if err != nil {
		return err
	}
	spawn, release := make(chan struct{}), make(chan struct{})
	bIn, nested, dIn, giveUp, joined := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
	var stolen, dStolen atomic.Bool
	err = holder(e, spawn, release, func(t Task) {
		_ = t.Join(func(t Task) {
			t.Go(func(Task) {})
			select {
			case <-bIn:
			case <-giveUp:
			}
		}, func(bt Task) {
			stolen.Store(bt != t)
			close(bIn)
			select {
			case <-nested:
			case <-giveUp:
			}
			_ = bt.Join(func(Task) {
				select {
				case <-dIn:
				case <-giveUp:
				}
			}, func(dt Task) {
				dStolen.Store(dt != bt)
				close(dIn)
			})
		})
		close(joined)
	})
	close(spawn)
	if err == nil {
		err = awaitRun(bIn, "Join's b, spawned past")
	}
	if err == nil {
		synctest.Wait() // b waits for nested; the joiner parks
		err = joinerParked(e)
	}
	close(nested)
	if err == nil {
		err = awaitRun(dIn, "a Join's b pushed on the thief's P, the joiner's P idle")
	}
	close(giveUp)
	if err == nil {
		err = awaitRun(joined, "the Joins")
	}
	if err == nil && (!stolen.Load() || !dStolen.Load()) {
		err = fmt.Errorf("b stolen %v, d stolen %v (the scenario no longer tests thieves)", stolen.Load(), dStolen.Load())
	}
	close(release)
	return joinErrs(err, e.Close())
}
