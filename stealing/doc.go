// Package stealing decides who steals from whom: the order in which a thief
// visits the other Ps, and the passes that take work from them. It is the
// part of the runtime's findRunnable that runs when a P's own queue and the
// global queue are empty: stealWork's four passes over the Ps in random
// order, each trying runqsteal on every other P that is not idle.
//
// The package works over any Queue (a P's local run queue as a thief sees
// it: StealHalf into a queue of the thief's own), so the executor and the
// tests share it: *runnext.Queue[T] is a Queue as it is, and tests drive
// fake Ps. Randomness comes from the caller (a func() uint32), so tests are
// deterministic.
//
// Each exported operation mirrors a runtime function of proc.go and, where
// it moves shared state, an action of proofs/tla/Steal.tla of the same name:
//
//	Go                       runtime                  Steal.tla
//	Order.Reset, Coprimes    randomOrder.reset        the operator Coprimes(n)
//	Order.Start              randomOrder.start        Start: a start P and a coprime stride
//	Enum.Done/Next/Position  randomEnum               folded into Visit (Adv moves pos by inc)
//	IdleMask.Read            pMask.read               the read of idle[v] in the step Visit
//	IdleMask.Set             pMask.set (pidleput)     Set: a P with an empty queue goes idle
//	IdleMask.Clear           pMask.clear (pidleget)   Clear: an idle P is taken again
//	Stealer.Pass             stealWork's inner loop   Pass: Visit each P, StealHalf from the others
//	Stealer.Steal            stealWork (its stealing) Steal: StealTries passes, runnext on the last
//	Queue.StealHalf          runqsteal + runqgrab     StealHalf: one step (the queue's own spec
//	                                                  is Runnext.tla and Ring.tla)
//
// stealWork's timer stealing, its GC check and its spinning bookkeeping are
// not here: timers and GC do not exist in schedkit, and spinning is the
// spinning package's.
//
// # Invariants
//
//   - Order: for every P count n in 1..MaxProcs and every r, the Enum that
//     Start(r) returns visits n Ps, each exactly once: its stride is coprime
//     with n. Every start and every coprime stride is reachable from some r.
//   - One pass visits each other P at most once, never the thief's own P,
//     and skips a P only if the idle mask said it was idle when the pass
//     came to it; so a pass that returns nil tried StealHalf on every other
//     P that was not idle at its turn.
//   - A thief takes from one victim per Steal: at most half of the victim's
//     ring rounded up (StealHalf's bound), plus, on the last pass only and
//     only when the ring gave nothing, the victim's runnext task.
//   - Nothing is lost or duplicated: Steal and Pass move tasks only through
//     the queues' own StealHalf, which takes each task exactly once, and
//     they return the one task it handed back. (As in the runtime, the rest
//     of a stolen half is in neither queue between the victim's CAS and the
//     thief's publishing store of its own tail: a third P stealing from the
//     thief in that window finds its ring empty. linearize_test.go's spec
//     says so.)
//
// A Stealer is read-only after New: any number of thieves may run Steal and
// Pass at once, each for its own P. Only P self's owner may steal into
// ps[self] (Queue.StealHalf's rule for its destination).
//
// # Verification
//
// Each rung of the ladder in DESIGN.md has its file: order_test.go and
// stealer_test.go (units; the order is a permutation for every P count in
// 1..256, every start and every coprime stride), model_test.go (a rapid
// state machine of fake Ps against a sequential model of the passes),
// ../fuzz/stealing_fuzz_test.go (FuzzStealing), stress_test.go (race
// detector, real runnext queues, exactly-once counting), explore_test.go
// (every interleaving of two thieves and an owner over 3 Ps, under -tags
// schedcheck), linearize_test.go (porcupine), ../proofs/tla/Steal.tla (TLC),
// and killmatrix_test.go: mutation.go seeds four faults into this code as
// branches on a constant, dead in a normal build and selectable under
// -tags schedmutant, and every one must be caught by two checkers.
package stealing
