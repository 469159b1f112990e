// Package globalq is the scheduler-wide run queue: the runtime's sched.runq
// with sched.lock, where Ps put the overflow of their rings and from which
// idle Ps take batches.
//
// # Use
//
// Any goroutine may put and get; the lock is held only inside a call, and a
// Get from an empty queue costs one atomic load and no lock.
//
//	var global globalq.Queue[task]        // the zero Queue is empty and ready
//	global.Put(t)                         // a submit from outside the Ps
//	ring.PutOverflow(t, &global)          // a P's full lfq ring hands over half, one lock
//	first, rest := global.GetBatch(n, procs, buf[:0]) // an idle P's share: run first, queue rest
//	if globalq.FairnessTick(tick) {       // every 61st schedule tick, before the P's own queue
//		t = global.Get()
//	}
//
// Example runs a P's overflow and an idle P's batch.
//
// # How it mirrors the runtime
//
// A Queue is an unbounded FIFO of *T under one lock (an atomicx.Mutex, a
// scheduling point of the explorer under -tags schedcheck) with a length
// cell that any goroutine reads without the lock. Each exported operation
// mirrors a function of the runtime's proc.go and an action of
// proofs/tla/GlobalQ.tla of the same name:
//
//	Queue.Put       globrunqput                   Put       append one item at the tail
//	Queue.PutBatch  globrunqputbatch              PutBatch  append a batch (lfq's overflow, runqputslow) in one lock
//	Queue.Get       globrunqget                   Get       take the oldest item (the fairness check below)
//	Queue.GetBatch  globrunqgetbatch              GetBatch  take min(requested, len, len/procs+1) of the oldest:
//	                                                        the first to run, the rest for the P's ring
//	Queue.Len       sched.runq.size               (glen)    read the length cell, no lock
//	Queue.Empty     sched.runq.empty()            (glen)    the same, compared with 0 (Get's and GetBatch's fast path)
//	FairnessTick    findRunnable's schedtick%61   -         every FairnessPeriod-th tick a P calls Get first
//
// In GlobalQ.tla each of Put, PutBatch, Get and GetBatch is the disjunction
// of its steps (a lock step that also does the work, the store of the
// length, the unlock); Len and Empty are reads of the variable glen, and
// Get's and GetBatch's lock-free empty check are steps of their own
// (GetCheck, GetBatchCheck). proofs/tla/README.md has the table of steps.
// The runtime's globrunqputhead (used when a P is destroyed) has no
// counterpart: the executor's SetProcs moves a removed P's tasks with
// PutBatch, at the tail (executor/resize.go's destroy).
//
// # Invariants
//
//   - The items, their order and the storage are touched only while the lock
//     is held; items leave in the order they came in (FIFO), and a batch is a
//     run of the oldest items whose first one is the one to run.
//   - The length cell is written only while the lock is held, after the
//     critical section's change, so whenever the lock is free it equals the
//     number of items, and each change is published by one store. A Len,
//     Empty or fast-path read (one atomic load) therefore sees the length
//     after some prefix of the critical sections: each operation takes
//     effect at its store of the cell, in lock order, so Len is
//     linearizable with the rest (a Get that returns nil on the fast path
//     takes effect at its load).
//   - A batch holds n = min(requested, len, len/procs + 1) items, len being
//     the length under the lock; so 1 <= n <= requested, and the first P to
//     ask leaves at least len - len/procs - 1 for the others.
//   - Every item put is taken exactly once (no loss, no duplicate); a slot is
//     cleared when its item is taken, so the queue never keeps a taken item
//     reachable.
//
// # Memory
//
// Storage is a linked list of fixed chunks of ChunkLen (254) pointers, 2 KiB
// each on 64-bit with the allocator's header: 8.07 bytes per queued item at
// a million items, one 2 KiB chunk for a queue of a few. A chunk is
// allocated only when the tail chunk is full and the cache of empty chunks
// is empty; a chunk emptied by a Get goes back to that cache, which holds at
// most CachedChunks (4), the rest going to the garbage collector. So a queue
// that has drained holds at most CachedChunks chunks however long it was,
// and a queue that stays within 763 items (3*ChunkLen+1, never more than
// CachedChunks chunks at once) allocates nothing once it has reached its
// peak (GetBatch's rest aside, which grows only when the caller's slice has
// too little capacity). The tests measure both (TestPutGetDoNotAllocate,
// TestBatchesDoNotAllocate, TestMemoryReturnedAfterDrain, TestBytesPerItem).
//
// # Misuse
//
// A zero Queue is empty and ready to use. Nil items (Put, or any item of a
// PutBatch, which then puts none of them) and a non-positive requested
// count or procs are misuse on a hot path and panic with a message that
// names the call. Every operation may be called by any goroutine, so there
// is no owner to check. A Queue must not be copied after first use: the
// copy would share the original's chunks, and items put into one would be
// lost to or taken twice through the other; go vet's copylocks check
// reports such a copy (the lock holds a sync.Mutex).
//
// # Properties and the tests that fail when they break
//
//	FIFO per item; a batch is a run of the oldest, the oldest to run
//	    TestPutGetIsFIFOAcrossChunks, TestGetBatchSize, TestGlobalQModel,
//	    TestExploreGlobalQ (linearizability), TestScenarios/putbatch-keeps-order,
//	    TestScenarios/getbatch-runs-oldest; GlobalQ.tla FIFO
//	batch size n = min(requested, len, len/procs + 1)
//	    TestGetBatchSize, TestGlobalQModel, TestScenarios/batch-share-of-three;
//	    GlobalQ.tla BatchBounds
//	Len and Empty: one load, linearizable; the cell stored under the lock
//	    TestExploreGlobalQ (Len and Empty in every history),
//	    TestScenarios/two-puts-then-len; GlobalQ.tla LenCell
//	Get and GetBatch return nothing only when the queue was empty
//	    TestScenarios/take-the-only-item, TestGlobalQModel, TestExploreGlobalQ;
//	    GlobalQ.tla NilOnlyWhenEmpty
//	every item put is taken exactly once
//	    TestStressExactlyOnce, TestGlobalQModel, TestExploreGlobalQ; GlobalQ.tla Conservation
//	a taken item is not kept reachable
//	    TestScenarios/taken-items-unreachable (weak pointers after GC),
//	    CheckInvariants in TestGlobalQModel and TestExploreGlobalQ
//	an empty batch, and Get, GetBatch, Len, Empty of an empty queue, take no lock
//	    TestEmptyPathsTakeNoLock (-tags schedcheck)
//	nil items and bad counts panic naming the call; a PutBatch with a nil puts nothing
//	    TestNilItemsPanicNamingTheCall, TestPutBatchWithANilAnywherePutsNothing,
//	    TestGetBatchMisusePanicsNamingTheCall, TestGlobalQModel (PutNil, PutBatchNil)
//	PutBatch leaves the caller's slice alone and keeps none of it
//	    TestPutBatchAppendsInOrderInOneGo, TestPutBatchCallerMayReuseTheSlice
//	GetBatch appends to rest, allocating nothing when it has room; an empty
//	queue leaves rest as it was
//	    TestGetBatchAppendsWithoutAllocatingWhenRestHasRoom, TestZeroQueueIsEmptyAndUsable
//	memory: a chunk is 2 KiB on 64-bit, the cache bound, no allocation within 763 items
//	    TestMemoryReturnedAfterDrain, TestNoAllocationWithin763Items,
//	    TestPutGetDoNotAllocate, TestBatchesDoNotAllocate, TestBytesPerItem
//	FairnessTick: every 61st tick, tick 0 and the wrap included
//	    TestFairnessTick
//
// # The injection buffer
//
// Inject is a second concept of the package, in front of the Queue: a
// lock-free ring of InjectCap (512) values that any goroutine puts into
// without a lock and that one consumer at a time drains in batches
// (TryDrain claims the role with one CAS, and returns at once if another
// goroutine holds it). It is built for the executor's outside submits
// (issue 25), which do not use it yet: a submitter would write a func and a
// time stamp, and the M that drains them make the task records from its own
// P's free list and append them to the Queue in one PutBatch, so the
// Queue's contract (FIFO, batched get, the fairness check) holds from there. It is Vyukov's bounded MPMC ring with
// its consumers serialized: a producer claims positions with a CAS of the
// tail (one position for Put, a run for PutBatch) and publishes each slot
// with one store of its sequence word, which the consumer sets for the next
// lap once it has taken the value. The runtime has no such buffer (a
// goroutine is always made on a P); its operations stand for
// globrunqput/globrunqputbatch from outside any P and for the take of
// globrunqgetbatch, and proofs/tla/Inject.tla models them with the actions
// of the same names (Put, PutBatch's claim and its publications, TryDrain).
//
//   - A value leaves once, in position order: FIFO for each producer, and for
//     two puts of which one returned before the other began. A run of one
//     PutBatch stays together.
//   - A full ring takes nothing: Put reports false, PutBatch the length of
//     the prefix it took (0 when full); the caller decides.
//   - Len counts the positions claimed and not yet drained, published or not;
//     a Put that has returned is in it. So an M that drops spinning and then
//     finds Empty true could not miss a submit that published before it
//     looked at the spinning count (the Dekker pair of spinning.Wakep).
//   - TryDrain stops at a claimed, unpublished position, after a few looks
//     (none under the explorer), and says so (pending): it never skips it.
//   - A drained slot keeps no value reachable. The zero Inject is empty and
//     ready; nothing is ever allocated.
//
// Tests: TestInjectFIFOAcrossLaps, TestInjectFullTakesNothing,
// TestInjectDrainStopsAtUnpublished, TestInjectZeroValueIsEmptyAndUsable
// (unit); TestInjectModel (rapid, against a slice); TestInjectStressExactlyOnce
// (-race, three producers, two drainers: exactly once, each producer's order);
// TestExploreInject (two producers against a drainer, a batch against a Put
// and a drain; conservation, order, the sequence words after the run);
// TestScenarios/inject-* (one per mutant); proofs/tla/Inject.tla. Mutants
// InjectPublishBeforeWrite, InjectBatchOverfills, InjectDrainSkipsUnpublished
// (mutation.go) are each caught by two of explorer, model and scenarios.
//
// # Where each rung of the ladder lives
//
//	unit tests             queue_test.go, scenarios_test.go
//	state machine (rapid)  model_test.go           TestGlobalQModel
//	fuzz target            ../fuzz/globalq_fuzz_test.go  FuzzGlobalQ
//	race stress            stress_test.go          TestStressExactlyOnce (a watchdog per run)
//	explorer               explore_test.go         TestExploreGlobalQ (-tags schedcheck; bound 3 in long mode)
//	linearizability        linearize_test.go       TestLinearizable
//	TLA+                   ../proofs/tla/GlobalQ.tla
//	seeded mutants         mutation.go, killmatrix_test.go (-tags schedcheck,schedmutant):
//	                       each caught by two of explorer, model and scenarios,
//	                       the checkers whose verdict does not depend on timing
//	benchmark              ../bench/globalq_test.go
package globalq
