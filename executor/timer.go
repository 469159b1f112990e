package executor

// Timers: each P keeps a timers.Heap. A task's Sleep arms its worker's timer
// on its P's heap and parks; AfterFunc arms a timer that spawns a task. The
// heaps are run where the runtime runs them: by the holder of a P at each
// schedule (findRunnable's checkTimers), by a spinning M over the other Ps'
// heaps before it steals (stealWork's timer pass), and by sysmon, which
// sleeps until the earliest timer while every P is idle and caps every
// sleep at the earliest timer otherwise (timeSleepUntil; its sleep at a
// call's pace too), so no timer fires later than a sysmon round
// (min(10ms, Config.Slice/8)) and the 20µs round a busy P's holder gets
// first while every M is busy (TestTimerBesideLongTasks). The runtime's
// sysmon only starts an M for an overdue timer (startm in sysmon), which
// finds no idle P then: its timer waits for a preemption. What a timer
// readies still needs a P: with every P held by a long task it waits in
// the global queue until a holder ends or sysmon retakes a P whose slice
// overran (a Slice after that slice began), as a goroutine readied by a
// timer waits for a P.
//
// A timer's func runs on whichever goroutine runs the heap, so it does not
// know the P the readied task should go to. It pushes the task (a parked
// task's resume token, or AfterFunc's new task) on the fired stack, and the
// runner, right after its Run, moves everything on the stack into its own
// P's queue (runnext, as goready from runtimer) or, for sysmon, the global
// queue. Until then the task counts in parked, so Close's quiescence cannot
// miss it.

import (
	"context"
	"math"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/timers"
)

// now is the timers' clock: nanoseconds since the executor was made, from
// 1 (a heap takes a when below 1 as 1, and the clock of a synctest bubble
// is before atomicx's epoch).
func (e *Executor) now() int64 { return atomicx.Nanotime() - e.clockBase }

// LateTimer is how late a timer may fire before Stats counts it in
// TimersLate.
const LateTimer = time.Millisecond

// Sleep parks the task for at least d, its P going on with other tasks
// meanwhile: its timer is on its P's heap and readies it into the runnext
// of the P that runs it. A d of zero or less returns at once. It mirrors
// time.Sleep (timeSleep, resetForSleep, goroutineReady). It returns
// ErrNotInTask if t is not running.
func (t Task) Sleep(d time.Duration) error {
	w := t.current()
	if w == nil {
		return ErrNotInTask
	}
	if d <= 0 {
		return nil
	}
	e := w.e
	k := t.Waker()
	w.sleepK = k
	if mutant == sleepArmsEarly {
		d /= 2
	}
	e.armOn(w, &w.sleepT, e.now()+int64(d))
	t.Park(k)
	return nil
}

// armOn arms tm to fire at when on the heap of w's P, or, with w nil or
// holding no P, on P 0's, waking sysmon: no holder may look at that heap
// soon.
// It reports whether it stopped a pending arming of tm first.
func (e *Executor) armOn(w *worker, tm *timers.Timer, when int64) bool {
	if w != nil {
		if p := w.p.Load(); p != nil {
			return p.timers.Reset(tm, when)
		}
	}
	stopped := e.ps[0].timers.Reset(tm, when)
	e.wakeSysmonTimer()
	return stopped
}

// fireSleep is a sleeping task's timer func: ready its park.
func fireSleep(arg any, _ uint64, delay int64) {
	w := arg.(*worker)
	e := w.e
	e.timerFired(delay)
	if w.sleepK.claim() {
		e.pushFired(&w.token)
	}
}

// timerFired counts a fired timer and its lateness.
func (e *Executor) timerFired(delay int64) {
	e.timersFired.Add(1)
	if delay > int64(LateTimer) {
		e.timersLate.Add(1)
	}
	for {
		m := e.timerMaxLate.Load()
		if delay <= m || e.timerMaxLate.CompareAndSwap(m, delay) {
			return
		}
	}
}

// pushFired puts t on the fired stack; parked counts it until a runner
// has moved it to a queue (takeFired).
func (e *Executor) pushFired(t *task) {
	if t.w == nil {
		e.parked.Add(1) // a parked task is counted already
	}
	for {
		old := e.fired.Load()
		t.link = old
		if e.fired.CompareAndSwap(old, t) {
			return
		}
	}
}

