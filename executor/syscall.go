package executor

// The optimistic system-call path (the runtime's entersyscall and
// exitsyscall): a call keeps its P in pSyscall, and only sysmon, or an M
// between its tasks in sysmon's stead (helpRetake), hands the P off, if
// the call is still in progress after Config.SyscallThreshold while work
// waits (retakeSyscall). Task.Blocking is the pessimistic path
// (entersyscallblock): it hands the P off before the call.

import "github.com/schedkit/schedkit/atomicx"

// Syscall runs f, a call that may block but usually returns soon (a read of
// a small file, a lock held briefly, a system call that seldom waits),
// keeping the task's P meanwhile: a call that returns within
// Config.SyscallThreshold (20µs by default) costs no handoff and no M.
// If the call is still in progress after the threshold while work waits
// for the P (in its queue, or elsewhere with no P idle), or after a whole
// Slice in any case, sysmon hands the P to another M, as the runtime's
// retake does with a P in a system call; the work queued on that P runs
// first, before any task back from another call that waits for a P. When f
// returns the task takes its P back if it is still there, else an idle P,
// else it waits for one (in the global queue, and behind the queue of the
// next call's P retaken), as after Blocking, and never runs beside Procs
// other tasks.
//
// Use Blocking for a call known to block for long (a network wait, a
// sleep): it hands the P off at once instead of a threshold later. It
// mirrors entersyscall, exitsyscall (exitsyscallfast's CAS back, then
// exitsyscall0) and the retake of a _Psyscall P.
//
// Calling Blocking, Yield or a group's Wait inside f ends the call's hold
// on the P early (the P is given away or used), and Syscall returns with
// the task holding a P all the same. A panic in f propagates to the task.
// Syscall returns ErrNotInTask, without running f, if t is not running. It
// panics if f is nil.
func (t Task) Syscall(f func()) error {
	if f == nil {
		panic("executor: Task.Syscall called with a nil func")
	}
	w := t.current()
	if w == nil {
		return ErrNotInTask
	}
	e := w.e
	if c := e.cfg.bcap; c != nil { // Config.MaxBlocking: a slot first (blockcap.go)
		c.enter(t, w)
		defer c.leave(t, w)
	}
	p, inner := e.entersyscall(w)
	if !inner {
		e.callBegins()
		defer e.calls.Add(-1) // f may panic
	}
	f()
	switch {
	case inner: // inside another Syscall's f: that one ends the call
	case p == nil: // no P: take one, as after Blocking
		e.reacquire(w)
	default:
		e.exitsyscall(w, p)
	}
	return nil
}

// callBegins counts a call in progress (Stats.Calls) and raises
// Stats.MaxCalls to their number: a shared word, where the runtime counts
// nothing per call (its Ps' syscalltick is the holder's), since the calls
// blocked at once are what the Ms made beyond Procs are judged against.
func (e *Executor) callBegins() {
	n := e.calls.Add(1)
	for m := e.maxCalls.Load(); n > m && !e.maxCalls.CompareAndSwap(m, n); m = e.maxCalls.Load() {
	}
}

// entersyscall moves w's P from pTask to pSyscall and returns it; nil if
// w holds no P (retaken, or given away), and inner if it is in pSyscall
// already (a Syscall inside another's f). It counts the call in
// syscalltick first, so that sysmon, which reads the status word before
// the tick, never sees a new call with an old tick. It mirrors entersyscall
// (reentersyscall's pp.status = _Psyscall).
func (e *Executor) entersyscall(w *worker) (p *proc, inner bool) {
	p = w.p.Load()
	if p == nil {
		return nil, false
	}
	me := w.word(pTask)
	for {
		switch p.status.Load() {
		case me:
			p.callSince.Store(atomicx.Nanotime()) // before the word says pSyscall: helpRetake reads them in the other order
			if mutant == syscallTickAfterStatus {
				if !p.status.CompareAndSwap(me, w.word(pSyscall)) {
					continue
				}
				syscallStep("call entering")
				p.syscalltick.Store(p.syscalltick.Load() + 1)
			} else {
				p.syscalltick.Store(p.syscalltick.Load() + 1)
				syscallStep("call entering")
				if !p.status.CompareAndSwap(me, w.word(pSyscall)) {
					continue // retaken since the load: the next look says so
				}
			}
			e.wakeSysmonForCall()
			return p, false
		case w.word(pSyscall):
			return nil, true
		case w.word(pSpawn):
			awaitSpawn() // a spawn through a Task passed to another goroutine
			continue
		}
		// Retaken by sysmon for its slice: go on without a P, as claim's
		// loser does.
		for w.lent.Load() != 0 {
			awaitSpawn()
		}
		w.p.Store(nil)
		return nil, false
	}
}

