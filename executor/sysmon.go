package executor

import (
	"runtime"
	"time"

	"github.com/schedkit/schedkit/atomicx"
)

// sysmon's sleep between rounds: 20µs while it keeps finding Ps to take,
// doubling after 50 idle rounds up to 10ms, as the runtime's sysmon, and
// never past Slice/8: a slice's start and its overrun are each seen one
// round late, so the runtime's 10ms (its whole slice) let a queued task
// wait past two slices behind a runnext ping-pong. bench's pingpong, with
// the retake's runnext rule (localGet): 2.4 slices at Slice/4 and 1.9 at
// Slice/8 (three rounds each), 2.1 at Slice/16 (five rounds: no better).
// While a P is in pSyscall the sleep is at most max(20µs,
// SyscallThreshold/2), and a longer sleep ends when a call enters
// Syscall (sysmonDoze), so that a call past the threshold is seen within
// about two thresholds of its start however long sysmon had backed off.
//
// sysmon is a goroutine, and its sleep a Go timer, where the runtime's is
// a thread in usleep: a 20µs timer fires when some M of the Go runtime
// looks at the timers. With every Go P idle that is netpoll's wait, whose
// timeout is in whole milliseconds (1.1ms measured); with every Go P
// running an M it is the next M to yield (every yieldEvery tasks). In
// mixed (one task in ten blocking 1ms in Syscall, 2 Ps, load 11 on 2
// vCPUs) half of sysmon's 20µs sleeps took 33µs, but the 1 to 2% that
// took over 200µs (up to 5ms) held 60 to 80% of the time calls kept
// their Ps past the threshold. So while a call is in pSyscall sysmon
// publishes when its sleep should end (sysmonDue), and an M that finds
// that time past at its kickEvery'th task wakes it (kickSysmon): the M
// is running, so the work it does is the clock sysmon lacks. With no M
// running nothing can wake it: so the last M to enter a call wakes its
// doze (wakeSysmonForCall), and sysmon, while no M runs, waits for the
// earliest call's threshold on the CPU (spinForCall), yielding its Go P
// at every turn. Before that, on 1 P it slept on the OS's timer (usleep:
// mixed's 400 calls of 1ms on Procs 1 took 860ms at GOMAXPROCS 1 and
// 538ms at 2 on Go timers, 98 to 122ms on nanosleep), and a nanosleep,
// 130µs here for 20µs, held a Go P that the retaken P's M needed on more
// Ps; mixed (bench, 2 runs of 3 rounds, load 2.6) then cost 6.9x and 5.3x no
// blocking at 1 and 2 Ps with calls held 224µs on average, and with the
// spin and the last M's wakeup 1.7x and 2.4x, calls held 22 and 28µs.
// usleep stays for calls with nothing due (no work waits) while no M runs.
const (
	sysmonMinDelay = 20 * time.Microsecond
	sysmonMaxDelay = 10 * time.Millisecond
	sysmonIdleRuns = 50
	kickEvery      = 4
)

// sysmonLateForTest is what sysmon adds to each sleep on its Go timer at a
// call's pace in the executors made from now on (SetSysmonLate): the
// lateness of a coarse Go timer, which a synctest bubble's exact clock
// never shows. Its OS timer (usleep) is then the bubble's exact one.
var sysmonLateForTest time.Duration

// osSleep is sysmon's sleep on the OS's timer: usleep, or with
// sysmonLate set an exact sleep on the Go clock (the bubble's).
func (e *Executor) osSleep(d time.Duration) bool {
	if e.sysmonLate != 0 {
		atomicx.Sleep(d)
		return true
	}
	return e.usleep(d)
}

