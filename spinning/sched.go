package spinning

import (
	"errors"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/atomicx"
)

// NoP is the P number of an M that holds no P.
const NoP = -1

// cacheLine keeps the two hot counters, which every submitter and every
// spinning M reads, off the line of the fields guarded by the lock.
const cacheLine = 64

// Config describes a Sched.
type Config struct {
	// Procs is the number of Ps, numbered 0..Procs-1 (GOMAXPROCS). At least
	// 1. All start idle.
	Procs int

	// Work reports whether some run queue (global or any P's) holds work
	// that an M with a P could take. A spinning M that gives up calls it
	// after it has decremented nmspinning (the drop's re-check,
	// checkRunqsNoP), and HandoffP calls it before it parks a P. It is called
	// without the scheduler lock, from several Ms at once; it must not block.
	// Required.
	Work func() bool

	// NeedM, if not nil, is called (without the lock) when StartM hands a P
	// to an M but no M is idle, as the runtime would start a new M (newm).
	// The handoff waits in the Sched: the next M to call StopM takes it at
	// once, so an executor with a fixed pool of at least Procs Ms may leave
	// NeedM nil.
	NeedM func()

	// KeepAlive, if positive, lets an idle M exit: an M that parks in StopM
	// while more Ms are alive than Ps are in service sleeps at most
	// KeepAlive; if it was not handed a P by then and more Ms than Ps are
	// still alive, it leaves the idle list and the Sched, and its StopM
	// returns false with Exited true (its thread should end). An M handed
	// a P (or woken by Shutdown) as its keep-alive ran out stays, and so
	// does one the Ps need: it sleeps on with no timer, as does an M that
	// parks with no more Ms than Ps alive, until RetireP makes it one too
	// many (retimeIdle: it parks again, timed). Zero or negative: Ms never
	// exit, as the runtime's (stopm parks an M on sched.midle for good). It
	// requires NeedM: a handoff that finds no idle M then waits for an M
	// NeedM starts.
	KeepAlive time.Duration

	// CheckDead, if not nil, is called from StopM each time an M joins the
	// idle list, with the number of idle Ms and of all Ms, while the
	// scheduler lock is held (as mput calls checkdead). It must not call
	// the Sched or block. Executors use it to detect quiescence.
	CheckDead func(idle, total int)
}

// Sched holds the spinning-M accounting of one executor: the counters
// nmspinning and npidle, the needspinning flag, the idle P set and the idle
// M list, after the runtime's sched struct. See the package documentation.
type Sched struct {
	nmspinning atomicx.Int32 // Ms that are spinning, plus spinning handoffs in flight
	_          [cacheLine - 4]byte
	npidle     atomicx.Int32 // len(pidle); written under mu, read anywhere
	// needspinning is set when an M found work but no idle P for it; the
	// next non-spinning M about to give up its P spins instead.
	needspinning atomicx.Bool
	_            [cacheLine - 8]byte

	// procs counts the Ps in service: every P added and not retired
	// (AddP, RetireP). Written under mu, read anywhere (BecomeSpinning).
	procs     atomicx.Int32
	work      func() bool
	needM     func()
	checkDead func(idle, total int)
	keepAlive time.Duration
	// nmfreed counts the Ms that exited (sched.nmfreed); nmidleHint is
	// nmidle. Both are written under mu, read anywhere.
	nmfreed    atomicx.Int64
	nmidleHint atomicx.Int32

	mu        atomicx.Mutex // sched.lock: guards everything below
	pidle     []int32       // idle Ps, a stack (sched.pidle)
	pidleMask []bool        // pidleMask[p]: p is in pidle (idlepMask); one per P ever added
	retiring  []bool        // retiring[p]: RetireP found p held; its next release drops it
	out       []bool        // out[p]: p is retired (procresize's _Pdead): in no place
	midle     *M            // idle Ms, a stack linked through M.link (sched.midle)
	nmidle    int
	allm      []*M      // the Ms alive: made by NewM and not exited (allm)
	mnext     int       // the next M's ID (sched.mnext)
	pending   []handoff // Ps handed to an M when none was idle (newm's place)
	stopped   bool
}

