package executor

import (
	"context"

	"github.com/schedkit/schedkit/internal/atomicx"
)

// Group is a set of tasks waited for together, with errgroup's shape: Go
// starts a task, Wait waits for all of them and returns the first error,
// and the group's context is cancelled at the first error (or panic, which
// becomes the group's error as a *PanicError).
//
// A group made by a task (Task.NewGroup) spawns locally while that task
// runs, and its Wait, called by that task, keeps the task's P busy: it runs
// queued tasks, its own P's first, until the group is done, looking at the
// group again after every task; when it finds none it hands its P to
// another M and sleeps until the group's last task wakes it, with its resume
// token in that task's runnext slot. So fork-join nested on every P at once
// cannot deadlock. A Wait called from a task on a group made elsewhere
// does the same (it finds its task by its goroutine); a Wait from outside
// the executor blocks its goroutine.
//
// Go must not be called after Wait has returned (it panics): make a new
// group. Wait may be called more than once; every call returns the same
// error.
type Group struct {
	e *Executor
	t Task // the task that made the group; zero if made outside

	n       atomicx.Int64 // tasks started and not finished
	failed  atomicx.Uint32
	err     error // the first error; written once (failed), read after n reaches 0
	cancel  context.CancelCauseFunc
	waited  atomicx.Uint32
	mu      atomicx.Mutex
	waiters *waiter // guarded by mu
}

// waiter is one Wait asleep on a group: a task's worker (woken through its
// resume token) or an outside goroutine (woken through note).
type waiter struct {
	w    *worker
	note atomicx.Note
	next *waiter
}

// NewGroup returns a group whose tasks are submitted from outside (to the
// global queue), and a context derived from ctx that is cancelled at the
// group's first error or when Wait returns. It panics if ctx is nil.
func (e *Executor) NewGroup(ctx context.Context) (*Group, context.Context) {
	return newGroup(e, Task{}, ctx)
}

func newGroup(e *Executor, t Task, ctx context.Context) (*Group, context.Context) {
	if ctx == nil {
		panic("executor: NewGroup called with a nil context")
	}
	ctx, cancel := context.WithCancelCause(ctx)
	return &Group{e: e, t: t, cancel: cancel}, ctx
}

// Go starts f as a task of the group: on the P of the task that made the
// group while that task runs (Task.Go), else through the global queue
// (Executor.Go). If the executor is closed the group fails with ErrClosed.
// f's Task is its own handle, for its own spawns and groups.
//
// Go panics if f is nil or Wait has returned.
func (g *Group) Go(f func(Task) error) {
	if f == nil {
		panic("executor: Group.Go called with a nil func")
	}
	if g.waited.Load() != 0 {
		panic("executor: Group.Go called after Wait returned: make a new group")
	}
	g.n.Add(1)
	if w := g.t.current(); w != nil {
		g.e.spawn(w, nil, f, g)
		return
	}
	if err := g.e.submit(&task{gfn: f, g: g}, nil); err != nil {
		g.finish(err, nil)
	}
}

// finish ends one task of the group with err; the last one readies every
// waiter. x is the worker that ran it (holding its P in pSched, or none),
// nil if the task never ran.
func (g *Group) finish(err error, x *worker) {
	if err != nil && g.failed.CompareAndSwap(0, 1) {
		g.err = err
		g.cancel(err)
	}
	if g.n.Add(-1) != 0 {
		return
	}
	g.mu.Lock()
	ws := g.waiters
	g.waiters = nil
	g.mu.Unlock()
	for ws != nil {
		next := ws.next
		ws.next = nil
		g.e.ready(x, ws)
		ws = next
	}
}

// Wait waits until every task of the group has finished and returns the
// first error of one, or nil; then it cancels the group's context. Inside a
// task it runs queued tasks meanwhile (see Group).
func (g *Group) Wait() error {
	e := g.e
	if w := g.t.current(); w != nil {
		e.helpWait(w, g)
	} else if g.n.Load() != 0 {
		if w := e.currentWorker(); w != nil {
			e.helpWait(w, g)
		} else {
			g.block()
		}
	}
	g.waited.Store(1)
	g.cancel(nil)
	if g.failed.Load() != 0 {
		return g.err
	}
	return nil
}

// block sleeps the calling goroutine, which is not an M, until the group
// is done.
func (g *Group) block() {
	wt := &waiter{}
	g.mu.Lock()
	if g.n.Load() == 0 {
		g.mu.Unlock()
		return
	}
	wt.next = g.waiters
	g.waiters = wt
	g.mu.Unlock()
	wt.note.Sleep()
}

// helpWait is Wait for the task running on w: run queued tasks until the
// group is done; with none to run, hand the P away and sleep until the
// group's last task readies w, which then goes on with a P.
func (e *Executor) helpWait(w *worker, g *Group) {
	if mutant == waitBlocksP {
		g.block() // the seeded fault: hold the P and help nobody
		return
	}
	for g.n.Load() != 0 {
		if e.helpOnce(w) {
			continue
		}
		e.giveUpP(w)
		g.mu.Lock()
		if g.n.Load() == 0 {
			g.mu.Unlock()
			e.reacquire(w)
			return
		}
		w.wt.next = g.waiters
		g.waiters = &w.wt
		g.mu.Unlock()
		e.park(w)
	}
}

// helpOnce runs one queued task nested in the waiting task on w: from w's
// P's queue, else a global batch, else by stealing. It reports whether it
// ran one. The waiting task's P is in pSched while it looks and back in
// pTask after.
func (e *Executor) helpOnce(w *worker) bool {
	p := w.p.Load()
	if p == nil || !e.claim(w, p, pSched) {
		return false
	}
	t, inherit := e.findHelp(w, p)
	if t == nil {
		p.status.Store(own(w.id, pTask))
		return false
	}
	p.stats.helped.Add(1)
	e.execute(w, t, inherit)
	if p := w.p.Load(); p != nil {
		p.status.Store(own(w.id, pTask))
	}
	return true
}

// findHelp is findRunnable without spinning or parking.
func (e *Executor) findHelp(w *worker, p *proc) (*task, bool) {
	if e.gqOnly {
		return e.global.Get(), false
	}
	if t, inherit := p.q.Get(); t != nil {
		if inherit {
			p.stats.runnext.Add(1)
		} else {
			p.stats.ringGets.Add(1)
		}
		return t, inherit
	}
	if t := e.globalBatch(w, p); t != nil {
		return t, false
	}
	if t := e.stealer.Steal(p.id, w.rng); t != nil {
		n := p.q.Len() + 1
		p.stats.steals.Add(1)
		p.stats.stolen.Add(uint64(n))
		e.event(EventSteal, p.id, w, n)
		return t, false
	}
	return nil, false
}
