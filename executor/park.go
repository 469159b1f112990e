package executor

// Park and ready: a task that waits is paused, its P goes on with the next
// runnable task, and whoever unblocks it makes it runnable again in the
// waker's runnext. The runtime's gopark and goready (ready: runqput with
// next=true, then wakep); proofs/tla/ParkReady.tla models the protocol
// with these names.
//
// A task's stack is its worker's goroutine, so a parked task keeps its
// worker and gives away what makes the worker an M: its spinning.M and its
// P. They go on to a spare worker (a goroutine with no M, see spare), or
// straight to the worker whose resume token the P's queue gives next (the
// direct switch: a ping-pong through runnext costs one goroutine switch
// per wait). A parked task therefore costs a goroutine, not an M: Stats.Ms
// counts spinning.Ms, and does not grow with the tasks waiting.
//
// Each worker has a park word, its seq (one per Waker) and a state, the
// runtime's casgstatus states:
//
//	gRunning  -> gParking   Task.Waker (the task is about to publish its Waker)
//	gParking  -> gWaiting   Park's commit CAS, after the task let go of its P and M fields
//	gParking  -> gRunnable  a Ready that came first: Park's CAS fails and the task goes on
//	gWaiting  -> gRunnable  a Ready after the commit: it queues the resume token
//	gRunnable -> gRunning   the task runs again (resumed, or went on at once)
//
// No lost wakeup: a Ready either finds gParking, and the commit CAS then
// fails, or finds gWaiting and queues the token; the two CASes are on one
// word, so exactly one of them sees the other. Resumed at most once: only
// the CAS out of gWaiting queues a token, and a second Ready of one Waker
// finds gRunnable or gRunning (or a later seq) and panics. Never resumed
// before parked: the token is queued only after the commit, and the task
// detaches its P and M fields before the commit, so a resumer's writes to
// them (resume, handTo) come after the task's last use of them.

import "github.com/schedkit/schedkit/spinning"

const (
	gRunning uint64 = iota
	gParking
	gWaiting
	gRunnable

	gStateBits = 2
	gStateMask = 1<<gStateBits - 1
)

// Waker readies a task that parks with Task.Park: the task's side of the
// runtime's sudog.g. A Waker readies its park once; Ready a second time
// panics. The zero Waker is not valid.
type Waker struct {
	w   *worker
	seq uint64
}

// Waker starts a wait: it returns the Waker that readies the task's next
// Park. Publish it (on a wait queue, under that queue's lock), release the
// lock, then call Park: a Ready in between is not lost, and Park then
// returns at once. Every Waker must be followed by its Park. It panics if
// t is not running or already holds a Waker it has not parked with.
func (t Task) Waker() Waker {
	w := t.current()
	if w == nil {
		t.stale("Waker")
	}
	return waker(w)
}

// waker is Task.Waker for w's task.
func waker(w *worker) Waker {
	s := w.pk.Load()
	if s&gStateMask != gRunning {
		panic("executor: Task.Waker called twice without a Park between")
	}
	seq := s>>gStateBits + 1
	w.pk.Store(seq<<gStateBits | gParking)
	return Waker{w: w, seq: seq}
}

// unwaker ends the wait k started before its Waker was published: the
// task goes on without parking (a Wait that found its group done).
func unwaker(k Waker) { k.w.pk.Store(k.seq << gStateBits) }

// Park pauses the task until k.Ready: its P goes on with other tasks
// meanwhile, and the task resumes on whichever M runs its resume token,
// with its stack, holding a P. If k was readied already it returns at once,
// keeping its P. It mirrors gopark. It panics if t is not running or k is
// not the Waker of t's current wait.
func (t Task) Park(k Waker) {
	w := t.current()
	if w == nil {
		t.stale("Park")
	}
	if k.w != w || w.pk.Load()>>gStateBits != k.seq {
		panic("executor: Task.Park called with a Waker that is not the task's current one")
	}
	w.e.gopark(w, k.seq)
}

// Ready makes the task parked (or parking) with k runnable. Called by a
// task (by is its Task), the waiter goes to the runnext slot of by's P and
// runs next there, in by's slice; called from outside (by is the zero
// Task), or by a task with no P, it goes to the global queue. Either way an
// idle P is woken for it. It mirrors goready (ready: runqput next=true,
// wakep). It panics if k is the zero Waker or has readied its park already.
func (k Waker) Ready(by Task) {
	if k.w == nil {
		panic("executor: Waker.Ready called on the zero Waker")
	}
	if k.claim() {
		k.w.e.goready(by.current(), k.w)
	}
}

