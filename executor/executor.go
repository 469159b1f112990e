package executor

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/spinning"
	"github.com/schedkit/schedkit/stealing"
)

// Executor runs tasks on Procs Ps the way the Go runtime runs goroutines.
// See the package documentation. Create one with New; end it with Close or
// Shutdown.
type Executor struct {
	cfg    Config
	procs  int
	gqOnly bool
	ps     []*proc

	global  globalq.Queue[task]
	gfree   gfreeList // free task records (sched.gFree; gfree.go)
	sched   *spinning.Sched
	idle    *stealing.IdleMask // a bit for every P the executor may have (MaxProcs)
	resizer resizeState        // allPs, the Ps in service, their Stealer (resize.go)

	// closing is set when Close or Shutdown begins: outside submits fail.
	// inflight counts outside submits between their check of closing and
	// their publication, so that quiescence is judged only when none is.
	closing  atomicx.Uint32
	inflight atomicx.Int64
	// submits numbers the outside tasks, for sampling their latency
	// (LatencySample); declared beside inflight, which a submit writes too.
	submits atomicx.Uint64

	// Config.MaxQueued (0: no bound) and the error TryGo returns at it.
	// queued counts the outside tasks accepted and not yet started, only
	// under a bound (admit); room holds the submitters waiting for
	// room, nwait their number.
	maxQueued int64
	fullErr   error
	queued    atomicx.Int64
	nwait     atomicx.Int64
	roomMu    atomicx.Mutex
	room      []*roomWaiter // FIFO; guarded by roomMu
	roomWakes uint64        // wakeups freed room handed a waiter (not Close's), for tests; guarded by roomMu
	// quiet is woken once: by the M that finds the executor quiescent
	// while closing (quietBy 1), or by Shutdown's deadline (quietBy 2).
	quiet   atomicx.Note
	quietBy atomicx.Uint32
	// abandon is set at Shutdown's deadline: Ms drop the tasks they find
	// instead of running them, and count them in dropped.
	abandon atomicx.Uint32
	dropped atomicx.Int64

	// nm counts the spinning.Ms made (one per worker); live counts the
	// goroutines (workers and sysmon) not yet exited; exited is woken when
	// live reaches zero after shutdown.
	nm      atomicx.Int64
	live    atomicx.Int64
	exited  atomicx.Note
	stopped atomicx.Uint32
	// booting is 1 from boot until its Ms have all parked; booted wakes
	// boot then (checkDead).
	booting atomicx.Uint32
	booted  atomicx.Note

	// parksNoP counts the parks of Ms that held no P (stats.go).
	parksNoP atomicx.Uint64

	// parked counts the tasks parked (park.go) and not yet readied: Close
	// waits for them as for running tasks. outsideReadies counts the
	// readies that went to the global queue.
	parked         atomicx.Int64
	outsideReadies atomicx.Uint64
	taskParksNoP   atomicx.Uint64 // parks of tasks that held no P (counted in Total.TaskParks)
	// spares are the workers with no M waiting for a parking task's P,
	// dead the records of spares whose goroutines ended (for reuse).
	spareMu atomicx.Mutex
	spares  []*worker
	dead    []*worker

	// fired is the stack of tasks that timers readied, on their way to a
	// queue (timer.go); the counters are Stats'.
	fired     atomicx.Pointer[task]
	clockBase int64 // now's zero, less one: Nanotime at build

	timersFired  atomicx.Uint64
	timersLate   atomicx.Uint64
	timerMaxLate atomicx.Int64

	// np is the network poller (poll.go), made at the first OpenFD.
	np   atomicx.Pointer[poller]
	npMu atomicx.Mutex

	// sysmon sleeps on sysmonNote while every P is idle (sysmonWait 1),
	// and while it dozes (sysmonDozing 1): backed off past the pace of a
	// call in Syscall (a call's entry wakes it), or at that pace with a
	// call in pSyscall until sysmonDue (an M that sees the time past wakes
	// it: kickSysmon). sysmonDue is 0 otherwise; Ms read it every
	// kickEvery tasks, so it shares its line only with words written as
	// seldom.
	sysmonNote   atomicx.Note
	sysmonWait   atomicx.Uint32
	sysmonDozing atomicx.Uint32
	sysmonDue    atomicx.Int64
	// sysmonLate lengthens sysmon's sleeps at a call's pace, as a coarse
	// Go timer does (tests only: SetSysmonLate).
	sysmonLate time.Duration
	// fakeClock: the clock stood still over a nanosleep (a synctest
	// bubble's), so sysmon keeps to Go timers (usleep). sysmon's alone.
	fakeClock bool
	// realClock: the clock moved over a nanosleep, so sysmon may wait on
	// the CPU for a call's threshold (spinForCall). sysmon's alone.
	realClock bool

	// calls counts the Task.Syscall calls in progress, maxCalls the most
	// at once (Stats): written by every call, on a line of their own.
	_        [cacheLine]byte
	calls    atomicx.Int64
	maxCalls atomicx.Int64
	_        [cacheLine - 16]byte

	mu      atomicx.Mutex // guards workers and panics
	workers []*worker
	panics  []error
	npanics int

	// goStart starts a goroutine of the executor (an M, sysmon): a go
	// statement, except under the explorer, whose scenarios run them as
	// their threads.
	goStart func(func())
	// helpInline runs a Wait's help on the waiting task's goroutine
	// instead of a helper: the explorer's executors, whose scenarios
	// schedule only the goroutines they started and never Goexit. A
	// helper's switches add no interleaving: one goroutine of an M runs
	// at a time.
	helpInline bool

	closeMu  atomicx.Mutex // serializes Close and Shutdown
	closed   bool          // guarded by closeMu
	waited   bool          // every goroutine has exited; guarded by closeMu
	closeErr error         // guarded by closeMu
}