// handoff is a P that StartM found no idle M for, with whether the M that
// takes it is to spin (the handoff then counts in nmspinning).
type handoff struct {
	p        int32
	spinning bool
}

// M is a worker thread's scheduling state. The methods of an M must be
// called only from the goroutine that runs it (they read and write its own
// fields without synchronization); this is not detected.
type M struct {
	s        *Sched
	id       int
	p        int32 // the P it holds, or NoP; the M's own
	spinning bool  // the M's own (m.spinning)

	// Written under s.mu by the M that starts this one (or by Shutdown),
	// read by this M after its park note is woken.
	nextp    int32
	nextSpin bool

	idle   bool // on s.midle; guarded by s.mu
	link   *M   // next on s.midle; guarded by s.mu
	timed  bool // parked beyond the Ps with a keep-alive: set by stopBegin, cleared by expire, under s.mu
	retime bool // taken off the idle list by retimeIdle to park again, timed: under s.mu
	exited bool // left the Sched after its keep-alive (expire); the M's own once StopM returned
	park   atomicx.Note
}

// New returns a Sched for cfg, with every P idle and no M.
func New(cfg Config) (*Sched, error) {
	switch {
	case cfg.Procs < 1:
		return nil, fmt.Errorf("spinning: New: Procs = %d, want at least 1", cfg.Procs)
	case cfg.Procs > 1<<20:
		return nil, fmt.Errorf("spinning: New: Procs = %d, want at most %d", cfg.Procs, 1<<20)
	case cfg.Work == nil:
		return nil, errors.New("spinning: New: Config.Work is nil")
	case cfg.KeepAlive > 0 && cfg.NeedM == nil:
		return nil, errors.New("spinning: New: Config.KeepAlive needs Config.NeedM (an M that exits must be replaceable)")
	}
	s := &Sched{
		work:      cfg.Work,
		needM:     cfg.NeedM,
		checkDead: cfg.CheckDead,
		keepAlive: cfg.KeepAlive,
		pidle:     make([]int32, 0, cfg.Procs),
		pidleMask: make([]bool, cfg.Procs),
		retiring:  make([]bool, cfg.Procs),
		out:       make([]bool, cfg.Procs),
	}
	s.procs.Store(int32(cfg.Procs))
	// Push the highest first, so that P 0 is handed out first.
	for p := cfg.Procs - 1; p >= 0; p-- {
		s.pidleput(int32(p))
	}
	return s, nil
}

// Procs returns the number of Ps in service (added and not retired: a P
// that RetireP found held counts until its holder lets it go) at one
// instant during the call.
func (s *Sched) Procs() int { return int(s.procs.Load()) }

// NMSpinning returns the number of spinning Ms (sched.nmspinning) at one
// instant during the call.
func (s *Sched) NMSpinning() int { return int(s.nmspinning.Load()) }

// NPIdle returns the number of idle Ps (sched.npidle) at one instant during
// the call.
func (s *Sched) NPIdle() int { return int(s.npidle.Load()) }

// NeedSpinning reports whether an M was asked to spin (sched.needspinning:
// work was found or put with no idle P for it) and none has started since,
// at one instant during the call. The next M to give up its P without
// spinning spins instead (ReleaseP), and a handoff starts a spinner
// (HandoffP).
func (s *Sched) NeedSpinning() bool { return s.needspinning.Load() }

// NMIdle returns the number of Ms parked on the idle list (sched.nmidle).
func (s *Sched) NMIdle() int {
	s.mu.Lock()
	n := s.nmidle
	s.mu.Unlock()
	return n
}

// NMIdleHint is NMIdle without the lock: one load of a copy stored under
// it, for statistics.
func (s *Sched) NMIdleHint() int { return int(s.nmidleHint.Load()) }

