package executor

import "runtime"

// Task.Join is Rayon's join on the executor's queues: b goes to the tail of
// the P's ring, where an idle M may steal it at once (Cilk's work-first
// rule: the continuation is stealable, the caller goes on with a), a runs
// at once on the calling task, and then b is taken back and run inline
// unless a thief took it first; then the Join helps with queued work (or
// sleeps) until the thief's run of b has finished. No runtime function does
// this: it is newproc's runqput(next=false) for b, a plain call for a, and
// for the take-back the claim word a group's child has (group.go), so a
// record reachable from a queue and from its joiner runs once.
//
// b goes to the ring, not the runnext slot: a thief takes the ring's head,
// the oldest b, which is the biggest subtree of a recursive Join, without
// waiting out the steal delay, and the slot stays for what a or b spawns
// and for readied tasks. A b in runnext moved to the ring anyway when the
// next Join pushed (PutNext's displace), so the ring held the same b sides,
// for one more put. The take-back is only the claim: the record stays in
// the ring, dead, until a get, a steal or joinOverflow drops it.
//
// A Join's state is a Group that only the Join sees (finish ends a stolen
// b through it, as it ends a group's child): no handle escapes, so the M
// keeps it on its free list (worker.joins) and reuses it once the Join has
// returned, and a Join costs no allocation. Groups made by NewGroup are not
// reused: a user may hold a *Group after its Wait (Wait again, which must
// return the same error; Go, which must panic), and a pointer carries no
// generation that could tell the old group from the new.

// joinTickEvery is how many Joins of an M move its P's schedtick, so that a
// task that joins for long (the root of a tree runs as long as the tree) is
// not taken for a task past its slice and retaken while it works through
// its own tree with work queued behind it: each b it takes back is a task
// run inline. One in 16 costs a sixteenth of an atomic add per Join; with
// Joins of 50 ns that is a new slice every microsecond, where the slice is
// 10 ms.
const joinTickEvery = 16

// jstate of a join's Group.
const (
	joinPending uint32 = iota // b not finished (or taken back inline: finish never comes)
	joinParked                // the joiner sleeps until finish readies it
	joinDone                  // a thief's run of b finished; err is b's
)

// Join runs a and b and returns when both have returned: a on the calling
// task itself, and b either right after a on the calling task too, or, if
// an idle M stole it meanwhile, on that M, in parallel with a. It is
// Rayon's join: a binary fork-join with no group to make, and, when no
// thief comes, no queue trip either (b is claimed back where it waits in
// the P's ring, and run inline). While a thief runs b the Join runs other queued tasks, or hands
// its P away and sleeps, as Group.Wait does.
//
// Both funcs get a Task to spawn and join from: t itself when they run on
// the calling task, b its own when it was stolen. A panic in a or b is
// recovered and returned, as a *PanicError, once both have finished (a's
// if both panicked), as Group.Wait returns a child's. Unlike a group's
// child, a and b are calls of the calling task: runtime.Goexit in either
// ends the calling task (after the other side has finished), as it would
// in any function the task calls; b stolen by a thief and calling Goexit
// ends b only, and Join then calls runtime.Goexit too. A task whose P was
// taken (or that is in Task.Syscall's f) runs a, then b. Past a Shutdown
// deadline a b still queued is dropped and Join returns ErrAbandoned.
//
// Against Group: use Join for two-way divide and conquer (a node per
// call), a Group for any number of children, errors, a context, or a Wait
// called elsewhere than where the children were started.
//
// Join panics if a or b is nil, or if t is the zero Task or its task has
// returned.
func (t Task) Join(a, b func(Task)) (err error) {
	if a == nil || b == nil {
		panic("executor: Task.Join called with a nil func")
	}
	w := t.current()
	if w == nil {
		t.stale("Join")
	}
	e := w.e
	r, j, p := e.joinPush(w, b)
	if r == nil {
		return joinSeq(t, a, b)
	}
	returned := false
	defer func() {
		if returned {
			return
		}
		// a panicked or called runtime.Goexit: b still runs (or is
		// waited for) before the panic is returned or the Goexit goes on.
		pe := recovered(recover())
		_ = e.joinEnd(w, t, r, j, p)
		if !pe.Goexit {
			err = pe
			e.countPanic(w)
		}
	}()
	a(t)
	returned = true
	return e.joinEnd(w, t, r, j, p)
}

