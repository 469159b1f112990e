package executor_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/realtime"
)

// Task.Syscall, the optimistic path: the P stays with the call in pSyscall,
// and sysmon hands it off only if the call is still in progress a
// threshold (20µs) later while work waits. The exact checks run in
// synctest bubbles, where a call's length is the bubble's clock; the same
// promises run on the real runtime further down.

// syscallShort: a task makes 200 calls of 1µs while a task of its own
// waits in its P's runnext (work waits for the P). No call lasts the
// threshold, so none is retaken: no retake, no handoff, Procs Ms, and on 1
// P the queued task runs only after the calls.
func syscallShort(procs int) scenario {
	return func(*testing.T) error {
		e, l, err := countedExec(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		synctest.Wait() // every M has parked (else the first wakeup makes another)
		var calls, childAt atomic.Int64
		childAt.Store(-1)
		done := make(chan struct{})
		if err := e.Go(func(t executor.Task) {
			t.Go(func(executor.Task) { childAt.Store(calls.Load()) })
			for range 200 {
				if err := t.Syscall(func() { time.Sleep(time.Microsecond) }); err != nil {
					panic(err)
				}
				calls.Add(1)
			}
			close(done)
		}); err != nil {
			return err
		}
		<-done
		if err := closeAndCheck(e, l); err != nil {
			return err
		}
		s := e.Stats()
		if s.Total.Retakes != 0 || s.Total.Handoffs != 0 || s.Ms != procs {
			return fmt.Errorf("200 calls of 1µs on %d Ps: %d retakes, %d handoffs, %d Ms; want 0, 0, %d (a short call keeps its P)",
				procs, s.Total.Retakes, s.Total.Handoffs, s.Ms, procs)
		}
		if procs == 1 && childAt.Load() != 200 {
			return fmt.Errorf("on 1 P the queued task ran after %d of 200 short calls, want after all (nothing took the P)", childAt.Load())
		}
		return nil
	}
}

// syscallLimit is how long a bubble's blocked call waits before it gives
// up: far past any retake (about two thresholds), so that a call nobody
// retakes ends and the scenario fails with a message instead of hanging.
const syscallLimit = time.Second

// blockUntil is a blocked call's body: until release closes, or
// syscallLimit passes.
func blockUntil(release chan struct{}) {
	select {
	case <-release:
	case <-time.After(syscallLimit):
	}
}

// syscallRetaken: a task's call blocks until a queued task runs (or
// syscallLimit passes) while work waits: on 1 P the queued task is in the
// caller's runnext; on 2 Ps the other P is held by an untold blocker and
// the queued task comes from outside (the global queue, no P idle). sysmon
// must retake the P within a few thresholds of the bubble's clock; the
// retake is a retake (not a handoff), and every counter matches its events.
func syscallRetaken(procs int) scenario {
	return func(*testing.T) error {
		e, l, err := countedExec(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		release := make(chan struct{})
		var callAt, ranAt atomic.Int64
		ran := func(executor.Task) {
			ranAt.Store(time.Now().UnixNano())
			close(release)
		}
		held := make(chan struct{})
		if procs == 2 {
			if err := e.Go(func(executor.Task) {
				close(held)
				select { // holds its P, untold
				case <-release:
				case <-time.After(syscallLimit):
				}
			}); err != nil {
				return err
			}
			<-held
		}
		inCall := make(chan struct{})
		back := make(chan struct{})
		if err := e.Go(func(t executor.Task) {
			if procs == 1 {
				t.Go(ran) // waits in this P's runnext
			}
			callAt.Store(time.Now().UnixNano())
			_ = t.Syscall(func() {
				close(inCall)
				blockUntil(release)
			})
			close(back)
		}); err != nil {
			return err
		}
		<-inCall
		if procs == 2 {
			synctest.Wait() // the call's P is in pSyscall, the other one held
			if err := e.Go(ran); err != nil {
				return err
			}
		}
		<-back
		if err := closeAndCheck(e, l); err != nil {
			return err
		}
		waited := time.Duration(ranAt.Load() - callAt.Load())
		s := e.Stats().Total
		if waited > 10*executor.DefaultSyscallThreshold {
			return fmt.Errorf("on %d Ps a queued task started %v after a call began blocking its P, want within %v (sysmon retakes after %v)",
				procs, waited, 10*executor.DefaultSyscallThreshold, executor.DefaultSyscallThreshold)
		}
		if s.Retakes != 1 || s.Handoffs != 0 {
			return fmt.Errorf("on %d Ps one blocked call with work waiting: %d retakes, %d handoffs, want 1, 0", procs, s.Retakes, s.Handoffs)
		}
		return nil
	}
}

// syscallAfterBackoff: on 1 P a task holds its P for 5ms of the bubble's
// clock with nothing waiting, so sysmon backs off (to Slice/8), then puts
// a task in its runnext and blocks in Syscall. The call's entry wakes
// sysmon: the queued task must start within 5 thresholds of the call's
// start, not a backed-off sleep later.
func syscallAfterBackoff(*testing.T) error {
	e, err := executor.New(executor.Config{Procs: 1})
	if err != nil {
		return err
	}
	release := make(chan struct{})
	var callAt, ranAt atomic.Int64
	back := make(chan struct{})
	if err := e.Go(func(t executor.Task) {
		defer close(back)
		time.Sleep(5 * time.Millisecond) // holding the P, nothing waiting
		t.Go(func(executor.Task) {
			ranAt.Store(time.Now().UnixNano())
			close(release)
		})
		callAt.Store(time.Now().UnixNano())
		_ = t.Syscall(func() {
			blockUntil(release)
		})
	}); err != nil {
		return err
	}
	<-back
	if err := e.Close(); err != nil {
		return err
	}
	if waited := time.Duration(ranAt.Load() - callAt.Load()); waited > 5*executor.DefaultSyscallThreshold {
		return fmt.Errorf("after sysmon backed off, a queued task started %v after a call began blocking its P, want within %v",
			waited, 5*executor.DefaultSyscallThreshold)
	}
	return nil
}

// syscallKicked: on 2 Ps, with sysmon's sleeps at a call's pace made 1ms
// late (SetSysmonLate: a coarse Go timer), one P runs a chain of tasks
// that each hold it 5µs of the bubble's clock, and a task on the other
// blocks in Syscall while work waits for its P: in its runnext, or
// (global) submitted from outside with no P idle. The chain's M finds
// sysmon's round overdue and wakes it (kickSysmon), so the queued task
// starts within 5 thresholds of the call's start, not a millisecond later
// (nor at the chain's 61st tick, 305µs in).
func syscallKicked(global bool) scenario {
	return func(t *testing.T) error {
		defer executor.SetSysmonLate(time.Millisecond)()
		e, err := executor.New(executor.Config{Procs: 2})
		if err != nil {
			return err
		}
		release := make(chan struct{})
		var stop atomic.Bool
		chainRuns := make(chan struct{})
		var links atomic.Int64
		var chain func(executor.Task)
		chain = func(t executor.Task) {
			if links.Add(1) == 1 {
				close(chainRuns)
			}
			time.Sleep(5 * time.Microsecond) // holding its P
			if !stop.Load() && links.Load() < 200000 {
				t.Go(chain)
			}
		}
		if err := e.Go(chain); err != nil {
			return err
		}
		<-chainRuns
		var callAt, ranAt atomic.Int64
		ran := func(executor.Task) {
			ranAt.Store(time.Now().UnixNano())
			close(release)
		}
		inCall := make(chan struct{})
		back := make(chan struct{})
		if err := e.Go(func(t executor.Task) {
			if !global {
				t.Go(ran) // waits in this P's runnext
			}
			callAt.Store(time.Now().UnixNano())
			_ = t.Syscall(func() {
				close(inCall)
				blockUntil(release)
			})
			close(back)
		}); err != nil {
			return err
		}
		<-inCall
		if global {
			if err := e.Go(ran); err != nil {
				return err
			}
		}
		<-back
		stop.Store(true)
		if err := e.Close(); err != nil {
			return err
		}
		where := "its runnext"
		if global {
			where = "the global queue"
		}
		waited := time.Duration(ranAt.Load() - callAt.Load())
		t.Logf("the task queued in %s started %v after the call began", where, waited)
		if waited > 5*executor.DefaultSyscallThreshold {
			return fmt.Errorf("with sysmon's timer 1ms late and an M running, a task queued in %s started %v after a call began blocking its P, want within %v (the M wakes a late sysmon)",
				where, waited, 5*executor.DefaultSyscallThreshold)
		}
		if s := e.Stats(); s.Total.Retakes != 1 || s.MaxCalls != 1 || s.Calls != 0 {
			return fmt.Errorf("one call retaken: %d retakes, %d calls at most at once, %d in progress after Close; want 1, 1, 0",
				s.Total.Retakes, s.MaxCalls, s.Calls)
		}
		return nil
	}
}

// syscallShortHelped: the same two Ps as syscallKicked, sysmon's Go
// timer 1ms late, a chain of 5µs tasks on one P, and on the other a task
// that queues work (in its runnext, or global: from outside with no P
// idle) and then makes a call of 60µs under a SyscallThreshold of 100µs.
// The chain's M looks at the call's P every kickEvery tasks (helpRetake)
// and must leave it: the call has not lasted its threshold, so it keeps
// its P (no retake, no handoff) and the queued task runs after it. An M
// that retook as soon as work waits would take the P at its first look,
// 20µs into the call.
func syscallShortHelped(global bool) scenario {
	return func(t *testing.T) error {
		defer executor.SetSysmonLate(time.Millisecond)()
		e, err := executor.New(executor.Config{Procs: 2, SyscallThreshold: 100 * time.Microsecond})
		if err != nil {
			return err
		}
		var stop atomic.Bool
		chainRuns := make(chan struct{})
		var links atomic.Int64
		var chain func(executor.Task)
		chain = func(t executor.Task) {
			if links.Add(1) == 1 {
				close(chainRuns)
			}
			time.Sleep(5 * time.Microsecond) // holding its P
			if !stop.Load() && links.Load() < 200000 {
				t.Go(chain)
			}
		}
		if err := e.Go(chain); err != nil {
			return err
		}
		<-chainRuns
		ranQ := make(chan struct{})
		q := func(executor.Task) { close(ranQ) }
		inCall := make(chan struct{})
		back := make(chan struct{})
		if err := e.Go(func(t executor.Task) {
			if !global {
				t.Go(q) // waits in this P's runnext
			}
			_ = t.Syscall(func() {
				close(inCall)
				time.Sleep(60 * time.Microsecond)
			})
			close(back)
		}); err != nil {
			return err
		}
		<-inCall
		if global {
			if err := e.Go(q); err != nil {
				return err
			}
		}
		<-back
		<-ranQ
		stop.Store(true)
		if err := e.Close(); err != nil {
			return err
		}
		if s := e.Stats(); s.Total.Retakes != 0 || s.MaxCalls != 1 {
			return fmt.Errorf("a 60µs call under a 100µs threshold, work waiting (global %v), an M looking every few 5µs tasks: %d retakes, %d calls at most at once; want 0, 1 (a call keeps its P until its threshold)",
				global, s.Total.Retakes, s.MaxCalls)
		}
		return nil
	}
}

// syscallNoMRuns: on procs Ps every P is in a call (so no M runs to wake
// a late sysmon) with sysmon's Go timer made 1ms late (SetSysmonLate), and
// work waits: in the first caller's runnext, or (global) submitted from
// outside once the calls began. sysmon waits for the call's threshold on
// the CPU while no M runs (spinForCall; in the bubble an exact sleep), or
// on 1 P with no call due on the OS's timer (usleep), so the queued task
// starts within 5 thresholds of being queued, not a millisecond later.
func syscallNoMRuns(procs int, global bool) scenario {
	return func(t *testing.T) error {
		defer executor.SetSysmonLate(time.Millisecond)()
		e, err := executor.New(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		release := make(chan struct{})
		var queuedAt, ranAt atomic.Int64
		ran := func(executor.Task) {
			ranAt.Store(time.Now().UnixNano())
			close(release)
		}
		inCall := make(chan struct{}, procs)
		for i := range procs {
			if err := e.Go(func(t executor.Task) {
				if !global && i == 0 {
					t.Go(ran) // waits in this P's runnext
					queuedAt.Store(time.Now().UnixNano())
				}
				_ = t.Syscall(func() {
					inCall <- struct{}{}
					blockUntil(release)
				})
			}); err != nil {
				return err
			}
		}
		for range procs {
			<-inCall
		}
		if global {
			queuedAt.Store(time.Now().UnixNano())
			if err := e.Go(ran); err != nil {
				return err
			}
		}
		<-release
		if err := e.Close(); err != nil {
			return err
		}
		waited := time.Duration(ranAt.Load() - queuedAt.Load())
		t.Logf("on %d Ps in calls, the task queued (global %v) started %v after it was queued", procs, global, waited)
		if waited > 5*executor.DefaultSyscallThreshold {
			return fmt.Errorf("on %d Ps in calls with sysmon's Go timer 1ms late, a task queued (global %v) started %v after it was queued, want within %v (sysmon waits on the CPU or the OS's timer then)",
				procs, global, waited, 5*executor.DefaultSyscallThreshold)
		}
		return nil
	}
}

// syscallLastCall: on procs Ps each task holds its P 200µs of the
// bubble's clock, the first having queued work in its runnext, and then
// enters a call that blocks. While they run, sysmon's rounds see Ms
// running and doze at a call's pace on their Go timer, made 1ms late
// (SetSysmonLate). The last task to enter its call leaves no M to kick
// sysmon, so its entry wakes the doze (wakeSysmonForCall): the queued task
// starts within 5 thresholds of that entry, not a millisecond later.
func syscallLastCall(procs int) scenario {
	return func(t *testing.T) error {
		defer executor.SetSysmonLate(time.Millisecond)()
		e, err := executor.New(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		release := make(chan struct{})
		var lastAt, ranAt atomic.Int64
		var entered atomic.Int32
		ran := func(executor.Task) {
			ranAt.Store(time.Now().UnixNano())
			close(release)
		}
		for i := range procs {
			if err := e.Go(func(t executor.Task) {
				if i == 0 {
					t.Go(ran) // waits in this P's runnext
				}
				time.Sleep(200 * time.Microsecond) // holding its P: an M running
				_ = t.Syscall(func() {
					if entered.Add(1) == int32(procs) {
						lastAt.Store(time.Now().UnixNano())
					}
					blockUntil(release)
				})
			}); err != nil {
				return err
			}
		}
		<-release
		if err := e.Close(); err != nil {
			return err
		}
		if entered.Load() != int32(procs) {
			return fmt.Errorf("on %d Ps the queued task ran before every P was in a call (%d entered): no shape to check", procs, entered.Load())
		}
		waited := time.Duration(ranAt.Load() - lastAt.Load())
		t.Logf("on %d Ps, the queued task started %v after the last M entered its call", procs, waited)
		if waited > 5*executor.DefaultSyscallThreshold {
			return fmt.Errorf("on %d Ps, with sysmon dozing on a Go timer 1ms late when the last M entered its call, the queued task started %v after that entry, want within %v (the entry wakes sysmon)",
				procs, waited, 5*executor.DefaultSyscallThreshold)
		}
		return nil
	}
}

// syscallRespectsProcs: on procs Ps a task's call submits procs tasks that
// each hold a P for 10ms of the bubble's clock, and returns once all hold
// one (sysmon must retake the call's P for that). Back from the call, the
// task must wait for a P: it may not go on while procs other tasks run,
// only once one has ended. The slice is long, so only the call's retake
// frees a P. Blocking's twin (respectsProcs).
func syscallRespectsProcs(procs int) scenario { return respectsProcs(procs, true) }

// mixedResult is what a mixed workload saw.
type mixedResult struct {
	ms, procs, maxBlocked int
	// calls and maxCalls are Stats.Calls after Close and Stats.MaxCalls
	// (Syscall's own count: 0 for Blocking, !optimistic).
	calls, maxCalls int
	optimistic      bool
	elapsed         time.Duration
	stats           executor.ProcStats
}

func (r mixedResult) String() string {
	return fmt.Sprintf("%d Ps: %d Ms made, at most %d calls blocked at once, %v, %d retakes, %d handoffs",
		r.procs, r.ms, r.maxBlocked, r.elapsed, r.stats.Retakes, r.stats.Handoffs)
}

// check is the bound on Ms: beyond the Procs that run tasks, at most twice
// the calls blocked at once (each blocked call holds an M, and as many
// may wait for a P after theirs).
func (r mixedResult) check() error {
	if r.maxBlocked == 0 {
		return fmt.Errorf("mixed: no call blocked (%v)", r)
	}
	if r.ms-r.procs > 2*r.maxBlocked {
		return fmt.Errorf("mixed: %d Ms made beyond the %d Ps, want at most twice the %d calls blocked at once (%v)",
			r.ms-r.procs, r.procs, r.maxBlocked, r)
	}
	// Stats' count spans the whole Syscall, the workload's only f.
	if r.optimistic && (r.calls != 0 || r.maxCalls < r.maxBlocked) {
		return fmt.Errorf("mixed: Stats.Calls %d after Close and Stats.MaxCalls %d, want 0 and at least the %d calls the workload saw at once",
			r.calls, r.maxCalls, r.maxBlocked)
	}
	return nil
}

// runMixed runs n tasks that each work for work (spin, or nil for a sleep
// that holds the P), one in ten also blocking for block in Syscall (or
// Blocking if pessimistic), all submitted in one GoBatch, and closes.
func runMixed(procs, n int, work func(), block time.Duration, pessimistic bool) (mixedResult, error) {
	e, err := executor.New(executor.Config{Procs: procs})
	if err != nil {
		return mixedResult{}, err
	}
	var blocked, most atomic.Int64
	call := func() {
		b := blocked.Add(1)
		for m := most.Load(); b > m && !most.CompareAndSwap(m, b); m = most.Load() {
		}
		time.Sleep(block)
		blocked.Add(-1)
	}
	fs := make([]func(executor.Task), n)
	var left atomic.Int64
	left.Store(int64(n))
	done := make(chan struct{})
	for i := range fs {
		fs[i] = func(t executor.Task) {
			work()
			if i%10 == 0 {
				var err error
				if pessimistic {
					err = t.Blocking(call)
				} else {
					err = t.Syscall(call)
				}
				if err != nil {
					panic(err)
				}
			}
			if left.Add(-1) == 0 {
				close(done)
			}
		}
	}
	start := time.Now()
	if err := e.GoBatch(fs); err != nil {
		return mixedResult{}, errors.Join(err, e.Close())
	}
	<-done
	elapsed := time.Since(start)
	if err := e.Close(); err != nil {
		return mixedResult{}, err
	}
	s := e.Stats()
	return mixedResult{ms: s.Ms, procs: procs, maxBlocked: int(most.Load()), calls: s.Calls, maxCalls: s.MaxCalls,
		optimistic: !pessimistic, elapsed: elapsed, stats: s.Total}, nil
}

// syscallMixed: 2000 tasks of 3µs (a sleep that holds the P, on the
// bubble's clock), one in ten blocking 1ms in Syscall. The Ms stay within
// twice the calls blocked at once beyond Procs, and the calls overlap the
// work: the whole takes at most three times the work's time plus one call (a
// call holds its P one or two sysmon rounds before the retake).
func syscallMixed(procs int) scenario {
	return func(t *testing.T) error {
		const n, work, block = 2000, 3 * time.Microsecond, time.Millisecond
		r, err := runMixed(procs, n, func() { time.Sleep(work) }, block, false)
		if err != nil {
			return err
		}
		t.Logf("syscall mixed: %v", r)
		if err := r.check(); err != nil {
			return err
		}
		if most := 3*n*work/time.Duration(procs) + block; r.elapsed > most {
			return fmt.Errorf("mixed on %d Ps took %v of the bubble's clock, want at most %v: blocked calls held their Ps (%v)",
				procs, r.elapsed, most, r)
		}
		return nil
	}
}

// syscallShutdown: a call blocks with nothing queued (its P stays in
// pSyscall: nothing waits), and Shutdown's deadline passes: Shutdown must
// retake that P and return at its deadline, not when the call returns; the
// task then goes on without a P and Close waits for it.
func syscallShutdown(*testing.T) error {
	e, err := executor.New(executor.Config{Procs: 1, Slice: time.Second})
	if err != nil {
		return err
	}
	release := make(chan struct{})
	inCall := make(chan struct{})
	var after atomic.Bool
	if err := e.Go(func(t executor.Task) {
		_ = t.Syscall(func() {
			close(inCall)
			<-release
		})
		after.Store(true)
	}); err != nil {
		return err
	}
	<-inCall
	timer := time.AfterFunc(syscallLimit, func() { close(release) })
	defer timer.Stop()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	notRun, err := e.Shutdown(ctx)
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) || notRun != 0 {
		return fmt.Errorf("Shutdown with a call blocked: (%d, %v), want (0, context.DeadlineExceeded)", notRun, err)
	}
	if took > 20*time.Millisecond {
		return fmt.Errorf("Shutdown with a 10ms deadline returned after %v, with a call in progress: its P in pSyscall was not retaken", took)
	}
	if timer.Stop() {
		close(release)
	}
	if err := e.Close(); err != nil {
		return err
	}
	if !after.Load() {
		return errors.New("the task whose call was in progress at the Shutdown deadline did not go on after it")
	}
	return nil
}

// syscallClose: Close while calls block on every P, with tasks queued
// behind them: sysmon retakes the calls' Ps, the queued tasks run, and
// Close returns after the calls and their tasks ended, every task once.
func syscallClose(procs int) scenario {
	return func(*testing.T) error {
		e, err := executor.New(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		release := make(chan struct{})
		var ran, blocked atomic.Int64
		inCall := make(chan struct{}, procs)
		for range procs {
			if err := e.Go(func(t executor.Task) {
				_ = t.Syscall(func() {
					blocked.Add(1)
					inCall <- struct{}{}
					<-release
				})
				ran.Add(1)
			}); err != nil {
				return err
			}
		}
		for range procs {
			<-inCall
		}
		const queued = 10
		for range queued {
			if err := e.Go(func(executor.Task) { ran.Add(1) }); err != nil {
				return err
			}
		}
		closed := make(chan error, 1)
		go func() { closed <- e.Close() }()
		time.Sleep(time.Millisecond) // sysmon's rounds, on the bubble's clock
		synctest.Wait()
		var early error
		select {
		case err := <-closed:
			early = fmt.Errorf("Close returned (%v) while %d calls blocked", err, blocked.Load())
		default:
		}
		if n := ran.Load(); n != queued && early == nil {
			early = fmt.Errorf("with every P's call blocked, %d of %d queued tasks ran, want all (sysmon retakes the calls' Ps)", n, queued)
		}
		close(release)
		if early != nil {
			<-closed
			return early
		}
		if err := <-closed; err != nil {
			return err
		}
		if n := ran.Load(); n != queued+int64(procs) {
			return fmt.Errorf("after Close %d tasks ran, want %d", n, queued+procs)
		}
		return nil
	}
}

// syscallNesting: inside a call's f, a nested Syscall, a Blocking, a
// group's Wait and a panic recovered by f: each leaves the task holding a
// P after the call, where a spawn goes to runnext (one runnext hit each
// round), and a panic out of f ends the task with its P freed.
func syscallNesting(*testing.T) error {
	var panics atomic.Int64
	e, err := executor.New(executor.Config{Procs: 1, PanicHandler: func(*executor.PanicError) { panics.Add(1) }})
	if err != nil {
		return err
	}
	var errs atomic.Value
	fail := func(format string, args ...any) { errs.CompareAndSwap(nil, fmt.Errorf(format, args...)) }
	ran := make(chan struct{}, 10)
	inner := []struct {
		name string
		f    func(t executor.Task)
	}{
		{"Syscall", func(t executor.Task) { _ = t.Syscall(func() {}) }},
		{"Blocking", func(t executor.Task) { _ = t.Blocking(func() {}) }},
		{"Wait", func(t executor.Task) {
			g, _ := t.NewGroup(context.Background())
			g.Go(func(executor.Task) error { return nil })
			_ = g.Wait()
		}},
		{"Yield", func(t executor.Task) { _ = t.Yield() }},
	}
	for _, in := range inner {
		if err := e.Go(func(t executor.Task) {
			if err := t.Syscall(func() { in.f(t) }); err != nil {
				fail("%s inside Syscall: %v", in.name, err)
			}
			before := e.Stats().Total.RunnextHits
			t.Go(func(executor.Task) {
				if e.Stats().Total.RunnextHits != before+1 {
					fail("after a %s inside Syscall, the task's spawn did not run from runnext: it held no P", in.name)
				}
				ran <- struct{}{}
			})
		}); err != nil {
			return err
		}
		<-ran
		synctest.Wait()
	}
	// A panic out of f: the task ends, its P in pSyscall is taken back.
	if err := e.Go(func(t executor.Task) { _ = t.Syscall(func() { panic("boom") }) }); err != nil {
		return err
	}
	synctest.Wait()
	if err := e.Go(func(t executor.Task) { ran <- struct{}{} }); err != nil {
		return err
	}
	<-ran
	if err := e.Close(); err != nil {
		return err
	}
	if err, _ := errs.Load().(error); err != nil {
		return err
	}
	if panics.Load() != 1 {
		return fmt.Errorf("a panic out of Syscall's f reached the handler %d times, want 1", panics.Load())
	}
	return nil
}

func TestSyscallShortKeepsP(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			require.NoError(t, inBubble(t, syscallShort(procs)))
		})
	}
}

func TestSyscallRetakenWhileWorkWaits(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			require.NoError(t, inBubble(t, syscallRetaken(procs)))
		})
	}
}