// maxKeptPanics bounds the panics Close reports one by one; the rest are
// counted.
const maxKeptPanics = 100

// New returns a running Executor for cfg, or an error naming the first bad
// field of cfg (wrapping ErrConfig). Its Ms start parked; sysmon starts
// watching.
func New(cfg Config) (*Executor, error) {
	e, err := build(cfg, func(f func()) { go f() }, true)
	if err != nil {
		return nil, err
	}
	e.boot()
	e.gfree.trimAtGC(&e.stopped)
	return e, nil
}

// build makes an executor that starts its goroutines with goStart, and
// starts none yet. Without needM its Ms are a fixed pool (spinning's
// NeedM is nil: a handoff that finds no idle M waits for the next M to
// park), as the explorer's scenarios need.
func build(cfg0 Config, goStart func(func()), needM bool) (*Executor, error) {
	cfg, err := cfg0.resolve()
	if err != nil {
		return nil, err
	}
	e := &Executor{cfg: cfg, procs: cfg.Procs, gqOnly: cfg.GlobalQueueOnly, goStart: goStart, helpInline: !needM,
		sysmonLate: sysmonLateForTest}
	e.clockBase = atomicx.Nanotime() - 1
	if cfg.MaxQueued != 0 {
		e.maxQueued = int64(cfg.MaxQueued)
		e.fullErr = fmt.Errorf("%w: %d outside tasks queued (Config.MaxQueued)", ErrFull, cfg.MaxQueued)
	}
	e.ps = make([]*proc, cfg.Procs)
	for i := range e.ps {
		e.ps[i] = newProc(i, cfg)
	}
	if e.idle, err = stealing.NewIdleMask(MaxProcs); err != nil {
		return nil, err
	}
	for i := range e.ps {
		e.idle.Set(i) // every P starts idle, as in the Sched
	}
	if err = e.initResize(cfg0.Procs == 0); err != nil {
		return nil, err
	}
	sc := spinning.Config{Procs: cfg.Procs, Work: e.work, CheckDead: e.checkDead}
	if needM {
		sc.NeedM = e.startM
		if cfg.MKeepAlive > 0 && mutant != msNeverExit {
			sc.KeepAlive = cfg.MKeepAlive // idle Ms beyond the Ps exit (stopm)
		}
	}
	e.sched, err = spinning.New(sc)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// boot starts Procs Ms and sysmon, and returns once the Ms have parked.
// A submit that found no M parked would make one more (startm's newm),
// and the boot M it raced with would park unused: 4 Ms at Procs 2 when the
// first Go came right after New. The runtime makes its Ms only when
// startm finds none idle (mget, then newm), so it has no such race.
func (e *Executor) boot() {
	e.booting.Store(1)
	for range e.procs {
		e.startM()
	}
	e.live.Add(1)
	e.goStart(e.sysmon)
	if mutant != bootNoWait {
		e.booted.Sleep()
	}
}

// Procs returns the number of Ps in service: Config.Procs, or the last
// SetProcs (resize.go).
func (e *Executor) Procs() int { return e.liveProcs() }

// Go submits f from any goroutine: it goes to the global queue and an idle
// P is woken for it (spinning's Submit order: publish, then Wakep). It
// returns ErrClosed once Close or Shutdown has begun. A task spawning
// another should use its Task's Go instead, which is local and faster. It
// mirrors newproc for a goroutine started from outside any P (globrunqput,
// wakep).
//
// With Config.MaxQueued set, Go waits for room (GoContext with
// context.Background()); Close and Shutdown end the wait with ErrClosed.
//
// Go panics if f is nil.
func (e *Executor) Go(f func(Task)) error {
	if f == nil {
		panic("executor: Executor.Go called with a nil func")
	}
	t := e.record()
	t.fn = f
	return e.submit(context.Background(), t, nil)
}

// GoContext is Go that waits for room under Config.MaxQueued only until
// ctx ends: then it returns ctx's error, having accepted nothing. An ended
// ctx is refused at once, with or without a bound. A task of the executor
// that has to wait hands its P to another M meanwhile (as Task.Blocking
// does), so the Ms go on starting queued tasks, which makes room. Close
// and Shutdown end the wait with ErrClosed.
//
// GoContext panics if ctx or f is nil.
func (e *Executor) GoContext(ctx context.Context, f func(Task)) error {
	if ctx == nil {
		panic("executor: Executor.GoContext called with a nil context")
	}
	if f == nil {
		panic("executor: Executor.GoContext called with a nil func")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t := e.record()
	t.fn = f
	return e.submit(ctx, t, nil)
}

// TryGo is Go that never waits: with Config.MaxQueued outside tasks queued
// already it returns an error wrapping ErrFull that names the bound
// ("executor: queue full: 1024 outside tasks queued (Config.MaxQueued)"),
// having accepted nothing. Without a bound it is Go.
//
// TryGo panics if f is nil.
func (e *Executor) TryGo(f func(Task)) error {
	if f == nil {
		panic("executor: Executor.TryGo called with a nil func")
	}
	t := e.record()
	t.fn = f
	return e.submit(nil, t, nil)
}

// GoBatch submits every func of fs under one lock of the global queue, with
// records from the free list (one lock) and at most one allocation for the
// rest, and wakes an M; the Ms that find work
// wake others (resetspinning's chain), as injectglist starts Ms for a batch.
// It returns ErrClosed, having submitted nothing, once Close or Shutdown
// has begun. It panics, having submitted nothing, if any func is nil.
//
// With Config.MaxQueued set, a batch is accepted whole or not at all: it
// waits for room for every func (as Go does), and a batch of more than
// MaxQueued funcs, which could never fit, returns an error wrapping
// ErrBatchTooLarge at once.
func (e *Executor) GoBatch(fs []func(Task)) error {
	for _, f := range fs {
		if f == nil {
			panic("executor: Executor.GoBatch called with a nil func")
		}
	}
	if len(fs) == 0 {
		return nil
	}
	if e.maxQueued != 0 && int64(len(fs)) > e.maxQueued {
		return fmt.Errorf("%w: %d funcs, Config.MaxQueued is %d", ErrBatchTooLarge, len(fs), e.maxQueued)
	}
	var buf [batchOnStack]*task
	ts := buf[:0]
	if len(fs) > len(buf) {
		ts = make([]*task, 0, len(fs))
	}
	ts = ts[:len(fs)]
	e.records(ts)
	for i, f := range fs {
		ts[i].fn = f
	}
	return e.submit(context.Background(), nil, ts)
}

// batchOnStack is the largest GoBatch whose slice of records needs no
// allocation.
const batchOnStack = 64

// submit publishes t (or the batch ts) to the global queue from outside any
// P, stamping the submit time for the latency histogram. A refused submit
// returns its records, which nothing else holds, to the free list. Under
// Config.MaxQueued it first takes room for them (admit), waiting until ctx
// ends, or not at all if ctx is nil (TryGo); without a bound that costs
// one predictable branch. The bound is checked here and nowhere else:
// local spawns and a task's group children never come through submit.
func (e *Executor) submit(ctx context.Context, t *task, ts []*task) error {
	if mutant == submitChecksBeforeInflight && e.closing.Load() != 0 {
		return ErrClosed
	}
	e.inflight.Add(1)
	if e.closing.Load() != 0 && mutant != submitChecksBeforeInflight {
		e.leave()
		e.unrecord(t, ts)
		return ErrClosed
	}
	if e.maxQueued != 0 {
		if err := e.admit(ctx, t, ts); err != nil {
			e.leave()
			e.unrecord(t, ts)
			return err
		}
	}
	if t != nil {
		if (e.submits.Add(1)-1)%LatencySample == 0 {
			t.at = atomicx.Nanotime()
		}
		e.global.Put(t)
	} else {
		n := uint64(len(ts))
		first := e.submits.Add(n) - n
		if skip := (LatencySample - first%LatencySample) % LatencySample; skip < n {
			now := atomicx.Nanotime()
			for i := skip; i < n; i += LatencySample {
				ts[i].at = now
			}
		}
		e.global.PutBatch(ts)
	}
	switch {
	case mutant == submitWakesOnlyIdle:
		e.wakeIfIdle()
	case mutant == submitSkipsWakeAlways:
	case mutant == submitSkipsWakeOnBacklog && e.global.Len() > max(len(ts), 1):
	default:
		// Every submit wakes, backlog or not: skipping while another task
		// is queued lost wakeups, as two submitters each saw the other's
		// task and both skipped (explorer submit-vs-submit). Wakep's fast
		// path is one load while an M spins.
		e.sched.Wakep()
	}
	e.wakeSysmonForWork()
	e.leave()
	return nil
}

// unrecord gives the records of a refused submit back to the free list.
func (e *Executor) unrecord(t *task, ts []*task) {
	if t != nil {
		e.gfree.put(t)
	}
	e.gfree.putAll(ts)
}

// admit takes room under Config.MaxQueued for t (or the batch ts), which
// submit is about to publish, and marks them counted, so that the M that
// takes one to run (or drops it) frees its room (unqueue). Without room it
// waits until ctx ends, or fails at once if ctx is nil.
func (e *Executor) admit(ctx context.Context, t *task, ts []*task) error {
	k := int64(len(ts))
	if t != nil {
		k = 1
	}
	if !e.reserve(k) {
		if ctx == nil {
			return e.fullErr
		}
		if err := e.awaitRoom(ctx, k); err != nil {
			return err
		}
	}
	if t != nil {
		t.bound = true
	}
	for _, t := range ts {
		t.bound = true
	}
	return nil
}

// reserve counts k more queued outside tasks if they fit the bound. A CAS,
// not an add undone on failure: a transient excess would refuse another
// submitter, and its undoing would make room that wakes nobody.
func (e *Executor) reserve(k int64) bool {
	for {
		q := e.queued.Load()
		if q+k > e.maxQueued {
			return false
		}
		if mutant == reserveLoadStore {
			e.queued.Store(q + k)
			return true
		}
		if e.queued.CompareAndSwap(q, q+k) {
			return true
		}
	}
}

// unqueue frees the room of k counted tasks, taken by an M to run or
// dropped at Shutdown, and wakes the first waiting submitter, if any.
//
// No lost wakeup: a waiter registers (nwait, under roomMu) before it looks
// for room (reserve's load of queued); unqueue frees room (queued) before
// it looks for waiters (nwait). All four are sequentially consistent, so
// either the waiter sees the room or unqueue sees the waiter, which then
// is on the list it takes under roomMu.
func (e *Executor) unqueue(k int64) {
	if mutant == boundNotReleased {
		return
	}
	if mutant == roomFreedAfterLook {
		waiting := e.nwait.Load() != 0
		e.queued.Add(-k)
		if waiting {
			e.wakeRoom(false)
		}
		return
	}
	e.queued.Add(-k)
	if e.nwait.Load() != 0 && mutant != fullWakesNobody {
		e.wakeRoom(false)
	}
}

// roomWaiter is one round of a submitter's wait for room: woken once, by
// unqueue, its context's end, or Close, whichever comes first.
type roomWaiter struct {
	note   atomicx.Note
	woken  atomicx.Uint32
	listed bool // on e.room; guarded by roomMu
}

func (r *roomWaiter) wake() {
	if r.woken.CompareAndSwap(0, 1) {
		r.note.Wakeup()
	}
}

// awaitRoom waits until k more outside tasks fit the bound and takes their
// room, or returns ctx's error, or ErrClosed once Close or Shutdown has
// begun. Waiters queue in order and unqueue wakes the first; one that
// leaves wakes the next if room is left, since the room its wakeup
// announced may be unused (its ctx ended, or it needs more). A task of the
// executor hands its P to another M while it waits, as Task.Blocking does:
// otherwise tasks waiting on every P would leave no M to make room.
func (e *Executor) awaitRoom(ctx context.Context, k int64) error {
	if w := e.currentWorker(); w != nil {
		e.giveUpP(w)
		defer e.reacquire(w)
	}
	var cur atomicx.Pointer[roomWaiter] // this round's, for ctx's AfterFunc
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() {
			if r := cur.Load(); r != nil {
				r.wake()
			}
		})
		defer stop()
	}
	defer e.passRoom()
	for {
		r := &roomWaiter{}
		cur.Store(r)
		e.roomMu.Lock()
		r.listed = true
		e.room = append(e.room, r)
		e.nwait.Add(1)
		e.roomMu.Unlock()
		switch {
		case e.closing.Load() != 0:
			e.unlist(r)
			return ErrClosed
		case ctx.Err() != nil:
			e.unlist(r)
			return ctx.Err()
		case e.reserve(k):
			e.unlist(r)
			return nil
		}
		r.note.Sleep()
		e.unlist(r)
	}
}

