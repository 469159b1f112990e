// Package runnext is a P's runnext slot, the one-task LIFO in front of its
// local run queue, and the queue a P holds: that slot before an lfq.Ring.
//
// A task that a running task makes runnable (a spawn, a channel wakeup) goes
// in the slot and runs next, in the current time slice, so a producer and
// its consumer run back to back on one P while their data is still in its
// cache; the task the slot held before goes to the ring's tail. Thieves take
// the ring's older half first, and the runnext task only on their last pass
// over the victims and only after waiting the steal delay with the task in
// the slot, long enough that its P is really busy rather than about to run
// it.
//
// # Use
//
// A P's owner puts with PutNext (a task spawned by the running one: it runs
// next) or Put (the ring's tail), and gets with Get; other workers steal
// with StealHalf into a queue of their own. No call blocks or waits.
//
//	var global globalq.Queue[task]
//	var q runnext.Queue[task]         // the zero Queue is empty and ready
//	q.PutNextOverflow(t, &global)     // owner: t runs next; a full ring's half goes to global
//	next, inherit := q.Get()          // owner: the runnext task (same slice), else the ring's oldest
//	got := victim.StealHalf(&q, last) // any goroutine: half of victim's ring; its slot only if last
//
// Example runs a queue and a steal. PutNext(t, buf) and Put(t, buf) are the
// allocation-free forms: they return nil, or the overflow batch of
// lfq.OverflowLen tasks, which the caller must hand on.
//
// The zero Slot and the zero Queue are empty, with the default steal delay,
// and ready to use. The owner methods (Put and Take of a Slot; PutNext, Put,
// their Overflow forms, PutBatch, Get, Drain of a Queue; SetStealDelay of
// either) must be called by one goroutine at a time, the P's current M; any
// goroutine may call Steal,
// StealHalf, Empty and Len. StealHalf publishes into its destination as that
// queue's owner: dst must be a queue the caller owns. Every put of a nil task
// panics with a message naming the call, as do StealHalf into nil, into the
// victim itself, or into a queue whose ring holds more than lfq.Size/2 tasks.
// PutBatch refuses a nil anywhere in ts, having put nothing, as
// lfq.Ring.PutBatch does.
//
// Misuse of the owner rule is not detected in a normal build, beyond
// PutNext and Slot.Put panicking when they find the slot filled under them:
// two goroutines in owner methods at once can lose tasks, run one twice or
// leave the ring's indices inconsistent (every cell is atomic, so the race
// detector says nothing). Under the build tag schedkit_checked every owner
// method, and StealHalf for its destination, raises a flag for its whole run
// and panics, naming the call, if it finds the flag raised: two owners, or
// two thieves stealing into one queue, at once.
//
// Len reads the ring and the slot at two instants, so under concurrent
// steals it is a hint, like the runtime's runqlen; it is exact when no other
// goroutine uses the queue.
//
// Under the build tag schedmutant the package exports Mutations and
// SetMutation, which select a seeded fault (ThiefIgnoresDelay,
// DisplacedDropped, TakeWithoutCAS, EmptyMissesRunnext, ThiefNoRecheck,
// ThiefComparesPointer, GetTreatsOneAsEmpty, PublishBeforeTask,
// SeqBeforePut) for the
// kill matrix; in a normal build the faults compile away.
//
// # How it mirrors the runtime
//
// Each operation mirrors a function of the runtime's proc.go and an action
// of proofs/tla/Runnext.tla of the same name:
//
//	Slot.Put        runqput (next=true), the slot part      PutNext's steps
//	Slot.Take       runqget's runnext CAS                    Get's TakeLoad, GetCAS
//	Slot.Steal      runqgrab's stealRunNextG branch          StealHalf's slot steps
//	Queue.PutNext   runqput (next=true), runqputslow if full PutNext
//	Queue.Put       runqput (next=false)                     Put
//	Queue.PutBatch  runqputbatch                             (Put's publication, several tasks)
//	Queue.PutOverflow, PutNextOverflow: Put and PutNext, the batch to globrunqputbatch (dst.PutBatch)
//	Queue.Get       runqget                                  Get
//	Queue.StealHalf runqsteal + runqgrab (stealRunNextG)     StealHalf
//	Queue.Drain     runqdrain                                Drain
//	Queue.Empty     runqempty                                Empty
//	Queue.Len       runqlen (a hint)                         (Len3: lfq.Ring.Len inside the others)
//
// # The slot
//
// The slot is a version and a task cell. The version is odd while the slot
// holds a task and grows by one at every fill (the owner's put) and every
// take (the owner's or a thief's), so a version names one occupancy and
// never comes back (a uint64 does not wrap). Takes are a CAS of the version
// from odd to even; only the owner fills, storing the task in the cell
// before the CAS that publishes it.
//
// The steal delay is the thief's to wait, as runqgrab's usleep(3) is: the
// owner reads no clock, so a put and a take cost an atomic store and two
// CASes, as many locked instructions as an lfq put and get. A thief that
// finds a task notes its version and its task, sleeps the delay
// (atomicx.Sleep) and looks again, at the ring first; it takes the task
// only by a CAS from the version it waited for. So a thief never takes a task that has not sat in the slot, the same
// occupancy throughout, for the whole delay as that thief observed it: from
// its first look to its CAS. A task the owner took and put back (the same
// pointer) is a new version and costs a new wait, and so does a task put
// while the thief slept. A thief waits the whole delay from its own look
// however long the task sat before it looked: without a put time there is
// nothing else to go by, and the runtime's thief does the same.
//
// # Invariants
//
//   - A task leaves the slot exactly once: the owner's take and a thief's
//     steal are both a CAS of the version, and only the owner fills.
//   - The slot holds only the task put last; the task it displaces is
//     queued at the ring's tail, behind everything there (or, if the ring is
//     full, handed back with the ring's older half as one overflow batch).
//     No task is lost when displaced.
//   - A thief takes the runnext task only when the ring gives nothing: the
//     ring was empty, with no task on its way to it, at an instant while the
//     task sat in the slot. It re-reads the ring's length just before its
//     CAS, and the owner's move of a displaced task makes seq odd, which
//     thieves wait out.
//   - Empty never reports true spuriously: the queue (ring, slot, and a task
//     on its way from the slot to the ring) was empty at some instant during
//     the call. Neither does Get return nothing, nor StealHalf with
//     stealNext set, nor Slot.Steal (of the slot alone).
//
// # seq, and how this differs from the runtime
//
// runqempty re-reads runqtail to tell whether the owner added work while it
// read the ring and the slot; lfq does not export its tail, so Queue keeps
// seq, the owner's count of publications into the ring: +2 after each Put,
// PutBatch and steal into the queue, and odd while PutNext moves a displaced
// task from the slot to the ring and while Drain empties the queue. Empty
// reads seq, the ring's length, the slot, the length again and seq again,
// and answers true only if seq stood still and even.
//
// The odd phases close two windows the runtime leaves open. Between
// runqput's CAS of runnext and its store of the ring's tail, the displaced
// task is in neither place: a thief that took the new runnext task then
// (possible once the owner stalls for the whole steal delay, or at once with
// no delay) would make runqempty report an empty queue that is not. And the
// runtime's thief that finds the ring empty sleeps and then CASes runnext
// without looking at the ring again. Here thieves leave the slot alone while
// seq is odd and re-read the ring before their CAS, so every operation but
// Len is linearizable; the tests check that with porcupine, under the race
// detector and under every interleaving the explorer runs. The price is one
// atomic add on each Put and two on each PutNext that displaces.
//
// A reader that finds seq odd waits for the owner's move (a few of the
// owner's own atomic operations) by sleeping 1ns: in a real build a few
// hundred nanoseconds; on the explorer's virtual clock it lets the owner run
// first.
//
// In a real build atomicx.Sleep is time.Sleep, whose timers are coarse: on
// the 2-core development machine, under load, a 3µs sleep took about 0.4ms.
// A thief that finds a runnext task therefore waits far longer than the
// delay; the runtime's usleep(3) is a nanosleep and coarse as well.
//
// # Reachability
//
// The task cell keeps the task of the slot's last fill after it is taken,
// until the owner's next put: clearing it on every take would cost the
// owner a second atomic store per Get, and a thief cannot clear it (only the
// owner writes the cell). So a slot keeps at most one task that has left it
// reachable. Drain clears the cell, as lfq's Drain clears the ring's slots;
// the ring keeps at most lfq.Size taken tasks reachable (see lfq).
//
// # Where each property is checked
//
// Every property above, and each one a method's doc states, and the tests
// that fail when it breaks (TLA+ invariants in proofs/tla/Runnext.tla):
//
//	a task leaves the slot once       TestExploreRunnext (take-vs-steal, take-vs-two-thieves,
//	                                  aba-reput-as-thief-wakes), TestFixedScenarios (a thief's CAS
//	                                  between the owner's load and its take), TestStressExactlyOnce;
//	                                  NeverTakenAndStolen, Conservation
//	version odd while full, +1 at     TestSlotVersionCountsFillsAndTakes
//	every fill and take
//	a fill stores its task before it  TestExploreSlot (Slot.Put, Take and Steal alone: put-vs-steal, fill-empty-vs-steal,
//	publishes it; Slot alone: every   two thieves, thief-is-victim; conservation and porcupine), TestFixedScenarios (a
//	task once, Put a take then a fill thief as Slot.Put stores the task), TestSlotModelRefutes
//	LIFO; displaced to the ring's     TestSlotPutIsLIFOAndHandsBackTheDisplaced, TestPutNextSendsTheDisplacedToTheTail,
//	tail; overflow batch              TestPutNextIntoAFullRingHandsBackTheOverflow, TestRunnextModel; LIFOSlot
//	puts return nil unless they       TestPutsReturnNilUnlessTheySpilled, TestRunnextModel (broken variant
//	spilled, a held buffer panics;    bugReturnsBuffer), TestPutOverflowsHandTheBatchToTheGlobalQueue
//	the Overflow forms hand it on
//	the steal delay as the thief      TestSlotStealWaitsTheDelayFromItsOwnLook, TestSlotThiefWaitsForAReplacement,
//	observes it (its own look to its  TestSlotThiefWaitsAgainForTheSamePointerPutBack, TestStealHalfWaitsForAReplacement,
//	CAS, one occupancy; ABA)          TestStealHalfWaitsAgainForTheSamePointerPutBack, TestRunnextModel (exact waits),
//	                                  TestExploreRunnext (every slot steal: replace-during-wait, aba-*), TestFixedScenarios;
//	                                  StealAfterDelay
//	the owner reads no clock          TestOwnerReadsNoClock
//	runnext only when the ring gives  TestStealHalfTakesTheRingFirst, TestStealHalfWaitsThenFindsTheDisplaced,
//	nothing                           TestExploreRunnext (no-delay-displace-vs-steal-and-empty); RunnextOnlyWhenRingClear
//	Empty never true spuriously       TestStressEmptyNeverSpurious, TestExploreRunnext (empty-vs-*), TestFixedScenarios
//	                                  (Empty while the owner moves the runnext task); EmptyOnlyWhenEmpty
//	StealHalf(stealNext) nil only     TestExploreRunnext (steal-nothing-vs-putnext-get), TestZeroQueueIsEmptyAndUsable,
//	when empty                        TestStealHalfOwnerWinsTheRace; StealNothingOnlyWhenEmpty
//	Get nothing only when empty       TestRunnextModel, TestFixedScenarios (Get finds the ring's one task),
//	                                  TestExploreRunnext (linearizability); GetNothingOnlyWhenEmpty
//	Slot.Steal nil only when empty    TestZeroSlotIsEmptyAndUsable, TestSlotOwnerTakesWhileThiefWaits
//	every seq bump Empty relies on    TestSeqCountsEveryPublication, TestSeqIsOddWhileATaskMoves
//	Put's seq bump after its put      TestExploreEmptyAcrossPut (bound 3, MustReach Empty spanning the Put
//	                                  and a steal), TestFixedScenarios (Empty across a Put, a Get, ...)
//	linearizable but Len              TestLinearizable, TestExploreRunnext
//	Len exact when alone              TestRunnextModel, TestEmptyAndLen
//	misuse panics naming the call     TestNilTasksPanicNamingTheCall, TestStealHalfMisusePanics, TestSetStealDelay,
//	                                  TestSlotPutNilPanicsNamingTheCall, TestExploreTwoOwnersPanic
//	PutBatch: a nil anywhere, nothing TestPutBatchWithANilPanicsHavingPutNothing
//	put
//	schedkit_checked: one owner       TestCheckedBuildCatchesTwoOwners, TestCheckedBuildCatchesTwoSlotOwners,
//	                                  TestCheckedBuildCatchesTwoThievesIntoOneDestination,
//	                                  TestCheckedBuildAllowsOneOwnerAndThieves (-tags schedkit_checked,schedcheck)
//	reachability: one taken task per  TestSlotKeepsAtMostOneTakenTaskReachable, TestQueueDrainLeavesNothingReachable,
//	slot; nothing after Drain         TestQueueGetReleasesTheRunnextTaskAtTheNextPutNext
//	zero values ready; no allocation  TestZeroSlotIsEmptyAndUsable, TestZeroQueueIsEmptyAndUsable,
//	on the owner's and thief's paths  TestOwnerHotPathsDoNotAllocate, TestStealHalfDoesNotAllocate
//
// Each checker's broken variants: TestRunnextModelCatchesBrokenQueues,
// TestStressCheckerCatchesBrokenQueues, TestLinearizeCatchesBrokenQueues,
// the reachability tests' broken slot and Drain, TestOwnerReadsNoClock's
// counted wait, and the seeded mutants of TestKillMatrix (-tags
// schedcheck,schedmutant), which TestExploreRunnext, TestExploreSlot,
// TestRunnextModel and TestFixedScenarios kill deterministically.
package runnext