// sysmon watches the Ps and takes a P from a task that has held it past the
// slice while work waits, or from a Task.Syscall past its threshold,
// handing it to another M (retake, handoffp); a blocked task is such a task
// too, since a task is never preempted. When
// every P is idle it sleeps until an M takes one (sysmonwait). It exits
// once the executor stops. It mirrors sysmon.
func (e *Executor) sysmon() {
	defer e.goroutineExit()
	idle := 0
	delay := sysmonMinDelay
	calls := false      // a P was in pSyscall at the last round
	running := false    // an M held a P outside a call at the last round
	var prevRound int64 // the timers' clock at the last round
	for {
		if e.stopped.Load() != 0 {
			return
		}
		if mutant == sysmonOff || e.allIdle() {
			e.sysmonSleep()
			now := e.now()
			e.sysmonTimers(now, prevRound)
			prevRound = now
			idle = 0
			continue
		}
		switch {
		case idle == 0:
			delay = sysmonMinDelay
		case idle > sysmonIdleRuns:
			delay = min(2*delay, sysmonMaxDelay, max(sysmonMinDelay, e.cfg.Slice/8))
		}
		// A call seen at one round is retaken at the first round a
		// threshold later: within about two thresholds of its start.
		pace := max(sysmonMinDelay, e.cfg.SyscallThreshold/2)
		switch {
		case calls:
			// A call's P waits for this round: an M wakes a late one.
			delay = min(delay, pace)
			// Ended by the earliest timer too, as every other sleep
			// here (timeSleepUntil): uncapped, a timer due just after
			// a round waited for the round after the next, up to two
			// rounds (11ms at Slice 8s with a long call in progress).
			d := e.timerCap(delay)
			if mutant == callSleepUncapped {
				d = delay
			}
			if !running && e.spinForCall(d) {
				// no M runs to kick it: sysmon waited on the CPU
			} else if running || mutant == sysmonNoUsleep || !e.osSleep(d) {
				e.sysmonDue.Store(atomicx.Nanotime() + int64(d))
				e.sysmonDoze(d+e.sysmonLate, dozeAtPace, running)
				e.sysmonDue.Store(0)
			} // else no M runs and nothing is due: the OS's timer, for work that comes

		case e.pollWaiters():
			e.sysmonIdleDoze(e.timerCap(delay)) // the last P to go idle cuts it short: to the blocking poll

		case delay > pace:
			e.sysmonDoze(e.timerCap(delay), dozeBackedOff, false) // a call's entry (or a timer armed where no M looks) cuts it short
		default:
			e.sysmonDoze(e.timerCap(delay)+e.sysmonLate, dozeAtPace, true) // the last M to enter a call cuts it short
		}
		now := e.now()
		e.sysmonTimers(now, prevRound)
		e.sysmonPoll(now)
		e.followGOMAXPROCS(now) // Config.Procs 0 (resize.go)
		prevRound = now
		var n int
		if n, calls, running = e.retakeAll(atomicx.Nanotime()); n > 0 {
			idle = 0
		} else {
			idle++
		}
	}
}

// sysmonSleep parks sysmon until takeP (or stop) wakes it, unless a P got
// busy meanwhile. The handshake on sysmonWait wakes the note at most once
// per sleep.
func (e *Executor) sysmonSleep() {
	e.sysmonWait.Store(1)
	if (mutant == sysmonOff || e.allIdle()) && e.stopped.Load() == 0 {
		if np := e.np.Load(); np != nil && np.waiting.Load() != 0 && np.block(e.untilTimer()) {
			// Tasks wait for I/O and no M blocks in epoll_wait: the
			// sleep was a blocking poll, until the earliest timer or a
			// waker's break (netpoll(delay)).
			if !e.sysmonWait.CompareAndSwap(1, 0) {
				e.sysmonNote.Sleep() // a waker won the flag: take its wakeup
			}
		} else if next := e.nextTimer(); next != 0 {
			// Until the earliest timer (timeSleepUntil), or a waker.
			e.sysmonNote.SleepFor(time.Duration(next - e.now()))
			if !e.sysmonWait.CompareAndSwap(1, 0) {
				e.sysmonNote.Sleep() // a waker won the flag: take its wakeup
			}
		} else {
			e.sysmonNote.Sleep()
		}
		e.sysmonNote.Clear()
		return
	}
	if !e.sysmonWait.CompareAndSwap(1, 0) {
		// A waker won the flag and will wake the note: take its wakeup.
		e.sysmonNote.Sleep()
		e.sysmonNote.Clear()
	}
}