// joinPush queues b's record at the tail of w's P's ring, shared with the
// Join (two references, a claim word) and ending through a join state of
// w's, and returns them and the P; r is nil if the task holds no P in
// pTask (then nothing is queued).
func (e *Executor) joinPush(w *worker, b func(Task)) (r *task, j *Group, p *proc) {
	p = w.p.Load()
	if p == nil {
		return nil, nil, nil
	}
	me := w.word(pTask)
	if !p.status.CompareAndSwap(me, w.word(pSpawn)) {
		return nil, nil, nil
	}
	j = w.joins
	if j != nil {
		w.joins, j.jnext = j.jnext, nil
	} else {
		j = &Group{e: e, jw: w}
	}
	r = e.gfget(p)
	r.fn, r.g, r.shared = b, j, true
	r.refs.Store(2) // the queue's and the joiner's
	w.jpush++
	if e.gqOnly {
		e.global.Put(r)
		p.status.Store(me)
		if mutant != joinPushNoWake {
			e.sched.Wakep()
		}
		return r, j, p
	}
	if spill := p.q.Put(r, p.spill[:0]); len(spill) != 0 {
		e.joinOverflow(w, p, spill)
	}
	if w.jpush%joinTickEvery == 0 {
		p.schedtick.Add(1) // a new slice: see joinTickEvery
	}
	p.status.Store(me)
	if mutant != joinPushNoWake {
		e.wakeQueued()
	}
	return r, j, p
}

// joinOverflow is overflow for a Join's push: the records in the full
// ring's older half that a Join or Wait has claimed already (run inline,
// left queued) are recycled here instead of going to the global queue,
// and if few live tasks are left (a deep tree's ancestors' b sides) they
// go back to the ring's tail, which has room now. A task joining a deep
// tree never returns to its M loop, whose gets would drop claimed
// records, so without this they would pile up in the global queue on 1 P
// (one per Join whose b was displaced), each a new record.
func (e *Executor) joinOverflow(w *worker, p *proc, spill []*task) {
	k := 0
	for _, t := range spill {
		if t.shared && t.claim.Load() != 0 {
			e.release(p, t)
			continue
		}
		spill[k] = t
		k++
	}
	clear(spill[k:])
	if k != 0 && k <= len(spill)/4 {
		n := p.q.PutBatch(spill[:k])
		copy(spill, spill[n:k])
		clear(spill[k-n : k])
		k -= n
	}
	if k != 0 {
		e.overflow(w, p, spill[:k])
	}
}

// joinEnd takes b back and runs it on t, or waits for the thief that took
// it, and returns b's panic (or ErrAbandoned). It gives the join state
// back to w's free list once nothing can touch it: at once when b was
// taken back (its record, if still queued, is claimed and is dropped
// unrun), after joinDone when a thief ran it.
func (e *Executor) joinEnd(w *worker, t Task, r *task, j *Group, p *proc) error {
	if fn := e.joinTakeBack(w, r, p); fn != nil {
		if mutant != joinTakesBackStolen { // (under it a thief may still finish j)
			e.joinPut(w, j)
		}
		err := side(t, fn)
		if err != nil {
			e.countPanic(w) // as a thief's run of b counts it
		}
		return err
	}
	if mutant == joinSkipsWaitForThief {
		return nil // the seeded fault: b may still run (j is left to the collector)
	}
	if mutant == joinStateReusedBeforeWait {
		e.joinPut(w, j) // the seeded fault: a Join that runs meanwhile may take it
	}
	e.helpWait(w, j) // joinLoop, on a helper
	var err error
	if j.failed.Load() == 2 {
		err = j.err
	}
	if mutant != joinStateReusedBeforeWait {
		e.joinPut(w, j)
	}
	if pe, ok := err.(*PanicError); ok && pe.Goexit {
		runtime.Goexit() // b called runtime.Goexit on the thief: so does the calling task
	}
	return err
}

// joinTakeBack claims b's record r back for the Join and returns b's func,
// or nil if an M (a thief, or this M in a Wait's help) claimed it first.
// r stays in the ring, dead, until a get, a steal or joinOverflow drops it;
// the Join only drops its own reference. No queue operation, so no status
// CAS: one CAS on the claim word and one add on the references, where the
// runnext take-back cost a status CAS, the slot's CAS and the status store
// back, and half the pushes moved the slot's previous b to the ring.
func (e *Executor) joinTakeBack(w *worker, r *task, p *proc) func(Task) {
	if r.claim.CompareAndSwap(0, 1) || mutant == joinTakesBackStolen {
		fn := r.fn
		e.joinRelease(w, r, p)
		return fn
	}
	e.joinRelease(w, r, p)
	return nil
}

// joinRelease drops the Join's reference to r: recycled on p if that
// was the last and the task still holds p (taken to pSpawn for it), else
// on the global list.
func (e *Executor) joinRelease(w *worker, r *task, p *proc) {
	if r.refs.Add(-1) != 0 && mutant != recycleEarly {
		return
	}
	me := w.word(pTask)
	if w.p.Load() == p && !e.gqOnly && p.status.CompareAndSwap(me, w.word(pSpawn)) {
		e.gfput(p, r)
		p.status.Store(me)
		return
	}
	e.gfree.put(r)
}

