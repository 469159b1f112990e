package executor

// The network poller: tasks wait for a descriptor's readiness without an M
// (runtime/netpoll.go, netpoll_epoll.go). A task whose read or write would
// block parks on the descriptor's netpoll.Desc; epoll, edge-triggered,
// reports the descriptor ready and whoever polled readies the task. Three
// places poll, as in the runtime:
//
//   - findRunnable, with nothing in its P's queues or the global queue, polls
//     without blocking before it steals, and what it readied goes to its P's
//     queue, the first of it next (netpoll(0) in findRunnable);
//   - sysmon, at each round while a P idles (or once every
//     forcePollEvery otherwise), polls without blocking and readies into the
//     global queue (sysmon's "poll network if not polled for more than 10ms");
//   - an M about to park while tasks wait blocks in epoll_wait itself until
//     the earliest timer (mPoll: findRunnable's netpoll(delay)), one such
//     poller at a time; with none, sysmon's sleep while every P idles is
//     that epoll_wait. An eventfd write (netpollBreak) from Close, stop or
//     an earlier timer interrupts it.
//
// What a poll readies goes through the fired stack, as a timer's readies do
// (timer.go): the poller claims the task's park word, pushes its resume
// token, and the runner moves the tokens to its queue (takeFired).

import (
	"errors"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/netpoll"
	"github.com/schedkit/schedkit/timers"
)

// forcePollEvery is how long the descriptors may go unpolled while every P
// is busy before sysmon polls: the runtime's 10ms.
const forcePollEvery = int64(10 * time.Millisecond)

// ErrPollerClosed is what a wait on a descriptor returns once the
// executor is closing (Close, Shutdown): it wraps netpoll.ErrClosing
// (net.ErrClosed), as closing the descriptor does.
var ErrPollerClosed = fmt.Errorf("executor: closed: %w", netpoll.ErrClosing)

// pollWaiter is what a Desc readies: a task's Waker, or the note of a
// goroutine outside the executor.
type pollWaiter struct {
	k    Waker
	note *atomicx.Note
}

// poller is the executor's epoll instance and the descriptors in it,
// made at the first OpenFD.
type poller struct {
	e   *Executor
	sys pollSys // epoll and its eventfd (poll_linux.go)
	tab netpoll.Table[pollWaiter]
	brk netpoll.Breaker

	mu     atomicx.Mutex // open and evict
	fds    map[*FD]struct{}
	closed atomicx.Bool // set under mu: Close has begun, every Desc is evicted

	// waiting counts the waits in progress, parked or about to park: the
	// runtime's netpollWaiters; no poll happens while it is zero.
	waiting  atomicx.Int64
	lastPoll atomicx.Int64 // e.now() of the last poll
	// blocking is 1 while sysmon (block) or an M (mPoll) sleeps in
	// epoll_wait, one at a time (the runtime's sched.lastpoll == 0): only
	// then does a waker write the eventfd.
	blocking atomicx.Uint32

	waits, readies, polls, mPolls atomicx.Uint64
	blockSkips                    atomicx.Uint64 // blocks that saw a waker first (the explorer's reach)
}

// FD is a descriptor registered with the executor's poller: tasks wait
// for its readiness parked, with deadlines, and Close wakes them. It
// mirrors internal/poll's FD and the runtime's pollDesc. Its methods are
// safe from any goroutine.
type FD struct {
	np *poller
	fd int
	d  netpoll.Desc[pollWaiter]

	// refs counts the operations in progress (Acquire), with closedBit
	// set by Close: the descriptor is closed when both are done, so no
	// operation ever uses a number the kernel has given to a new file.
	refs atomicx.Int64

	dmu        atomicx.Mutex // the deadline timers and the generations they fire for
	rt, wt     timers.Timer
	rseq, wseq uint64
}

const closedBit = 1 << 62

