package executor

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/stealing"
)

// Ps that change at run time: SetProcs and, with Config.Procs 0, sysmon
// following runtime.GOMAXPROCS. They mirror procresize (proc.go), which
// runs with the world stopped; here nothing stops but the Ps taken away.
//
// The executor keeps every P it ever made (allPs: the runtime's allp,
// which also only grows) and puts the first n in service. Every scan that
// must not miss a task or a timer (work's re-check, the timer scans,
// abandonAll, Stats' totals) goes over all of them, so a P taken away is
// never out of sight while it still holds something; only the Sched (who
// may be handed a P) and the Stealer (whom a thief robs) know the n in
// service.
//
// A P taken away is quiesced alone. SetProcs takes it out of the Sched
// (spinning's RetireP): if it is idle that is at once; if an M holds it
// between tasks (pSched) the M sees p.dying at its next look for work
// (findRunnable) and lets it go (M.DropP), its queue as it is; if a task
// holds it (pTask, pSyscall) SetProcs retakes it as sysmon would, and
// retake retires it instead of handing it on. Once the P is out, nobody
// holds it and nobody will be handed it, so SetProcs alone owns its queue:
// it moves runnext and the ring to the global queue in one batch (destroy)
// and wakes an M for them, and its timers to another P's heap. Thieves may
// still rob the P meanwhile (a Stealer made before the resize): a steal
// races with the owner's gets as always. No M is stopped and no other P is
// touched but the timer heap that takes the timers, under its lock.
//
// proofs/tla/Resize.tla models the shrink (Mark, Wait, Take, Put;
// LeaveDying is leaveDying with exitP's look for an idle P) against Ms,
// a submitter and Close: nothing lost or run twice, Close only once all
// ran, and, under fairness, every task runs (AllRun; ResizeNoWake breaks it).

// resizeState is the executor's part for resizing.
type resizeState struct {
	// allp is every P made so far (allPs), nprocs those in service.
	allp   atomicx.Pointer[[]*proc]
	nprocs atomicx.Int32
	// stealer robs the Ps in service, in a victim order for their number
	// (randomOrder.reset in procresize).
	stealer atomicx.Pointer[stealing.Stealer[*proc, task]]
	// mu serializes SetProcs.
	mu atomicx.Mutex
	// retired counts the Ps taken out of service, moved the tasks they
	// held (Stats).
	retired atomicx.Uint64
	moved   atomicx.Uint64
	// follow: Config.Procs was 0, so sysmon follows GOMAXPROCS; checked
	// is when it last looked (sysmon's own).
	follow  bool
	checked int64
}

// ErrProcs is wrapped by the error SetProcs returns for a P count out of
// 1..MaxProcs.
var ErrProcs = errors.New("executor: bad P count")

// gomaxprocsForTest, if set before New, is what sysmon reads instead of
// runtime.GOMAXPROCS(0) when it follows it (tests only).
var gomaxprocsForTest func() int

// followEvery is how often sysmon looks at GOMAXPROCS when Config.Procs
// is 0: once a second, as often as the runtime itself re-reads the
// container's CPU limit to update GOMAXPROCS (Go 1.25's
// updateMaxProcsG, woken by sysmon at most once a second), so looking
// more often could find nothing new. A look is a lock of the runtime's
// sched.lock and no allocation.
const followEvery = time.Second

// initResize starts the resize state of a new executor: its Ps, all in
// service, and their Stealer.
func (e *Executor) initResize(follow bool) error {
	ps := e.ps
	e.resizer.allp.Store(&ps)
	e.resizer.nprocs.Store(int32(len(ps)))
	st, err := stealing.New(ps, e.idle)
	if err != nil {
		return err
	}
	e.resizer.stealer.Store(st)
	e.resizer.follow = follow
	return nil
}

// allPs returns every P made so far, in service or not (the runtime's
// allp): index i is P i.
func (e *Executor) allPs() []*proc { return *e.resizer.allp.Load() }

// liveProcs is the number of Ps in service.
func (e *Executor) liveProcs() int { return int(e.resizer.nprocs.Load()) }

// allIdle reports whether every P still in the Sched is idle. A P being
// taken away counts until its holder has let it go, so a task still
// holding it keeps sysmon awake to retake it.
func (e *Executor) allIdle() bool {
	return e.sched.NPIdle() == e.sched.Procs() // npidle first: either change errs towards "not idle"
}