// takeFired moves the fired tasks to p's queue, held by x in pSched, in
// the order they fired, each to runnext (the one before it to the ring's
// tail), as goready does for each; with p nil (sysmon) to the global
// queue. It returns how many it moved.
func (e *Executor) takeFired(x *worker, p *proc) int {
	l := e.fired.Swap(nil)
	if l == nil {
		return 0
	}
	var rev *task
	for l != nil { // the stack is newest first
		next := l.link
		l.link = rev
		rev, l = l, next
	}
	n := 0
	for t := rev; t != nil; n++ {
		next := t.link
		t.link = nil
		if p != nil && !e.gqOnly {
			if spill := p.q.PutNext(t, p.spill[:0]); len(spill) != 0 {
				e.overflow(x, p, spill)
			}
		} else {
			e.global.Put(t)
		}
		e.parked.Add(-1) // after the put: quiescence sees one or the other
		t = next
	}
	if p == nil || n > 1 {
		e.sched.Wakep() // a P for the work beyond the one this M runs next
	}
	return n
}

// checkTimers runs p's expired timers and moves what they readied to p's
// queue: findRunnable's first step, one load while p has no timer. It
// mirrors checkTimers.
func (e *Executor) checkTimers(x *worker, p *proc) {
	next := p.timers.Next()
	if next == 0 || mutant == noCheckTimers {
		return
	}
	if now := e.now(); now >= next {
		p.timers.Run(now, math.MaxInt)
		e.takeFired(x, p)
	}
}

// stealTimers runs the expired timers of the other Ps on p, held by x,
// which spins: stealWork's timer pass. It reports whether it moved a task
// to p's queue.
func (e *Executor) stealTimers(x *worker, p *proc) bool {
	var now int64
	for _, q := range e.allPs() { // a P taken away may hold a timer armed after its move (resize.go)
		next := q.timers.Next()
		if q == p || next == 0 {
			continue
		}
		if now == 0 {
			now = e.now()
		}
		if next <= now {
			q.timers.Run(now, math.MaxInt)
		}
	}
	return now != 0 && e.takeFired(x, p) != 0
}

// nextTimer is the earliest timer of every P, 0 if none.
func (e *Executor) nextTimer() int64 {
	var next int64
	for _, p := range e.allPs() {
		if w := p.timers.Next(); w != 0 && (next == 0 || w < next) {
			next = w
		}
	}
	return next
}

// sysmonTimers is sysmon's look at the timers, at now, its previous round
// having been at prev: it runs into the global queue the expired timers of
// an idle P, and those of a held P that had expired by prev already, whose
// holder has not reached a schedule for a whole round (a long task), so
// that no timer waits longer than a round. A busy P's holder gets the
// round first: it readies into its own runnext.
func (e *Executor) sysmonTimers(now, prev int64) {
	ran := false
	for _, p := range e.allPs() {
		next := p.timers.Next()
		if next == 0 || next > now || mutant == sysmonSkipsTimers {
			continue
		}
		if next <= prev || p.status.Load() == pIdle {
			p.timers.Run(now, math.MaxInt)
			ran = true
		}
	}
	if ran {
		e.takeFired(nil, nil)
	}
}

// timerCap shortens a sysmon sleep of d so that it ends by the earliest
// timer, or a shortest round after now if that has passed.
func (e *Executor) timerCap(d time.Duration) time.Duration {
	next := e.nextTimer()
	if next == 0 {
		return d
	}
	return max(min(d, time.Duration(next-e.now())), sysmonMinDelay)
}

// wakeSysmonTimer wakes sysmon from a sleep that a timer armed where no M
// will look soon could outlast: while every P is idle, or backed off.
func (e *Executor) wakeSysmonTimer() {
	e.wakeSysmon()
	e.wakeSysmonBackedOff()
	if np := e.np.Load(); np != nil {
		np.wakeBlocked() // an M in mPoll sleeps until the earliest timer it saw
	}
}

// untilTimer is how long a blocking poll may sleep: until the earliest
// timer, or for ever (-1) with none.
func (e *Executor) untilTimer() time.Duration {
	if next := e.nextTimer(); next != 0 {
		return max(time.Duration(next-e.now()), time.Nanosecond)
	}
	return -1
}