// NMFreed returns the number of Ms that exited after their keep-alive
// (Config.KeepAlive; sched.nmfreed), with one load: NewM's Ms less NMFreed
// are alive. It is written under the scheduler lock, so a CheckDead
// callback reads the count that goes with its arguments.
func (s *Sched) NMFreed() int { return int(s.nmfreed.Load()) }

// NewM registers a new M, holding no P and not spinning. It starts running
// scheduling code by calling StopM, which parks it until Wakep (or StartM)
// hands it a P, or by AcquireP. It mirrors mcommoninit.
func (s *Sched) NewM() *M {
	s.mu.Lock()
	m := &M{s: s, id: s.mnext, p: NoP, nextp: NoP}
	s.mnext++
	s.allm = append(s.allm, m)
	s.mu.Unlock()
	return m
}

// Submit publishes work and then, if no M is spinning and a P is idle,
// starts a spinning M (Wakep). publish must make the work visible to
// Config.Work before it returns: pushing onto a run queue. This is the
// submission side's half of the protocol, publish, then (a sequentially
// consistent barrier, which every atomicx operation is) check nmspinning,
// as newproc's runqput is followed by wakep.
//
// Submit panics if publish is nil.
func (s *Sched) Submit(publish func()) {
	if publish == nil {
		panic("spinning: Sched.Submit called with a nil publish function")
	}
	if mutant == wakepBeforePublish {
		s.Wakep()
		publish()
		return
	}
	publish()
	s.Wakep()
}

// Wakep starts one more spinning M if none is spinning and a P is idle: it
// moves nmspinning from 0 to 1 by CAS, takes an idle P and hands it to an
// idle M (StartM). Call it after publishing work (or use Submit). It
// mirrors wakep.
//
// If no P is idle it gives its count back and then sets needspinning, so
// that an M about to give up its P spins instead (pidlegetSpinning). The
// runtime sets the flag first; here that loses a wakeup (see the comment in
// the code and proofs/tla/README.md), because ReleaseP does not look at the
// global queue under the lock as findRunnable does.
func (s *Sched) Wakep() {
	// Only one submitter at a time may start a spinner; while one spins it
	// will find the work, or see it when it drops and re-checks. This test
	// alone is small enough to inline into every submit: the fast path is
	// one load, not a call (3.4x the floor's load before the split).
	if s.nmspinning.Load() != 0 {
		return
	}
	s.wakepSlow()
}

