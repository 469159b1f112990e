// Package linearize records call/return histories of concurrent operations
// and checks them for linearizability with porcupine
// (github.com/anishathalye/porcupine). It is test support: several
// components' stress tests and explorer scenarios use it for rung 6 of
// docs/DESIGN.md (linearizability: a recorded history checked by porcupine
// against the sequential model).
//
// # Recording
//
// A Recorder holds one history. Each goroutine that takes part gets its own
// Client (Recorder.Client) and brackets every operation it performs on the
// object under test with Begin and End:
//
//	rec := linearize.New(t.Name())
//	c := rec.Client(0)           // one per goroutine, ids 0, 1, 2, ...
//	c.Begin(putInput{x})         // stamps the call
//	out := ring.Put(x, nil)
//	c.End(ids(out))              // stamps the return, stores the output
//	...                          // wait for every goroutine (wg.Wait)
//	res, err := rec.Check(model, 10*time.Second)
//
// Timestamps come from one shared logical clock, an atomic counter that
// Begin and End each increment once, so every timestamp is distinct and
// "operation A returned before B was called" in real time implies
// A.Return < B.Call. A Client appends only to its own slice (under its own
// lock, which only its owner takes while it runs, so that Progress can
// report a hung history); the counter is the only word the goroutines
// share, so recording adds one atomic add per call and per return.
//
// The counter is an atomicx cell, so under -tags schedcheck and the
// explorer (explore) each stamp is a scheduling point of its own,
// named linearize.clock in traces: a call is stamped where it happens in the
// explored order. A stamp the explorer did not see would be taken while the
// thread runs alone up to its first scheduling point, before the first
// step, so every thread's first call would seem to start at time 0 and
// porcupine would accept results that only an earlier start explains
// (stamp_test.go's stale consumer). The return is stamped by a step of its
// own too; the explorer's default choice (no preemption) runs it right
// after the operation's last access, and the other choices only widen the
// interval. Stamps depend on each other and on nothing else, which is
// exactly what the explorer's sleep-set reduction needs to know. Outside the
// explorer the cell is a plain sync/atomic add. EndFunc stamps the return first
// and computes the output afterwards, for outputs that cost something to
// build (a slice copied out of a data structure only the caller touches),
// so the recorded interval stays as tight as the operation itself.
//
// The counter is a synchronizing atomic: under the race detector each
// increment is a happens-before edge between the goroutines that touch it,
// which can hide a data race in the code under test. Keep a stress test
// without recording for the race detector (lfq does); the linearizability
// test checks the values, not the races.
//
// # Checking
//
// Recorder.Check (or CheckOperations, CheckBudget on a hand-built
// []porcupine.Operation) runs porcupine.CheckOperationsVerbose against a
// porcupine.Model within a step budget (calls of the model's Step,
// DefaultSteps unless given) and a wall-clock timeout, and reports one of
// three outcomes, never confusing them:
//
//   - porcupine.Ok: the history is linearizable; the error is nil.
//   - porcupine.Illegal: it is not; the HTML visualization of the longest
//     partial linearizations is written to a file, and the error (wrapping
//     ErrNotLinearizable) names it. The directory is $SCHEDKIT_LINEARIZE_DIR
//     if set, else os.TempDir()/schedkit-linearize; it outlives the test
//     (t.TempDir would delete the evidence). The file name is the sanitized
//     history name, the time and a random suffix.
//   - porcupine.Unknown: the search spent its budget (ErrBudget) or its
//     time (ErrTimeout), both wrapping ErrInconclusive. This is neither a
//     pass nor a fail: the history was neither accepted nor refuted.
//
// A verdict never depends on the wall clock. Porcupine's search of a
// history is deterministic, so the budget stops it at the same step on
// every machine, loaded or not: a history is decided, or inconclusive, by
// what it is. The timeout (Stress's default 30 s, far past the budget) only
// turns a stalled machine into an inconclusive check. The explorer's tiny
// histories are checked with no timeout at all.
//
// # The stress harness
//
// Stress is the loop every component's linearize_test.go runs, generic over
// the operations' input and output types: Setup builds history h (a fresh
// object, its model, one function per thread), Run starts the threads
// together behind a spinning barrier, records through typed Workers (Begin,
// End, EndFunc; Yield spreads a thread's operations; LeadDone lets the
// others stop when thread 0 is done), waits under a watchdog deadline
// (internal/watchdog: past it, every goroutine's stack and Progress, the
// history so far, are printed and the process panics naming the history
// and its seed) and checks the history; Prepare, if given, rewrites it first
// for an object whose operations are not each one atomic step (an operation
// that takes effect in two steps split in two, two that take effect together
// merged). A check that is inconclusive is
// retried smaller: the history is recorded again, with the same seeds and
// half the operations (threads loop Worker.Ops(n) times), up to Shrinks
// times. CheckAll fails a test at the first history that is not
// linearizable; a history no size decided counts as neither, and a test
// with fewer than half its histories decided is skipped as inconclusive.
// FirstFailure is the same for the kill matrix; Catches proves a broken
// variant is refuted as Illegal with its visualization, within limits that
// tell a bug visible without overlap from a race-only one, passing over
// inconclusive histories. Seeds are per history and per thread, so a seed
// and a history number replay a history's choices.
//
// StressItems and StressDeadline size every component's exactly-once stress
// run alike: a million items in long mode, 50,000 under -short, and the
// watchdog's limit on the run; Histories is the number of histories a
// linearizability test checks, 2,000 in long mode and 200 under -short.
//
// Items, Seq, IDs, DescribeIDs and HashWords are the parts every
// component's tests need alike: items are *int pointing at their ids
// (Items makes them, Seq lists the ids, IDs reads them back), histories
// hold the ids, descriptions elide long lists, and a state of a few words
// and a list of ids hashes by FNV-1a.
//
// Properties and the tests that check them:
//
//	a call is stamped where it happens (explorer)    stamp_test.go TestStampsCallsWhereTheyHappen
//	timestamps are distinct, ordered by call          TestRecorderQueue, TestConcurrentRecording
//	Illegal writes the visualization, names it        TestCheckOperationsRegister, TestIllegalDefaultDir
//	a timeout is Unknown, never a pass                TestTimeoutIsUnknownNotPass
//	a spent budget is Unknown, never Illegal; the     TestBudgetSpentIsUnknownNotIllegal
//	same history takes the same steps
//	an inconclusive history is recorded smaller       TestStressShrinksAnInconclusiveHistory
//	inconclusive: no pass, no fail, no catch          TestStressInconclusiveIsNoVerdict
//	error kinds distinct; both inconclusive kinds     TestErrorsAreDistinct
//	misuse panics naming the call                     TestRecorderMisuse, TestStressThreads
//	CheckAll fails a broken object, with the seed     TestStressCheckAllFailsBrokenObject
//	Prepare's history is what Tally and porcupine see TestStressPrepareRewritesTheHistory
//	Catches refutes, and fails on a correct object    TestStressCatches
//	a seed replays every thread's choices             TestStressSeedReplaysChoices
//	a hung history reports itself so far              TestStressWatchdog, TestProgressWithoutDescribe
//	Items are distinct, Seq their ids, nil for none   ids_test.go TestItemsAreDistinctWithTheirIDs
//	IDs keeps the order, nil for none                 TestIDsInOrderNilForNone
//	DescribeIDs elides a list past 12 to 6 + 6        TestDescribeIDsElidesTheMiddle
//	HashWords: equal states alike, every part counts  TestHashWordsEqualStatesHashAlike
//	stress sizes: items, deadline, histories by mode  harness_test.go TestStressSizes
//
// Porcupine's search is exponential in the worst case (in the number of
// operations that overlap in time), so check many short histories (a few
// hundred operations each) rather than one long one. Result.Concurrent
// counts the operations that overlapped an operation of another client, a
// measure of how much concurrency a history actually exercised.
package linearize