func TestSyscallAfterBackoff(t *testing.T) {
	require.NoError(t, inBubble(t, syscallAfterBackoff))
}

func TestSyscallLateSysmonKicked(t *testing.T) {
	for _, global := range []bool{false, true} {
		t.Run(fmt.Sprintf("global=%v", global), func(t *testing.T) {
			require.NoError(t, inBubble(t, syscallKicked(global)))
		})
	}
}

func TestSyscallShortNotHelped(t *testing.T) {
	for _, global := range []bool{false, true} {
		t.Run(fmt.Sprintf("global=%v", global), func(t *testing.T) {
			require.NoError(t, inBubble(t, syscallShortHelped(global)))
		})
	}
}

func TestSyscallNoMRuns(t *testing.T) {
	for _, procs := range []int{1, 2} {
		for _, global := range []bool{false, true} {
			t.Run(fmt.Sprintf("procs=%d/global=%v", procs, global), func(t *testing.T) {
				require.NoError(t, inBubble(t, syscallNoMRuns(procs, global)))
			})
		}
	}
}

func TestSyscallLastCallWakesSysmon(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			require.NoError(t, inBubble(t, syscallLastCall(procs)))
		})
	}
}

func TestSyscallRespectsProcs(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			require.NoError(t, inBubble(t, syscallRespectsProcs(procs)))
		})
	}
}

