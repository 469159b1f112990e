// Package atomicx is the only door through which schedkit's components reach
// sync/atomic.
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
// machine shared with other jobs (load average 18) where it was last run,
// -benchtime=300ms -count=3, the medians were load 8.2 ns raw against 3.2
// ns atomicx, store 64 against 51, add 26 against 31, CAS 24 against 21:
// each pair's runs spread over 2x to 5x and overlap, so they show no cost
// that the noise would not explain, and the listing above is the proof.
// Run it on a quiet machine with -count=10 and benchstat -col /impl for
// figures worth quoting.
//
// All operations are sequentially consistent, as in sync/atomic: stronger than
// the acquire/release pairs the runtime's proc.go uses (LoadAcq, StoreRel,
// CasRel), so every ordering argument written for the runtime holds here too.
package atomicx