// OpenFD registers fd, which must be in non-blocking mode, with the
// executor's poller (edge-triggered, for reading and writing) and returns
// its FD, which owns it from now on: FD.Close closes it. It returns
// ErrClosed once Close or Shutdown has begun, and the system's error if
// epoll refuses the descriptor (a regular file, say).
// Built with -tags schedcheck, where the poller is the explorer's fake
// kernel, it fails at once outside an explorer scenario: no real
// descriptor would ever be reported ready.
func (e *Executor) OpenFD(fd int) (*FD, error) {
	np, err := e.netpoller()
	if err != nil {
		return nil, err
	}
	f := &FD{np: np, fd: fd}
	f.rt.Init(fireDeadline, &deadlineArg{f, netpoll.Read})
	f.wt.Init(fireDeadline, &deadlineArg{f, netpoll.Write})
	np.mu.Lock()
	defer np.mu.Unlock()
	if np.closed.Load() {
		return nil, ErrClosed
	}
	tag := np.tab.Open(&f.d)
	if err := np.sys.add(fd, tag); err != nil {
		np.tab.Free(&f.d)
		return nil, err
	}
	np.fds[f] = struct{}{}
	return f, nil
}

// netpoller returns e's poller, made at the first call.
func (e *Executor) netpoller() (*poller, error) {
	if np := e.np.Load(); np != nil {
		return np, nil
	}
	e.npMu.Lock()
	defer e.npMu.Unlock()
	if np := e.np.Load(); np != nil {
		return np, nil
	}
	if e.closing.Load() != 0 {
		return nil, ErrClosed
	}
	np := &poller{e: e, fds: make(map[*FD]struct{})}
	if err := np.sys.init(); err != nil {
		return nil, fmt.Errorf("executor: the network poller: %w", err)
	}
	np.lastPoll.Store(e.now())
	e.np.Store(np)
	return np, nil
}

// Fd is the descriptor's number. Use it only between Acquire and Release.
func (f *FD) Fd() int { return f.fd }

// Acquire starts an operation on the descriptor: until its Release, Close
// does not close the number. It returns ErrPollerClosed or
// netpoll.ErrClosing once Close has begun.
func (f *FD) Acquire() error {
	for {
		n := f.refs.Load()
		if n&closedBit != 0 {
			return f.errOf(netpoll.ErrClosing)
		}
		if f.refs.CompareAndSwap(n, n+1) {
			return nil
		}
	}
}

// Release ends an operation Acquire started. Once closedBit is set the
// count only falls, so exactly one Release (Close's own, or the last
// operation's) takes it to closedBit and closes the number.
func (f *FD) Release() {
	if n := f.refs.Add(-1); n == closedBit {
		closeFD(f.fd)
	} else if n < 0 {
		panic("executor: FD.Release called without an Acquire")
	}
}

// PrepareRead forgets an old read edge before a read(2), so that a wait
// after its EAGAIN waits for a new one (pollDesc.prepareRead). It returns
// the error a wait would return now (closed, deadline passed).
func (f *FD) PrepareRead() error { return f.errOf(f.d.Reset(netpoll.Read)) }

// PrepareWrite is PrepareRead for writing.
func (f *FD) PrepareWrite() error { return f.errOf(f.d.Reset(netpoll.Write)) }

// WaitRead parks t until the descriptor is readable, its read deadline
// passes (os.ErrDeadlineExceeded) or it is closed (net.ErrClosed, or
// ErrPollerClosed when the executor closes); t's P goes on with other
// tasks meanwhile. With the zero Task it blocks the calling goroutine
// instead. One waiter per direction at a time. It mirrors
// poll_runtime_pollWait.
func (f *FD) WaitRead(t Task) error { return f.wait(t, netpoll.Read) }

// WaitWrite is WaitRead for writing.
func (f *FD) WaitWrite(t Task) error { return f.wait(t, netpoll.Write) }

func (f *FD) wait(t Task, m netpoll.Mode) error {
	np := f.np
	np.waits.Add(1)
	var err error
	if t.w == nil {
		err = f.d.Wait(m, outsideParker{np})
	} else {
		if t.current() == nil {
			t.stale("FD wait")
		}
		err = f.d.Wait(m, taskParker{np, t})
	}
	return f.errOf(err)
}

// errOf names the executor's closing in a wait's closing error.
func (f *FD) errOf(err error) error {
	if errors.Is(err, netpoll.ErrClosing) && f.np.closed.Load() {
		return ErrPollerClosed
	}
	return err
}