// wakepSlow is Wakep past its fast path: claim the one spinner's count,
// then take an idle P for it or ask for a spinner.
func (s *Sched) wakepSlow() {
	if !s.nmspinning.CompareAndSwap(0, 1) {
		return
	}
	s.mu.Lock()
	if s.stopped {
		s.decSpinning("Sched.Wakep")
		s.mu.Unlock()
		return
	}
	if mutant == needBeforeDec {
		p, ok := s.pidlegetSpinning()
		if !ok {
			s.decSpinning("Sched.Wakep")
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		s.startm(p, true)
		return
	}
	p, ok := s.pidleget()
	if !ok {
		// Give the count back, then ask for a spinner (pidlegetSpinning's
		// needspinning), in this order. An M that starts spinning meanwhile
		// clears needspinning and, when it finds work, its ResetSpinning
		// calls Wakep, which gives up if it sees this count: so by the time
		// needspinning may be cleared, the count must be gone.
		s.decSpinning("Sched.Wakep")
		s.needspinning.Store(true)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.startm(p, true)
}

// startm hands P p to an idle M, making it spinning if spinning (the
// caller counted it in nmspinning), and wakes it. With no idle M the
// handoff waits for the next StopM and NeedM is called. After Shutdown the
// P goes back to the idle set. It mirrors startm with a non-nil P and
// mspinning.
func (s *Sched) startm(p int32, spinning bool) {
	s.mu.Lock()
	if s.stopped {
		s.pidleput(p)
		if spinning {
			s.decSpinning("Sched.startm")
		}
		s.mu.Unlock()
		return
	}
	nmp := s.mget()
	if nmp == nil {
		s.pending = append(s.pending, handoff{p: p, spinning: spinning})
		s.mu.Unlock()
		if s.needM != nil {
			s.needM()
		}
		return
	}
	nmp.nextp = p
	nmp.nextSpin = spinning
	s.mu.Unlock()
	nmp.park.Wakeup()
}

// ID returns the M's number, in the order NewM registered them, from 0.
func (m *M) ID() int { return m.id }

// P returns the P the M holds, or NoP.
func (m *M) P() int { return int(m.p) }

// Spinning reports whether the M is spinning (m.spinning): it is counted in
// nmspinning and looks for work it has not found yet.
func (m *M) Spinning() bool { return m.spinning }

// Idle reports whether the M is on the idle list: parked in StopM and not
// yet handed a P. Any goroutine may call it.
func (m *M) Idle() bool {
	m.s.mu.Lock()
	idle := m.idle
	m.s.mu.Unlock()
	return idle
}

// BecomeSpinning applies findRunnable's spinning rule for an M that holds a
// P and found no local or global work: it may start spinning (and steal)
// only while 2*nmspinning < Procs - npidle, that is while spinning Ms are
// fewer than half the busy Ps. It reports whether the M is spinning now (a
// spinning M stays spinning). It mirrors that rule and becomeSpinning.
//
// BecomeSpinning panics if the M holds no P.
func (m *M) BecomeSpinning() bool {
	if m.p == NoP {
		panic("spinning: M.BecomeSpinning called on an M that holds no P")
	}
	if m.spinning {
		return true
	}
	s := m.s
	if 2*s.nmspinning.Load() < s.procs.Load()-s.npidle.Load() {
		m.becomeSpinning()
		return true
	}
	return false
}

// becomeSpinning makes the M spinning, counts it, and clears needspinning:
// a new spinner serves whoever asked for one. It mirrors becomeSpinning.
func (m *M) becomeSpinning() {
	m.spinning = true
	m.s.nmspinning.Add(1)
	m.s.needspinning.Store(false)
}

// ResetSpinning takes a spinning M that found work out of the spinning
// state and, if it was the last spinner, starts another (Wakep): work may
// be queued behind what it found, and submitters skipped their wakeups
// while it spun. It mirrors resetspinning.
//
// ResetSpinning panics if the M is not spinning.
func (m *M) ResetSpinning() {
	if !m.spinning {
		panic("spinning: M.ResetSpinning called on an M that is not spinning")
	}
	m.spinning = false
	if mutant != countLeak {
		m.s.decSpinning("M.ResetSpinning")
	}
	if mutant == noWakeOnLastSpinner {
		return
	}
	m.s.Wakep()
}

// ReleaseP gives up the M's P, which becomes idle, before the M drops
// spinning and parks: findRunnable's "return P and block". If the M is not
// spinning and needspinning is set (an M found work but no idle P for it),
// it keeps the P, becomes spinning instead and returns false: the caller
// goes back to looking for work. Otherwise it returns true.
//
// The caller must have found its P's run queue empty: the P is idle now.
// ReleaseP panics if the M holds no P.
func (m *M) ReleaseP() bool {
	if m.p == NoP {
		panic("spinning: M.ReleaseP called on an M that holds no P")
	}
	s := m.s
	s.mu.Lock()
	if !m.spinning && mutant != noNeedSpinning && s.needspinning.Load() {
		m.becomeSpinning()
		s.mu.Unlock()
		return false
	}
	s.pidleput(m.p)
	m.p = NoP
	s.mu.Unlock()
	return true
}

// DropSpinning is the spinning-to-non-spinning transition of an M that
// released its P: it decrements nmspinning, then (every atomicx operation
// is a full barrier) re-checks every run queue through Config.Work. If work
// appeared and a P is idle it takes the P, spins again and returns true:
// the caller goes back to looking for work. Otherwise it returns false and
// the caller parks (StopM). An M that is not spinning returns false at
// once. It mirrors findRunnable's drop-and-recheck (wasSpinning) and
// checkRunqsNoP.
//
// If work appeared but no P is idle it sets needspinning, so that an M
// about to give up its P spins instead (pidlegetSpinning).
//
// The order matters: a submitter publishes and then reads nmspinning, the
// dropping M decrements nmspinning and then reads the queues, so at least
// one of them sees the other's write.
//
// DropSpinning panics if the M holds a P.
func (m *M) DropSpinning() bool {
	if m.p != NoP {
		panic("spinning: M.DropSpinning called on an M that holds a P (ReleaseP first)")
	}
	if !m.spinning {
		return false
	}
	s := m.s
	m.spinning = false
	s.decSpinning("M.DropSpinning")
	if mutant == dropWithoutRecheck {
		return false
	}
	if !s.work() {
		return false
	}
	s.mu.Lock()
	var p int32
	var ok bool
	if mutant == dropNoNeedSpinning {
		p, ok = s.pidleget()
	} else {
		p, ok = s.pidlegetSpinning()
	}
	s.mu.Unlock()
	if !ok {
		return false
	}
	m.p = p
	m.becomeSpinning()
	return true
}

// StopM parks the M on the idle list until StartM (through Wakep or
// HandoffP) hands it a P, and returns true holding that P, spinning if the
// starter asked for a spinner. If a handoff is already waiting for an M it
// takes it without sleeping. After Shutdown it returns false at once, or
// when Shutdown wakes it: the M should exit. With Config.KeepAlive it also
// returns false when the M exited after its keep-alive (Exited). It sleeps
// on the M's note (atomicx.Note) without spinning. It mirrors stopm, mput
// and mPark.
//
// StopM panics if the M holds a P or is spinning.
func (m *M) StopM() bool {
	switch m.stopBegin() {
	case stopExit:
		return false
	case stopHandoff:
		return true
	}
	return m.stopWait()
}

// Exited reports whether the M left the Sched after its keep-alive: its
// StopM returned false for that, not for Shutdown. An exited M must not
// be used again.
func (m *M) Exited() bool { return m.exited }

// stopWait is StopM's sleep, for an M that stopBegin parked: until woken,
// or, for an M parked beyond the Ps with a keep-alive (m.timed), until it
// exits (false, Exited). An M the Ps need sleeps with no timer, so the
// steady state (as many Ms as Ps) pays nothing for the keep-alive; if
// RetireP then makes it one too many, retimeIdle wakes it and it parks
// again, timed (rearm). A timer on every idle M would do the same without
// the wakeup, but an executor in a synctest bubble would then never be
// durably blocked, and a lost wakeup that the bubble reports as a
// deadlock would run on, a keep-alive at a time.
func (m *M) stopWait() bool {
	for {
		for m.timed {
			if m.park.SleepFor(m.s.keepAlive) {
				m.park.Clear()
				return m.stopEnd()
			}
			if keepAliveHook != nil {
				keepAliveHook(m)
			}
			if m.expire() {
				return false
			}
		}
		m.park.Sleep()
		m.park.Clear()
		if !m.rearm() {
			return m.stopEnd()
		}
	}
}

// rearm is the look of an M woken from its untimed sleep: if retimeIdle
// woke it (not a StartM, nor Shutdown, which pop it under the same lock),
// it takes a waiting handoff if there is one (its stopEnd then acquires
// the P), or parks again, timed if it is still beyond the Ps, and reports
// true: sleep again. After Shutdown it reports false and stopEnd ends it.
func (m *M) rearm() bool {
	s := m.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if !m.retime {
		return false
	}
	m.retime = false
	if s.stopped {
		return false
	}
	if n := len(s.pending); n > 0 {
		h := s.pending[n-1]
		s.pending = s.pending[:n-1]
		m.nextp, m.nextSpin = h.p, h.spinning
		return false
	}
	m.mput()
	m.timed = s.keepAlive > 0 && len(s.allm) > int(s.procs.Load())
	return true
}

// retimeIdle runs when procs falls (RetireP; pidleput of a retiring P):
// with a keep-alive, the Ms that parked while the Ps needed them sleep
// with no timer and would stay beyond the Ps for good. If more Ms are
// alive than Ps now, every such M is taken off the idle list and woken to
// park again (rearm), timed while it is still one too many: waking only
// as many as are surplus left the wrong one asleep when a StartM then
// popped a re-parked M for work (the explorer's retire-vs-wakep). Off the
// list, no StartM can pop them, so each note is woken once. s.mu must be
// held.
func (s *Sched) retimeIdle() {
	if s.keepAlive <= 0 || mutant == neededMUntimed || len(s.allm) <= int(s.procs.Load()) {
		return
	}
	for m := s.midle; m != nil; {
		next := m.link
		if !m.timed {
			s.unlinkIdle(m)
			m.retime = true
			m.park.Wakeup()
		}
		m = next
	}
}

// keepAliveHook, set only by tests, runs between an M's keep-alive
// running out and its look under the lock (expire).
var keepAliveHook func(*M)

// expire is the look of an M whose keep-alive ran out while it slept on
// the idle list: under the lock, if it is still on the list (no StartM or
// Shutdown popped it meanwhile: mget and this look are both under the
// lock, so exactly one of them takes it off) and more Ms are alive than
// Ps are in service, it leaves the list and the Sched and reports true.
// Otherwise it stays and sleeps on with no timer: a popped M's wakeup is
// on its way, and an M the Ps need parks as the runtime's do. It mirrors
// the end of mexit (allm, sched.nmfreed); the runtime never ends an idle M
// this way (see doc.go).
func (m *M) expire() bool {
	s := m.s
	s.mu.Lock()
	defer s.mu.Unlock()
	m.timed = false
	if !m.idle && mutant != exitIgnoresWake {
		return false // handed a P, or woken by Shutdown: the note is woken
	}
	if len(s.allm) <= int(s.procs.Load()) {
		return false
	}
	if m.idle {
		s.unlinkIdle(m)
	}
	for i, x := range s.allm {
		if x == m {
			s.allm[i] = s.allm[len(s.allm)-1]
			s.allm[len(s.allm)-1] = nil
			s.allm = s.allm[:len(s.allm)-1]
			break
		}
	}
	s.nmfreed.Add(1)
	m.exited = true
	return true
}

// unlinkIdle takes m, which is on the idle list, off it wherever it is.
// s.mu must be held.
func (s *Sched) unlinkIdle(m *M) {
	at := &s.midle
	for *at != m {
		at = &(*at).link
	}
	*at = m.link
	m.link = nil
	m.idle = false
	s.nmidle--
	s.nmidleHint.Store(int32(s.nmidle))
}

// stopResult is what stopBegin did.
type stopResult uint8

const (
	stopParked  stopResult = iota // on the idle list: sleep, then stopEnd
	stopHandoff                   // took a waiting handoff: holds a P now
	stopExit                      // Shutdown was called: exit
)

// stopBegin is StopM up to the sleep: it takes a waiting handoff, or puts
// the M on the idle list (mput, with CheckDead).
func (m *M) stopBegin() stopResult {
	if m.p != NoP {
		panic("spinning: M.StopM called on an M that holds a P")
	}
	if m.spinning {
		panic("spinning: M.StopM called on a spinning M (DropSpinning first)")
	}
	s := m.s
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return stopExit
	}
	if n := len(s.pending); n > 0 {
		h := s.pending[n-1]
		s.pending = s.pending[:n-1]
		s.mu.Unlock()
		m.p, m.spinning = h.p, h.spinning
		return stopHandoff
	}
	m.mput()
	m.timed = s.keepAlive > 0 && len(s.allm) > int(s.procs.Load())
	s.mu.Unlock()
	return stopParked
}

// stopEnd is StopM after the wakeup: acquire the P the starter left.
func (m *M) stopEnd() bool {
	if m.nextp == NoP {
		return false // woken by Shutdown
	}
	m.p, m.spinning = m.nextp, m.nextSpin
	m.nextp, m.nextSpin = NoP, false
	return true
}

// AcquireP takes an idle P for an M that holds none, as an M returning from
// a blocking call does, and reports whether it got one; the M does not
// spin. With none idle, the caller puts its task back with Submit (not a
// bare put: see the package documentation) and parks in StopM. It mirrors
// the pidleget of exitsyscall's slow path, and exitsyscallNoP.
//
// AcquireP panics if the M already holds a P.
func (m *M) AcquireP() bool {
	if m.p != NoP {
		panic("spinning: M.AcquireP called on an M that already holds a P")
	}
	s := m.s
	s.mu.Lock()
	p, ok := s.pidleget()
	s.mu.Unlock()
	if ok {
		m.p = p
	}
	return ok
}

// HandoffP gives the M's P away before the M blocks outside the executor:
// if Config.Work reports work, the P goes to another M (StartM); else, if no
// M spins and no P is idle, to a new spinning M; else it becomes idle, or,
// if needspinning is set, goes to a new spinning M after all (an M found
// work and no idle P for it: this P serves it). The M then holds no P. It
// mirrors the spinning part of handoffp, which also looks at the global
// queue under the lock; here needspinning covers that, because work is
// always put through Submit.
//
// HandoffP panics if the M holds no P or is spinning.
func (m *M) HandoffP() {
	if m.p == NoP {
		panic("spinning: M.HandoffP called on an M that holds no P")
	}
	if m.spinning {
		panic("spinning: M.HandoffP called on a spinning M")
	}
	s := m.s
	p := m.p
	m.p = NoP
	if s.work() {
		s.startm(p, false)
		return
	}
	if s.nmspinning.Load()+s.npidle.Load() == 0 && s.nmspinning.CompareAndSwap(0, 1) {
		s.needspinning.Store(false)
		s.startm(p, true)
		return
	}
	s.mu.Lock()
	if mutant != handoffNoNeedSpinning && s.needspinning.Load() && !s.stopped {
		// Someone found work but no P while we decided: this P serves it.
		s.needspinning.Store(false)
		s.nmspinning.Add(1)
		s.mu.Unlock()
		s.startm(p, true)
		return
	}
	s.pidleput(p)
	s.mu.Unlock()
}

// Shutdown stops the Sched: every parked M wakes from StopM with false, and
// every later StopM returns false at once; handoffs still waiting for an M
// return their P to the idle set, and Wakep starts no more Ms. Ms that are
// running finish what they do and exit at their next StopM. Shutdown is
// idempotent.
func (s *Sched) Shutdown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.stopped = true
	for m := s.mget(); m != nil; m = s.mget() {
		m.nextp, m.nextSpin = NoP, false
		m.park.Wakeup()
	}
	for _, h := range s.pending {
		s.pidleput(h.p)
		if h.spinning {
			s.decSpinning("Sched.Shutdown")
		}
	}
	s.pending = nil
}