func TestSyscallMixedMs(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			require.NoError(t, inBubble(t, syscallMixed(procs)))
		})
	}
}

func TestSyscallShutdown(t *testing.T) {
	require.NoError(t, inBubble(t, syscallShutdown))
}

func TestSyscallClose(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			require.NoError(t, inBubble(t, syscallClose(procs)))
		})
	}
}

func TestSyscallNesting(t *testing.T) {
	require.NoError(t, inBubble(t, syscallNesting))
}

func TestSyscallBadInput(t *testing.T) {
	for _, cfg := range []executor.Config{
		{SyscallThreshold: -time.Microsecond},
		{SyscallThreshold: time.Nanosecond},
		{SyscallThreshold: 2 * executor.DefaultSlice},
		{Slice: time.Millisecond, SyscallThreshold: 2 * time.Millisecond},
	} {
		e, err := executor.New(cfg)
		assert.Nil(t, e)
		require.ErrorIs(t, err, executor.ErrConfig, "%+v", cfg)
		assert.Contains(t, err.Error(), "SyscallThreshold", "%+v", cfg)
	}
	for _, cfg := range []executor.Config{
		{SyscallThreshold: time.Microsecond},
		{SyscallThreshold: executor.DefaultSlice},
		{Slice: 5 * time.Microsecond}, // the default threshold is cut to the slice
	} {
		e, err := executor.New(cfg)
		require.NoError(t, err, "%+v", cfg)
		require.NoError(t, e.Close())
	}
	assert.ErrorIs(t, executor.Task{}.Syscall(func() { t.Error("f ran on the zero Task") }), executor.ErrNotInTask)
	e := newExec(t, executor.Config{Procs: 1})
	stale := make(chan executor.Task, 1)
	require.NoError(t, e.Go(func(t executor.Task) { stale <- t }))
	old := <-stale
	// The task may not have returned yet when its handle arrives (it failed
	// so on a loaded machine): Close waits for it.
	require.NoError(t, e.Close())
	assert.ErrorIs(t, old.Syscall(func() { t.Error("f ran on a stale Task") }), executor.ErrNotInTask)
	assert.PanicsWithValue(t, "executor: Task.Syscall called with a nil func", func() { _ = old.Syscall(nil) })
}