// taskParker parks a task: Task.Waker, Task.Park.
type taskParker struct {
	np *poller
	t  Task
}

func (p taskParker) Waiter() pollWaiter { return pollWaiter{k: p.t.Waker()} }

func (p taskParker) Park(w pollWaiter, committed bool) {
	if !committed {
		unwaker(w.k) // nobody readies it: go on without parking
		return
	}
	p.np.waiting.Add(1)
	p.np.e.wakeSysmon() // one asleep on its note (no waiter then) sleeps in epoll from now on
	p.t.Park(w.k)
	p.np.waiting.Add(-1)
}

// outsideParker blocks a goroutine outside the executor on a note.
type outsideParker struct{ np *poller }

func (outsideParker) Waiter() pollWaiter { return pollWaiter{note: new(atomicx.Note)} }

func (p outsideParker) Park(w pollWaiter, committed bool) {
	if !committed {
		return
	}
	p.np.waiting.Add(1)
	p.np.e.wakeSysmon() // with every P idle nobody polls but sysmon
	w.note.Sleep()
	p.np.waiting.Add(-1)
}

// readyOutside readies a waiter from a goroutine that runs no task of the
// executor's (Close, SetDeadline): a task goes to the global queue.
func readyOutside(w pollWaiter) {
	if w.note != nil {
		w.note.Wakeup()
		return
	}
	w.k.Ready(Task{})
}

// readyFired readies a waiter from a poll or a timer: a task's token goes
// on the fired stack, for the runner to move to its queue (takeFired).
func (np *poller) readyFired(w pollWaiter) {
	np.readies.Add(1)
	if w.note != nil {
		w.note.Wakeup()
		return
	}
	if mutant == pollReadyNoClaim || w.k.claim() {
		np.e.pushFired(&w.k.w.token)
	}
}

// SetReadDeadline sets the deadline of the descriptor's reads: a wait
// past it returns os.ErrDeadlineExceeded, the one in progress included; a
// zero t clears it. Its timer is on P 0's heap (netpoll's deadline timers
// are the runtime's pd.rt and pd.wt).
func (f *FD) SetReadDeadline(t time.Time) { f.setDeadline(netpoll.Read, t) }

// SetWriteDeadline is SetReadDeadline for writes.
func (f *FD) SetWriteDeadline(t time.Time) { f.setDeadline(netpoll.Write, t) }

// SetDeadline sets both deadlines.
func (f *FD) SetDeadline(t time.Time) {
	f.setDeadline(netpoll.Read, t)
	f.setDeadline(netpoll.Write, t)
}

type deadlineArg struct {
	f *FD
	m netpoll.Mode
}

func (f *FD) setDeadline(m netpoll.Mode, t time.Time) {
	tm := &f.rt
	if m == netpoll.Write {
		tm = &f.wt
	}
	f.dmu.Lock()
	defer f.dmu.Unlock()
	tm.Stop()
	switch d := time.Until(t); {
	case t.IsZero():
		f.d.SetDeadline(m, netpoll.NoDeadline, readyOutside)
	case d <= 0:
		f.d.SetDeadline(m, netpoll.Expired, readyOutside)
	default:
		seq := f.d.SetDeadline(m, netpoll.Pending, readyOutside)
		f.np.e.armOn(nil, tm, f.np.e.now()+int64(d))
		f.armedSeq(m, seq)
	}
}

// armedSeq records the generation the direction's timer was armed for:
// its func reads it under dmu.
func (f *FD) armedSeq(m netpoll.Mode, seq uint64) {
	if m == netpoll.Read {
		f.rseq = seq
	} else {
		f.wseq = seq
	}
}

// fireDeadline is a deadline timer's func (netpolldeadlineimpl).
func fireDeadline(arg any, _ uint64, delay int64) {
	a := arg.(*deadlineArg)
	f := a.f
	f.np.e.timerFired(delay)
	f.dmu.Lock()
	seq := f.rseq
	if a.m == netpoll.Write {
		seq = f.wseq
	}
	f.dmu.Unlock()
	f.d.Expire(a.m, seq, f.np.readyFired)
}