// unlist takes r off the waiting list if a wakeup has not already.
func (e *Executor) unlist(r *roomWaiter) {
	e.roomMu.Lock()
	defer e.roomMu.Unlock()
	if !r.listed {
		return
	}
	for i, x := range e.room {
		if x == r {
			e.room = append(e.room[:i], e.room[i+1:]...)
			break
		}
	}
	r.listed = false
	e.nwait.Add(-1)
}

// wakeRoom wakes the first waiting submitter, or every one (Close).
func (e *Executor) wakeRoom(all bool) {
	e.roomMu.Lock()
	defer e.roomMu.Unlock()
	n := len(e.room)
	if n == 0 {
		return
	}
	if !all {
		n = 1
		e.roomWakes++
	}
	for _, r := range e.room[:n] {
		r.listed = false
		r.wake()
	}
	e.room = append(e.room[:0], e.room[n:]...)
	e.nwait.Add(-int64(n))
}

// passRoom hands a wakeup on when a waiter leaves with room left over.
func (e *Executor) passRoom() {
	if e.nwait.Load() != 0 && e.queued.Load() < e.maxQueued {
		e.wakeRoom(false)
	}
}

// leave ends an outside submit; the last one out while closing checks for
// quiescence, since every M may have parked while it was in flight.
func (e *Executor) leave() {
	if e.inflight.Add(-1) == 0 && e.closing.Load() != 0 {
		e.checkQuiet()
	}
}

