package executor

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedkit/schedkit/atomicx"
)

// The ordering rules of Task.Syscall and sysmon, each checked at the
// exact point where a reordering would show (issue 22, section 2): the
// test plays sysmon (retakeAll with a time it chooses) or an M (taking a
// queued token) at a step syscallHook names, on an executor whose Ms are
// real goroutines and whose sysmon is not started, so that no clock and
// no other round decides the verdict.
//
//	rule (the runtime's)                         check             mutant it kills
//	a call's syscalltick is published before     callage           SyscallTickAfterStatus
//	  its status word (entersyscall)
//	a returning call's exitWait is set before    exittoken         ExitWaitAfterToken
//	  its exit token is queued (exitsyscall0)
//	the first overrun of a slice only asks the   sysmon2,          RetakeAtFirstOverrun
//	  holder to end it; the next round retakes     pingpong-request
//	  (retake's preemptone, then handoffp)         (a bubble, sysmon running)
//	sysmon looks at the Ps again after           dozerecheck,      DozeNoRecheck
//	  publishing a doze at a call's pace           dozerecheck2
//	  (the last M's entry saw no doze to wake)     (bubbles)

// syscallOrderChecks are the checks above, by name.
var syscallOrderChecks = map[string]func(*testing.T) error{
	"callage":   func(*testing.T) error { return callAgeAtEntry() },
	"exittoken": func(*testing.T) error { return exitTokenTakenAtOnce() },
	"sysmon2":   func(*testing.T) error { return sysmonTwoRounds() },
	"pingpong-request": func(t *testing.T) (err error) {
		synctest.Test(t, func(*testing.T) { err = pingPongRequestOnly() })
		return err
	},
	"dozerecheck": func(t *testing.T) (err error) {
		synctest.Test(t, func(*testing.T) { err = dozeRecheck(1) })
		return err
	},
	"dozerecheck2": func(t *testing.T) (err error) {
		synctest.Test(t, func(*testing.T) { err = dozeRecheck(2) })
		return err
	},
}

// SyscallOrderCheck returns the check of syscall_sysmon_test.go named
// name, for the kill matrix; it panics for an unknown name.
func SyscallOrderCheck(name string) func(*testing.T) error {
	c, ok := syscallOrderChecks[name]
	if !ok {
		panic("executor: no syscall order check " + name)
	}
	return c
}