// sysmonDoze is sysmon's sleep of d once it has backed off past a call's
// pace: a call entering Syscall meanwhile wakes it (wakeSysmonForCall), so
// that the call is seen at once rather than up to Slice/8 later; and its
// sleep at that pace while a call is in pSyscall, which an M ends once
// sysmonDue has passed (kickSysmon). The handshake on sysmonDozing wakes
// the note at most once per doze; its value says which doze it is, so a
// call's entry wakes only a backed-off one: at the pace, a wakeup per call
// made 1µs calls cost 3.4µs instead of 2.0.
//
// recheck, for a doze at a call's pace after a round that saw an M
// running: the last M may have entered its call after that round's look
// and before the doze was published, and found no doze to wake (its CAS
// on the status word, then its load of sysmonDozing; here the store, then
// the loads of the status words), so sysmon looks again and, finding a
// call with no M running, does not doze: the round comes now, not at a Go
// timer no M looks at. Without a running M at the round it would find the
// call it dozes beside and never sleep. proofs/tla/SysmonDoze.tla models
// this handshake with wakeSysmonForCall (CallsWatched; mutants
// CallEntryNoWake, DozeNoRecheck).
func (e *Executor) sysmonDoze(d time.Duration, kind uint32, recheck bool) {
	if recheck {
		syscallStep("sysmon dozing at pace")
	}
	e.sysmonDozing.Store(kind)
	if recheck && mutant != dozeNoRecheck && e.callUnwatched() && e.sysmonDozing.CompareAndSwap(kind, 0) {
		return
	}
	e.sysmonNote.SleepFor(d)
	if !e.sysmonDozing.CompareAndSwap(kind, 0) {
		e.sysmonNote.Sleep() // a call's entry won the flag: take its wakeup
	}
	e.sysmonNote.Clear()
}

// wakeSysmonForCall wakes sysmon if it dozes backed off (sysmonDoze), or
// at a call's pace once the caller was the last M running: no M can kick
// it then, and its Go timer waits for netpoll's millisecond (mixed on 1 P:
// 224µs a call held its P on average, against the 20µs threshold). At a
// call's pace it wakes sysmon only while work waits for a call's P
// (callUnwatched): the retake is the reason to watch, and a wakeup at every
// entry made 1µs calls with nothing waiting cost 1935ns instead of 1707 on
// 1 P (BenchmarkSyscallShort, medians of 3); gated, as sysmonDoze's second
// look is, 1909 against 1861 (5 alternating rounds, each ±10%). Work that
// comes later wakes it from the submit (wakeSysmonForWork).
func (e *Executor) wakeSysmonForCall() {
	if e.sysmonDozing.Load() == dozeAtPace && mutant != callEntryNoWake && e.callUnwatched() {
		e.endDoze(dozeAtPace)
		return
	}
	e.wakeSysmonBackedOff()
}

// wakeSysmonForWork is a submit's wakeSysmonForCall: with calls in
// progress, work just queued may wait for a call's P while no M runs, and
// sysmon's doze at pace (one load of e.calls otherwise). Its put before
// the load of sysmonDozing pairs with sysmonDoze's second look, as the
// call's entry does.
func (e *Executor) wakeSysmonForWork() {
	if e.calls.Load() != 0 && e.sysmonDozing.Load() == dozeAtPace && e.callUnwatched() {
		e.endDoze(dozeAtPace)
	}
}

// wakeSysmonBackedOff wakes sysmon if it dozes backed off past a call's
// pace or for a round while tasks wait for I/O.
func (e *Executor) wakeSysmonBackedOff() {
	if k := e.sysmonDozing.Load(); k == dozeBackedOff || k == dozeIdlePoll {
		e.endDoze(k)
	}
}

// endDoze ends sysmon's doze of kind k, if no one else ended it first.
func (e *Executor) endDoze(k uint32) {
	if e.sysmonDozing.CompareAndSwap(k, 0) {
		e.sysmonNote.Wakeup()
	}
}

