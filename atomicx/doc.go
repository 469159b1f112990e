// Package atomicx is the only door through which schedkit's components reach
// sync/atomic.
//
// # Use
//
// The shared state of a lock-free structure goes in these cells instead of
// sync/atomic's, and in a normal build nothing else changes:
//
//	type Counter struct{ n atomicx.Int64 }
//
//	func (c *Counter) Inc() { c.n.Add(1) }
//
// Under -tags schedcheck the explorer (package explore) can then run the
// structure through every interleaving of those operations; the README's
// "Start here" and examples/counter show the whole path.
//
// # What is here
//
// Every shared word of a lock-free component is one of the typed cells here
// (Uint32, Uint64, Int32, Int64, Bool, Pointer). In a normal build each method
// is a direct call to the matching sync/atomic method and inlines to the same
// instruction; BenchmarkWrapper measures the wrapper against raw sync/atomic in
// one run to show it costs nothing.
//
// The same door holds what components need besides atomics: Mutex (a
// sync.Mutex in a normal build), Note (a one-shot event for parking an M,
// after the runtime's note: Sleep, SleepFor, Wakeup, Clear), and the clock
// (Nanotime, Sleep; real monotonic time in a normal build). Note never spins
// and starts no goroutine: a sleeper waits on a channel made on demand, and
// SleepFor uses one timer.
//
// # Plain memory, compare_exchange, channels, Cond and Cancel
//
// Plain[T] is a plain memory cell, loom's UnsafeCell: the field a
// structure's synchronisation protects (a flag checked then set, a buffer's
// slots, as PlainSlice[T]). In a normal build Load and Store inline to the
// field access: the one-operation functions of plain_bench_test.go compile
// to the same MOVQ as a bare *int (go tool objdump), and BenchmarkPlain
// runs both in one run. Under the explorer each access is a scheduling
// point, and explore reports two accesses of two threads, one a write,
// with no happens-before edge between them as a data race
// (TestPlainCheckThenSetIsARace, TestPlainBufferPublishedByARacyIndex in
// explore).
//
// Every cell has CompareExchange(old, new) (prev, swapped), C++'s and
// Rust's compare_exchange: a CompareAndSwap, and when it fails a Load that
// read something else (a Load that reads old again retries), linearizable
// at one or the other; one scheduling point under the explorer, traced as
// a cas (TestCompareExchangeReturnsWhatItSaw,
// TestCompareExchangeCountsUnderContention; under the explorer
// TestCompareExchangeUnderTheExplorer).
//
// Chan[T] (NewChan; Send, Recv, TrySend, TryRecv, Close, Len), Select and
// TrySelect over SendCase and RecvCase, Cond (sync.Cond in a normal build:
// atomicx.Cond{L: &mu}, NewCond) and Cancel (NewCancel; Cancel, Done,
// DoneCase, Err: a context's cancellation) are the blocking primitives a
// scenario needs besides Mutex and Note. In a normal build Chan is a Go
// channel and Select is reflect.Select; under schedcheck Chan is a model
// of the runtime's hchan (chansend, chanrecv, closechan, selectgo: a
// buffer, a queue of blocked receivers and one of blocked senders; a
// blocked operation is completed by its partner's), Cond of sync.Cond's
// notify list (FIFO, no spurious wakeups), and each operation is a
// scheduling point; a thread blocked on them is not scheduled, and threads
// all blocked are a deadlock. Under the explorer Select takes the first
// ready case in the order given, where the runtime picks one at random.
// The models report their happens-before edges to the explorer through
// the optional Syncer hook. Tests, in both builds (a schedcheck build
// without the explorer runs the models on real goroutines):
// TestChanBufferedFIFOAndClose, TestChanUnbufferedHandsOver, TestSelect,
// TestCondWaitSignalBroadcast, TestCancel; under the explorer explore's
// TestChanUnderTheExplorer, TestChanBlockingIsModelled,
// TestSelectUnderTheExplorer, TestCondUnderTheExplorer,
// TestCancelUnderTheExplorer and TestHappensBeforeEdges.
//
// Under the build tag schedcheck every operation first passes through a Hook,
// which the interleaving explorer (explore) uses to make each atomic
// access a scheduling point and to record a trace of (operation, address,
// value). Blocking operations (Lock, Note sleeps, Sleep) and Nanotime call
// Hook.Wait instead of Before, so that the explorer schedules a blocked thread
// only once it can proceed and serves a virtual clock; when the hook declines
// a goroutine (one outside the explorer's scenario) the operation blocks and
// reads time for real. No hook is installed by default, so a schedcheck build
// without the explorer behaves like a normal one, only slower.
//
// # Cost in a normal build
//
// Each method inlines to the sync/atomic call, which compiles to one
// instruction. go tool objdump of the one-operation functions in
// atomicx_bench_test.go (go1.26, amd64; go test -c, then objdump -s) shows
// the same instructions for the atomicx cell and the sync/atomic type; the
// atomicx side has one more NOPL, the marker of an inlined call, which
// executes nothing of note:
//
//	Load   MOVQ 0(AX), AX
//	Store  XCHGQ BX, 0(AX)
//	Add    MOVQ BX, CX; LOCK XADDQ BX, 0(AX); LEAQ 0(CX)(BX*1), AX
//	CAS    MOVQ AX, DX; MOVQ BX, AX; LOCK CMPXCHGQ CX, 0(DX); SETE AL
//
// BenchmarkWrapper runs each operation on both in one run. On the 2-vCPU
// machine (AMD EPYC, go1.26), go test -bench BenchmarkWrapper
// -benchtime=300ms -count=10 with load average 3 (one other job starting),
// the medians in ns/op (raw sync/atomic against atomicx, min to max over
// the 10 runs) were:
//
//	Uint32 Load           0.61 (0.53-1.88)  against 0.59 (0.53-0.79)
//	Uint32 Store          8.43 (6.91-11.7)  against 9.12 (8.24-13.8)
//	Uint32 Add            9.23 (7.65-11.8)  against 9.03 (7.40-9.92)
//	Uint32 CompareAndSwap 8.33 (7.66-10.7)  against 8.49 (7.33-11.8)
//	Pointer Load          0.58 (0.45-0.79)  against 0.52 (0.43-0.77)
//	Pointer Store         10.5 (8.90-13.8)  against 11.0 (8.49-13.5)
//
// Every pair's ranges overlap and the medians differ by 8% at most, either
// way: no cost that the noise would not explain, as the listing above says.
//
// All operations are sequentially consistent, as in sync/atomic: stronger than
// the acquire/release pairs the runtime's proc.go uses (LoadAcq, StoreRel,
// CasRel), so every ordering argument written for the runtime holds here too.
package atomicx
