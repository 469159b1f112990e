package executor

import (
	"runtime"
	"runtime/trace"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/lfq"
)

// abandonPoll is how often Shutdown, past its deadline, looks whether the
// queues have been emptied.
const abandonPoll = 100 * time.Microsecond

// mstart is a worker goroutine: it parks until handed a P, then runs the
// schedule loop until the executor shuts down. With held set it continues
// an M whose previous goroutine ended in runtime.Goexit. It mirrors mstart.
func (e *Executor) mstart(w *worker, held bool) {
	w.gid.Store(goid())
	defer e.mexit(w)
	if !held {
		e.parking(w, nil)
		if !e.stopm(w) {
			return
		}
		e.unparked(w, nil)
	}
	e.schedule(w)
}

// mexit ends a worker goroutine. If a task called runtime.Goexit, the
// goroutine ends but the M does not: it continues on a new goroutine, so a
// task can never take an M (or its P) with it. A task run inline by a Wait
// runs on a helper (group.go), whose goroutine its Goexit ends instead.
func (e *Executor) mexit(w *worker) {
	if w.goexit {
		w.goexit = false
		w.nest = 0 // the Goexit unwound every Wait on the goroutine (GoexitUnwindsWaiter)
		e.goStart(func() { e.mstart(w, true) })
		return
	}
	w.stopHelpers()
	if w.retire {
		e.retired(w)
	}
	e.goroutineExit()
}

// schedule is the M loop: find a task, run it, again; it returns when the
// executor has shut down. An M whose P was taken while its task ran (or
// that handed its P to a waiting task) first takes an idle P or parks, in
// exitsyscall's order. It mirrors schedule, with the M's lost P handled as
// exitsyscall does.
func (e *Executor) schedule(w *worker) {
	for {
		if w.p.Load() == nil {
			if w.sm.Load() == nil { // it resumed a parked task, which took its M
				if !e.spare(w) {
					return
				}
			} else if !e.exitP(w) {
				return
			}
		}
		if t := w.first; t != nil { // handed with the P by a parking task (handOn)
			w.first = nil
			e.execute(w, t, w.firstInherit)
			continue
		}
		t, inherit := e.findRunnable(w)
		if t == nil {
			return
		}
		e.execute(w, t, inherit)
		if w.ticks++; w.ticks%yieldEvery == 0 && mutant != noYield {
			runtime.Gosched()
		} else if w.ticks%kickEvery == 0 {
			e.kickSysmon() // a call's retake waits for a late sysmon?
		}
	}
}

// yieldEvery is how many tasks an M runs between calls to runtime.Gosched.
// An M is a goroutine, and sysmon, a handoff's new M and a readied
// waiter are goroutines too: with as many Ps as GOMAXPROCS, every Go P
// runs an M that never blocks while tasks are queued, so those goroutines
// wait for the Go runtime's own preemption (forcePreemptNS, 10 ms) before
// they run, and a slice overran by several times (5 to 8 slices measured
// in bench's pingpong). Yielding every 64 tasks lets them in within 64
// short tasks; its cost was lost in the noise of BenchmarkLocalSpawn (157
// to 192 ns a task with it, 165 to 215 without, three alternating runs on
// 2 vCPUs). A task that computes for long is preempted by the runtime as
// any goroutine.
const yieldEvery = 64

// exitP gets a P for an M that has none: an idle one, else it parks until
// handed one. It returns false if the executor shut down. It mirrors
// exitsyscall's pidleget and exitsyscall0's stopm.
func (e *Executor) exitP(w *worker) bool {
	if w.sm.Load().AcquireP() {
		e.takeP(w)
		return true
	}
	e.parking(w, nil)
	if !e.stopm(w) {
		return false
	}
	e.unparked(w, nil)
	return true
}

// takeP makes w the holder of the P its spinning.M was just given: out of
// the idle mask, holder recorded before the status word names it (sysmon
// reads them in the other order). It mirrors acquirep. It is the only way
// out of pIdle, and counts it in p.takes (abandonAll relies on both).
func (e *Executor) takeP(w *worker) {
	p := e.allPs()[w.sm.Load().P()]
	p.takes.Add(1)
	e.idle.Clear(p.id)
	p.m.Store(w)
	p.status.Store(own(w.id, pSched))
	w.p.Store(p)
	e.wakeSysmon()
}

