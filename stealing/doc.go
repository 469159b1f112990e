// Package stealing decides who steals from whom: the order in which a thief
// visits the other Ps, and the passes that take work from them. It is the
// part of the runtime's findRunnable that runs when a P's own queue and the
// global queue are empty: stealWork's four passes over the Ps in random
// order, each trying runqsteal on every other P that is not idle.
//
// # Use
//
// An idle worker calls Steal with its P's index: it returns a task to run,
// having moved more into the thief's own queue, or nil when every pass found
// nothing. The queues are the Ps' own (a *runnext.Queue is one), and the
// idle mask says which Ps to skip.
//
//	idle, _ := stealing.NewIdleMask(len(ps))
//	s, _ := stealing.New(ps, idle) // ps: one Queue per P
//	if t := s.Steal(self, rand); t != nil { // rand: any func() uint32
//		run(t)
//	}
//
// Example steals from a busy P, then a runnext task on the last pass.
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
//	Queue.StealHalf          runqsteal + runqgrab     StealHalf: StealLoad, StealCAS, StealPublish
//	                                                  (the queue's own spec is Runnext.tla and Ring.tla)
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
// What a Steal that returns nil means, and no more: its last pass (with
// stealNext) visited every other P once and found each, at the instant it
// looked, idle (so empty: only a P whose queue is empty goes idle) or
// empty, ring and runnext slot. A P looked at early in the pass may get
// work before the pass ends, and the rest of a half in flight between a
// victim and another thief (after the victim's CAS, before that thief's
// tail store) is in no ring, so a round can return nil while work exists,
// as stealWork can. Steal.tla states each part as an invariant
// (PassComplete, VisitsEachOnce, NeverFromSelf, RunnextPassMade,
// RunnextOnlyOnLastPass, NoWorkMissed, StealNilOnlyWhenEmpty).
//
// # Misuse
//
// A thief number out of range, a nil random source, and IdleMask's Set or
// Clear on a nil mask or a P out of range panic naming the call; a bad P
// count or a mask of another size is an error of the constructor. What cannot be checked cheaply is not: Order.Reset while
// thieves use the Order is a data race; a goroutine other than P self's
// owner stealing into ps[self], or two thieves stealing into one P at once,
// write the same slots of its ring and lose or duplicate tasks (runnext's
// checked build, -tags schedkit_checked, panics on it instead); a thief
// whose own ring holds more than half a ring makes runnext's StealHalf
// panic naming the call; setting a
// P idle while its queue holds work hides that work from every thief until
// Clear.
//
// # Properties and the tests that fail when they break
//
//	the order is a permutation for every P count; every start and coprime stride is reachable
//	    TestOrderIsAPermutationForEveryPCount, TestOrderStartWrapsAroundTheStrides,
//	    TestScenarios/strides-of-six, TestPermutationCheckerCatchesAStrideThatIsNotCoprime
//	a pass visits each other P once, never self, skipping only Ps idle at its turn
//	    TestStealingModel, TestPassFollowsTheOrder, TestIdleVictimsAreSkipped,
//	    TestExploreStealing (pass shapes), TestStressExactlyOnce (pass shapes),
//	    TestScenarios/pass-visits-every-P, never-from-self, busy-P-is-visited
//	StealTries passes, stealNext on the last only, one random number per pass
//	    TestRunnextOnlyOnTheLastPass, TestStealReturnsNilWhenEveryoneIsEmpty,
//	    TestStealingModel, TestScenarios/runnext-on-the-last-pass
//	at most half of one victim's ring, rounded up, or its runnext task
//	    TestStealTakesHalfOfTheOnlyBusyVictim, TestExploreStealing,
//	    TestExploreThievesStealFromEachOther
//	a Steal returns nil only as described above
//	    TestExploreStealing (nil only when empty), TestExploreThievesStealFromEachOther,
//	    TestBrokenStealersFailExploration (a victim whose steal rounds down)
//	nothing lost or duplicated, thieves at once, thieves that are victims
//	    TestStressExactlyOnce, TestExploreStealing, TestExploreThievesStealFromEachOther
//	the idle mask: concurrent Set and Clear of bits of one word lose nothing
//	    TestExploreIdleMask, TestScenarios/two-sets-in-one-word
//	the idle mask: Set twice is once, a nil mask reads not idle, bad input panics
//	    TestIdleMask, TestIdleMaskBadInput
//	New copies the Ps and checks the counts; misuse panics naming the call
//	    TestNewCopiesThePs, TestNewRejectsBadPCounts, TestNewRejectsAMaskOfAnotherSize,
//	    TestStealAndPassPanicOnABadThief, TestOrderResetBadCounts,
//	    TestOrderStartWithoutResetPanics, TestOrderCoprimesIsACopy
//
// # Verification
//
// Each rung of the ladder in docs/DESIGN.md has its file: order_test.go and
// stealer_test.go (units; the order is a permutation for every P count in
// 1..256, every start and every coprime stride), scenarios_test.go (fixed
// scenarios, one per seeded mutation's shape), model_test.go (a rapid
// state machine of fake Ps against a sequential model of the passes),
// ../fuzz/stealing_fuzz_test.go (FuzzStealing), stress_test.go (race
// detector, real runnext queues, exactly-once counting, a watchdog per
// run), explore_test.go (every interleaving of two thieves and an owner
// over 3 Ps, of two thieves that are each other's victims, and of
// concurrent idle-mask updates, under -tags schedcheck; some at bound 3 in
// long mode), linearize_test.go (porcupine), ../proofs/tla/Steal.tla (TLC),
// and killmatrix_test.go: mutation.go seeds seven faults into this code as
// branches on a constant, dead in a normal build and selectable under
// -tags schedmutant, and every one must be caught by two of the checkers
// whose verdict does not depend on timing (explorer, model, scenarios).
package stealing