// SetProcs changes the number of Ps to n, as runtime.GOMAXPROCS(n) does
// (procresize), without stopping the executor: new Ps start idle and an M
// is woken for work they could take (wakep); a P taken away (the highest
// numbered first, as procresize's) hands its runnext and ring to the global
// queue in one batch and its M takes another P or parks. It returns once
// every P taken away holds nothing and no M will be handed it; a task
// running on one goes on and finds a P when it next needs one, as after a
// retake. The timers armed on a P taken away move to an idle P in service,
// else P 0, as procresize's destroy moves them to its own P; one armed there after the
// move (a task that read its P just before the retake) stays in that heap,
// which every timer scan still covers (sysmon's, the spinning Ms'), as an
// idle P's.
//
// It returns an error wrapping ErrProcs for n outside 1..MaxProcs, and
// ErrClosed once Close or Shutdown has begun; then nothing changes. Calls
// are serialized; it may be called from a task. With Config.Procs 0 the
// executor follows GOMAXPROCS, and a later change of GOMAXPROCS overrides
// an earlier SetProcs.
func (e *Executor) SetProcs(n int) error {
	if n < 1 || n > MaxProcs {
		return fmt.Errorf("%w: SetProcs(%d), want 1..%d", ErrProcs, n, MaxProcs)
	}
	e.resizer.mu.Lock()
	defer e.resizer.mu.Unlock()
	// In flight as a submit is: Close judges quiescence only once it has
	// left, since it holds tasks between a queue and the global queue.
	if mutant != resizeNotInflight {
		e.inflight.Add(1)
		defer e.leave()
	}
	if e.closing.Load() != 0 {
		return ErrClosed
	}
	old := e.liveProcs()
	switch {
	case n > old:
		return e.grow(old, n)
	case n < old:
		e.shrink(old, n)
	}
	return nil
}

// grow puts Ps old..n-1 in service: made if new, brought back if taken
// away earlier, each idle; then an M is woken if work waits.
func (e *Executor) grow(old, n int) error {
	all := e.allPs()
	if len(all) < n {
		next := make([]*proc, n)
		copy(next, all)
		for i := len(all); i < n; i++ {
			next[i] = newProc(i, e.cfg)
			e.idle.Set(i) // every P starts idle
		}
		all = next
		e.resizer.allp.Store(&all) // before the Sched can hand one out (takeP indexes it)
	}
	st, err := stealing.New(all[:n], e.idle)
	if err != nil {
		return err
	}
	e.resizer.stealer.Store(st)
	for i := old; i < n; i++ {
		all[i].dying.Store(0)
		e.sched.AddP(i)
	}
	e.resizer.nprocs.Store(int32(n))
	if mutant != resizeNoWake && e.work() {
		e.sched.Wakep()
	}
	return nil
}

// shrink takes Ps n..old-1 out of service and moves what they hold to the
// global queue; see the comment at the top of the file.
func (e *Executor) shrink(old, n int) {
	all := e.allPs()
	st, err := stealing.New(all[:n], e.idle)
	if err != nil {
		panic("executor: " + err.Error()) // n is in 1..MaxProcs
	}
	e.resizer.stealer.Store(st)
	e.resizer.nprocs.Store(int32(n))
	left := make([]*proc, 0, old-n)
	for i := n; i < old; i++ {
		p := all[i]
		if e.sched.RetireP(i) {
			e.destroy(p) // idle: out at once
			continue
		}
		p.dying.Store(1) // after RetireP: its holder's DropP retires it
		left = append(left, p)
	}
	wait := time.Nanosecond
	for len(left) > 0 {
		k := 0
		for _, p := range left {
			if e.sched.RetireP(p.id) {
				e.destroy(p)
				continue
			}
			// A task holds it: retake it, as sysmon or abandonAll would
			// (retake retires a dying P instead of handing it on).
			s := p.status.Load()
			if st := s & stateMask; st == pTask || st == pSyscall {
				if w := p.m.Load(); w != nil && own(w.id, st) == s&holderMsk && e.retake(w, p, s) {
					if e.sched.RetireP(p.id) {
						e.destroy(p)
						continue
					}
				}
			}
			left[k] = p
			k++
		}
		left = left[:k]
		if k > 0 {
			// An M between tasks lets it go at its next look for work; a
			// spawn or a handoff lasts a few atomic operations.
			atomicx.Sleep(wait)
			wait = min(2*wait, 50*time.Microsecond)
		}
	}
	e.wakeIdleSysmon() // the last busy P may have been one taken away
}

