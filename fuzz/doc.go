// Package fuzz holds the go test -fuzz targets for every schedkit component
// (rung 3 of docs/DESIGN.md) and the small byte decoder they share.
// Each component has two: a sequential target, whose bytes choose the
// operations, and an interleaved one, whose bytes also choose the
// interleaving the explorer runs them in.
//
// # Sequential targets
//
// A target turns its input bytes into a Program: a number of actors and a
// sequence of steps, each naming an actor, an operation and an argument
// (see Spec.Decode). Actors are the component's users: the owner of a queue
// and the thieves that steal from it. The steps run one after another in the
// order the bytes give, which fixes one interleaving of the actors at the
// granularity of whole operations. After every step a sequential model of
// the component (a slice per queue, a counter) predicts each result and the
// target fails on the first difference; at the end every item that went in
// must have come out exactly once, in the model's order.
//
// The targets share one harness (seqTarget and seqSteps in common_test.go):
// the seeds, the f.Fuzz body, the step loop and the seeds test; each file
// keeps only its component's model, seeds and broken variants. The
// interleaved targets share theirs likewise (ivRegister, ivFuzz and ivHist
// in interleaved_test.go).
//
// Decoding is total: every byte string is a valid program, an exhausted input
// reads as zeros, and programs are cut at Spec.MaxSteps so that a 4 KiB input
// stays fast. The same Spec can Encode a hand-written Program back into bytes,
// which is how the targets write readable seeds.
//
//	FuzzRing      lfq.Ring: Put (with overflow), PutBatch, Get, Drain, Len,
//	              StealHalf between 2 to 4 rings, and misuse that must panic
//	FuzzRunnext   runnext.Slot and Queue in a synctest bubble: PutNext, Get,
//	              steals before and after the delay, Empty, Drain
//	FuzzGlobalQ   globalq.Queue fed by lfq overflow, batches back into rings,
//	              schedule turns with the 1-in-61 tick
//	FuzzStealing  stealing.Stealer over runnext queues: passes, victim order
//	FuzzSpinning  spinning.Sched: Wakep, the spinning rule, drop and recheck,
//	              parking and handoff
//	FuzzTimers    timers.Heap of 1 to 4 Ps: Add, Reset (moving a timer between
//	              heaps), Stop, Run, an idle P's Run of the next P's heap,
//	              funcs that re-arm their timer
//	FuzzTaskChan  taskchan.Chan of 1 to 4 channels (capacity 0 to 3) beside
//	              Go channels: TrySend, TryRecv, Close, Len, a select with a
//	              default, misuse that must panic with Go's message
//
// # Interleaved targets: the bytes choose the schedule too
//
// Under -tags schedcheck an interleaved target runs its program on 2 to 4
// threads under explore, which takes every scheduling decision (at
// every atomicx operation) from the input: mode Bytes, no preemption bound,
// so go test -fuzz searches schedules past the bound the explorer's DFS
// scenarios stop at. An input is SplitInterleaved: its first byte n, then n
// bytes of program (the target's set-up, then steps that Spec.Decode reads
// and Program.Threads groups by actor into threads of at most 4 steps), then
// the schedule bytes (see the explore package documentation for how they
// pick threads). Without the tag the targets skip.
//
//	FuzzRingInterleaved      T0 owns the victim ring (Put with overflow,
//	                         PutBatch, Get, Drain, Len); T1 and T2 steal
//	                         into rings of their own, draining them or
//	                         keeping the half there, steal from each other's
//	                         ring, Get from their own; the victim starts with
//	                         0 to 256 items, the thieves' rings with 0 to 128
//	FuzzRunnextInterleaved   T0 owns the victim queue (PutNext, Put,
//	                         PutBatch, Get, Get-and-PutNext-back, Drain,
//	                         Empty, run for 1-2µs of virtual time); T1, T2
//	                         steal with and without stealNext (the steal
//	                         delay on the explorer's virtual clock) and call
//	                         Empty
//	FuzzGlobalQInterleaved   2-3 threads, each any of Put, PutBatch, Get,
//	                         GetBatch(requested, procs), Len, Empty, on a
//	                         queue starting with 0 to 255 items
//	FuzzStealingInterleaved  three Ps (runnext queues) under one Stealer and
//	                         idle mask; thread i is P i's M: Put, PutNext,
//	                         Get, Steal then Drain, mark itself idle or busy
//	FuzzSpinningInterleaved  1-2 submitters (Submit, put then Wakep, a
//	                         blocker and its partner, tasks that block in a
//	                         syscall with their P handed off) and two Ms
//	                         running spinning's executor loop, each starting
//	                         parked, looking, having found nothing, or
//	                         handing off
//	FuzzTimersInterleaved    2-3 Ps sharing 3 timers armed on heap 0 at
//	                         setup whens: Add, Reset, Stop of any timer, Run
//	                         of the thread's heap, a steal pass's Run of the
//	                         next; each arming fired, stopped or stopped at
//	                         the end, exactly once, none early
//
// Each execution is judged when every thread has returned. A call is stamped
// where it really starts and ends: each op first loads a gate cell (a
// scheduling point), then takes a stamp from a counter the threads share
// (the explorer runs one thread at a time), and takes another when it
// returns. From the stamps and what each call returned (ivHist in
// interleaved_test.go):
//
//   - conservation: every item put came out exactly once (taken by a call,
//     handed back by an overflow, or drained at the end), and no item came
//     out that was never put;
//   - the empty rule: a take that returned nothing (Get, Drain, a steal, a
//     last-pass steal, GetBatch) or an Empty that said true was right only if
//     the queue was empty at some instant of the call: no item was there
//     for the whole call (put before it began, taken by a call that began
//     after it ended); and an Empty that said false had an item at some
//     instant;
//   - FIFO, per item (lfq rings, the global queue): an item that went in
//     before another, also earlier in the same batch, does not come out
//     after it;
//   - Len between the items surely there for the whole call and those that
//     may have been there at some instant; GetBatch's share between
//     min(requested, len, len/procs+1) of those two lengths; the global
//     queue's length cell at rest equals what it holds;
//   - runnext: no runnext task taken by a thief before it sat in the slot for
//     the steal delay (from the owner's clock before the put to the thief's
//     after the take), or on an earlier pass; inheritTime exactly for slot
//     tasks;
//   - stealing: a Steal finds nothing only if every other P that was busy
//     for the whole call was empty at some instant; it takes a runnext task
//     only if no busy P's ring held a task for the whole call; each P's idle
//     bit ends as its own last Set or Clear left it;
//   - spinning: a lost wakeup is a deadlock of the explorer (every M parked,
//     the submitter waiting for its tasks); then every task ran once, and the
//     Sched is at rest (no spinner, every P idle).
//
// Where an item's way out is not seen (the rest of a steal left in a queue
// another thief may steal from), its exit counts as unknown: it is still
// conserved, and the rules that need the exit skip it, so no rule judges
// from a guess.
//
// # Seeds and regressions
//
// Each target adds a few hand-written programs and every file under
// testdata/corpus/<format>/: real-world inputs of other programs' parsers
// (JSON, CSV, PNG, ZIP, ...) from github.com/dvyukov/go-fuzz-corpus, which
// are arbitrary bytes to schedkit; see testdata/README.md for their source
// and licence. Inputs under testdata/fuzz/<Target>/ are replayed too: the
// interleaved targets keep there what go test -fuzz found on a seeded
// mutant, named <Mutation>-<hash>, and TestInterleavedRegressions (tags
// schedcheck,schedmutant) requires each to pass on the real code and fail on
// its mutation, so every finding stays a deterministic regression.
//
// # Running
//
//	go test ./fuzz/                                           # seeds only, as in CI; interleaved targets skip
//	go test -tags schedcheck ./fuzz/                          # the interleaved seeds too
//	go test -run '^$' -fuzz='^FuzzRing$' -fuzztime=60s ./fuzz/  # fuzz one sequential target
//	go test -tags schedcheck -run '^$' -fuzz='^FuzzRingInterleaved$' -fuzztime=60s ./fuzz/
//	SCHEDKIT_MUTATION=PublishBeforeWrite go test -tags schedcheck,schedmutant \
//	    -run '^$' -fuzz='^FuzzRingInterleaved$' -fuzztime=60s ./fuzz/  # on a seeded fault
//
// Anchor the pattern: a bare FuzzRing also matches FuzzRingInterleaved, and
// go test refuses a pattern that matches two targets (internal/readme's
// test checks every -fuzz= in the repository).
//
// SCHEDKIT_MUTATION names a mutation of any component; a name two
// components share (GetSkipsLast) takes its component, globalq.GetSkipsLast.
// A failure prints the explorer's report (schedule, trace, SCHEDKIT_REPLAY
// line) and the decoded program; go test -run=<Target>/<file> replays it.
//
// # What the interleaved targets find
//
// Measured on this project's shared 2-core machine, -parallel 2, wall time of
// the whole go test -fuzz run (baseline included). "seeds" means the seed
// corpus (hand-written and real-world files) fails on the mutant at once;
// "sequential" is whether the seeds of the component's sequential target do.
//
//	target     mutant                 interleaved finds it          sequential
//	Ring       StealNoCAS             seeds                         no
//	Ring       PublishBeforeWrite     fuzzing, 7 s (14k execs)      no
//	Ring       GetNoRetry             seeds                         no
//	Ring       GrabPastFreeHalf       hand-written seed only; 60 s  no
//	                                  of fuzzing (46k execs) did not
//	Ring       OverflowDropsNew, StealAllNoCheck, StealRoundsDown,
//	           GetSkipsLast, LenOneAsEmpty  seeds                   yes
//	Runnext    TakeWithoutCAS         fuzzing, under 1 s            no
//	Runnext    ThiefComparesPointer   fuzzing, 13 s                 no
//	Runnext    EmptyMissesRunnext     fuzzing, 17 s                 no
//	Runnext    ThiefNoRecheck         hand-written seed             no
//	Runnext    ThiefIgnoresDelay, DisplacedDropped,
//	           GetTreatsOneAsEmpty    seeds                         yes
//	GlobalQ    LenNotUnderLock        fuzzing, 1 s                  no
//	GlobalQ    BatchSizeOffByOne, PutBatchDropsLast, GetBatchOutOfOrder,
//	           PutBatchSwapsTwo, GetSkipsLast, CheckOneAsEmpty  seeds  yes
//	GlobalQ    PopKeepsItem           no (a leak: nothing observable)  no
//	Stealing   IdleMaskNoCAS          fuzzing, under 1 s            no
//	Stealing   RunnextEveryPass       fuzzing, under 1 s            yes
//	Stealing   StrideNotCoprime, StealsFromSelf, SkipsNonIdle,
//	           NoRunnextPass          seeds                         yes
//	Stealing   PassEndsEarly          no                            yes
//	Spinning   DropWithoutRecheck     fuzzing, 4 s                  yes
//	Spinning   WakepBeforePublish     fuzzing, under 1 s            yes
//	Spinning   HandoffNoNeedSpinning  fuzzing, 3 s (found again     no
//	                                  after Wakep's reorder; the
//	                                  first input stopped reaching it)
//	Spinning   NoWakeOnLastSpinner, CountLeak, NoNeedSpinning  seeds  yes
//	Spinning   DropNoNeedSpinning     no: 60 s (183k execs)         no
//
// On the real code the same targets ran clean: Ring 45 s (24k executions),
// Runnext 45 s (34k), GlobalQ 30 s (130k), Stealing 45 s (158k), Spinning
// 30 s (65k).
//
// # Properties and the tests that hold them
//
//	Reader, Spec.Decode/Encode are total and round-trip   TestReader, TestEncodeDecodeRoundTrip, TestDecodeTotalAndBounded
//	SplitInterleaved/JoinInterleaved, Program.Threads     TestInterleavedSplitJoin, TestProgramThreads
//	each sequential interpreter rejects broken components TestFuzzRingCatchesBrokenRing, ...Runnext..., ...GlobalQ..., ...Stealing..., ...Spinning...
//	each rule of ivHist rejects a history that breaks it  TestIVHistCatchesBrokenHistories
//	each interleaved target fails on seeded mutants       TestInterleavedRegressions (and the table above)
//	hand-written interleaved seeds decode as written      Test<Component>InterleavedSeedsRoundTrip
package fuzz
