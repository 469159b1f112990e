package executor

import (
	"context"

	"github.com/schedkit/schedkit/atomicx"
)

// task is a queued unit of work: a func, a group's func, or a resume token
// (w set) that hands a P to a task waiting for one. Records of finished
// tasks are reused: by their P, and through the global free list by the
// other Ps and outside submits (gfree.go: gfget, gfput, sched.gFree).
//
// A group's child (shared set) is reachable twice: from the queue it was
// put in and from its group's kids list, so that the group's Wait can run
// it inline. Whoever wins the claim word runs it; a queue that hands out a
// record already claimed skips it. refs counts the two references: the
// record is recycled only when both are gone, so neither side can see it
// reused under it.
//
// A record is 64 bytes, a size class of its own, so the allocator gives
// each one a cache line to itself: at 72 bytes (80 allocated) records
// straddled lines, and two Ps' chains, each writing its own records on
// every task, wrote the same lines; CPU per task rose by a quarter from
// 1 to 2 Ps (bench/RESULTS.md). TestTaskRecordFillsOneLine keeps it so.
type task struct {
	fn  func(Task)
	gfn func(Task) error
	g   *Group
	w   *worker // resume token: the worker whose task waits for a P
	at  int64   // atomicx.Nanotime at an outside submit; 0 for a local spawn
	// link is the kids list's link while the record is on its group's
	// kids list, then the free list's: the last reference is dropped
	// only after the kids list has let go of it (release).
	link   *task
	shared bool // also on its group's kids list: claim before running
	bound  bool // an outside task counted under Config.MaxQueued: frees its room when it starts
	claim  atomicx.Uint32
	refs   atomicx.Int32
}

// take claims a record handed out by a queue: false if it is a group's
// child that its Wait already ran inline, and then the caller drops it
// (release). Only shared records cost an atomic.
func (t *task) take() bool {
	return !t.shared || mutant == takeIgnoresClaim || t.claim.CompareAndSwap(0, 1)
}

// release drops one reference to a record whose fields the caller has
// read (or that it skipped): the last one recycles it on p, whose holder
// the caller is (pSched), or on the global free list if p is nil.
func (e *Executor) release(p *proc, t *task) {
	if t.shared && mutant != recycleEarly && t.refs.Add(-1) != 0 {
		return
	}
	if p != nil {
		e.gfput(p, t)
	} else {
		e.gfree.put(t)
	}
}

// Task is a running task's handle on the executor, passed to its func. It
// is the only way to reach the P's own queue: Go spawns into the runnext
// slot of the P the task runs on. A Task is valid while its func runs, on
// the goroutine that runs it; a Task whose func has returned panics (Go) or
// returns ErrNotInTask (Blocking, Yield).
//
// Every use of the P's queue through a Task first takes the P's status word
// from pTask to pSpawn by CAS, naming the worker, and puts it back after: a
// task whose P sysmon has taken (or that gave it away in Blocking, Yield or
// Wait) fails the CAS and spawns into the global queue instead. So a Task
// never touches a queue its worker does not hold, even if it is passed to
// another goroutine (which is misuse, and not detected, while the task
// runs).
type Task struct {
	w   *worker
	gen uint64
}

// current returns t's worker, or nil if t is not the innermost running
// task on it: the status word of the worker's P names t's generation (the
// task holds its P), or w.cur does (it runs without one). A retaker takes
// the P from the word before it publishes w.cur, with lent raised around
// both: a look that finds neither while lent is up looks again
// (TaskGen.tla's ChkLent and ChkCur).
func (t Task) current() *worker {
	w := t.w
	if w == nil {
		return nil
	}
	for {
		if p := w.p.Load(); p != nil {
			s := p.status.Load()
			if st := s & stateMask; (genOf(s) == t.gen || mutant == staleGenAccepted) && s&holderMsk == own(w.id, st) && (st == pTask || st == pSpawn || st == pSyscall) {
				return w
			}
		}
		l := w.lent.Load()
		if w.cur.Load() == t.gen {
			return w
		}
		if l == 0 {
			return nil
		}
		awaitSpawn()
	}
}

// Go spawns f as a new task. From the P the task holds, f goes to the
// runnext slot and runs next on this P, in the current slice, unless a
// thief takes it; the task it displaces goes to the ring's tail, and a full
// ring sends half of itself to the global queue in one batch. A task with
// no P (taken by sysmon, or given away in Blocking) spawns into the global
// queue. Go reads no clock and allocates nothing but f's closure (records
// are reused per P). It mirrors newproc (runqput with next=true, wakep).
//
// Go panics if f is nil, or if t is the zero Task or its task has returned
// (or is waiting in a group's Wait while a task it runs meanwhile calls Go).
func (t Task) Go(f func(Task)) {
	if f == nil {
		panic("executor: Task.Go called with a nil func")
	}
	w := t.current()
	if w == nil {
		t.stale("Go")
	}
	w.e.spawn(w, t.gen, f, nil, nil)
}

