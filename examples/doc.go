// Package examples holds small lock-free structures, beyond the scheduler,
// checked with the interleaving explorer: each subpackage has a correct
// version that every explored interleaving passes and, in its tests, a
// known buggy variant that the explorer catches with a trace. Run them with
//
//	go test -tags schedcheck ./examples/...
//
// Without the tag the structures build and their plain tests run; the
// explorations skip.
//
// Each of the six hand-written ones also has a lin_test.go: its
// linearizability against a sequential model (a slice, a counter, a pair),
// checked by explore/lincheck on generated scenarios with no invariant
// written by hand, its buggy variant refuted the same way. Vyukov's queue
// is linearizable only once a full or empty answer may be spurious, which
// that test found and keeps (TestEmptyIsNotLinearizable).
//
// Plain memory: vyukovq's slot values and msqueue's node values are
// atomicx.Plain cells, as in the published algorithms, checked for data
// races under the explorer; every plain_test.go has a variant whose plain
// accesses race, reported with both steps (a counter without its Mutex, a
// value stored after it is published, the flag set before f runs, a
// seqlock's plain data, a Treiber stack's plain next).
//
// Spin-waits: every spin_test.go has a thread that waits for another by
// spinning with a yield (atomicx.Sleep(0)) on the structure's state (a
// waiter until the counter reads 2, a consumer until the queue or stack
// gives a value, Once's two losing callers, a seqlock reader until the
// second write), explored in DFS and DPOR: the correct code passes, with no
// false livelock (Once with three callers hit MaxSteps before yields were
// scheduled fairly), and the buggy variant fails: the counter's lost
// update as a livelock of its waiter, the others as a broken invariant or
// a data race.
//
//   - counter: the README's example, an atomicx counter, and Inc as a load
//     then a store
//   - treiber: a Treiber stack of reused nodes, and the ABA problem
//   - msqueue: the Michael-Scott queue, and a check-then-act link
//   - seqlock: a sequence lock, and a reader that accepts a torn read
//   - once: sync.Once built on a CAS, and the flag set before f has run
//   - vyukovq: Vyukov's bounded MPMC queue, and a slot published too early
//   - stdring: a ring written on sync/atomic and sync.Mutex alone, explored
//     unmodified through go run ./cmd/schedkit explore ./examples/stdring,
//     and a tail published before its slot (-tags stdringbug)
package examples