// exitsyscall takes w's P back for its task after f returned: a CAS from
// pSyscall to pTask if sysmon has not retaken it (exitsyscallfast), else
// an idle P or a wait for one (reacquire: exitsyscall0). p is the P the
// call entered with; f may have given it away (Blocking, Yield, a Wait)
// and taken another, in pTask already.
func (e *Executor) exitsyscall(w *worker, p *proc) {
	if mutant == syscallExitIgnoresRetake {
		p.status.Store(w.word(pTask))
		return
	}
	if p.status.CompareAndSwap(w.word(pSyscall), w.word(pTask)) {
		syscallStep("exit fast")
		return // the fast path: still ours
	}
	syscallStep("exit retaken")
	if q := w.p.Load(); q != nil && q.status.Load() == w.word(pTask) {
		return // f took the P out of pSyscall itself, and holds one
	}
	for w.lent.Load() != 0 {
		awaitSpawn() // the retaker still uses w's spinning.M
	}
	w.p.Store(nil)
	e.exitsyscall0(w)
}

// exitsyscall0 gets a P for w's task back from a call whose P was
// retaken: an idle one, else it waits, its exitToken at the global
// queue's tail (as reacquire's token) and itself on offer to the next
// retake of a call's P (retakeServes: behind the work queued on that P,
// or given the P when nothing is queued or another M would be past the
// budget), whichever comes first. A waiting task pins its M (its goroutine
// is the M's), where the runtime's pins none: served only from the
// queue's tail, behind a batch of outside tasks, the tasks back from calls
// piled up and every retake started an M (one per call in a mixed
// workload). It mirrors exitsyscall0 (pidleget, else globrunqput and
// stopm).
func (e *Executor) exitsyscall0(w *worker) {
	if w.p.Load() != nil || e.abandon.Load() != 0 {
		return // past Shutdown's deadline a task runs on without a P
	}
	if w.sm.Load().AcquireP() {
		e.takeP(w)
		e.startSlice(w)
		return
	}
	if e.stopped.Load() != 0 {
		return
	}
	if w.exitToken.w == nil {
		w.exitToken.w = w
	}
	if mutant == exitWaitAfterToken {
		e.global.Put(&w.exitToken)
		syscallStep("exit token queued")
		w.exitWait.Store(exitWaiting)
	} else {
		w.exitWait.Store(exitWaiting) // before the token is out: its taker claims it
		e.global.Put(&w.exitToken)
		syscallStep("exit token queued")
	}
	e.sched.Wakep()
	e.park(w)
}

// retakeServes decides who gets P p, just retaken from w's call (held by
// the retaker, w's spinning.M with it), and reports whether a task back
// from another call that waits for a P took it (handToWaiter).
//
// With work queued on p, p goes to an M for that work, as handoffp starts
// one for a P with local work (startm) whatever waits in the global queue,
// and a waiter is put at the tail of p's ring (queueWaiter): behind p's
// own work, ahead of the global queue's tail, where exitsyscall0 puts the
// runtime's returning goroutine. Serving the waiter first (issue 22) let
// callers that call again at once hold the P while its queue waited (12 to
// 167ms median on the real runtime). But the runtime's waiter frees its M
// (exitsyscall0's stopm), which is the idle M that handoffp's startm then
// finds (mget); a waiter here pins its M. So the handoff is taken only
// while it needs no M beyond what the calls account for: an M idles, or
// the Ms made beyond Procs are fewer than twice the calls blocked now
// (each blocked call holds an M, and as many may wait after theirs).
// Past that budget, and with nothing queued on p, the waiter's M takes p:
// the M the runtime would have reused. Served only from the global
// queue's tail, behind a batch of outside tasks, the waiters piled up
// (syscallMixed: 200 Ms for 200 calls).
func (e *Executor) retakeServes(w *worker, p *proc) bool {
	if mutant != retakeServesWaiterFirst && !p.q.Empty() && e.handoffAffordable() {
		if mutant != retakeQueuesNoWaiter {
			e.queueWaiter(w, p)
		}
		return false
	}
	return e.handToWaiter(w, p)
}

// handoffAffordable reports whether a handoff of a retaken call's P makes
// no M beyond the budget: an M idles, or the Ms made beyond Procs are
// fewer than twice the calls blocked now (in progress, less those back and
// waiting for a P).
func (e *Executor) handoffAffordable() bool {
	if e.sched.NMIdle() > 0 {
		return true
	}
	waiting := int64(0)
	e.mu.Lock()
	for _, x := range e.workers {
		if x.exitWait.Load() != 0 {
			waiting++
		}
	}
	e.mu.Unlock()
	return e.liveMs()-int64(e.liveProcs()) < 2*(e.calls.Load()-waiting)
}