// claim is Ready's CAS on the park word: it reports whether the task had
// committed its park (gWaiting), and so whether the caller must queue its
// resume token; false means Park's commit will fail and the task goes on.
func (k Waker) claim() bool {
	w := k.w
	for {
		s := w.pk.Load()
		if s>>gStateBits != k.seq || s&gStateMask == gRunnable || s&gStateMask == gRunning {
			panic("executor: Waker.Ready called twice for one park")
		}
		if mutant == readyNoCAS {
			w.pk.Store(k.seq<<gStateBits | gRunnable)
			return true
		}
		if w.pk.CompareAndSwap(s, k.seq<<gStateBits|gRunnable) {
			// gParking: Park's commit fails and the task goes on.
			return s&gStateMask == gWaiting || mutant == readyEarlyQueuesToken
		}
	}
}

// gopark is Park for w, whose park word is seq's gParking.
func (e *Executor) gopark(w *worker, seq uint64) {
	parking, waiting := seq<<gStateBits|gParking, seq<<gStateBits|gWaiting
	p := w.p.Load()
	if p != nil && !e.claim(w, p, pSched) {
		p = nil // retaken meanwhile
	}
	if p == nil {
		// No P (retaken, in Blocking's f, past a Shutdown deadline): wait
		// keeping the P-less M, which the resumer takes in the pair swap.
		if !w.pk.CompareAndSwap(parking, waiting) {
			w.pk.Store(seq << gStateBits)
			return
		}
		e.parked.Add(1)
		e.taskParksNoP.Add(1)
		e.event(EventTaskPark, -1, w, 0)
		e.park(w)
		w.pk.Store(seq << gStateBits)
		return
	}
	sm := w.sm.Load()
	if mutant == parkChecksAfterPublish || mutant == handOnBeforeDetach {
		e.goparkMutant(w, seq, sm, p)
		return
	}
	w.sm.Store(nil)
	w.p.Store(nil)
	if !w.pk.CompareAndSwap(parking, waiting) {
		// Readied before the commit: go on with the P, no switch.
		w.sm.Store(sm)
		w.p.Store(p)
		e.goOn(w, seq, p)
		return
	}
	e.parkedOn(w, sm, p)
	w.baton.Take()
	w.pk.Store(seq << gStateBits)
	if w.p.Load() != nil { // none if woken after shutdown (drainStopped)
		if w.inherit {
			p := w.p.Load()
			e.event(EventReacquire, p.id, w, 0)
			w.taskOn(p)
		} else {
			e.startSlice(w)
		}
	}
}

// goOn ends a park readied before its commit: the task goes on with P p,
// which it holds in pSched, no switch.
func (e *Executor) goOn(w *worker, seq uint64, p *proc) {
	w.pk.Store(seq << gStateBits)
	p.stats.earlyReadies.Add(1)
	w.taskOn(p)
}

// parkedOn counts w's committed park on p and hands p and sm on.
func (e *Executor) parkedOn(w *worker, sm *spinning.M, p *proc) {
	e.parked.Add(1)
	p.stats.taskParks.Add(1)
	e.event(EventTaskPark, p.id, w, 0)
	e.handOn(w, sm, p)
}

// handOn gives P p, held by w in pSched, and spinning.M sm, which w has let
// go of, to the worker that goes on with p's work: the parked task whose
// resume token p's queue gives next (the direct switch), or else a spare,
// handed the task p's queue gave (if any) to run first. It mirrors the
// schedule call at the end of park_m.
func (e *Executor) handOn(w *worker, sm *spinning.M, p *proc) {
	t, inherit := e.localGet(w, p)
	if t != nil && t.w != nil && t == &t.w.token && t.w.sm.Load() == nil && mutant != noDirectSwitch {
		p.stats.directSwitches.Add(1)
		e.handTo(t.w, sm, p, inherit, false)
		return
	}
	y, fresh := e.spareGet()
	y.first, y.firstInherit = t, inherit
	e.handTo(y, sm, p, false, fresh)
}

// handTo makes y, which holds no M and no P, the holder of p (in pSched)
// with M sm, and wakes it. inherit says whether a resumed task goes on in
// the slice of the task that readied it (its token came from runnext). A
// fresh y has no goroutine yet: it starts one, which finds the P it was
// handed.
func (e *Executor) handTo(y *worker, sm *spinning.M, p *proc, inherit, fresh bool) {
	y.sm.Store(sm)
	p.m.Store(y)
	p.status.Store(own(y.id, pSched))
	y.p.Store(p)
	y.inherit = inherit
	if fresh {
		e.live.Add(1)
		e.goStart(func() { e.mstart(y, true) })
		return
	}
	y.baton.Give()
}