// The real runtime, at GOMAXPROCS 1 and 2 (realtime_test.go's
// configurations): a call blocked on every P, under a 5s slice, lets 10
// queued tasks in within the bound only through sysmon's retake of its
// pSyscall P; the closed executor's counters must show retakes and no
// handoff.
var rtSyscall = heldLoad{what: "a task blocked in Syscall", slice: rtLongSlice,
	hold: func(t executor.Task, _ *atomic.Bool, release <-chan struct{}) {
		_ = t.Syscall(func() { <-release })
	},
	check: func(s executor.ProcStats, procs int) error {
		if s.Retakes == 0 || s.Handoffs != 0 {
			return fmt.Errorf("queued tasks ran while %d tasks in Syscall held every P: %d retakes, %d handoffs, want some and none",
				procs, s.Retakes, s.Handoffs)
		}
		return nil
	}}

func TestRealtimeSyscall(t *testing.T) {
	rtSkipChecked(t)
	runRealtime(t, rtScenario{"syscall", rtHeld(rtSyscall)}, rtRounds(3, 50))
}

// TestRealtimeSyscallShort: on the real runtime a task makes 20000 empty
// calls while its own task waits in its runnext. A retake needs sysmon to
// see one call at two rounds a threshold apart: the thread in the call
// kept off a CPU for that long. So a round with retakes fails only if no
// thread of the process waited a threshold per retake for a CPU and the
// health ticker kept up; otherwise it is inconclusive.
func TestRealtimeSyscallShort(t *testing.T) {
	rtSkipChecked(t)
	for _, c := range rtConfigs {
		t.Run(c.String(), func(t *testing.T) {
			check := realtime.Check{Name: "syscall-short/" + c.String(), Bound: executor.DefaultSyscallThreshold / 2,
				Stall: 2 * time.Millisecond, Rounds: rtRounds(2, 20), Wait: time.Minute}
			rtCheck(check, c, func(c rtConfig, giveUp time.Duration, phase *atomic.Value) realtime.Sample {
				e, err := executor.New(executor.Config{Procs: c.procs})
				if err != nil {
					return realtime.Sample{Err: err}
				}
				done := make(chan struct{})
				phase.Store("20000 short calls")
				err = e.Go(func(t executor.Task) {
					defer close(done)
					t.Go(func(executor.Task) {})
					for range 20000 {
						_ = t.Syscall(func() {})
					}
				})
				if err == nil {
					if _, in := awaitOr(done, time.Now(), giveUp); !in {
						err = fmt.Errorf("20000 empty calls did not end within %v", giveUp)
					}
				}
				err = errors.Join(err, e.Close())
				s := e.Stats()
				return realtime.Sample{Err: err,
					Measured: time.Duration(s.Total.Retakes) * executor.DefaultSyscallThreshold,
					Note:     fmt.Sprintf("%d retakes, %d handoffs, %d Ms", s.Total.Retakes, s.Total.Handoffs, s.Ms)}
			}).Apply(t)
		})
	}
}

// TestRealtimeSyscallMixed: the mixed workload (CPU work of about 3µs a
// task, one in ten blocking 1ms in Syscall) on the real runtime: the Ms
// made stay within twice the calls blocked at once beyond Procs. The count
// does not depend on the clock: each M beyond Procs was made for a P
// retaken from a blocked call, with no M idle.
func TestRealtimeSyscallMixed(t *testing.T) {
	rtSkipChecked(t)
	for _, gmp := range []int{1, 2} {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("GOMAXPROCS=%d/procs=%d", gmp, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(gmp))
				within(t, 2*time.Minute, "the mixed workload and Close", func() {
					r, err := runMixed(procs, 4000, func() { spinFor(3 * time.Microsecond) }, time.Millisecond, false)
					require.NoError(t, err)
					t.Logf("Syscall: %v", r)
					require.NoError(t, r.check())
					p, err := runMixed(procs, 4000, func() { spinFor(3 * time.Microsecond) }, time.Millisecond, true)
					require.NoError(t, err)
					t.Logf("Blocking (for comparison): %v", p)
				})
			})
		}
	}
}