// findRunnable returns the next task for w, which holds a P in pSched, and
// whether it inherits the current slice; nil once the executor has shut
// down. The order is the runtime's: every 61st tick one task from the
// global queue; the P's runnext, then its ring; a batch from the global
// queue; stealing (four passes, runnext on the last) if the spinning rule
// lets the M spin; then give up the P, drop spinning and re-check every
// queue, and park. It mirrors findRunnable and stopm.
func (e *Executor) findRunnable(w *worker) (*task, bool) {
	for {
		p := w.p.Load()
		if p.dying.Load() != 0 { // SetProcs takes p away (resize.go)
			if !e.leaveDying(w, p) {
				return nil, false
			}
			continue
		}
		e.checkTimers(w, p)
		if e.gqOnly {
			if t := e.globalGet(p); t != nil {
				p.stats.globalGets.Add(1)
				return t, false
			}
		} else {
			if mutant != noFairnessTick && fairnessTick(p.schedtick.Load()) {
				if t := e.globalGet(p); t != nil {
					p.stats.globalGets.Add(1)
					return t, false
				}
			}
			if t, inherit := e.localGet(w, p); t != nil {
				return t, inherit
			}
			if t := e.globalBatch(w, p); t != nil {
				if !t.take() {
					e.release(p, t)
					continue // the rest of the batch is in the ring
				}
				return t, false
			}
		}
		if e.pollIdle(w, p) {
			continue // what it readied is in p's queue (netpoll(0) before stealing)
		}
		wasSpinning := w.sm.Load().Spinning()
		if w.sm.Load().BecomeSpinning() {
			if !wasSpinning {
				e.spinStarted(w, p)
			}
			if e.stealTimers(w, p) {
				continue // what they readied is in p's queue
			}
			if !e.gqOnly {
				if t, retry := e.steal(w, p); t != nil {
					return t, false
				} else if retry {
					continue // the rest of the steal is in the ring
				}
			}
		}
		// Nothing: give the P back and park (releasep, pidleput, the
		// drop-and-recheck, stopm). The P's queue is empty, so it may be
		// marked idle for thieves before the Sched has it.
		e.idle.Set(p.id)
		p.m.Store(nil)
		p.status.Store(pIdle)
		w.p.Store(nil)
		if p.timers.Next() != 0 {
			e.wakeSysmonTimer() // nobody holds p to run them: sysmon's round must end by them
		}
		if !w.sm.Load().ReleaseP() { // needspinning: spin instead
			e.takeP(w)
			e.spinStarted(w, w.p.Load())
			continue
		}
		if w.sm.Load().Spinning() {
			p.stats.spinStops.Add(1)
			e.event(EventSpinStop, p.id, w, 0)
		}
		if w.sm.Load().DropSpinning() { // work appeared
			e.takeP(w)
			e.spinStarted(w, w.p.Load()) // on the P it took, maybe not p
			continue
		}
		if e.mPoll(w) {
			continue // it holds a P, with what the poll readied in its queue
		}
		e.wakeIdleSysmon() // the last P idle with tasks waiting for I/O: sysmon to its blocking poll
		e.parking(w, p)
		if !e.stopm(w) {
			return nil, false
		}
		e.unparked(w, p)
	}
}