// stale panics for a call on a Task that is not running.
//
//go:noinline
func (t Task) stale(call string) {
	if t.w == nil {
		panic("executor: Task." + call + " called on the zero Task")
	}
	panic("executor: Task." + call + " called on a Task whose func has returned (or is waiting in a group's Wait)")
}

// spawn queues a task on w's P if w's task still holds it, else on the
// global queue.
func (e *Executor) spawn(w *worker, gen uint64, fn func(Task), gfn func(Task) error, g *Group) {
	if p := w.p.Load(); p != nil {
		me := gen<<genShift | own(w.id, pTask)
		if mutant == staleGenAccepted {
			me = p.status.Load()&^holderMsk | own(w.id, pTask) // whatever generation the word has
		}
		if mutant == spawnIgnoresOwnership || p.status.CompareAndSwap(me, me&^stateMask|pSpawn) {
			t := e.gfget(p)
			t.fn, t.gfn, t.g = fn, gfn, g
			if g != nil {
				g.addKid(t)
			}
			if e.gqOnly {
				e.global.Put(t)
				p.status.Store(me)
				e.sched.Wakep()
				return
			}
			if spill := p.q.PutNext(t, p.spill[:0]); len(spill) != 0 {
				e.overflow(w, p, spill)
			}
			if mutant != spawnIgnoresOwnership {
				p.status.Store(me)
			}
			if mutant != noSpawnWake {
				e.wakeQueued()
			}
			return
		}
	}
	t := e.record()
	t.fn, t.gfn, t.g = fn, gfn, g
	if g != nil {
		g.addKid(t)
	}
	e.global.Put(t)
	if mutant != noGlobalSpawnWake {
		e.sched.Wakep()
	}
}

// Blocking runs f, a call that may block (a system call, a lock, a channel),
// after handing the task's P to another M, so the P's queue and the rest of
// the executor run on meanwhile. When f returns, the task takes an idle P,
// or waits in the global queue for one, before it goes on. It mirrors
// entersyscallblock (handoffp at once) and exitsyscall.
//
// Blocking is the pessimistic path, for a call known to block for long:
// it costs a handoff (and, with no M idle, a new M) however short the
// call. For a call that usually returns soon use Syscall, which keeps the
// P unless the call outlasts Config.SyscallThreshold while work waits.
//
// A panic in f propagates to the task. Blocking returns ErrNotInTask,
// without running f, if t is not running. It panics if f is nil.
func (t Task) Blocking(f func()) error {
	if f == nil {
		panic("executor: Task.Blocking called with a nil func")
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
	e.giveUpP(w)
	f()
	if mutant != blockingKeepsNoP {
		e.reacquire(w)
	}
	return nil
}

// Yield lets a long task give its P back between steps: if work waits in
// the P's queue or the global queue (or the task lost its P), the task hands
// its P to another M and queues itself at the global queue's tail, to go on
// once an M runs it, behind that work. With nothing waiting it returns at
// once. It mirrors Gosched (goschedImpl: globrunqput, schedule).
//
// Yield returns ErrNotInTask if t is not running.
func (t Task) Yield() error {
	w := t.current()
	if w == nil {
		return ErrNotInTask
	}
	e := w.e
	p := w.p.Load()
	if p != nil && p.q.Empty() && e.global.Empty() {
		return nil
	}
	e.giveUpP(w)
	if w.p.Load() == nil && !(e.stopped.Load() != 0) {
		if p != nil {
			p.stats.yields.Add(1)
		}
		e.waitP(w)
	}
	return nil
}

// Executor returns the executor running the task, or nil for the zero Task.
func (t Task) Executor() *Executor {
	if t.w == nil {
		return nil
	}
	return t.w.e
}

// NewGroup returns a group whose tasks the task t spawns locally (on its P,
// while it holds one) and whose Wait, called by t, runs queued tasks while
// it waits, and a context derived from ctx that is cancelled when a task of
// the group returns an error or panics, or when Wait returns. It panics if
// ctx is nil or t is not running.
func (t Task) NewGroup(ctx context.Context) (*Group, context.Context) {
	if t.current() == nil {
		t.stale("NewGroup")
	}
	return newGroup(t.w.e, t, ctx)
}