// work is spinning's Config.Work: whether any run queue holds a task. It
// mirrors the drop-and-recheck's look at every queue (checkRunqsNoP and the
// global queue check of findRunnable). Every P is looked at, idle or not.
func (e *Executor) work() bool {
	if mutant == noRecheck {
		return false
	}
	if !e.global.Empty() {
		return true
	}
	if e.gqOnly || mutant == recheckGlobalOnly {
		return false
	}
	for _, p := range e.allPs() {
		// A P being taken away (dying) holds what SetProcs moves to the
		// global queue and wakes an M for (resize.go): no M can take it.
		if !p.q.Empty() && p.dying.Load() == 0 {
			return true
		}
	}
	return false
}

// startM starts one more M: a worker goroutine with a spinning.M of its
// own, which parks on the idle list (or takes a handoff that waits). It is
// the Sched's NeedM (newm) and starts the initial Ms. The worker record is
// one an ended goroutine left (an M that exited, a spare), if any: after
// bursts of blocking calls the worker list stays the size of the largest.
func (e *Executor) startM() {
	e.nm.Add(1)
	w := e.deadWorker()
	if w == nil {
		w = e.newWorker()
	}
	w.sm.Store(e.sched.NewM())
	e.live.Add(1)
	e.goStart(func() { e.mstart(w, false) })
}