// Close wakes the descriptor's waiters (net.ErrClosed), takes it out of
// epoll, and closes it once the operations in progress have ended. A
// second Close returns net.ErrClosed.
func (f *FD) Close() error {
	for { // closedBit and Close's own reference, in one step
		n := f.refs.Load()
		if n&closedBit != 0 {
			return f.errOf(netpoll.ErrClosing)
		}
		if f.refs.CompareAndSwap(n, n|closedBit+1) {
			break
		}
	}
	np := f.np
	np.mu.Lock()
	if _, ok := np.fds[f]; ok { // else evictAll has evicted it
		delete(np.fds, f)
		f.evict()
	}
	np.mu.Unlock()
	f.Release()
	return nil
}

// evict closes f's Desc and takes it out of epoll: no event of its reaches
// a waiter from now on. Called once, with np.mu held, before the number
// can be closed.
func (f *FD) evict() {
	f.dmu.Lock()
	f.rt.Stop()
	f.wt.Stop()
	f.dmu.Unlock()
	f.d.Close(readyOutside)
	f.np.sys.del(f.fd)
	f.np.tab.Free(&f.d)
}

// evictAll is Close's first step: every descriptor's waiters wake with
// ErrPollerClosed and OpenFD fails from now on, so tasks parked on I/O end
// and Close can find the executor quiescent. The numbers stay open until
// their FDs' Close.
func (np *poller) evictAll() {
	np.mu.Lock()
	defer np.mu.Unlock()
	np.closed.Store(true)
	for f := range np.fds {
		f.evict()
	}
	clear(np.fds)
	np.wakeBlocked() // an M in mPoll: Close waits for every M to park
}

// poll runs one non-blocking poll for runner x holding p (nil, nil:
// sysmon) and moves what it readied to p's queue (the global queue),
// returning how many. It does nothing while no task waits.
func (np *poller) poll(x *worker, p *proc) int {
	if np.waiting.Load() == 0 {
		return 0
	}
	np.polls.Add(1)
	np.sys.wait(np, 0)
	return np.e.takeFired(x, p)
}

// block is sysmon's sleep while every P idles: epoll_wait until the
// earliest timer (d < 0: none), or a break. It reports false, having done
// nothing, if an M blocks in epoll_wait already (mPoll): one blocking
// poller at a time, as the runtime's sched.lastpoll.
//
// The flags are a Dekker pair with wakeSysmon's: sysmon takes blocking,
// then looks at sysmonWait; a waker clears sysmonWait, then looks at
// blocking. One of the two sees the other: either sysmon does not block
// or the waker writes the eventfd.
func (np *poller) block(d time.Duration) bool {
	if !np.blocking.CompareAndSwap(0, 1) {
		return false
	}
	if np.e.sysmonWait.Load() != 0 || mutant == blockSkipsRecheck {
		np.sys.wait(np, d)
	} else {
		np.blockSkips.Add(1)
	}
	np.blocking.Store(0)
	np.e.takeFired(nil, nil)
	return true
}

// mPoll is findRunnable's last step before its M parks, as the runtime's
// (findRunnable's blocking netpoll(delay), taken when sched.lastpoll is
// not 0): while tasks wait for I/O and no other goroutine blocks in
// epoll_wait, the M, holding no P, blocks there until the earliest timer
// or a break, instead of parking. What it readied it runs on an idle P if
// it gets one (it reports true: w holds that P, in pSched, the tasks in
// its queue), else puts in the global queue with a wakeup. A request on
// an idle executor then costs no goroutine switch to be seen. Whoever
// needs the M back breaks the wait: Close's eviction, stop, a timer armed
// earlier (wakeSysmonTimer). Each of them publishes first and then looks
// at blocking; the M takes blocking first and then looks at what they
// publish (stopped, closed, the timers), so one of the two sees the other.
func (e *Executor) mPoll(w *worker) bool {
	np := e.np.Load()
	if np == nil || np.waiting.Load() == 0 || !np.blocking.CompareAndSwap(0, 1) {
		return false
	}
	if e.stopped.Load() == 0 && !np.closed.Load() {
		np.mPolls.Add(1)
		d := time.Duration(-1)
		if next := e.nextTimer(); next != 0 {
			d = max(time.Duration(next-e.now()), time.Nanosecond)
		}
		np.sys.wait(np, d)
	}
	np.blocking.Store(0)
	if e.fired.Load() != nil && w.sm.Load().AcquireP() {
		e.takeP(w)
		e.takeFired(w, w.p.Load())
		return true
	}
	e.takeFired(nil, nil) // no idle P: the global queue, and a wakeup
	// This M parks (a break, the timer, events nobody waited for, or no
	// idle P). sysmon may have found the slot taken and slept on its note
	// with every P idle: wake it, so that it polls from now on. Without
	// this wakeup a goroutine waiting on a listener waited for ever, with
	// every M parked and nobody in epoll_wait (http1's tests, 1 run in 2).
	e.wakeSysmon()
	return false
}

