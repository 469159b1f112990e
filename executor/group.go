package executor

import (
	"context"
	"iter"
	"time"

	"github.com/schedkit/schedkit/atomicx"
)

// Group is a set of tasks waited for together, with errgroup's shape: Go
// starts a task, Wait waits for all of them and returns the first error,
// and the group's context is cancelled at the first error (or panic, which
// becomes the group's error as a *PanicError).
//
// A group made by a task (Task.NewGroup) spawns locally while that task
// runs, and its Wait, called by that task, keeps the task's P busy: it runs
// the group's own children that have not started, then other queued
// tasks, its own P's first, until the group is done, looking at the
// group again after every task; when it finds none it hands its P to
// another M and sleeps until the group's last task wakes it, with its resume
// token in that task's runnext slot. So fork-join nested on every P at once
// cannot deadlock. A Wait called from a task on a group made elsewhere
// does the same (it finds its task by its goroutine); a Wait from outside
// the executor blocks its goroutine. A task a Wait runs inline runs on
// another goroutine of the M than the waiting task's, so its
// runtime.Goexit ends that task only (its group gets a *PanicError with
// Goexit set), as under errgroup; for that reason a task must not Wait
// while it is locked to its OS thread (runtime.LockOSThread).
//
// Go must not be called after Wait has returned (it panics): make a new
// group. Wait may be called more than once; every call returns the same
// error.
//
// A group keeps nothing per finished task. The record of a task started
// from outside goes, when the task finishes, to the executor's global free
// list for the next outside task (as Executor.Go's records do), where it
// stays until two garbage collections have found it unused (the list
// keeps 1024): right after a burst of n outside tasks the heap holds about
// 70 bytes per task more, whether or not the group's Wait has been
// called, and under 8 once the list is trimmed (measured with 20000
// children: 72 B, then 3 to 5 B).
type Group struct {
	e *Executor
	t Task // the task that made the group; zero if made outside

	n       atomicx.Int64  // tasks started and not finished
	failed  atomicx.Uint32 // 1 while the first error is recorded, 2 once err is
	err     error          // the first error; written once (failed), read after n reaches 0
	ctx     groupCtx       // the group's context, made lazily
	waited  atomicx.Uint32
	mu      atomicx.Mutex
	waiters *waiter // guarded by mu

	// kids is a stack of the group's children not yet taken off it by a
	// Wait (pushed by CAS from any Go; a Wait takes the whole stack by
	// Swap, so there is no ABA on pop).
	kids atomicx.Pointer[task]

	// A Task.Join's state (join.go) is a Group of its worker's, never
	// handed out: jw is that worker (nil for a group); jstate is
	// joinPending, joinParked (the joiner sleeps) or joinDone (the side
	// a thief ran has finished: finish's last touch of the Group); jnext
	// links the worker's free list.
	jw     *worker
	jstate atomicx.Uint32
	jnext  *Group
}

// waiter is one Wait asleep on a group: a task's worker (woken through its
// resume token) or an outside goroutine (woken through note).
type waiter struct {
	w    *worker
	k    Waker // the task's park (w set): ready claims it first
	note atomicx.Note
	next *waiter
}

// NewGroup returns a group whose tasks are submitted from outside (to the
// global queue), and a context derived from ctx that is cancelled at the
// group's first error or when Wait returns (it is made at its first Done
// or Value call: a group whose context is never used costs no context).
// It panics if ctx is nil.
func (e *Executor) NewGroup(ctx context.Context) (*Group, context.Context) {
	return newGroup(e, Task{}, ctx)
}

func newGroup(e *Executor, t Task, ctx context.Context) (*Group, context.Context) {
	if ctx == nil {
		panic("executor: NewGroup called with a nil context")
	}
	g := &Group{e: e, t: t}
	if mutant == waitEarly {
		g.n.Store(-1) // the seeded fault: Wait returns one task early
	}
	g.ctx.g, g.ctx.parent = g, ctx
	return g, &g.ctx
}