// newWorker makes a worker record, with no M yet: startM gives it one, a
// parking task hands a spare its own (park.go).
func (e *Executor) newWorker() *worker {
	w := &worker{e: e}
	w.token.w = w
	w.wt.w = w
	w.sleepT.Init(fireSleep, w)
	w.baton.Init()
	e.mu.Lock()
	e.workers = append(e.workers, w)
	w.id = uint32(len(e.workers))
	e.mu.Unlock()
	if w.id >= 1<<idBits {
		panic("executor: more than 2^24 workers") // the status word's holder field (proc.go)
	}
	w.rnd = uint64(w.id)*0x9E3779B97F4A7C15 | 1
	w.rng = w.rand
	return w
}

// deadWorker returns the record of a worker whose goroutine ended, for
// reuse, or nil.
func (e *Executor) deadWorker() *worker {
	e.spareMu.Lock()
	defer e.spareMu.Unlock()
	n := len(e.dead)
	if n == 0 {
		return nil
	}
	w := e.dead[n-1]
	e.dead[n-1] = nil
	e.dead = e.dead[:n-1]
	return w
}

// stopm parks w's M on the idle list until it is handed a P (StopM), and
// reports whether it got one. False: the executor shut down, or the M
// exited after Config.MKeepAlive idle (spinning's Exited), holding no P
// and no task (it parked between tasks, its P given back); then w drops
// the M and its goroutine ends, its record listed for reuse. It mirrors
// stopm; the runtime never ends an idle M (spinning's doc.go).
func (e *Executor) stopm(w *worker) bool {
	sm := w.sm.Load()
	if sm.StopM() {
		return true
	}
	if sm.Exited() {
		if w.p.Load() != nil || w.first != nil {
			panic("executor: an M exited holding a P or a task")
		}
		w.sm.Store(nil)
		w.retire = true // mexit lists the record for reuse
		e.event(EventMExit, -1, w, 0)
	}
	return false
}