// wakeBlocked breaks a blocking poll: a P was taken, or a timer armed.
func (np *poller) wakeBlocked() {
	if mutant == wakeSysmonNoBreak {
		return
	}
	if np.blocking.Load() != 0 {
		np.brk.Break(np.sys.wakeup)
	}
}

// event is one readiness event epoll reported for tag: ready its waiters.
func (np *poller) event(tag uint64, m netpoll.Mode, errEvent bool) {
	if d := np.tab.Lookup(tag); d != nil {
		d.Ready(m, errEvent, np.readyFired)
	}
}

// pollIdle is findRunnable's poll, before stealing: it reports whether it
// moved a task to p's queue.
func (e *Executor) pollIdle(x *worker, p *proc) bool {
	np := e.np.Load()
	return np != nil && np.poll(x, p) != 0
}

// pollWaiters reports whether a task or goroutine waits on a descriptor.
func (e *Executor) pollWaiters() bool {
	np := e.np.Load()
	return np != nil && np.waiting.Load() != 0
}

// sysmonIdleDoze is sysmon's sleep of d at a round while tasks wait for
// I/O: a doze that the M giving back the last busy P ends (wakeIdleSysmon),
// so that sysmon goes to its blocking poll at once, as the runtime's last
// M to park blocks in netpoll itself. A 20µs Go timer with every Go P idle
// lasts about a millisecond (sysmon.go), and a request on an idle
// executor waited that long for its wake (2.4 ms p99 on one connection).
// The two sides are a Dekker pair: sysmon publishes dozeIdlePoll, then
// counts the idle Ps; the M publishes its idle P (ReleaseP), then looks
// at sysmonDozing.
func (e *Executor) sysmonIdleDoze(d time.Duration) {
	e.sysmonDozing.Store(dozeIdlePoll)
	if !e.allIdle() {
		e.sysmonNote.SleepFor(d)
	}
	if !e.sysmonDozing.CompareAndSwap(dozeIdlePoll, 0) {
		e.sysmonNote.Sleep() // a waker won the flag: take its wakeup
	}
	e.sysmonNote.Clear()
}

// wakeIdleSysmon is findRunnable's, after it gave back a P, when every P
// is idle and tasks wait for I/O: it ends sysmon's idle doze.
func (e *Executor) wakeIdleSysmon() {
	if !e.pollWaiters() || !e.allIdle() {
		return
	}
	if e.sysmonDozing.Load() == dozeIdlePoll && e.sysmonDozing.CompareAndSwap(dozeIdlePoll, 0) {
		e.sysmonNote.Wakeup()
	}
}

// sysmonPoll is sysmon's poll at a round: while a P idles, or when nobody
// has polled for forcePollEvery.
func (e *Executor) sysmonPoll(now int64) {
	np := e.np.Load()
	if np == nil || np.waiting.Load() == 0 {
		return
	}
	if e.sched.NPIdle() > 0 || now-np.lastPoll.Load() > forcePollEvery {
		np.poll(nil, nil)
	}
}

// Executor is the executor whose poller f is registered with.
func (f *FD) Executor() *Executor { return f.np.e }