// destroy moves what P p, out of the Sched and held by nobody, still holds:
// its runnext task and ring to the global queue's tail in one batch (one
// lock), its free records to the global free list, its timers to a P in
// service (timerHeir; timers.Heap.Take keeps each arming); then it marks p idle
// for thieves and wakes an M if it moved tasks. It mirrors (*p).destroy,
// which puts them at the global queue's head under the stopped world; here
// the world runs on, and the tail keeps the global queue's order for the
// tasks already in it.
func (e *Executor) destroy(p *proc) {
	var moved []*task
	for {
		t, fromNext := p.q.Get()
		if t == nil {
			break
		}
		if fromNext && mutant == resizeDropsRunnext {
			continue
		}
		moved = append(moved, t)
	}
	if len(moved) > 0 {
		resizeStep("moving") // the tasks are in hand: in no queue
		e.global.PutBatch(moved)
	}
	var recs []*task
	for t := p.gfree; t != nil; {
		next := t.link
		t.link = nil
		recs = append(recs, t)
		t = next
	}
	p.gfree, p.ngfree = nil, 0
	e.gfree.putN(recs)
	if p.timers.Len() != 0 && mutant != resizeLeavesTimers {
		// Its timers to a P in service: (*p).destroy's timers.take, to
		// the P of the M that runs procresize. Here SetProcs may hold no
		// P: an idle one if any (sysmon and spinning Ms run an idle P's
		// timers at once), else P 0, whose holder runs them at its next
		// schedule (sysmon, if a long task holds it: within about a
		// Slice, as any held P's).
		e.timerHeir().timers.Take(&p.timers)
		e.wakeSysmonTimer()
	}
	p.preempted.Store(0)
	e.idle.Set(p.id)
	e.resizer.retired.Add(1)
	e.resizer.moved.Add(uint64(len(moved)))
	if len(moved) > 0 && mutant != resizeNoWake {
		e.sched.Wakep()
	}
}

// timerHeir is the P a P taken away hands its timers to: the first idle
// P in service, else P 0 (always in service).
func (e *Executor) timerHeir() *proc {
	all := e.allPs()
	for _, q := range all[:e.liveProcs()] {
		if q.status.Load() == pIdle {
			return q
		}
	}
	return all[0]
}

// leaveDying is findRunnable's when w's P p is being taken away (p.dying):
// w lets it go whatever its queue holds (SetProcs moves that), drops
// spinning with the usual re-check, and takes another P or parks. It
// returns false if the executor shut down while it parked.
func (e *Executor) leaveDying(w *worker, p *proc) bool {
	p.m.Store(nil)
	p.status.Store(pIdle)
	w.p.Store(nil)
	sm := w.sm.Load()
	sm.DropP()
	if sm.Spinning() {
		p.stats.spinStops.Add(1)
		if sm.DropSpinning() {
			e.takeP(w)
			e.spinStarted(w, w.p.Load())
			return true
		}
	}
	return e.exitP(w)
}

// followGOMAXPROCS is sysmon's look, at most every followEvery, at
// GOMAXPROCS for an executor made with Config.Procs 0: a change (Go 1.25
// updates it from the container's CPU limit) becomes SetProcs.
func (e *Executor) followGOMAXPROCS(now int64) {
	if !e.resizer.follow || now-e.resizer.checked < int64(followEvery) && e.resizer.checked != 0 {
		return
	}
	e.resizer.checked = now
	n := runtime.GOMAXPROCS(0)
	if gomaxprocsForTest != nil {
		n = gomaxprocsForTest()
	}
	n = min(n, MaxProcs)
	if n != e.liveProcs() {
		_ = e.SetProcs(n) // ErrClosed: sysmon is about to exit
	}
}

// resizeStats fills Stats' resize fields.
func (e *Executor) resizeStats(s *Stats) {
	s.InService = e.liveProcs()
	s.Retired = e.resizer.retired.Load()
	s.Moved = e.resizer.moved.Load()
}

// resizeHook, set only by tests before an executor starts, sees SetProcs
// at the point where the tasks of a P taken away are in its hand.
var resizeHook func(step string)

func resizeStep(step string) {
	if resizeHook != nil {
		resizeHook(step)
	}
}