// liveMs is the Ms made and not exited.
func (e *Executor) liveMs() int64 { return e.nm.Load() - int64(e.sched.NMFreed()) }

// goroutineExit counts a worker or sysmon out; the last one wakes Close.
func (e *Executor) goroutineExit() {
	if e.live.Add(-1) == 0 {
		e.exited.Wakeup()
	}
}

// checkDead is the Sched's CheckDead, called when an M parks: while
// closing, the executor is quiescent when every M is parked, nothing is
// queued and no outside submit is in flight. Nothing can make work then:
// tasks run only on Ms. It mirrors checkdead's count of idle Ms (mcount,
// less nmfreed: an M that exited after its keep-alive left under the lock
// CheckDead runs under, so the count read here goes with idle).
func (e *Executor) checkDead(idle, _ int) {
	if e.booting.Load() != 0 && idle >= e.procs && e.booting.CompareAndSwap(1, 0) {
		e.booted.Wakeup() // boot's Ms have all parked
	}
	if e.closing.Load() != 0 && e.inflight.Load() == 0 && int64(idle) == e.liveMs() && e.parked.Load() == 0 && !e.work() {
		e.wakeQuiet(1)
	}
}

// checkQuiet is checkDead for a caller outside the Sched. The Ms freed
// are read before the idle count: an M that exits in between is then
// still counted alive (not quiet yet), where the other order could count
// it out of the Ms but in the idle ones and call a running M idle.
func (e *Executor) checkQuiet() {
	freed := int64(e.sched.NMFreed())
	if e.inflight.Load() == 0 && int64(e.sched.NMIdle()) == e.nm.Load()-freed && e.parked.Load() == 0 && !e.work() {
		e.wakeQuiet(1)
	}
}

// wakeQuiet wakes Close or Shutdown once, saying why (1 quiescent, 2 the
// deadline).
func (e *Executor) wakeQuiet(why uint32) {
	if e.quietBy.CompareAndSwap(0, why) {
		e.quiet.Wakeup()
	}
}

