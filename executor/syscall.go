package executor

// The optimistic system-call path (the runtime's entersyscall and
// exitsyscall): a call keeps its P in pSyscall, and only sysmon hands the
// P off, if the call is still in progress after Config.SyscallThreshold
// while work waits (retakeSyscall). Task.Blocking is the pessimistic path
// (entersyscallblock): it hands the P off before the call.

// Syscall runs f, a call that may block but usually returns soon (a read of
// a small file, a lock held briefly, a system call that seldom waits),
// keeping the task's P meanwhile: a call that returns within
// Config.SyscallThreshold (20µs by default) costs no handoff and no M.
// If the call is still in progress after the threshold while work waits
// for the P (in its queue, or elsewhere with no P idle), or after a whole
// Slice in any case, sysmon hands the P to another M, as the runtime's
// retake does with a P in a system call. When f returns the task takes its
// P back if it is still there, else an idle P, else it waits in the global
// queue for one, as after Blocking, and never runs beside Procs other tasks.
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
	me := own(w.id, pTask)
	for {
		switch p.status.Load() {
		case me:
			p.syscalltick.Store(p.syscalltick.Load() + 1)
			if p.status.CompareAndSwap(me, own(w.id, pSyscall)) {
				e.wakeSysmonForCall()
				return p, false
			}
			continue // retaken since the load: the next look says so
		case own(w.id, pSyscall):
			return nil, true
		case own(w.id, pSpawn):
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
		p.status.Store(own(w.id, pTask))
		return
	}
	if p.status.CompareAndSwap(own(w.id, pSyscall), own(w.id, pTask)) {
		return // the fast path: still ours
	}
	if q := w.p.Load(); q != nil && q.status.Load() == own(w.id, pTask) {
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
// retake of a call's P (handToWaiter), whichever comes first. A waiting
// task pins its M (its goroutine is the M's), where the runtime's pins
// none: served only from the queue's tail, behind a batch of outside tasks,
// the tasks back from calls piled up and every retake started an M (one
// per call in a mixed workload). The retake that gives the P of a call
// that still blocks to a task back from one keeps the Ms near the calls
// blocked at once. It mirrors exitsyscall0 (pidleget, else globrunqput
// and stopm).
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
	w.exitWait.Store(1) // before the token is out: its taker claims it
	e.global.Put(&w.exitToken)
	e.sched.Wakep()
	e.park(w)
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
	var v *worker
	e.mu.Lock()
	for _, x := range e.workers {
		if x.exitWait.Load() != 0 && x.exitWait.CompareAndSwap(1, 0) {
			v = x
			break
		}
	}
	e.mu.Unlock()
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
	v.note.Wakeup()
	return true
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
func (e *Executor) retakeSyscall(p *proc, s uint32, now int64, overrun bool) bool {
	if tick := p.syscalltick.Load(); tick != p.seenCall {
		p.seenCall, p.seenCallWhen = tick, now
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
	if w == nil || own(w.id, pSyscall) != s || p.syscalltick.Load() != p.seenCall {
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
