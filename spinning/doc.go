// Package spinning is the accounting of spinning Ms and the parking and
// unparking of Ms, with no lost wakeup: while work is queued and a P is
// idle, some M is spinning (looking for it) or is about to be started, so
// the work is eventually taken.
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
//	M.AcquireP          exitsyscall's pidleget     (not modelled) take an idle P
//	M.HandoffP          handoffp (spinning part)   (not modelled) give the P to another M, or make it idle
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
// calls s.Wakep().
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
//     HandoffP hands the P to a spinner.
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
// The rule that limits spinners reads nmspinning and npidle without the
// lock and may let more Ms spin than it allows when several decide at once,
// as in the runtime: it is a heuristic that bounds wasted CPU, not a
// correctness condition, and no invariant above depends on it.
//
// # Verification
//
// Unit tests; a rapid state machine against a sequential model (counters,
// stacks of idle Ps and Ms, the waiting handoffs, a queue count); the fuzz
// target FuzzSpinning; a stress test with real goroutines as Ms over lfq
// rings and a global queue, which runs every task exactly once and ends
// every round with every M parked and nothing queued; the explorer on the
// real code (lost wakeups show as a deadlock: every thread parked while work
// waits); TLC on Spinning.tla, with the liveness property that work and an
// idle P do not coexist forever; and the kill matrix over the seeded
// mutations of mutation.go.
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
// A zero Sched is not usable; call New.
package spinning
