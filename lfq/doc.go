// Package lfq is a P's local run queue: a 256-slot lock-free ring with one
// producer (the owner) and many consumers (the owner and thieves).
//
// # Use
//
// One goroutine, the owner, puts and gets; any goroutine may steal half of
// the ring into a ring of its own. No call blocks or waits: Get on an empty
// ring returns nil, so a ring is not a channel.
//
//	var global globalq.Queue[task]  // where a full ring's older half goes
//	var r lfq.Ring[task]            // the zero Ring is empty and ready
//	r.PutOverflow(t, &global)       // owner: append; a full ring sends 129 to global
//	next := r.Get()                 // owner: the oldest task, or nil
//	got := victim.StealHalf(&r)     // any goroutine: half of victim into r, one to run
//
// Example runs these lines. Put(t, buf) is the allocation-free put the
// executor uses: it returns nil, or the overflow batch, which the caller
// must hand on (ExampleRing_Put).
//
// # Contracts
//
// A zero Ring is empty and ready to use. Put, PutOverflow, PutBatch, Get and Drain, and
// StealHalf with the ring as destination, are owner calls: one goroutine at
// a time (the P's current M). Any goroutine may call Len, and StealHalf
// with the ring as victim. A nil item panics, naming the call (Put, and
// PutBatch before it puts anything); so do StealHalf into itself, into nil,
// or into a ring holding more than Size/2 items.
//
// In a normal build, owner calls that overlap are not detected, and every
// cell being atomic, the race detector does not see them either: two Puts
// at once can write the same slot and publish one item (the other is lost);
// a tail stored out of order makes items come out twice, or leaves
// tail-head above Size, which thieves take for an inconsistent read forever.
// Two thieves stealing into one ring at once lose items the same way.
//
// The build tag schedkit_checked (go test -tags schedkit_checked ./lfq/)
// turns these into panics: each ring gets an owner guard, an atomic word
// that owner calls set on entry and clear on return, and StealHalf enters
// its destination's; a call that finds the guard held panics, naming itself
// and the call in progress. It costs two atomic operations per call and is
// for tests and debugging.
//
// # How it mirrors the runtime
//
// The ring is the runtime's p.runq with p.runqhead and p.runqtail
// (runtime2.go), and each operation mirrors a function of proc.go and an
// action of proofs/tla/Ring.tla of the same name:
//
//	Ring.Put        runqput (next=false)  Put      owner: append at the tail
//	  (when full)   runqputslow           Overflow owner: half of the ring + the new item leave as one batch
//	Ring.PutOverflow  runqput, runqputslow, globrunqputbatch: Put, and the batch to dst.PutBatch
//	Ring.PutBatch   runqputbatch          PutBatch owner: append a prefix, one publishing store
//	Ring.Get        runqget (ring part)   Get      owner: take from the head (FIFO)
//	Ring.Drain      runqdrain             Drain    owner: take everything, for shutdown
//	Ring.StealHalf  runqgrab + runqsteal  StealHalf any goroutine: take half into its own ring
//	Ring.Len        (runqempty, counted)  Len      anyone: tail, head, tail again
//
// The algorithm is written once, generic over the slot array (ring.go);
// Ring is it with Size slots, and the tests also run it with 2, 4 and 8
// slots, where a few steps fill, wrap and overflow a ring.
//
// # Invariants
//
// head and tail are free-running uint32 indices; slot i lives at i%Size and
// their difference survives wraparound.
//
//   - Only the owner writes slots and stores tail. Every consumer (the owner's
//     Get and Drain, thieves' StealHalf) takes items only by a CAS that moves
//     head forward, so an item leaves the ring exactly once.
//   - 0 <= tail-head <= Size whenever the two are read consistently. A thief
//     that reads head and then tail can see a difference over Size (the owner
//     took and put in between); it retries rather than steal too much, before
//     it copies anything into its own ring, whose free half would not hold it.
//   - The owner writes a slot before it stores tail, so a consumer that loads
//     tail and then the slot sees the item (all cells are sequentially
//     consistent atomics, stronger than the runtime's StoreRel/LoadAcq pair).
//   - A consumer copies slots before its CAS on head. If the CAS succeeds no
//     one consumed those indices in between, and the owner cannot have
//     overwritten them: it writes index i+Size only after head passed i.
//   - Items leave in FIFO order from the head: Get, Drain, StealHalf and the
//     overflow batch each take a run of the oldest items.
//   - A take returns nothing (Get, StealHalf, Drain) or Len returns 0 only if
//     the ring was empty at some instant during the call.
//
// ABA: a consumer's CAS on head succeeds when head holds the value it
// loaded, so its copies are valid only if head did not move by a multiple
// of 2^32 in between: a thief would have to stall between its head load and
// its CAS while the ring consumed 2^32 items (seconds of work at the very
// least). The uint32 width is what makes this safe, as in the runtime;
// Ring_mutant_IndexWrapABA.cfg checks the same algorithm with indices
// modulo 4 and TLC finds the double take.
//
// Slots are atomic pointers, so a thief that reads a slot the owner is
// rewriting (and then fails its CAS) is not a data race for the race
// detector.
//
// What stays reachable: Drain clears the slots it empties. Get, StealHalf
// and the overflow batch do not: clearing a slot in Get is an atomic store
// on the owner's hot path (put+get went from 9.3 to 12.3 cpu-ns, +33%, when
// measured), and a thief cannot clear a slot at all, since only the owner
// writes slots. So a consumed item stays referenced by its slot until the
// owner's next put into that slot: a ring keeps at most Size consumed items
// reachable, and Size puts release all of them.
//
// # Verification
//
// Each rung of the ladder in docs/DESIGN.md has its file: ring_test.go (units),
// model_test.go (a rapid state machine against a slice), ../fuzz
// (FuzzRing), stress_test.go (race detector, exactly-once counting, under a
// watchdog), explore_test.go (every interleaving within preemption bound 2,
// 3 in long mode for some, under -tags schedcheck), scenario_test.go (fixed
// interleavings driven by an atomicx hook), linearize_test.go (porcupine),
// ../proofs/tla/Ring.tla (TLC), and killmatrix_test.go: mutation.go seeds
// nine faults into this code as branches on a constant, dead in a normal
// build and selectable under -tags schedmutant, and every one must be
// caught by two deterministic checkers (explorer, model, scenarios).
//
// Each property stated here or in a doc comment, and the tests that fail
// when it breaks:
//
//	Put appends; full: older half + new item, OverflowLen    TestOverflowHandsBackOlderHalfPlusNewItem, TestRingModel,
//	                                                           scenario overflow-hands-back-..., explorer *overflow*
//	Put(nil), PutBatch with a nil anywhere panic, put nothing TestPutNilPanicsNamingTheCall, TestPutBatchNilPanicsAndPutsNothing,
//	                                                           TestRingModel (PutBatchNil)
//	overflow into a reused buffer does not allocate           TestOverflowReusesTheBufferWithoutAllocating, TestPutGetDoNotAllocate
//	Put returns nil unless it spilled, then the batch alone;  TestPutReturnsNilUnlessItSpilled, TestPutRefusesABufferHoldingItems,
//	  a buffer holding items panics                            TestRingModel (its broken variant returnsBufferRing)
//	PutOverflow hands the batch to dst, allocates only then   TestPutOverflowHandsTheBatchToTheDestination, TestPutOverflowIntoAGlobalQueue
//	PutBatch puts the prefix that fits, keeps the rest        TestPutBatchPutsWhatFitsAndKeepsTheRest, TestRingModel,
//	                                                           explorer tiny-putbatch-vs-steal
//	PutBatch publishes with one tail store                    TestPutBatchPublishesWithOneTailStore
//	PutBatch counts the room once (lower bound on n)          TestLinearizable (linStep's PutBatch bounds)
//	Get is FIFO, nil only if empty at an instant of the call  TestPutGetIsFIFO, TestRingModel, scenarios get-takes-the-last-item
//	                                                           and get-retries-after-losing-to-a-thief, explorer (linearizability),
//	                                                           Ring.tla NothingOnlyWhenEmpty
//	Drain takes all, oldest first, appends to dst             TestDrainTakesEverythingInOrder, TestRingModel
//	Drain leaves no slot referencing a taken item             TestDrainLeavesNoSlotReferencingAnItem
//	StealHalf takes the older half rounded up, returns the    TestStealHalfTakesOlderHalfRoundedUp, TestStealHalfAppendsAfterThiefsOwnItems,
//	  newest of it, publishes the rest after dst's items       scenario steal-takes-half-rounded-up, TestRingModel
//	StealHalf takes at most half of the ring as it stands      TestLinearizable and explorer (linStep's StealHalf bounds),
//	  and at least half of what it saw, nothing only if empty  Ring.tla LengthBounds and NothingOnlyWhenEmpty
//	StealHalf misuse panics                                   TestStealHalfMisusePanics, TestRingModel (StealHalfMisuse)
//	Len is the length at an instant of the call               scenario len-counts-every-item, explorer len-vs-owner (linearizability)
//	every item leaves exactly once (claims by CAS)            explorer (conservation), TestStressExactlyOnce, scenario
//	                                                           steal-claims-only-if-head-did-not-move, Ring.tla Conservation
//	a slot is written before tail publishes it                scenario put-publishes-only-written-slots, explorer, Ring.tla Conservation
//	an inconsistent head/tail read retries and copies nothing scenario inconsistent-read-writes-nothing-past-the-free-half,
//	  past dst's free half                                     explorer tiny-inconsistent-read-into-half-full, Ring.tla LengthBounds
//	FIFO from the head for every consumer                     explorer (FIFO of Gets and of each steal), TestRingModel, Ring.tla OwnerFIFO
//	indices survive the uint32 wraparound                     TestIndicesWrapAround, explorer wraparound and tiny-wraparound, TestRingModel
//	ABA safety rests on the uint32 width                      Ring_mutant_IndexWrapABA.cfg (TLC must reject)
//	a zero Ring is empty and usable                           TestZeroRingIsEmptyAndUsable
//	consumed items reachable until their slot is reused,      TestConsumedItemsStayReachableUntilTheirSlotIsReused
//	  Size at most
//	overlapping owner calls: silent loss in a normal build    TestTwoOwnersSilentlyLoseAnItem
//	  and a panic naming both under schedkit_checked           TestCheckedOwnerCallsPanicWhileAnotherRuns, TestCheckedTwoThievesIntoOneRingPanic,
//	                                                           TestCheckedExploredOverlapsPanic
//
// Every checker has a broken variant it catches: the seeded mutations in
// the kill matrix, the broken rings of model_test.go and linearize_test.go,
// and the broken fakes beside the weak-pointer and tail-store counts.
package lfq