// localGet is the P's runnext, then its ring, skipping records a Wait
// has run inline. Holder only (pSched). After sysmon asked for the slice
// to end (an overrun seen between tasks, or a retake) the runnext task
// goes to the global queue's tail first: a ping-pong through runnext would
// otherwise go on inheriting the slice, ahead of every queued task, local
// or global. With nothing queued behind it, it just starts a new slice.
// It mirrors preemption, where gopreempt_m puts the overrunning goroutine
// on the global queue, so the next pick is the ring's head, then the
// global tasks queued before it.
func (e *Executor) localGet(w *worker, p *proc) (*task, bool) {
	for {
		t, fromNext := p.q.Get()
		if t == nil {
			return nil, false
		}
		inherit := fromNext
		if p.preempted.Load() != 0 { // the first get since sysmon's request
			p.preempted.Store(0)
			if inherit && mutant != preemptKeepsNext {
				if p.q.Empty() && e.global.Empty() {
					inherit = false // nothing waits behind it: a new slice
				} else {
					p.stats.preempts.Add(1)
					e.global.Put(t)
					if mutant != preemptRequeueNoWake {
						e.wakeQueued() // as for any queued task: no P idles beside it
					}
					continue
				}
			}
		}
		if !t.take() {
			e.release(p, t)
			continue
		}
		if fromNext { // a runnext hit, whether or not it inherits the slice
			p.stats.runnext.Add(1)
			if (t.w != nil || !inherit) && mutant != tokenCountedAsTask { // not a task that inherits: see procStats
				p.stats.nextOther.Add(1)
			}
		} else {
			p.stats.ringGets.Add(1)
		}
		return t, inherit
	}
}

// globalGet is one task from the global queue, skipping records a Wait
// has run inline.
func (e *Executor) globalGet(p *proc) *task {
	for {
		t := e.global.Get()
		if t == nil || t.take() {
			return t
		}
		e.release(p, t)
	}
}

// globalBatch takes the P's share of the global queue: one task to run and
// up to lfq.Size/2-1 more for its ring, which is empty (its Get just
// failed and only the holder puts). It mirrors globrunqgetbatch as
// findRunnable calls it.
func (e *Executor) globalBatch(w *worker, p *proc) *task {
	if e.global.Empty() {
		return nil
	}
	t, rest := e.global.GetBatch(lfq.Size/2, e.liveProcs(), p.batch[:0])
	if t == nil {
		return nil
	}
	if len(rest) > 0 {
		if n := p.q.PutBatch(rest); n != len(rest) {
			panic("executor: a global batch did not fit an empty ring")
		}
		clear(rest)
	}
	p.stats.globalBatches.Add(1)
	p.stats.globalBatchTasks.Add(uint64(len(rest) + 1))
	e.event(EventGlobalBatch, p.id, w, len(rest)+1)
	return t
}

// execute runs t on w, which holds its P in pSched, and returns with w
// holding a P in pSched again, or none (the task lost it, or handed it to a
// waiting task). A resume token hands the P to the task waiting for it. A
// task that does not inherit the slice starts a new one (schedtick). It
// mirrors execute.
func (e *Executor) execute(w *worker, t *task, inherit bool) {
	p := w.p.Load()
	if sm := w.sm.Load(); sm.Spinning() { // found work: resetspinning (which may wake another)
		sm.ResetSpinning()
		p.stats.spinStops.Add(1)
		e.event(EventSpinStop, p.id, w, 0)
	}
	if t.w != nil {
		if t != &t.w.exitToken || t.w.claimExit() {
			e.resume(w, p, t.w, inherit)
		} // else a retake handed its task a P already (handToWaiter)
		return
	}
	fn, gfn, g, at, bound := t.fn, t.gfn, t.g, t.at, t.bound
	e.release(p, t)
	if bound { // taken to run (or to drop): its room under MaxQueued is free
		e.unqueue(1)
	}
	if !inherit { // a task that inherits counts as a runnext hit (procStats)
		p.schedtick.Add(1)
		p.stats.tasks.Add(1)
	}
	if at != 0 {
		p.stats.latency.record(atomicx.Nanotime() - at)
	}
	if e.abandon.Load() != 0 {
		e.dropped.Add(1)
		if g != nil {
			g.finish(ErrAbandoned, w)
		}
		return
	}
	// The task's start: its generation in the pTask word, one store, in
	// place of w.cur's (issue 25; proofs/tla/TaskGen.tla's Start).
	w.gen = (w.gen + 1) & genMask
	if w.gen == 0 {
		w.gen = 1
	}
	gen := w.gen
	prev := w.top
	w.top = gen
	if w.cur.Load() != 0 { // an outer task that ran without a P (a plain load)
		w.cur.Store(0)
	}
	if tr := trace.IsEnabled(); tr || e.cfg.TaskEvents { // once per task; trace.go
		tt := e.taskStart(w, p, Task{w: w, gen: gen}, inherit, tr)
		p.status.Store(w.word(pTask))
		e.runTraced(w, Task{w: w, gen: gen}, fn, gfn, g, prev, tt)
		return
	}
	p.status.Store(w.word(pTask))
	e.run(w, Task{w: w, gen: gen}, fn, gfn, g, prev)
}

