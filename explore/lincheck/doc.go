// Package lincheck checks that a concurrent object is linearizable with
// respect to a sequential model, with no invariant written by hand, as
// Lincheck does for the JVM: the user gives the operations (each with its
// call on the object and its step on the model) and the model's initial
// state; Check generates small scenarios (a few threads of a few calls,
// seeded), explores each one's interleavings with package explore, records
// every execution's history and checks it against the model with
// internal/linearize's porcupine checker. The smallest failing scenario is
// reported with the history, the schedule, the trace and a replay line.
//
//	lincheck.Check(t, lincheck.Options{Threads: 2, OpsPerThread: 3},
//		lincheck.Model[[]int]{Init: func() []int { return nil }},
//		msqueue.New,
//		lincheck.Op[*msqueue.Queue, []int]{Name: "enq", Arg: true,
//			Run:  func(q *msqueue.Queue, v int) any { q.Enqueue(v); return nil },
//			Step: func(s []int, v int) ([]int, any) { return append(slices.Clip(s), v), nil }},
//		lincheck.Op[*msqueue.Queue, []int]{Name: "deq",
//			Run:  func(q *msqueue.Queue, _ int) any { v, ok := q.Dequeue(); return pair{v, ok} },
//			Step: func(s []int, _ int) ([]int, any) { ... }})
//
// # Histories
//
// A call's interval is stamped from explore.Position, with no scheduling
// point of its own: it begins just before the thread's first step after
// the call began (what a thread does before touching shared memory cannot
// matter, so the latest start is as real as any) and ends just after the
// step the thread was running when the call returned. These are the
// tightest intervals the execution allows, so the checker is as strict as
// the execution lets it be, and the explored interleavings are those of
// the object alone. Many interleavings give one history: each distinct
// history is checked once per scenario.
//
// # Shrinking and replay
//
// A failing scenario is made smaller, one call at a time, while some
// execution of the smaller one still fails (Options.MaxShrinks
// explorations at most): the report is a scenario none of whose calls can
// go, a local minimum (a smaller failing scenario the removals cannot reach
// may exist). A scenario's name is
// NAME/SCENARIO, as "TestQueue/enq(1),deq|enq(2)": threads separated by
// "|", calls by ",". SCHEDKIT_REPLAY='NAME/SCENARIO:schedule' (the line the
// report prints) replays that scenario's schedule alone, whatever the
// seeds.
//
// # Properties and the tests that hold them
//
//	a non-linearizable queue is found from its model alone   TestFindsTheTwoLockQueueWithAnUnlockedSize
//	the correct versions pass                                 TestCorrectQueuePasses
//	the failure is shrunk, and its key replays it alone       TestFailureIsShrunkAndReplays
//	a checker that accepts every history misses the bug       TestAcceptingEveryHistoryMissesTheBug
//	bad options are refused                                   TestBadOptions
//	out of time is inconclusive (Incomplete), not a failure   TestOutOfTimeIsInconclusive
//	an Owner operation runs on thread 0 only                  TestOwnerOperationsStayOnThreadZero
//	Accept admits every result it allows (relaxed models)     vyukovq TestQueueIsLinearizable, lfq TestRingIsLinearizableFromItsModel
//
// The examples (treiber, msqueue, vyukovq, seqlock, once, counter) and the
// components lfq, runnext and globalq each have a linearizability test
// built on it (lin_test.go, lincheck_test.go).
package lincheck