func TestSyscallOrder(t *testing.T) {
	for _, name := range []string{"callage", "exittoken", "sysmon2", "pingpong-request", "dozerecheck", "dozerecheck2"} {
		t.Run(name, func(t *testing.T) {
			if err := SyscallOrderCheck(name)(t); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// noSysmon builds an executor with procs Ms on real goroutines and no
// sysmon: the test calls retakeAll itself.
func noSysmon(procs int) (*Executor, error) {
	e, err := build(Config{Procs: procs}, func(f func()) { go f() }, true)
	if err != nil {
		return nil, err
	}
	for range procs {
		e.startM()
	}
	return e, nil
}

// withSyscallHook sets syscallHook to h for the duration of f.
func withSyscallHook(h func(string), f func() error) error {
	syscallHook = h
	defer func() { syscallHook = nil }()
	return f()
}

// callAgeAtEntry: on 1 P a task's first call is seen by a sysmon round at
// t0 and returns; the task queues a task of its own (work waits for the
// P) and calls again, and at that call's entry, between its two stores
// (syscalltick and the status word), a round at t0 plus two thresholds
// looks at the P. The second call has lasted nothing: it must not be
// retaken. With the status word published first the round sees pSyscall
// with the first call's tick and retakes for the first call's age.
func callAgeAtEntry() error {
	var armed atomic.Bool
	var t0 atomic.Int64
	var e *Executor
	return withSyscallHook(func(step string) {
		if step == "call entering" && armed.CompareAndSwap(true, false) {
			e.retakeAll(t0.Load() + 2*int64(e.cfg.SyscallThreshold))
		}
	}, func() error {
		var err error
		if e, err = noSysmon(1); err != nil {
			return err
		}
		inCall, end := make(chan struct{}), make(chan struct{})
		done, childRan := make(chan struct{}), make(chan struct{})
		if err := e.Go(func(t Task) {
			defer close(done)
			_ = t.Syscall(func() {
				close(inCall)
				<-end
			})
			t.Go(func(Task) { close(childRan) }) // waits for the P: its runnext
			armed.Store(true)
			_ = t.Syscall(func() {})
		}); err != nil {
			return err
		}
		<-inCall
		t0.Store(atomicx.Nanotime())
		e.retakeAll(t0.Load()) // sees the first call; nothing waits
		close(end)
		<-done
		<-childRan
		retakes := e.ps[0].stats.retakes.Load()
		if err := e.Close(); err != nil {
			return err
		}
		if armed.Load() {
			return errors.New("the second call never reached its entry's step")
		}
		if retakes != 0 {
			return fmt.Errorf("a call was retaken at its entry by a round two thresholds after an earlier call was seen (%d retakes, want 0): its syscalltick was published after the status word, so the round took the earlier call's age for its own", retakes)
		}
		return nil
	})
}

// exitTokenTakenAtOnce: on 1 P a task's call is retaken (the test plays
// two sysmon rounds a threshold apart, with a task queued that then holds
// the P), and the call returns with no P idle: at the point where its exit
// token has just been queued, an M takes the token at once, as findRunnable
// may. It must find the wait to claim (exitWait set before the token was
// out); the test then puts the token back so the task still gets a P.
var errExitTokenDropped = errors.New("an M that took a returning call's exit token at once found no wait to claim and would have dropped it: exitWait was set after the token was queued, and the task would wait for a P with no token queued")

func exitTokenTakenAtOnce() error {
	var armed, dropped, seen atomic.Bool
	var e *Executor
	fired := make(chan struct{})
	return withSyscallHook(func(step string) {
		if step != "exit token queued" || !armed.CompareAndSwap(true, false) {
			return
		}
		defer close(fired)
		t := e.global.Get()
		if t == nil {
			return
		}
		if t.w != nil && t == &t.w.exitToken {
			seen.Store(true)
			if t.w.claimExit() {
				t.w.exitWait.Store(exitWaiting) // an M would resume it: undo, for the test's own M
			} else {
				dropped.Store(true) // an M would drop it
			}
		}
		e.global.Put(t)
	}, func() error {
		var err error
		if e, err = noSysmon(1); err != nil {
			return err
		}
		inCall, end, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
		if err := e.Go(func(t Task) {
			defer close(done)
			_ = t.Syscall(func() {
				close(inCall)
				<-end
			})
		}); err != nil {
			return err
		}
		<-inCall
		holds, release := make(chan struct{}), make(chan struct{})
		if err := e.Go(func(Task) {
			close(holds)
			<-release
		}); err != nil {
			return err
		}
		t0 := atomicx.Nanotime()
		e.retakeAll(t0)
		if n, _, _ := e.retakeAll(t0 + int64(e.cfg.SyscallThreshold)); n != 1 {
			close(end)
			close(release)
			return errors.Join(fmt.Errorf("the blocked call with a task queued was not retaken (%d retakes)", n), e.Close())
		}
		<-holds // the queued task holds the P
		armed.Store(true)
		close(end)
		<-fired // the task waits for a P now (under the fault, for ever without the put-back)
		close(release)
		if dropped.Load() {
			// The fault shown: return before <-done, which under it can wait
			// for ever (the freed M may take the put-back token before
			// exitWait is set, and drop it as the fault says).
			return errExitTokenDropped
		}
		<-done
		if err := e.Close(); err != nil {
			return err
		}
		if !seen.Load() {
			return errors.New("the returning call's exit token was not queued (the call found a P?)")
		}
		return nil
	})
}

// sysmonTwoRounds: on 1 P a task holds its P (blocked, untold) with a task
// queued behind it, and the test runs sysmon's rounds one after another:
// at t0 (the slice seen), at t0+Slice (the first overrun: only a request,
// p.preempted, no retake) and once more right after (the slice has not
// moved and the task still holds the P: the retake).
func sysmonTwoRounds() error {
	e, err := noSysmon(1)
	if err != nil {
		return err
	}
	running, release, ran := make(chan struct{}), make(chan struct{}), make(chan struct{})
	if err := e.Go(func(Task) {
		close(running)
		<-release
	}); err != nil {
		return err
	}
	<-running
	if err := e.Go(func(Task) { close(ran) }); err != nil {
		return err
	}
	p := e.ps[0]
	t0 := atomicx.Nanotime()
	e.retakeAll(t0)
	n1, _, _ := e.retakeAll(t0 + int64(e.cfg.Slice))
	retakes1, asked := p.stats.retakes.Load(), p.preempted.Load()
	n2, _, _ := e.retakeAll(t0 + int64(e.cfg.Slice) + 1)
	if n2 == 1 {
		<-ran
	}
	close(release)
	if err := e.Close(); err != nil {
		return err
	}
	if n1 != 0 || retakes1 != 0 || asked != 1 {
		return fmt.Errorf("sysmon's first round past a slice took %d Ps (%d retakes) with the request %d, want 0, 0 and the request made: the first overrun must only ask the holder to end its slice", n1, retakes1, asked)
	}
	if n2 != 1 {
		return fmt.Errorf("sysmon's second round past a slice that had not moved, its task still holding the P, took %d Ps, want 1", n2)
	}
	return nil
}

// pingPongRequestOnly: on 1 P (sysmon running, in a synctest bubble) a
// task queued in the ring waits behind a runnext ping-pong whose tasks
// hold the P 7µs each and share one slice. sysmon's first look past the
// slice asks the holder to end it, and the ping-pong's next get honours
// the request (the runnext task goes to the global queue, the ring's task
// runs): the queued task must run with no retake and no handoff.
func pingPongRequestOnly() error {
	e, err := New(Config{Procs: 1})
	if err != nil {
		return err
	}
	var stop atomic.Bool
	ran := make(chan struct{})
	var hops atomic.Int64
	var ping func(Task)
	ping = func(t Task) {
		time.Sleep(7 * time.Microsecond) // holding the P
		if !stop.Load() && hops.Add(1) < 20000 {
			t.Go(ping)
		}
	}
	if err := e.Go(func(t Task) {
		t.Go(func(Task) { // to runnext, then to the ring by ping's spawn
			stop.Store(true)
			close(ran)
		})
		t.Go(ping)
	}); err != nil {
		return err
	}
	<-ran
	if err := e.Close(); err != nil {
		return err
	}
	s := e.Stats().Total
	if s.Retakes != 0 || s.Handoffs != 0 || s.Preempts == 0 {
		return fmt.Errorf("a ring task behind a runnext ping-pong on 1 P ran after %d hops with %d retakes, %d handoffs, %d preempt requests honoured, want 0, 0 and some: the first overrun must only ask",
			hops.Load(), s.Retakes, s.Handoffs, s.Preempts)
	}
	return nil
}

// dozeRecheck: on procs Ps in a bubble, sysmon's Go timer made 1ms late
// (SetSysmonLate), tasks hold their Ps 50µs (the first queues work in its
// runnext) and then block in calls. syscallHook stops sysmon at its doze
// at a call's pace, after the round that saw the Ms running and before the
// doze is published, until the last call has entered: that entry finds no
// doze to wake. sysmon must look at the Ps again once the doze is published
// and, finding every call unwatched, go to its round at once, so the queued
// task starts within 5 thresholds of the last entry; a doze that slept
// would end a millisecond late.
func dozeRecheck(procs int) error {
	defer SetSysmonLate(time.Millisecond)()
	var armed, held atomic.Bool
	allIn := make(chan struct{})
	return withSyscallHook(func(step string) {
		if step == "sysmon dozing at pace" && armed.CompareAndSwap(true, false) {
			held.Store(true)
			<-allIn
		}
	}, func() error {
		e, err := New(Config{Procs: procs})
		if err != nil {
			return err
		}
		release := make(chan struct{})
		var lastAt, ranAt atomic.Int64
		var entered atomic.Int32
		ran := func(Task) {
			ranAt.Store(time.Now().UnixNano())
			close(release)
		}
		armed.Store(true)
		for i := range procs {
			if err := e.Go(func(t Task) {
				if i == 0 {
					t.Go(ran)
				}
				time.Sleep(50 * time.Microsecond) // holding its P: sysmon's round sees it
				_ = t.Syscall(func() {
					if entered.Add(1) == int32(procs) {
						lastAt.Store(time.Now().UnixNano())
						close(allIn)
					}
					select {
					case <-release:
					case <-time.After(time.Second):
					}
				})
			}); err != nil {
				return err
			}
		}
		<-release
		if err := e.Close(); err != nil {
			return err
		}
		if !held.Load() {
			return fmt.Errorf("on %d Ps sysmon never dozed at a call's pace while the tasks ran: the shape was not reached", procs)
		}
		if waited := time.Duration(ranAt.Load() - lastAt.Load()); waited > 5*DefaultSyscallThreshold {
			return fmt.Errorf("on %d Ps the last M entered its call while sysmon was between its round and its doze, and the queued task started %v after that entry, want within %v (sysmon looks again after publishing the doze)",
				procs, waited, 5*DefaultSyscallThreshold)
		}
		return nil
	})
}