// run calls the task's func and, when it returns, panics or calls
// runtime.Goexit, takes the P back for scheduler work and ends the task: a
// panic goes to its group or the handler, a group task's result to its
// group. It mirrors the end of a goroutine (goexit0), with recover.
func (e *Executor) run(w *worker, t Task, fn func(Task), gfn func(Task) error, g *Group, prev uint64) {
	returned := false
	var err error
	defer func() {
		if !returned {
			pe := recovered(recover())
			if pe.Goexit {
				w.goexit = true
			}
			// A stolen Join side's Goexit is counted once, when Join
			// calls Goexit on its joiner's task (join.go).
			if !pe.Goexit || g == nil || g.jw == nil {
				if p := w.p.Load(); p != nil {
					p.stats.panics.Add(1)
				}
				e.event(EventPanic, -1, w, 0)
			}
			if g != nil {
				err = pe
			} else {
				e.report(pe)
			}
		}
		// The task's end: one CAS from its pTask word (claim), in place
		// of w.cur's store; if the P was retaken, claim leaves w.cur
		// naming the outer task, prev, which goes on without a P.
		if p := w.p.Load(); p == nil || !e.claim(w, p, pSched) {
			w.endWithoutP(prev)
		}
		w.top = prev
		if g != nil {
			g.finish(err, w)
		}
	}()
	if gfn != nil {
		err = gfn(t)
	} else {
		fn(t)
	}
	returned = true
}

// claim moves w's P from pTask (or pSyscall, from inside Syscall's f) to
// st (pSched to use the queue, pIdle to give the P away), waiting out a
// spawn that holds it; pSched counts as claimed already. It returns false
// if the P was retaken: then w holds none, and w's spinning.M is w's own
// again (no retaker is using it).
func (e *Executor) claim(w *worker, p *proc, st uint64) bool {
	me := w.word(pTask)
	to := pIdle
	if st == pSched {
		to = own(w.id, pSched)
	}
	for {
		if p.status.CompareAndSwap(me, to) {
			return true
		}
		switch p.status.Load() {
		case w.word(pSpawn):
			awaitSpawn()
			continue
		case w.word(pSyscall):
			// The task ended (a panic, a Goexit) or gives its P away
			// (Blocking, Yield, a Wait) inside Syscall's f.
			if p.status.CompareAndSwap(w.word(pSyscall), to) {
				return true
			}
			continue
		case own(w.id, pSched):
			if st == pSched {
				return true
			}
			p.status.Store(w.word(pTask))
			continue
		}
		for w.lent.Load() != 0 {
			awaitSpawn()
		}
		w.p.Store(nil)
		return false
	}
}

// endWithoutP ends w's innermost task, which holds no P, once no retaker
// can still write w.cur (lent is zero): w.cur names the outer task prev,
// which goes on without a P, or none (TaskGen.tla's EndSlow).
func (w *worker) endWithoutP(prev uint64) {
	for w.lent.Load() != 0 {
		awaitSpawn()
	}
	w.cur.Store(prev)
}

// awaitSpawn lets another goroutine finish a few atomic operations it
// holds the P for (a spawn, or a retaker's handoff). A 1ns sleep, as
// runnext's awaitOwner: on the explorer's clock it lets the holder run.
func awaitSpawn() { atomicx.Sleep(time.Nanosecond) }