// groupCtx is a group's context. Most groups' contexts are never looked
// at, so the cancellable context behind it (context.WithCancelCause of the
// parent) is made only when Done or Value is first called; until then Err
// answers from the group's state and the parent. Whichever of the maker,
// the first error and Wait comes last cancels it: each publishes its own
// step before it looks for the others'.
type groupCtx struct {
	g      *Group
	parent context.Context
	inner  atomicx.Pointer[cancelCtx]
}

type cancelCtx struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// get returns the cancellable context, making it on first use.
func (c *groupCtx) get() *cancelCtx {
	if cc := c.inner.Load(); cc != nil {
		return cc
	}
	g := c.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if cc := c.inner.Load(); cc != nil {
		return cc
	}
	ctx, cancel := context.WithCancelCause(c.parent)
	cc := &cancelCtx{ctx: ctx, cancel: cancel}
	c.inner.Store(cc)
	if g.failed.Load() == 2 && mutant != lazyCtxMissesError {
		cancel(g.err)
	} else if g.waited.Load() != 0 {
		cancel(nil)
	}
	return cc
}

// cancel cancels the context if it has been made (else get will).
func (c *groupCtx) cancel(cause error) {
	if cc := c.inner.Load(); cc != nil {
		cc.cancel(cause)
	}
}

func (c *groupCtx) Deadline() (time.Time, bool) { return c.parent.Deadline() }

func (c *groupCtx) Done() <-chan struct{} { return c.get().ctx.Done() }

func (c *groupCtx) Err() error {
	if cc := c.inner.Load(); cc != nil {
		return cc.ctx.Err()
	}
	if c.g.failed.Load() != 0 || c.g.waited.Load() != 0 {
		return context.Canceled
	}
	return c.parent.Err()
}

// Value makes the context: context.Cause and the context package's
// propagation find the cancellable context through it.
func (c *groupCtx) Value(key any) any { return c.get().ctx.Value(key) }

func (c *groupCtx) String() string { return "executor.Group context" }

// Go starts f as a task of the group: on the P of the task that made the
// group while that task runs (Task.Go), else through the global queue
// (Executor.Go, which waits for room under Config.MaxQueued). If the
// executor is closed the group fails with ErrClosed. f's Task is its own
// handle, for its own spawns and groups.
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
		g.e.spawn(w, g.t.gen, nil, f, g)
		return
	}
	t := &task{gfn: f, g: g}
	if mutant == outsideGroupKeepsKids {
		g.addKid(t) // the seeded fault: the kids list holds it until a Wait
	}
	if err := g.e.submit(context.Background(), t, nil); err != nil {
		g.finish(err, nil)
	}
}

// addKid makes t, not yet queued, a child the group's Wait may run inline.
func (g *Group) addKid(t *task) {
	t.shared = true
	t.refs.Store(2) // the queue's and the kids list's
	for {
		h := g.kids.Load()
		t.link = h
		if g.kids.CompareAndSwap(h, t) {
			return
		}
	}
}