// decSpinning decrements nmspinning and panics, naming the call, if it
// goes negative.
func (s *Sched) decSpinning(call string) {
	if s.nmspinning.Add(-1) < 0 {
		panic("spinning: " + call + ": negative nmspinning")
	}
}

// pidleput makes P p idle, or, if RetireP marked it, retires it instead
// (out of service: in no place). s.mu must be held. It mirrors pidleput.
func (s *Sched) pidleput(p int32) {
	if s.retiring[p] {
		s.retiring[p] = false
		s.out[p] = true
		s.procs.Add(-1)
		s.retimeIdle()
		return
	}
	if s.pidleMask[p] {
		panic(fmt.Sprintf("spinning: pidleput: P %d is already idle", p))
	}
	s.pidleMask[p] = true
	s.pidle = append(s.pidle, p)
	s.npidle.Add(1)
}

// pidleget takes an idle P, the one made idle last. s.mu must be held. It
// mirrors pidleget.
func (s *Sched) pidleget() (int32, bool) {
	n := len(s.pidle)
	if n == 0 {
		return NoP, false
	}
	p := s.pidle[n-1]
	s.pidle = s.pidle[:n-1]
	s.pidleMask[p] = false
	s.npidle.Add(-1)
	return p, true
}

// pidlegetSpinning is pidleget for a caller that found work (or wants a
// spinner): with no idle P it sets needspinning. s.mu must be held. It
// mirrors pidlegetSpinning.
func (s *Sched) pidlegetSpinning() (int32, bool) {
	p, ok := s.pidleget()
	if !ok {
		s.needspinning.Store(true)
	}
	return p, ok
}