// callUnwatched reports whether a P is in pSyscall with work waiting for
// it (a retake to come) while no M holds a P outside a call: no M can kick
// sysmon then.
func (e *Executor) callUnwatched() bool {
	calls := false
	for _, p := range e.allPs() {
		switch p.status.Load() & stateMask {
		case pSched, pTask, pSpawn:
			return false
		case pSyscall:
			calls = calls || e.waitsFor(p)
		}
	}
	return calls
}

// spinForCall is sysmon's wait, while no M runs, for the earliest call in
// pSyscall that work waits for to reach its threshold (at most d): on the
// CPU, yielding its Go P at every turn, so a goroutine readied meanwhile
// (the M a retake wakes, a call's return) runs at once. The runtime's
// sysmon sleeps in usleep on a thread of its own; here a 20µs nanosleep
// took 70 to 130µs (the thread's 50µs timer slack, and the VM's), and a
// Go timer with every Go P idle a millisecond. The spin lasts at most a
// threshold a call, while the executor's Ps all wait for calls anyway. It
// reports false, having waited nothing, when no such call is in progress
// or the clock is not the OS's (a bubble's: the first wait is a nanosleep
// that tells them apart); with SetSysmonLate it is an exact sleep on the
// bubble's clock.
func (e *Executor) spinForCall(d time.Duration) bool {
	if e.fakeClock || mutant == sysmonNoUsleep {
		return false
	}
	now := atomicx.Nanotime() // negative in a bubble: its clock starts before the epoch
	due, any := int64(0), false
	for _, p := range e.allPs() {
		if p.status.Load()&stateMask != pSyscall || !e.waitsFor(p) {
			continue
		}
		at := now // a call no round has seen yet: the next round notes it
		if p.syscalltick.Load() == p.seenCall {
			at = p.seenCallWhen + int64(e.cfg.SyscallThreshold) // retakeSyscall's rule
		}
		if !any || at < due {
			due, any = at, true
		}
	}
	if !any {
		return false
	}
	until := min(due, now+int64(d))
	if e.sysmonLate != 0 {
		atomicx.Sleep(time.Duration(max(until-now, 1000))) // time must move in the bubble
		return true
	}
	if !e.realClock {
		if !e.usleep(time.Duration(max(until-now, 1000))) {
			return false
		}
		e.realClock = true
		return true
	}
	for atomicx.Nanotime() < until {
		runtime.Gosched()
	}
	return true
}

// kickSysmon is an M's look, every kickEvery tasks, at the calls in
// progress: it first retakes a call's P past its threshold itself
// (helpRetake), then looks at a sysmon that sleeps while a call is in
// pSyscall: if the sleep should have ended
// (sysmonDue), the M wakes it. One load while no call is in pSyscall.
// The woken sysmon runs on an idle Go P, or with GOMAXPROCS 1 at the M's
// next yield: a runtime.Gosched per kick (one per sysmon round) sent the
// M behind every goroutine readied meanwhile while it held its P, and
// mixed ran 2 to 4 times slower. The runtime's sysmon sleeps in usleep on
// a thread of its own, late only when the OS is; checkTimers in schedule,
// the Ms running timers at their scheduling points, is the nearest thing.
func (e *Executor) kickSysmon() {
	if mutant != sysmonNotKicked && e.calls.Load() != 0 {
		e.helpRetake()
	}
	due := e.sysmonDue.Load()
	if due == 0 || mutant == sysmonNotKicked || atomicx.Nanotime() < due {
		return
	}
	if e.sysmonDozing.Load() == dozeAtPace && e.sysmonDozing.CompareAndSwap(dozeAtPace, 0) {
		e.sysmonNote.Wakeup()
	}
}