// Close stops accepting submits (they return ErrClosed), waits until every
// accepted task has run exactly once (tasks still running may spawn
// locally and in their groups; those run too), and returns once every M and
// sysmon have exited. It returns the panics of tasks when no PanicHandler
// was configured (as *PanicError values joined with errors.Join), or nil.
// It keeps the first 100 panics and counts the rest in one
// last error, "executor: N more panics", so that a task that panics in a
// loop cannot grow the executor's memory without bound. Submitters waiting
// for room under Config.MaxQueued return ErrClosed.
//
// Close is safe to call more than once and from several goroutines: later
// calls wait for the first and return its result. Called from one of the
// executor's own Ms it returns ErrCloseInTask at once and changes nothing:
// it would wait for itself.
func (e *Executor) Close() error {
	_, err := e.shutdown(nil)
	return err
}

// Shutdown is Close with a deadline: if ctx ends before every accepted task
// has run, the executor drops the tasks still queued (a task spawned later
// by a task still running is dropped too, and counted in Stats.Dropped),
// and Shutdown returns how many it dropped with ctx's error: every task
// queued at the deadline is in that count, so the tasks that started and
// notRun add up to the tasks accepted before it. Tasks running
// at the deadline run on; Shutdown does not wait for them, and a later Close
// does. A group whose task was dropped has ErrAbandoned as its error.
// Without a deadline miss it is Close and returns 0 and Close's error.
func (e *Executor) Shutdown(ctx context.Context) (notRun int, err error) {
	if ctx == nil {
		panic("executor: Executor.Shutdown called with a nil context")
	}
	return e.shutdown(ctx)
}

func (e *Executor) shutdown(ctx context.Context) (int, error) {
	if e.onWorker() {
		return 0, ErrCloseInTask
	}
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	if !e.closed {
		e.closed = true
		if mutant == closeWakesBeforeClosing {
			e.wakeRoom(true)
		}
		e.closing.Store(1)
		// After closing: a submitter that registers later sees it (awaitRoom).
		if mutant != closeWakesBeforeClosing {
			e.wakeRoom(true)
		}
		e.npMu.Lock() // after closing: no poller is made from now on
		if np := e.np.Load(); np != nil {
			np.evictAll() // tasks parked on I/O wake with ErrPollerClosed
		}
		e.npMu.Unlock()
		if ctx != nil {
			stop := context.AfterFunc(ctx, func() { e.wakeQuiet(2) })
			defer stop()
		}
		e.checkQuiet()
		e.quiet.Sleep()
		if e.quietBy.Load() == 2 {
			n := e.abandonAll()
			e.stop()
			return n, ctx.Err()
		}
		e.stop()
	}
	if !e.waited {
		if e.abandon.Load() != 0 {
			// Tasks that ran past the deadline may still queue work, or
			// wait for a P, with no M left to serve them.
			for !e.exited.SleepFor(abandonPoll) {
				e.drainStopped()
			}
		} else {
			e.exited.Sleep()
		}
		if np := e.np.Load(); np != nil {
			np.sys.close() // sysmon, its last user, has exited
		}
		e.waited = true
		e.closeErr = e.panicErr()
	}
	return 0, e.closeErr
}

// stop ends the Ms and sysmon: parked Ms exit now, the others at their
// next park.
func (e *Executor) stop() {
	e.stopped.Store(1)
	e.wakeSpares()
	e.sched.Shutdown()
	e.wakeSysmon()
	if np := e.np.Load(); np != nil {
		np.wakeBlocked() // an M in mPoll
	}
}

// abandonAll is Shutdown past its deadline: Ms drop what they find from
// now on, and every P held by a task is retaken so that an M drops its
// queue. It returns once no submit is in flight and every task queued is
// dropped, with the number dropped.
//
// Empty queues are not enough: an M holds the tasks it moves (a global
// batch on its way to its ring, a steal, a task between its queue and the
// drop) out of every queue, in pSched or pSpawn. So it waits until every
// P is idle and no queue holds a task, with no takeP on any P (p.takes)
// from before it looked at the first P until after it looked at the
// queues: a P leaves pIdle only through takeP, so no P was held, and no
// task was in hand, while it looked. Tasks running at the deadline hold no
// P (retaken here, and reacquire takes none past the deadline).
func (e *Executor) abandonAll() int {
	e.abandon.Store(1)
	for !e.abandoned() {
		atomicx.Sleep(abandonPoll)
	}
	return int(e.dropped.Load())
}