// mput pushes m onto the idle list and reports to CheckDead. s.mu must be
// held. It mirrors mput.
func (m *M) mput() {
	s := m.s
	m.idle = true
	m.link = s.midle
	s.midle = m
	s.nmidle++
	s.nmidleHint.Store(int32(s.nmidle))
	if s.checkDead != nil {
		s.checkDead(s.nmidle, len(s.allm))
	}
}

// mget pops the M that parked last, or returns nil. s.mu must be held. It
// mirrors mget.
func (s *Sched) mget() *M {
	m := s.midle
	if m == nil {
		return nil
	}
	s.midle = m.link
	m.link = nil
	m.idle = false
	s.nmidle--
	s.nmidleHint.Store(int32(s.nmidle))
	return m
}

// AddP puts P p in service, idle, as procresize does for a P it makes or
// brings back: p is the next number (one past every P added so far) or a
// P that RetireP retired. A P that RetireP marked but its holder has not
// let go yet simply stays in service. The caller then wakes an M for work
// the new P could take (Wakep). It mirrors procresize's growing of allp
// and its pidleput of the new Ps.
//
// AddP panics, naming the call, if p is neither, or a P in service.
func (s *Sched) AddP(p int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.pidleMask)
	switch {
	case p == n:
		s.pidleMask = append(s.pidleMask, false)
		s.retiring = append(s.retiring, false)
		s.out = append(s.out, true)
	case p < 0 || p > n:
		panic(fmt.Sprintf("spinning: Sched.AddP called with P %d, want 0..%d", p, n))
	case s.retiring[p]:
		s.retiring[p] = false // never let go: it stays in service
		return
	case !s.out[p]:
		panic(fmt.Sprintf("spinning: Sched.AddP called with P %d, which is in service", p))
	}
	s.out[p] = false
	s.procs.Add(1)
	s.pidleput(int32(p))
}