// Timer is a timer of the executor that spawns a task when it fires
// (AfterFunc). Its methods are safe from any goroutine.
type Timer struct {
	e  *Executor
	tm timers.Timer
	f  func(Task)
}

// AfterFunc arms a timer that spawns f as a task once d has passed, on the
// P that runs the timer (its runnext). The timer is on the heap of P 0 (a
// task's own P with Task.AfterFunc). A timer still pending when Close
// finds the executor quiescent never fires: its Stop then returns true. It
// mirrors time.AfterFunc (goFunc). It panics if f is nil.
func (e *Executor) AfterFunc(d time.Duration, f func(Task)) *Timer {
	return e.afterFunc(nil, d, f, "Executor.AfterFunc")
}

// AfterFunc is Executor.AfterFunc with the timer on the task's P, or P 0
// if it holds none. It panics if f is nil or t is not running.
func (t Task) AfterFunc(d time.Duration, f func(Task)) *Timer {
	w := t.current()
	if w == nil {
		t.stale("AfterFunc")
	}
	return w.e.afterFunc(w, d, f, "Task.AfterFunc")
}

func (e *Executor) afterFunc(w *worker, d time.Duration, f func(Task), call string) *Timer {
	if f == nil {
		panic("executor: " + call + " called with a nil func")
	}
	tm := &Timer{e: e, f: f}
	tm.tm.Init(fireFunc, tm)
	e.armOn(w, &tm.tm, e.now()+int64(max(d, 0)))
	return tm
}

// fireFunc is AfterFunc's timer func: queue its task.
func fireFunc(arg any, _ uint64, delay int64) {
	tm := arg.(*Timer)
	e := tm.e
	e.timerFired(delay)
	t := e.record()
	t.fn = tm.f
	e.pushFired(t)
}

// Stop disarms the timer and reports whether it stopped it before it
// fired. It mirrors (*time.Timer).Stop.
func (tm *Timer) Stop() bool { return tm.tm.Stop() }

// Reset re-arms the timer to fire once d has passed (on P 0's heap) and
// reports whether it stopped a pending arming first. It mirrors
// (*time.Timer).Reset.
func (tm *Timer) Reset(d time.Duration) bool {
	return tm.e.armOn(nil, &tm.tm, tm.e.now()+int64(max(d, 0)))
}

// GoTimeout submits f as a task, as Go does, with a context derived from
// ctx that the executor's timer cancels once d has passed since the
// submit (its Err is then context.DeadlineExceeded), or that is cancelled
// when f returns. The timer is on the executor's heaps, not a Go timer.
// It returns Go's errors.
func (e *Executor) GoTimeout(ctx context.Context, d time.Duration, f func(ctx context.Context, t Task)) error {
	if ctx == nil {
		panic("executor: Executor.GoTimeout called with a nil context")
	}
	if f == nil {
		panic("executor: Executor.GoTimeout called with a nil func")
	}
	deadline := e.now() + int64(max(d, 0))
	return e.Go(func(t Task) {
		tc := newTimeoutCtx(ctx, deadline, d)
		tm := t.AfterFunc(time.Duration(deadline-e.now()), func(Task) {
			tc.cancel(context.DeadlineExceeded)
		})
		defer func() {
			tm.Stop()
			tc.cancel(context.Canceled)
		}()
		f(tc, t)
	})
}

// timeoutCtx is GoTimeout's context: a cancelable child of the parent
// whose deadline is the timeout's, and whose Err says DeadlineExceeded
// when the timer cancelled it.
type timeoutCtx struct {
	context.Context
	cancel   context.CancelCauseFunc
	deadline time.Time
}

func newTimeoutCtx(parent context.Context, _ int64, d time.Duration) *timeoutCtx {
	c, cancel := context.WithCancelCause(parent)
	dl := time.Now().Add(d)
	if pd, ok := parent.Deadline(); ok && pd.Before(dl) {
		dl = pd
	}
	return &timeoutCtx{Context: c, cancel: cancel, deadline: dl}
}

func (c *timeoutCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *timeoutCtx) Err() error {
	err := c.Context.Err()
	if err != nil && context.Cause(c.Context) == context.DeadlineExceeded {
		return context.DeadlineExceeded
	}
	return err
}