// helpRetake is sysmon's retake of a call's P (retakeSyscall) done by an
// M between tasks: a P in pSyscall whose call began (callSince) at least
// SyscallThreshold ago while work waits for it (waitsFor), or a Slice ago
// in any case, is retaken and handed off (retake) by the M that looks, so
// the retake comes at the threshold plus at most kickEvery tasks, not at
// sysmon's next round, which waits for a Go P like any goroutine (110µs
// measured for a 20µs threshold on 2 Ps). Its CAS races sysmon's and the
// call's return as theirs race each other. The runtime has no such path:
// its sysmon is a thread of its own, late only when the OS is.
func (e *Executor) helpRetake() {
	now := atomicx.Nanotime()
	for _, p := range e.allPs() {
		s := p.status.Load()
		if s&stateMask != pSyscall {
			continue
		}
		since := p.callSince.Load()
		long := now - since
		if long < int64(e.cfg.SyscallThreshold) && mutant != helpRetakeEarly || long < int64(e.cfg.Slice) && !e.waitsFor(p) {
			continue
		}
		w := p.m.Load()
		if w == nil || own(w.id, pSyscall) != s&holderMsk || p.callSince.Load() != since {
			continue // the call ended (the CAS could not tell a new one)
		}
		e.retake(w, p, s)
	}
}

// sysmonDozing's values besides 0 (awake or not dozing).
const (
	dozeBackedOff = 1 // backed off past a call's pace: a call's entry wakes it
	dozeAtPace    = 2 // at a call's pace with a call in pSyscall: kickSysmon wakes it
	dozeIdlePoll  = 3 // a round while tasks wait for I/O: the last P to go idle wakes it (poll.go)
)

// wakeSysmon wakes sysmon if it sleeps for want of a busy P.
func (e *Executor) wakeSysmon() {
	if e.sysmonWait.Load() != 0 && e.sysmonWait.CompareAndSwap(1, 0) {
		e.sysmonNote.Wakeup()
		if np := e.np.Load(); np != nil {
			np.wakeBlocked() // a sleep in epoll_wait: break it
		}
	}
}

// retakeAll is one round of sysmon over the Ps: for each P it notes a new
// slice (schedtick moved); if the same slice has lasted Slice while work
// waits for the P (in its own queue, or in the global queue with no P idle
// to take it), it first asks the holder to end the slice at its next get
// (p.preempted: preemptone), and a round later, if the slice still has not
// moved and a task still holds the P, retakes it. A P in pSyscall has
// rules of its own (retakeSyscall). It returns how many it took, and
// whether a P was in pSyscall (sysmon then polls at the threshold's pace)
// and whether an M held one outside a call (running: it can wake a late
// sysmon). It mirrors retake.
func (e *Executor) retakeAll(now int64) (n int, calls, running bool) {
	for _, p := range e.allPs() { // a P taken away is pIdle once SetProcs is done with it
		s := p.status.Load()
		if st := s & stateMask; st == pSched || st == pTask || st == pSpawn {
			running = true
		}
		overrun := false
		if tick := p.schedtick.Load(); tick != p.seenTick || s == pIdle {
			p.seenTick, p.seenWhen = tick, now
		} else {
			overrun = now-p.seenWhen >= int64(e.cfg.Slice)
		}
		if s&stateMask == pSyscall {
			if mutant == syscallNeverRetaken {
				continue
			}
			if e.retakeSyscall(p, s, now, overrun) {
				n++
			} else {
				calls = true
			}
			continue
		}
		if !overrun {
			continue
		}
		if mutant != retakeWhenNothingWaits && p.q.Empty() && (e.global.Empty() || e.sched.NPIdle() != 0) {
			continue // nothing waits for this P
		}
		if p.preempted.Load() == 0 {
			// First ask the holder to end the slice at its next get from
			// the queue, as preemptone asks a goroutine to stop at its
			// next safe point: a runnext ping-pong of short tasks ends
			// there, with no handoff and no new M. The holder is often
			// between tasks when sysmon runs (pSched): with GOMAXPROCS 1
			// sysmon gets the Go P only when the M yields, between tasks,
			// so a rule that acted on pTask alone never fired there.
			p.preempted.Store(1)
			if mutant != retakeAtFirstOverrun {
				continue
			}
		}
		if s&stateMask != pTask {
			continue // between tasks: its next get honours the request
		}
		// Asked a round ago and the slice has not moved: the task itself
		// holds on (computing, or blocked), so hand its P off (the
		// runtime's retake of a _Psyscall P).
		if w := p.m.Load(); w != nil && own(w.id, pTask) == s&holderMsk && e.retake(w, p, s) {
			n++
		}
	}
	return n, calls, running
}
