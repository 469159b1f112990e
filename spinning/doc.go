// Package spinning is the accounting of spinning Ms and the parking and
// unparking of Ms, with no lost wakeup: while work is queued and a P is
// idle, some M is spinning (looking for it) or is about to be started, so
// the work is eventually taken.
//
// # Use
//
// Each worker (an M) runs its schedule loop around an M from Sched.NewM:
// StopM parks it until there is work and a P for it, BecomeSpinning before
// it looks for work elsewhere, ResetSpinning once it found some, ReleaseP and
// DropSpinning (which rechecks the queues) before it parks again. A
// submitter calls Sched.Submit with its put inside, which wakes an M if none
// is looking. Example is that loop, complete, with two Ms on one P and three
// submits. The queues stay the caller's: Config.Work reports whether any
// holds work.
//
// It follows "Worker thread parking/unparking" at the top of the runtime's
// proc.go. A Sched holds the counters nmspinning and npidle, the
// needspinning flag, the idle P set and the idle M list; an M is one worker
// thread's state (the P it holds, whether it spins, the note it parks on).
// The run queues are not here: the executor owns them and tells the Sched
// whether any holds work through Config.Work, so this package depends on
// no other component.
//
// Each operation mirrors a function of proc.go and an action of
// proofs/tla/Spinning.tla of the same name:
//
//	Sched.Submit        newproc's runqput + wakep  Submit         publish the work, then Wakep
//	Sched.Wakep         wakep                      Wakep          CAS nmspinning 0 -> 1, take an idle P, StartM
//	  (inside)          startm + mspinning         StartM         hand the P to an idle M and wake it
//	M.BecomeSpinning    findRunnable's rule        BecomeSpinning spin only while 2*nmspinning < Procs-npidle
//	M.ResetSpinning     resetspinning              ResetSpinning  a spinner found work: stop spinning, Wakep
//	M.ReleaseP          findRunnable's pidleput    ReleaseP       give up the P (or spin, if needspinning)
//	M.DropSpinning      findRunnable (wasSpinning) DropSpinning   decrement, barrier, re-check, maybe re-spin
//	                    + checkRunqsNoP
//	M.StopM             stopm, mput, mPark         StopM          park on the idle list until handed a P
//	M.AcquireP          exitsyscall's pidleget     AcquireP       take an idle P without spinning
//	M.HandoffP          handoffp (spinning part)   HandoffP       give the P to another M, or make it idle
//	  (StopM's end)     mexit's allm, nmfreed      Expire         an idle M past its keep-alive exits (KeepAlive)
//	  (Config.NeedM)    newm (for a handoff)       NewM           an exited M comes back for a waiting handoff
//	Sched.Shutdown      (none)                     (not modelled) wake every parked M to exit
//
// An executor's M runs this loop, its findRunnable and schedule:
//
//	if !m.StopM() { return }                     // parked until Wakep hands it a P
//	for {
//		t := local or global work
//		if t == nil && m.BecomeSpinning() {
//			t = steal from other Ps
//		}
//		if t != nil {
//			if m.Spinning() { m.ResetSpinning() }
//			run(t); continue
//		}
//		if !m.ReleaseP() { continue }            // needspinning: spin instead
//		if m.DropSpinning() { continue }         // work appeared: spinning again
//		if !m.StopM() { return }                 // Shutdown
//	}
//
// and a submitter calls s.Submit(func() { queue.Put(t) }), or puts and then
// calls s.Wakep(). A task that makes a blocking call gives its P away first
// and takes one again after, as entersyscallblock and exitsyscall do:
//
//	m.HandoffP()
//	call()                                        // blocks, holding no P
//	if m.AcquireP() {
//		go on with the task                       // holding a P again
//	} else {                                      // none idle: exitsyscallNoP
//		s.Submit(func() { queue.Put(rest of t) }) // not a bare Put: the Wakep matters
//		StopM, and on into the loop above
//	}
//
// The task put back must go through Submit (publish, then Wakep): unlike
// the runtime's findRunnable, ReleaseP does not look at the global queue
// under the lock, so a bare Put could be missed by every M about to idle.
//
// # Invariants
//
//   - 0 <= nmspinning, and the counts backed by a P number at most Procs:
//     a spinning M holds a P or has been handed one, and each P is in one
//     place. Two counts are not backed, both momentary and both in the
//     runtime too: a spinning M between ReleaseP and DropSpinning (it has
//     put its P back and not yet decremented), and Wakep's count between
//     its CAS and taking a P (it counts itself only when nmspinning was 0,
//     so there is at most one). So nmspinning <= Procs holds only up to
//     those: TLC finds nmspinning = 3 with 2 Ps and 2 Ms (both Ms re-spin
//     after their drop while a Wakep holds its CAS count; see
//     proofs/tla/README.md), and checks the bound in this form.
//   - An M is spinning iff it is counted: outside an operation in progress,
//     nmspinning equals the number of spinning Ms, plus the Ms handed a P to
//     spin and not yet resumed, plus the spinning handoffs that wait for an
//     M (below). Wakep holds one count from its CAS until it has handed the
//     P on or given up.
//   - npidle equals the size of the idle P set, and each P is in exactly one
//     place: idle, held by one M, handed to one M not yet running, or in a
//     waiting handoff.
//   - An M is on the idle list iff it sleeps in StopM and no P has been
//     handed to it; StartM pops it and wakes it exactly once (its note is
//     cleared before it can park again).
//   - No lost wakeup: while work is queued and a P is idle, some M is
//     spinning or will be started (or, with a P, is still looking before it
//     gives the P up). The submitter publishes and then reads nmspinning;
//     the dropping M decrements nmspinning and then reads the queues; with
//     sequentially consistent operations in between, one of them sees the
//     other. A spinner that finds work and was the last one starts another
//     (ResetSpinning), because submitters skipped their wakeups while it
//     spun. When the re-check finds work but no idle P, needspinning makes
//     the next non-spinning M about to idle its P spin instead, and
//     HandoffP hands the P to a spinner. A Wakep that finds no idle P gives
//     its count back before it sets needspinning: an M that starts spinning
//     clears the flag, and its ResetSpinning's Wakep must not then defer to
//     a count that is about to go (the runtime sets the flag first, and
//     relies on findRunnable's look at the global queue under the lock,
//     which ReleaseP does not have).
//
// The runtime starts a new M when StartM finds none idle (newm). Here the
// handoff waits in the Sched and the next M to call StopM takes it without
// sleeping; Config.NeedM tells the executor, which may start one. With at
// least Procs Ms, none of which blocks outside the Sched without a P (after
// HandoffP), that is enough: a waiting handoff holds a P, so fewer than
// Procs Ms hold one, and some M without a P is neither parked (StartM found
// the idle list empty under the lock) nor exited, so it reaches StopM. An
// executor whose Ms block in system calls must start Ms on NeedM.
//
// Idle Ms may exit (Config.KeepAlive, which needs NeedM), where the
// runtime keeps them: its stopm parks an M on sched.midle for good, and an
// M ends only in mexit, when a goroutine locked to it (LockOSThread) exits;
// mexit takes it out of allm and counts sched.nmfreed, as expire does
// here. An executor's Ms are goroutines that a burst of blocking calls
// multiplies (each blocked call keeps one while its P goes on with
// another), and the runtime's reason to keep idle threads (a new thread is
// dear, and a locked one may be in a state no new one has) weighs less
// than dozens of goroutines parked until Close. An M that parks while more
// Ms are alive than Ps are in service sleeps with a timer of KeepAlive
// (one that parks with no more Ms than Ps sleeps with none, so the steady
// state pays nothing); when it runs out the M looks under the lock: if
// StartM or Shutdown popped it meanwhile (mget, under the same lock) it
// stays, its wakeup on its way, so no handed P is lost; if no more Ms are
// alive than Ps it sleeps on with no timer; else it leaves the list and
// the Sched, and StopM returns false with M.Exited set. A later handoff
// that finds no idle M waits for NeedM's M, as before. When RetireP leaves
// more Ms alive than Ps, it takes every M that sleeps with no timer off
// the idle list and wakes it (retimeIdle), and each parks again, timed
// while it is one too many (rearm; NeededMUntimed leaves them asleep for
// good). So
// once no M is busy, at most Procs Ms stay, after a shrink too. Spinning.tla
// holds Procs fixed: retimeIdle is checked by the scenario and the bubble
// test named below, not by TLC.
//
// The rule that limits spinners reads nmspinning and npidle without the
// lock and may let more Ms spin than it allows when several decide at once,
// as in the runtime: it is a heuristic that bounds wasted CPU, not a
// correctness condition, and no invariant above depends on it.
//
// # Misuse
//
// Calls in the wrong state are detected and panic with a message naming
// the call: BecomeSpinning, ReleaseP or HandoffP without a P, DropSpinning,
// StopM or AcquireP holding one, ResetSpinning of a non-spinning M,
// HandoffP or StopM while spinning, Submit(nil), and a count of spinning Ms
// or a P made idle twice going wrong (decSpinning, pidleput). What is not
// detected, and what it does in a normal build:
//
//   - An M's methods called from two goroutines at once. Its own fields
//     (the P it holds, its spinning flag) are plain, so -race reports it;
//     without -race a P can end up held twice or idle while held, and
//     nmspinning can drift: a count that goes negative panics, one that
//     leaks makes Wakep believe a spinner exists and loses wakeups.
//   - A bare queue put with no Wakep after it (Submit's order, or the put
//     back after a failed AcquireP): the work may wait beside an idle P
//     until some M happens to look.
//   - Config.Work that misses a queue: the drop's re-check and HandoffP
//     miss that work in the same way. Config.Work or Config.NeedM that
//     blocks blocks the M that calls it; Config.CheckDead that calls the
//     Sched deadlocks (it runs under the scheduler lock).
//   - Ms that block outside the Sched while holding a P (not after
//     HandoffP): the P is busy for the whole call, and work queued behind
//     it waits.
//   - Fewer than Procs Ms able to reach StopM: a waiting handoff holds its
//     P until NeedM's M arrives.
//
// # Verification
//
// Unit tests; a rapid state machine against a sequential model (counters,
// stacks of idle Ps and Ms, the waiting handoffs, a queue count); fixed
// scenarios (scenarios_test.go), one aimed at each step a seeded mutation
// breaks, sequential or, for an order inside one critical section (Wakep's
// count and needspinning), two threads explored exhaustively; the fuzz target FuzzSpinning; a stress test with real goroutines
// as Ms over lfq rings and a global queue, which runs every task exactly
// once and ends every round with every M parked and nothing queued, under a
// watchdog; the explorer on the real code (lost wakeups show as a deadlock:
// every thread parked while work waits), in the shapes of explore_test.go:
// a submission against parked Ms, two submitters (two Wakeps at once),
// a spinner dropping against one and two submitters, the last spinner's
// wakeup, needspinning, HandoffP against a submission and against a Wakep
// for the only P, a spinner re-taking its P against a Wakep that finds
// none, and AcquireP without spinning against the drop's re-check, some at
// preemption bound 3 (or 2, from 1) in long mode; TLC on Spinning.tla,
// with WorkConserving (no lost wakeup) and AllTasksDone (every task ends
// when tasks end); and the kill matrix over the seeded mutations of
// mutation.go, where the explorer, the model and the scenarios count
// (deterministic) and stress and linearizability are shown beside them.
//
// Linearizability (internal/linearize) is checked for the idle P set with
// its counter (AcquireP, ReleaseP, NPIdle): those are single critical
// sections, and every P must be held by at most one M. It does not apply to
// Wakep, DropSpinning and the spinning rule: each is a multi-step protocol
// by design (nmspinning moves before the P is taken, and the rule reads two
// counters without the lock), so a concurrent NMSpinning or BecomeSpinning
// can observe a state no sequential order produces. What matters there is
// that no wakeup is lost, which the explorer and TLC check instead.
//
// # Properties and their tests
//
// Each property stated here or in a doc comment, and the tests that fail
// when it breaks (TLC's names in Spinning.tla; a broken variant each test
// is shown to catch, in brackets):
//
//	counts backed by a P <= Procs, 0 <= nmspinning   Validate after every step of TestSpinningModel and every
//	                                                  explorer execution; TestValidateCatchesBrokenStates; TLC SpinningBounds
//	an M spins iff it is counted                     Validate; TestScenarios "ResetSpinning uncounts the M" [CountLeak];
//	                                                  TLC SpinningCounted [CountLeak]
//	npidle = |idle set|, each P in one place         Validate; linearizeSpinning (AcquireP, ReleaseP, NPIdle); TLC PConservation
//	idle list = Ms parked and not handed a P;        TestSpinningModel (a parked M is never woken unless the model
//	  StartM wakes an M exactly once                   says so); Validate; TLC IdleMs
//	no lost wakeup                                   TestExploreSpinning (every shape) [every mutation but NeededMUntimed];
//	                                                  TestStressExactlyOnce [TestStressCheckerCatchesBrokenVariants];
//	                                                  TLC WorkConserving [every mutant but CountLeak, EndlessTasks, ExitIgnoresWake, NeededMUntimed]
//	every submitted task ends when tasks end         TLC AllTasksDone [EndlessTasks]
//	Submit publishes before it wakes                 TestSubmitPublishesBeforeWaking; TestScenarios; the model's Submit
//	                                                  [WakepBeforePublish, TestSpinningModelCatchesBrokenVariants]
//	one Wakep starts at most one spinner             TestWakepStartsAtMostOneSpinner [WakepEveryIdleP];
//	                                                  TestExploreWakepOnce [TestExploreWakepOnceCatchesLoadAdd]
//	the last spinner to find work starts another     TestResetSpinningOfTheLastSpinnerWakesAnother; TestScenarios;
//	                                                  explorer last-spinner-wakes [NoWakeOnLastSpinner]
//	the drop re-checks after its decrement           TestDropSpinning; TestScenarios; explorer drop-vs-submit [DropWithoutRecheck]
//	work and no idle P sets needspinning (Wakep,     TestWakepWithNoIdlePSetsNeedSpinning; TestScenarios "the drop sets
//	  the drop), which ReleaseP and HandoffP answer    needspinning", "ReleaseP answers needspinning", "HandoffP answers
//	                                                   needspinning"; explorer needspinning, acquire-vs-drop,
//	                                                   handoff-vs-wakep [NoNeedSpinning, DropNoNeedSpinning,
//	                                                   HandoffNoNeedSpinning]
//	Wakep with no idle P: count back, then           TestScenarioWakepOrder; explorer respin-vs-wakep [NeedBeforeDec];
//	  needspinning                                     TLC NeedBeforeDec
//	HandoffP: work -> a non-spinning M; no spinner   TestHandoffP; the model's HandoffP
//	  and no idle P -> a spinner; else idle
//	the spinning rule 2*nmspinning < Procs-npidle    TestSpinningRule; the model's BecomeSpinning
//	a waiting handoff: the next StopM takes it       TestWakepWithNoIdleMLeavesAHandoff; the model's StopM
//	  without sleeping; NeedM is called
//	Config.Work is called without the lock           TestExploreWorkWithoutLock [TestExploreWorkWithoutLockCatchesWorkUnderLock]
//	CheckDead on every park, with (idle, total)      TestCheckDeadSeesEveryMPark; TestStopM
//	an M whose keep-alive runs out exits only if     TestScenarios "a keep-alive that runs out after a StartM popped
//	  still idle and more Ms than Ps are alive;        the M stays"; TestExploreKeepAlive [ExitIgnoresWake];
//	  a popped M keeps the P it was handed             TestNewRejectsBadConfig (KeepAlive without NeedM);
//	                                                  TLC SpinningKeepAlive (KeepAliveBound, WorkConserving
//	                                                  with exits), PConservation [ExitIgnoresWake]
//	after RetireP leaves Ms beyond the Ps, the       TestScenarios "an M parked while the Ps needed it
//	  untimed idle Ms park again, timed, and the        exits after a retire"; TestKeepAliveAfterRetire;
//	  surplus exit at the keep-alive's end              explorer retire-vs-wakep (TestExploreRetire)
//	                                                  [NeededMUntimed]
//	Shutdown wakes parked Ms with false, later       TestShutdown; the model's Shutdown
//	  StopMs return false, handoffs give their Ps
//	  back, Wakep starts nothing; idempotent
//	AcquireP takes the P made idle last, or none     TestAcquireP; TestReleaseP; linearizeSpinning
//	misuse panics naming the call                    the model's Misuse action; the PanicsWithValue assertions of sched_test.go
//	New rejects a bad Config                         TestNewRejectsBadConfig
//
// A zero Sched is not usable; call New. It has no Ps: no M of it ever gets
// one.
package spinning