// goready queues w's resume token for a Ready by x (nil: not a task of e):
// in the runnext slot of x's P if x's task holds it (the CAS to pSpawn, as
// a spawn), else in the global queue, and wakes a P for it.
func (e *Executor) goready(x *worker, w *worker) {
	tok := &w.token
	if x != nil && x.e == e && !e.gqOnly && mutant != readySkipsRunnext {
		if p := x.p.Load(); p != nil && p.status.CompareAndSwap(x.word(pTask), x.word(pSpawn)) {
			if spill := p.q.PutNext(tok, p.spill[:0]); len(spill) != 0 {
				e.overflow(x, p, spill)
			}
			p.stats.taskReadies.Add(1)
			p.status.Store(x.word(pTask))
			e.parked.Add(-1) // after the put: Close's quiescence sees one or the other
			e.wakeQueued()
			return
		}
	}
	e.global.Put(tok)
	e.outsideReadies.Add(1)
	e.parked.Add(-1)
	e.sched.Wakep()
}

// spareCap is how many spare workers wait for a parked task's P at most;
// a worker that becomes spare beyond it ends its goroutine.
func (e *Executor) spareCap() int { return 2*e.liveProcs() + 2 }

// spareGet returns a spare worker to hand a P to: one that waits in spare,
// else a fresh one, with no goroutine yet (a worker record of an ended
// spare reused). The caller hands it a P and wakes or starts it (handTo).
func (e *Executor) spareGet() (y *worker, fresh bool) {
	e.spareMu.Lock()
	if n := len(e.spares); n > 0 {
		y := e.spares[n-1]
		e.spares[n-1] = nil
		e.spares = e.spares[:n-1]
		e.spareMu.Unlock()
		return y, false
	}
	if n := len(e.dead); n > 0 {
		y = e.dead[n-1]
		e.dead[n-1] = nil
		e.dead = e.dead[:n-1]
	}
	e.spareMu.Unlock()
	if y == nil {
		y = e.newWorker()
	}
	return y, true
}

// spare is a worker with no M (it resumed a parked task, which took its M
// and P): it waits until a parking task hands it both, and returns true,
// or returns false to end its goroutine (the executor stopped, or enough
// spares wait already).
func (e *Executor) spare(w *worker) bool {
	e.event(EventSpare, -1, w, 0)
	e.spareMu.Lock()
	if e.stopped.Load() != 0 || len(e.spares) >= e.spareCap() {
		e.spareMu.Unlock()
		w.retire = true // mexit lists the record for reuse once the goroutine is done with it
		return false
	}
	e.spares = append(e.spares, w)
	e.spareMu.Unlock()
	w.baton.Take()
	return w.sm.Load() != nil
}

// retired lists w, whose goroutine is ending as a spare, for spareGet to
// reuse.
func (e *Executor) retired(w *worker) {
	w.retire = false
	e.spareMu.Lock()
	e.dead = append(e.dead, w)
	e.spareMu.Unlock()
}

// awaitSpares waits until n spares are listed: the explorer's scenarios,
// whose spares are threads started before the run, call it before a task
// parks (a park that found none would start a goroutine the explorer does
// not run).
func (e *Executor) awaitSpares(n int) {
	for {
		e.spareMu.Lock()
		k := len(e.spares)
		e.spareMu.Unlock()
		if k >= n {
			return
		}
		awaitSpawn()
	}
}

// wakeSpares ends every waiting spare: stop's.
func (e *Executor) wakeSpares() {
	e.spareMu.Lock()
	ss := e.spares
	e.spares = nil
	e.spareMu.Unlock()
	for _, y := range ss {
		y.baton.Give()
	}
}

// goparkMutant is gopark's commit as the seeded faults ParkChecksAfterPublish
// (the P is handed on, then Waiting is stored without a CAS: a Ready in
// between set Runnable and queued nothing, and the task sleeps for ever)
// and HandOnBeforeDetach (the commit, then the P handed on, then the
// worker's fields cleared: a resume in between wrote them, and the task
// wakes with no P and no M) make it.
func (e *Executor) goparkMutant(w *worker, seq uint64, sm *spinning.M, p *proc) {
	parking, waiting := seq<<gStateBits|gParking, seq<<gStateBits|gWaiting
	if mutant == parkChecksAfterPublish {
		w.sm.Store(nil)
		w.p.Store(nil)
		e.parkedOn(w, sm, p)
		w.pk.Store(waiting)
	} else {
		if !w.pk.CompareAndSwap(parking, waiting) {
			e.goOn(w, seq, p)
			return
		}
		e.parkedOn(w, sm, p)
		w.sm.Store(nil)
		w.p.Store(nil)
	}
	w.baton.Take()
	w.pk.Store(seq << gStateBits)
	if w.p.Load() != nil {
		e.startSlice(w)
	}
}