// resume hands x's P, with x's spinning.M, to the worker w whose task waits
// for one, takes w's (P-less) spinning.M in exchange and wakes w; x then
// holds no P. It is the counterpart of reacquire's wait, and mirrors
// execute of a goroutine that exitsyscall0 or Gosched put on the global
// queue.
func (e *Executor) resume(x *worker, p *proc, w *worker, inherit bool) {
	xm, wm := x.sm.Load(), w.sm.Load()
	w.inherit = inherit
	x.sm.Store(wm)
	w.sm.Store(xm)
	p.m.Store(w)
	p.status.Store(own(w.id, pSched))
	w.p.Store(p)
	x.p.Store(nil)
	p.stats.resumes.Add(1)
	if wm == nil {
		w.baton.Give() // a task parked with its P (park.go) sleeps on its baton
		return
	}
	w.note.Wakeup()
}

// giveUpP hands w's P to another M (or makes it idle) before w's task
// blocks or waits: the runtime's entersyscallblock and handoffp. If the P
// was already retaken there is nothing to give.
func (e *Executor) giveUpP(w *worker) {
	p := w.p.Load()
	if p == nil {
		return
	}
	w.cur.Store(w.top) // the task runs without a P from here (TaskGen.tla's GiveUp1)
	if !e.claim(w, p, pIdle) {
		return
	}
	p.m.Store(nil)
	w.p.Store(nil)
	p.stats.handoffs.Add(1)
	e.event(EventHandoff, p.id, w, 0)
	w.sm.Load().HandoffP()
}

// reacquire gets a P for w's task, which holds none (after Blocking, or
// with its P retaken): an idle one, else it queues w's resume token on the
// global queue and parks until an M runs it. It mirrors exitsyscall
// (exitsyscallfast's pidleget, then exitsyscall0's globrunqput and park).
// After shutdown the task goes on without a P.
func (e *Executor) reacquire(w *worker) {
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
	e.waitP(w)
}

// waitP queues w's resume token and parks until an M runs it and hands w a
// P (resume). Gosched and exitsyscall0 put the goroutine on the global
// queue the same way.
func (e *Executor) waitP(w *worker) {
	e.global.Put(&w.token)
	e.sched.Wakep()
	e.park(w)
}

// park sleeps until resume has handed w a P, then starts w's slice. A
// worker with no M sleeps on its baton, as resume wakes it (park.go).
func (e *Executor) park(w *worker) {
	if w.sm.Load() == nil {
		w.baton.Take()
	} else {
		w.note.Sleep()
		w.note.Clear()
	}
	if w.p.Load() != nil { // none if released after shutdown (drainStopped)
		e.startSlice(w)
	}
}

// startSlice puts w's task back on the P it just got: a new slice, and the
// P in pTask.
func (e *Executor) startSlice(w *worker) {
	p := w.p.Load()
	p.schedtick.Add(1)
	e.event(EventReacquire, p.id, w, 0)
	w.taskOn(p)
}

// ready makes the task waiting on wt runnable: an outside waiter is woken;
// a task's resume token goes to x's runnext if x holds a P (the waiter runs
// next on it, as ready puts a woken goroutine in runnext), else to the
// global queue. x holds its P in pSched, or none.
func (e *Executor) ready(x *worker, wt *waiter) {
	if wt.w == nil {
		wt.note.Wakeup()
		return
	}
	parked := wt.k.w != nil // a Wait's park (park.go); a Join's sleep keeps its M
	if parked && !wt.k.claim() {
		return // readied before its park's commit: it goes on at once
	}
	tok := &wt.w.token
	if x != nil && !e.gqOnly {
		if p := x.p.Load(); p != nil {
			if spill := p.q.PutNext(tok, p.spill[:0]); len(spill) != 0 {
				e.overflow(x, p, spill)
			}
			if parked {
				e.parked.Add(-1) // after the put, as goready
			}
			e.wakeQueued()
			return
		}
	}
	e.global.Put(tok)
	if parked {
		e.parked.Add(-1)
	}
	e.sched.Wakep()
}

// overflow moves a full ring's older half (and the task that did not fit)
// to the global queue in one batch: runqputslow's globrunqputbatch.
func (e *Executor) overflow(w *worker, p *proc, spill []*task) {
	e.global.PutBatch(spill)
	clear(spill)
	p.stats.overflows.Add(1)
	e.event(EventOverflow, p.id, w, len(spill))
}