// finish ends one task of the group with err; the last one readies every
// waiter. x is the worker that ran it (holding its P in pSched, or none),
// nil if the task never ran.
func (g *Group) finish(err error, x *worker) {
	if g.jw != nil {
		g.joinFinish(err, x)
		return
	}
	if err != nil && g.failed.CompareAndSwap(0, 1) {
		g.err = err
		g.failed.Store(2)
		g.ctx.cancel(err)
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
//
// A task of the group must not Wait on it: it would wait for itself, and
// never return (errgroup's Wait does the same). It is not detected: Wait
// takes no Task, and telling a child of the group from the task that made
// it would cost a goroutine lookup (a stack walk) in every Wait that
// waits. For the same reason, a group made by a task is waited by that
// task: a Wait called elsewhere while that task runs (or waits) would run
// on that task's M as if it were that task.
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
	g.ctx.cancel(nil)
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

// helpNestCap is the nesting of Waits on an M past which a Wait runs only
// its own children: past it, with none of its own to run, it hands the P
// away and sleeps, as it does when no work is queued. Another task run
// inline can be an ancestor's child, or another task's Wait (whose group
// runs elsewhere) with its own help under it, so without the cap the
// nesting, and the M's stack, would grow with the number of tasks; with
// it a tree whose groups are waited by the tasks that made them nests at
// most its depth plus helpNestCap. Uncapped, a depth-12 tree on 2 Ps
// nested 16 deep at the median of 100 runs and 34 at most: the cap
// engages in about half of such runs, at their deepest Waits only.
const helpNestCap = 16

// helpWait is Wait for the task running on w: run the group's own
// children that have not started (the most recently spawned first, as
// runnext would), then other queued tasks while the nesting is under
// helpNestCap, until the group is done; with none to run, hand the P away
// and sleep until the group's last task readies w, which then goes on
// with a P. Own children first keeps the nesting of Waits on an M near
// the depth of the task tree: another task run meanwhile can be an
// ancestor's child, with a whole subtree under it.
//
// The help runs on a helper, a coroutine of the M, not on the waiting
// task's goroutine: a task run inline may call runtime.Goexit, which no
// recover stops, and which would unwind the waiting task's frames with its
// own. On the helper it ends only the helper's goroutine; the waiting task
// goes on and a new helper finishes the Wait (see helper).
func (e *Executor) helpWait(w *worker, g *Group) {
	if mutant == waitBlocksP {
		g.block() // the seeded fault: hold the P and help nobody
		return
	}
	if e.helpInline || mutant == goexitUnwindsWaiter {
		var mine *task
		e.helpLoop(w, g, &mine)
		e.dropKids(w, g, mine)
		return
	}
	if g.done() {
		return // done: no switch
	}
	level := w.nest
	var mine *task
	for {
		h := w.helper(level)
		h.g, h.mine = g, mine
		w.enter(h)
		mine, h.g, h.mine = h.mine, nil, nil
		if !h.dead {
			w.helpers[level] = h // the M's again, for its next Wait at this level
			break
		}
		// A task the helper ran called runtime.Goexit: that task has
		// ended (its group has its *PanicError), the helper's goroutine
		// is ending, and the Wait goes on with a new helper. The unwound
		// frames left the nesting and the P as the task's end left them.
		w.nest = level
		if p := w.p.Load(); p != nil {
			p.status.CompareAndSwap(own(w.id, pSched), w.word(pTask))
		}
		e.bury(h)
	}
	e.dropKids(w, g, mine)
}

// helpLoop is helpWait's loop, on whichever goroutine runs it.
func (e *Executor) helpLoop(w *worker, g *Group, mine **task) {
	if g.jw != nil {
		e.joinLoop(w, g)
		return
	}
	for g.n.Load() != 0 {
		if mutant != helpOthersFirst && e.helpOwn(w, g, mine) {
			continue
		}
		if (w.nest < helpNestCap || mutant == noHelpCap) && e.helpOnce(w) {
			continue
		}
		// Nothing to run: park until the group's last task readies w,
		// its P and M going on meanwhile (park.go), so a waiting Wait
		// costs no M.
		k := waker(w)
		g.mu.Lock()
		if g.n.Load() == 0 {
			g.mu.Unlock()
			unwaker(k)
			break
		}
		w.wt.k = k
		w.wt.next = g.waiters
		g.waiters = &w.wt
		g.mu.Unlock()
		e.gopark(w, k.seq)
	}
}

// helper is a goroutine of an M that runs the help loop of the Waits at
// one nesting level (a Wait with w.nest Waits below it running inline),
// so that a task run inline never shares a goroutine with the task waiting
// on it. It is a coroutine (iter.Pull): the waiting goroutine switches to
// it and is switched back to when the help ends, without the Go scheduler,
// so a Wait pays two coroutine switches, not one per task it runs, and
// the M keeps its helpers for its later Waits.
//
// That is the cheapest of the ways weighed: a channel handoff to a parked
// goroutine costs more than a coroutine switch (a ping-pong's round trip,
// 580 to 2800 ns against 410 to 550 ns, 6 runs each on 2 vCPUs at load
// average 30), and
// a switch per task run inline instead of per Wait would double the
// switches of a binary fork-join.
//
// A coroutine switch must keep the OS thread lock of the goroutine that
// made the coroutine (the runtime throws otherwise), so a task must not
// Wait while it is locked to its thread (runtime.LockOSThread).
//
// When a task the helper runs calls runtime.Goexit, the helper's
// goroutine unwinds to the deferred call in its body, which hands the M
// back to the waiter and stays there, marked dead, until bury ends it:
// iter.Pull would pass the Goexit on to the goroutine that switched to the
// coroutine if the goroutine ended there, so it ends under a goroutine of
// its own.
type helper struct {
	next func() (struct{}, bool)
	stop func()
	gid  int64 // the helper's goroutine, for w.gid while it runs

	g    *Group // the group being waited on
	mine *task  // kids taken off g.kids, not yet looked at
	dead bool   // a task it ran called runtime.Goexit
}

// helper takes w's helper for the Waits at nesting level out of the M's
// pool (helpWait puts it back), making it on first use.
func (w *worker) helper(level int) *helper {
	for len(w.helpers) <= level {
		w.helpers = append(w.helpers, nil)
	}
	if h := w.helpers[level]; h != nil {
		w.helpers[level] = nil
		return h
	}
	h := &helper{}
	e := w.e
	h.next, h.stop = iter.Pull(func(yield func(struct{}) bool) {
		h.gid = goid()
		defer func() {
			if w.goexit { // a task run by helpLoop called runtime.Goexit
				w.goexit = false
				h.dead = true
				yield(struct{}{}) // resumed only by bury's stop: the Goexit goes on
			}
		}()
		for {
			w.gid.Store(h.gid)
			e.helpLoop(w, h.g, &h.mine)
			if !yield(struct{}{}) {
				return
			}
		}
	})
	return h
}

// enter switches to h until its help ends. w.gid names the waiter's
// goroutine again after, even if a panic no task recovered (a panicking
// PanicHandler) comes through next, as it came through an inline help;
// h has ended then and is not the M's any more.
func (w *worker) enter(h *helper) {
	defer w.gid.Store(w.gid.Load())
	h.next()
}

// bury ends a dead helper's goroutine, which waits in its body's deferred
// call: stop resumes it, its Goexit goes on, and iter.Pull then calls
// runtime.Goexit on the goroutine that called stop, a goroutine started
// for it and counted like an M, so that Close waits for it.
func (e *Executor) bury(h *helper) {
	e.live.Add(1)
	e.goStart(func() {
		defer e.goroutineExit()
		h.stop()
	})
}

// stopHelpers ends w's helpers, each idle at the top of its loop, when the
// M ends.
func (w *worker) stopHelpers() {
	for i, h := range w.helpers {
		if h != nil {
			h.stop()
			w.helpers[i] = nil
		}
	}
}

// helpOwn runs one of g's children that nobody has claimed, inline. It
// looks first at the head of its P's queue, where the child spawned last
// (runnext) usually is, so that the child's record leaves the queue and is
// recycled at once; records there that a Wait already ran are dropped on
// the way, and a task of someone else's is put back, not run. Then it
// takes the kids off g (mine, refilled from g.kids when empty): a kid run
// from there leaves its record in the queue, claimed, to be dropped by
// whoever dequeues it. It reports whether it ran one.
func (e *Executor) helpOwn(w *worker, g *Group, mine **task) bool {
	if *mine == nil && g.kids.Load() == nil {
		return false
	}
	p := w.p.Load()
	if p == nil || !e.claim(w, p, pSched) {
		return false
	}
	for !e.gqOnly {
		t, inherit := p.q.Get()
		if t == nil {
			break
		}
		if t.shared && t.claim.Load() != 0 {
			e.release(p, t) // run inline by a Wait already
			continue
		}
		if t.g != g || !t.claim.CompareAndSwap(0, 1) {
			// Someone else's: back where it was (runnext), or at the
			// ring's tail.
			if inherit {
				if spill := p.q.PutNext(t, p.spill[:0]); len(spill) != 0 {
					e.overflow(w, p, spill)
				}
			} else if spill := p.q.Put(t, p.spill[:0]); len(spill) != 0 {
				e.overflow(w, p, spill)
			}
			break
		}
		if inherit {
			p.stats.runnext.Add(1)
		} else {
			p.stats.ringGets.Add(1)
		}
		p.stats.helped.Add(1)
		e.executeNested(w, t, inherit)
		if p := w.p.Load(); p != nil {
			w.taskOn(p)
		}
		return true
	}
	if *mine == nil {
		*mine = g.kids.Swap(nil)
	}
	for t := *mine; t != nil; t = *mine {
		*mine = t.link
		t.link = nil
		if !t.claim.CompareAndSwap(0, 1) {
			e.release(p, t) // run (or running) elsewhere
			continue
		}
		p.stats.helped.Add(1)
		e.executeNested(w, t, false)
		if p := w.p.Load(); p != nil {
			w.taskOn(p)
		}
		return true
	}
	w.taskOn(p)
	return false
}

// nestHook, set only by tests before an executor starts, sees the
// nesting depth of Waits on an M each time a Wait runs a task inline.
var nestHook func(depth int)

// executeNested is execute for a task a Wait runs inside its own.
func (e *Executor) executeNested(w *worker, t *task, inherit bool) {
	w.nest++
	if nestHook != nil {
		nestHook(w.nest)
	}
	e.execute(w, t, inherit)
	w.nest--
}

// dropKids lets go of the kids list references a finished Wait still
// holds: every kid has been claimed by then, by an M that dequeued it.
func (e *Executor) dropKids(w *worker, g *Group, mine *task) {
	if g.jw != nil {
		return // a join state has no kids list
	}
	rest := g.kids.Swap(nil)
	if mine == nil && rest == nil {
		return
	}
	var p *proc
	if q := w.p.Load(); q != nil && e.claim(w, q, pSched) {
		p = q
	}
	for _, l := range [2]*task{mine, rest} {
		for t := l; t != nil; {
			next := t.link
			t.link = nil
			e.release(p, t)
			t = next
		}
	}
	if p != nil {
		w.taskOn(p)
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
		w.taskOn(p)
		return false
	}
	if t.w != nil && t == &t.w.token && t.w.sm.Load() == nil {
		// A task parked with its P (park.go): its resume would take this
		// M with the P and leave the waiting task without one. Back to
		// runnext: the Wait parks, and its P switches to it (handOn).
		if spill := p.q.PutNext(t, p.spill[:0]); len(spill) != 0 {
			e.overflow(w, p, spill)
		}
		w.taskOn(p)
		return false
	}
	p.stats.helped.Add(1)
	e.executeNested(w, t, inherit)
	if p := w.p.Load(); p != nil {
		w.taskOn(p)
	}
	return true
}

// findHelp is findRunnable without spinning or parking.
func (e *Executor) findHelp(w *worker, p *proc) (*task, bool) {
	if e.gqOnly {
		return e.globalGet(p), false
	}
	for {
		if t, inherit := e.localGet(w, p); t != nil {
			return t, inherit
		}
		if t := e.globalBatch(w, p); t != nil {
			if !t.take() {
				e.release(p, t)
				continue
			}
			return t, false
		}
		if t, retry := e.steal(w, p); t != nil {
			return t, false
		} else if retry {
			continue
		}
		return nil, false
	}
}