// joinLoop is helpLoop for a Join whose b a thief runs: help with queued
// tasks (under helpNestCap), else hand the P away and sleep until
// joinFinish readies the joiner.
func (e *Executor) joinLoop(w *worker, j *Group) {
	for j.jstate.Load() == joinPending {
		if (w.nest < helpNestCap || mutant == noHelpCap) && e.helpOnce(w) {
			continue
		}
		// Nothing to run: hand the P off and sleep until b's thief readies
		// w. Unlike a Wait's, a Join's park keeps its M: the explorer's
		// Join races stay within their budget (a spare M for the direct
		// park multiplied their interleavings by ten), and a Join waits
		// only for a stolen b.
		w.wt.k = Waker{}
		e.giveUpP(w)
		if mutant == joinParkNoCAS { // the seeded fault: a load, then a store
			if j.jstate.Load() != joinPending {
				if joinHook != nil {
					joinHook("park lost")
				}
				e.reacquire(w)
				return
			}
			j.jstate.Store(joinParked)
		} else if !j.jstate.CompareAndSwap(joinPending, joinParked) {
			if joinHook != nil {
				joinHook("park lost")
			}
			e.reacquire(w)
			return
		}
		if joinHook != nil {
			joinHook("parked")
		}
		e.park(w)
	}
}

// joinFinish is finish for a join state: b, run by a thief, has ended
// with err. The Swap to joinDone is its last touch of j, which the joiner
// may reuse from then on.
func (g *Group) joinFinish(err error, x *worker) {
	if err != nil && mutant != joinErrAfterDone {
		g.err = err
		g.failed.Store(2)
	}
	e, jw := g.e, g.jw
	var was uint32
	switch mutant {
	case joinFinishNoSwap: // the seeded fault: a load, then a store
		was = g.jstate.Load()
		g.jstate.Store(joinDone)
	case joinErrAfterDone: // the seeded fault: the panic after the done flag
		was = g.jstate.Swap(joinDone)
		if err != nil {
			g.err = err
			g.failed.Store(2)
		}
	default:
		was = g.jstate.Swap(joinDone)
	}
	if joinHook != nil {
		if was == joinParked {
			joinHook("readied")
		} else {
			joinHook("finished first")
		}
	}
	if was == joinParked {
		e.ready(x, &jw.wt)
	}
}

// joinHook, set only by tests before an executor starts, sees the racy
// steps of a Join whose b a thief runs: the joiner "parked", or found b
// done after giving its P away ("park lost"); the thief's finish
// "readied" the parked joiner, or "finished first".
var joinHook func(step string)

// joinPut resets a join state nobody else can touch any more and puts it
// on w's free list.
func (e *Executor) joinPut(w *worker, j *Group) {
	if j.jstate.Load() != joinPending {
		j.jstate.Store(joinPending)
	}
	if j.failed.Load() != 0 {
		j.failed.Store(0)
		j.err = nil
	}
	j.jnext = w.joins
	w.joins = j
}

// done reports whether a Wait on g may return: every task finished, or,
// for a join state, the stolen side.
func (g *Group) done() bool {
	if g.jw != nil {
		return g.jstate.Load() == joinDone
	}
	return g.n.Load() == 0
}

// joinSeq is Join without a P to queue b on: a, then b, on the task.
func joinSeq(t Task, a, b func(Task)) (err error) {
	returned := false
	defer func() {
		if returned {
			return
		}
		pe := recovered(recover())
		if side(t, b) != nil {
			t.w.e.countPanic(t.w)
		}
		if !pe.Goexit {
			err = pe
			t.w.e.countPanic(t.w)
		}
	}()
	a(t)
	returned = true
	if err = side(t, b); err != nil {
		t.w.e.countPanic(t.w)
	}
	return err
}

// countPanic counts a panic that a Join recovered from one of its sides
// run on the calling task, in Stats' Panics and as an EventPanic, as run
// counts a task's (and a thief's run of b): once, on the P w holds, if
// any. A Goexit in a side is counted when it ends the calling task; one
// in a stolen b, which Join passes on, only then too (run skips it).
func (e *Executor) countPanic(w *worker) {
	if p := w.p.Load(); p != nil {
		p.stats.panics.Add(1)
	}
	e.event(EventPanic, -1, w, 0)
}

// side calls f on t and returns its panic as a *PanicError; a Goexit goes
// on.
func side(t Task, f func(Task)) (err error) {
	returned := false
	defer func() {
		if !returned {
			if pe := recovered(recover()); !pe.Goexit {
				err = pe
			}
		}
	}()
	f(t)
	returned = true
	return nil
}