// handToWaiter gives P p, just retaken from w's call (held by the retaker,
// w's spinning.M with it), to a task back from a call that waits for a P:
// the pair swap of resume, between w and the waiter v, so no M is started
// and v's M runs again. It reports whether a waiter took it. The waiter
// found first in the worker list is served (its token stays queued, and is
// dropped when run).
func (e *Executor) handToWaiter(w *worker, p *proc) bool {
	if e.abandon.Load() != 0 {
		return false
	}
	v := e.claimWaiter(exitWaiting, 0)
	if v == nil {
		return false
	}
	wm, vm := w.sm.Load(), v.sm.Load()
	w.sm.Store(vm) // w takes it after its call, once lent is back to 0
	v.sm.Store(wm)
	p.takes.Add(1) // out of pIdle: abandonAll counts it as a takeP
	p.m.Store(v)
	p.status.Store(own(v.id, pSched))
	v.p.Store(p)
	p.stats.resumes.Add(1)
	syscallStep("handed to waiter")
	v.note.Wakeup()
	return true
}

// queueWaiter puts the exit token of a task back from a call that waits
// for a P at the tail of P p's ring, which the retaker holds (p is in
// pIdle, and w's call can no longer touch it), before it hands p off: the
// M that runs p's queued work resumes the waiter after it. The waiter's
// exitWait goes from exitWaiting to exitQueued, so that the next retake
// lines up another waiter; the token's copy in the global queue stays,
// and whichever copy runs first resumes it (claimExit).
func (e *Executor) queueWaiter(w *worker, p *proc) {
	if e.abandon.Load() != 0 {
		return
	}
	v := e.claimWaiter(exitWaiting, exitQueued)
	if v == nil {
		return
	}
	if spill := p.q.Put(&v.exitToken, p.spill[:0]); len(spill) != 0 {
		e.overflow(w, p, spill)
	}
	syscallStep("waiter queued behind the P's work")
}

// claimWaiter moves the first worker found whose exitWait is from to to,
// and returns it; nil if none.
func (e *Executor) claimWaiter(from, to uint32) *worker {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, x := range e.workers {
		if x.exitWait.Load() == from && x.exitWait.CompareAndSwap(from, to) {
			return x
		}
	}
	return nil
}

// exitWait's values besides 0 (not waiting, or claimed: a P is on its way).
const (
	exitWaiting = 1 // back from a call, waiting for a P; its token is in the global queue
	exitQueued  = 2 // the same, its token also in a retaken P's ring (queueWaiter)
)

// claimExit takes w's wait for a P after a call (exitWait to 0): whoever
// wins hands w a P (or, once stopped, wakes it); a copy of its token run
// later finds it taken and is dropped.
func (w *worker) claimExit() bool {
	for {
		x := w.exitWait.Load()
		if x == 0 {
			return false
		}
		if w.exitWait.CompareAndSwap(x, 0) {
			syscallStep("exit token claimed")
			return true
		}
	}
}

// retakeSyscall is sysmon's look at P p in pSyscall (status word s): it
// notes a new call (syscalltick moved), and retakes the P from a call that
// has lasted SyscallThreshold since sysmon first saw it while work waits
// for the P, or a whole Slice in any case (so that sysmon can sleep while
// nothing runs). overrun says the P's slice has run out (the call may be
// new, the P's holder is not): then the threshold does not apply. It
// reports whether it took the P. It mirrors retake's _Psyscall case.
//
// The runtime retakes after one tick also when no P is idle or spinning
// with nothing queued, and hands the P to a new spinning M; here sysmon
// waits until work is queued (its next round sees it), so a call alone
// makes no M.
func (e *Executor) retakeSyscall(p *proc, s uint64, now int64, overrun bool) bool {
	if tick := p.syscalltick.Load(); tick != p.seenCall {
		p.seenCall, p.seenCallWhen = tick, now
		syscallStep("new call seen")
		if !overrun {
			return false
		}
	}
	long := now - p.seenCallWhen
	if !overrun && long < int64(e.cfg.SyscallThreshold) {
		return false
	}
	if long < int64(e.cfg.Slice) && !e.waitsFor(p) {
		return false
	}
	w := p.m.Load()
	if w == nil || own(w.id, pSyscall) != s&holderMsk || p.syscalltick.Load() != p.seenCall {
		return false // the call ended (the CAS could not tell a new one)
	}
	if overrun {
		p.preempted.Store(1) // as the slice rule would have asked
	}
	return e.retake(w, p, s)
}

// waitsFor reports whether work waits that p could run if handed off: in
// p's own queue, or anywhere with no P idle to take it (an idle P is woken
// for queued work already: spinning's protocol).
func (e *Executor) waitsFor(p *proc) bool {
	return !p.q.Empty() || e.sched.NPIdle() == 0 && e.work()
}

// syscallHook, set only by tests before an executor starts, sees the
// steps whose order the seeded mutants SyscallTickAfterStatus and
// ExitWaitAfterToken swap, and the racy outcomes of a retake (the
// explorer's Reached, or a test playing sysmon or an M at that point).
var syscallHook func(step string)

// syscallStep reports step to syscallHook: one load of a nil func
// otherwise.
func syscallStep(step string) {
	if syscallHook != nil {
		syscallHook(step)
	}
}