// wakeQueued wakes an M for work the caller put in its own P's queue (or
// the global queue from the preempt path) unless an M spins, which will
// find it: newproc's and ready's wakep. With no P idle Wakep asks for a
// spinner (needspinning), so that an M about to give its P up without
// spinning, having looked before the put, spins and steals the work
// instead of leaving it behind the caller's task with its P idle
// (golang/go#45867; conserve_test.go's spawnneed).
//
// A request already pending with no P idle is enough: Wakep would only
// set needspinning again. The loads come after the put, and needspinning
// is cleared only by an M that starts spinning (so it looks after the
// put), while a P that goes idle later either goes to a spinner because
// of the request (ReleaseP, HandoffP) or is released by a spinner, whose
// drop-and-recheck comes after the release and so after the put. The
// runtime's wakep takes sched.lock each time here; a chain of spawns with
// every P busy paid that lock per task (BenchmarkChain, 1 and 2 Ps).
func (e *Executor) wakeQueued() {
	if mutant == localWakesOnlyIdle {
		e.wakeIfIdle()
		return
	}
	s := e.sched
	if s.NMSpinning() != 0 || s.NeedSpinning() && (s.NPIdle() == 0 || mutant == wakeSkipsOnRequest) {
		return
	}
	s.Wakep()
}

// wakeIfIdle is Wakep only if a P is idle and no M spins, which is how the
// local puts woke until issue 22 (the runtime's wakep before the fix of
// golang/go#45867 returned when npidle was 0): the seeded fault
// SubmitWakesOnlyIdle uses it for outside submits.
func (e *Executor) wakeIfIdle() {
	if e.sched.NPIdle() != 0 && e.sched.NMSpinning() == 0 {
		e.sched.Wakep()
	}
}

// retake takes P p, which worker w holds in state s (pTask or pSyscall),
// from under w's task and hands it to another M: sysmon's retake and
// handoffp. w's spinning.M is the retaker's to use until lent drops back.
// It reports whether it took the P. A task past its slice leaves the
// preempt request up (a call in pSyscall is retaken for its own reason).
func (e *Executor) retake(w *worker, p *proc, s uint64) bool {
	w.lent.Add(1)
	if !p.status.CompareAndSwap(s, pIdle) {
		w.lent.Add(-1)
		return false
	}
	if mutant != retakeNoCur {
		// The task goes on without its P: w.cur names it from now,
		// published before lent drops (TaskGen.tla's SPub).
		w.cur.Store(genOf(s))
	}
	if s&stateMask == pTask {
		p.preempted.Store(1)
	}
	p.m.Store(nil)
	if mutant == retakeCountedAsHandoff {
		p.stats.handoffs.Add(1)
	} else {
		p.stats.retakes.Add(1)
	}
	e.event(EventRetake, p.id, w, 0)
	switch {
	case p.dying.Load() != 0:
		w.sm.Load().DropP() // SetProcs takes p away (resize.go): it moves p's queue
	case s&stateMask != pSyscall || !e.retakeServes(w, p):
		w.sm.Load().HandoffP()
	}
	w.lent.Add(-1)
	return true
}

// steal runs stealWork's passes for p and counts what it took. It returns
// the task to run, or nil with retry set when the task it took was a group
// child that its Wait already ran (dropped here): the rest of the steal is
// in p's ring, so the caller looks there again.
func (e *Executor) steal(w *worker, p *proc) (t *task, retry bool) {
	st := e.resizer.stealer.Load()
	if p.id >= st.Len() {
		return nil, false // p is being taken away (resize.go): no thief
	}
	t = st.Steal(p.id, w.rng)
	if t == nil {
		return nil, false
	}
	n := p.q.Len() + 1
	p.stats.steals.Add(1)
	p.stats.stolen.Add(uint64(n))
	e.event(EventSteal, p.id, w, n)
	if !t.take() {
		e.release(p, t)
		return nil, true
	}
	return t, false
}