// RetireP takes P p out of service, as procresize's destroy does with a P
// past the new count: if p is idle it leaves the idle set now; if an M
// holds it (or a handoff waits with it), its next release (ReleaseP,
// HandoffP, DropP) retires it instead of making it idle, so no M is ever
// handed it again. It reports whether p is out of service now; call it
// again until it is. Procs counts p until then. RetireP panics, naming the
// call, if p was never added.
func (s *Sched) RetireP(p int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p < 0 || p >= len(s.pidleMask) {
		panic(fmt.Sprintf("spinning: Sched.RetireP called with P %d of %d", p, len(s.pidleMask)))
	}
	if s.out[p] {
		return true
	}
	if !s.pidleMask[p] {
		s.retiring[p] = true
		return false
	}
	for i, q := range s.pidle {
		if q == int32(p) {
			s.pidle = append(s.pidle[:i], s.pidle[i+1:]...)
			break
		}
	}
	s.pidleMask[p] = false
	s.npidle.Add(-1)
	s.out[p] = true
	s.procs.Add(-1)
	s.retimeIdle()
	return true
}

// DropP gives up the M's P whatever its queue holds, for a P that RetireP
// marked: it retires it (a P not marked becomes idle, as with ReleaseP).
// The M keeps its spinning state: a spinning M then calls DropSpinning.
// It mirrors an M leaving a P that procresize destroys.
//
// DropP panics if the M holds no P.
func (m *M) DropP() {
	if m.p == NoP {
		panic("spinning: M.DropP called on an M that holds no P")
	}
	s := m.s
	s.mu.Lock()
	s.pidleput(m.p)
	m.p = NoP
	s.mu.Unlock()
}