// abandoned is one look of abandonAll: it retakes the Ps held by tasks
// and reports whether every P was idle and nothing queued.
func (e *Executor) abandoned() bool {
	// A submit in flight passed its closing check before closing was set
	// and may still put its task; it would be accepted after this look and
	// neither run nor counted. Read before the queues: a submit puts before
	// it leaves, and one that counts itself in later sees closing.
	if e.inflight.Load() != 0 && mutant != abandonIgnoresInflight {
		return false
	}
	ps := e.allPs() // SetProcs is in flight meanwhile (it counts in inflight): none made
	var takes uint64
	for _, p := range ps {
		takes += p.takes.Load()
	}
	idle := true
	for _, p := range ps {
		s := p.status.Load()
		if s == pIdle {
			continue
		}
		idle = false
		st := s & stateMask
		if w := p.m.Load(); (st == pTask || st == pSyscall) && w != nil && own(w.id, st) == s&holderMsk {
			e.retake(w, p, s)
		}
	}
	if !idle || e.work() {
		return false
	}
	// The Ps again, after the queues: takeP counts its take before its
	// status word leaves pIdle, so the count read before the first look
	// can hold a take that look saw as idle, and the M's task is out of
	// every queue by now: its P is held still (it drops the task before
	// it lets the P go), or the task is dropped and counted.
	if mutant != abandonNoSecondLook {
		for _, p := range ps {
			if p.status.Load() != pIdle {
				return false
			}
		}
	}
	for _, p := range ps {
		takes -= p.takes.Load()
	}
	return takes == 0
}

// drainStopped empties the global queue once the Ms have stopped: tasks
// count as dropped, and a task waiting for a P (its resume token) is woken
// to go on without one.
func (e *Executor) drainStopped() {
	for t := e.global.Get(); t != nil; t = e.global.Get() {
		if t.w != nil {
			if t == &t.w.token && t.w.sm.Load() == nil {
				t.w.baton.Give() // parked with its P (park.go): it goes on without one
			} else if t != &t.w.exitToken || t.w.claimExit() {
				t.w.note.Wakeup()
			}
			continue
		}
		if !t.take() {
			e.release(nil, t) // run inline by its group's Wait
			continue
		}
		g, bound := t.g, t.bound
		e.release(nil, t)
		if bound {
			e.unqueue(1)
		}
		e.dropped.Add(1)
		if g != nil {
			g.finish(ErrAbandoned, nil)
		}
	}
}

// onWorker reports whether the caller runs on one of e's Ms.
func (e *Executor) onWorker() bool { return e.currentWorker() != nil }

// currentWorker returns the worker whose goroutine calls it, or nil.
func (e *Executor) currentWorker() *worker {
	id := goid()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, w := range e.workers {
		if w.gid.Load() == id {
			return w
		}
	}
	return nil
}

// PanicError is a task's panic: its value and the stack of the goroutine
// that panicked. A task that calls runtime.Goexit is reported the same way,
// with Goexit set, to its group (whose Wait returns it) or the handler; the
// Goexit ends that task only, even one a Wait runs inline.
type PanicError struct {
	Value  any
	Stack  []byte
	Goexit bool
}

func (p *PanicError) Error() string {
	if p.Goexit {
		return "executor: a task called runtime.Goexit"
	}
	return fmt.Sprintf("executor: a task panicked: %v", p.Value)
}

// Unwrap returns the panic value if it is an error.
func (p *PanicError) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// recovered turns what a task's deferred recover returned into a
// PanicError; r == nil means the task called runtime.Goexit.
func recovered(r any) *PanicError {
	if r == nil {
		return &PanicError{Goexit: true, Stack: debug.Stack()}
	}
	return &PanicError{Value: r, Stack: debug.Stack()}
}

// report hands a panic of a task outside any group to the handler, or
// keeps it for Close.
func (e *Executor) report(p *PanicError) {
	if h := e.cfg.PanicHandler; h != nil {
		h(p)
		return
	}
	e.mu.Lock()
	e.npanics++
	if len(e.panics) < maxKeptPanics {
		e.panics = append(e.panics, p)
	}
	e.mu.Unlock()
}

func (e *Executor) panicErr() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	errs := append([]error(nil), e.panics...)
	if more := e.npanics - len(e.panics); more > 0 {
		errs = append(errs, fmt.Errorf("executor: %d more panics", more))
	}
	return errors.Join(errs...)
}
