// Package explore is an interleaving explorer for real Go code, in the spirit
// of loom for Rust and CHESS: it runs a small scenario of logical threads again
// and again from a fresh state, one scheduling point at a time, and checks an
// invariant after every execution. Failures come back with the schedule that
// reaches them, a step-by-step trace, and a one-line way to replay them.
//
// # Use
//
// A scenario is a function that builds fresh state and returns the threads
// and a check; Check (in a test) or Explore runs it under -tags schedcheck:
//
//	explore.Check(t, explore.Options{Mode: explore.DPOR}, func() explore.Run {
//		var n atomicx.Int64 // shared state goes through atomicx
//		inc := func() { n.Add(1) }
//		return explore.Run{Threads: []func(){inc, inc}, Check: func() error {
//			if n.Load() != 2 {
//				return errors.New("lost update")
//			}
//			return nil
//		}}
//	})
//
// A failing execution fails t with its schedule, a step-by-step trace and a
// replay line. Example_counter and Example run such scenarios, and
// examples/ holds bigger ones (a Treiber stack, the Michael-Scott queue, a
// seqlock, a Once, Vyukov's queue). Without the tag a scenario skips, and
// the first skip in a test binary says so on stderr.
//
// # The model
//
// A scenario is a Run: 1 to MaxThreads threads (2 to 4 is the useful range)
// and a Check. Each thread runs on its own goroutine, but only one runs at a
// time. Every operation of package atomicx is a scheduling point: the loads,
// stores, adds, swaps and CASes of its cells, Mutex.Lock and Unlock, Note's
// Sleep, SleepFor, Wakeup and Clear, Nanotime and Sleep. At each point the
// explorer parks the thread before the operation and picks which parked
// thread goes next; that thread performs its operation and runs on, alone,
// until its next scheduling point (or its end). A step is one such stretch,
// and a schedule is the list of threads picked at every step.
//
// So are the rest of atomicx's operations: a cell's CompareExchange (one
// point, traced as a cas), Plain's Load and Store (a plain read and write,
// checked for data races: see below), Chan's Send, Recv, TrySend, TryRecv
// and Close, Select and TrySelect, Cond's Wait (joining the wait list;
// then the Unlock, the wait and the Lock are steps of their own), Signal
// and Broadcast, and Cancel. A channel's or a select's step depends on
// every other step, as the clock's do: a select waits in the queues of
// all its channels, so an operation on one channel can change what
// another finds. A send, receive or select that must
// wait is two steps: the attempt ("T1 recv ch blocks") and, once another
// thread's step has completed it, the wakeup ("T1 recv ch woken = 1"); in
// between its thread is blocked, as at a Lock.
//
// Before the first step each thread runs alone, in order, up to its first
// scheduling point: what a thread does before touching shared state cannot
// matter. A thread that never reaches a scheduling point simply runs to its
// end. When every thread has returned, Run.Drain, if set, runs as one more
// explored thread (alone, its blocking operations modelled, so it may call
// the structure's own blocking drain: a Lock, a Note), then Check runs (on
// the exploring goroutine) and an error from it fails the execution. Every goroutine is
// joined before the next execution starts.
//
// Blocking is modelled, not performed: a thread whose Lock would block, that
// sleeps on a Note not yet woken, or that sleeps on the clock is not
// scheduled until it can proceed. A state where every live thread is blocked
// and none waits on the clock is a deadlock, reported as a *DeadlockError.
//
// # The virtual clock
//
// Under the explorer atomicx.Nanotime reads a virtual clock that starts at one
// second (never 0) in every execution, and atomicx.Sleep and Note.SleepFor wait
// on it. The clock moves only when every live thread is blocked and at least
// one waits on time; it then jumps to the earliest deadline. So a timeout
// fires only when nothing else can happen first, an hour of sleeping takes no
// real time, and the outcome never depends on the machine's speed. Threads
// whose deadlines fall at the same instant are interleaved like any others.
// Sleep(d) with d <= 0 is a yield, scheduled fairly (next section); the
// clock also moves when every runnable thread spins without changing
// anything. build and Check see the same clock as the threads of their
// execution.
//
// # Fair scheduling, spin loops and livelocks
//
// A yield (Sleep(d) with d <= 0) is where a spin loop gives the CPU away,
// and the explorer schedules yields fairly (Musuvathi and Qadeer, "Fair
// stateless model checking", PLDI 2008): a switch away from a yielding
// thread is free, and the thread is not run again while another runnable
// thread has not run since it yielded. So two spinners cannot hand the CPU
// back and forth for ever while the thread they wait for starves, in any
// mode (before this rule, DFS and PCT failed at MaxSteps on such correct
// code: TestFairSpinWaitersLetTheReleaserRun, whose broken variant with
// fairness off, TestUnfairSchedulingStarvesTheReleaser, fails again). There
// is always a thread to run: of the yielders, the one that yielded first
// waits for nobody. Spin loops must yield (or sleep), or they run into
// Options.MaxSteps.
//
// A spin iteration is what a thread does between two of its yields; one
// that only reads (loads, failed CASes, the clock) is fruitless. When every
// runnable thread has repeated the same fruitless iteration three times
// (the same operations on the same cells, reading the same values) and no
// thread changed shared state meanwhile, no fair schedule can end the
// spin: if a thread waits on the clock, time passes, as when every thread
// blocks; otherwise the execution fails with a *LivelockError (ErrLivelock):
// each spinning thread's iteration once, the count, the blocked threads,
// and a trace cut after the first round, instead of MaxSteps of spin
// (TestSpinLivelockIsReported: two threads that each wait, spinning, for
// the other). A spin whose iterations write (a counter of tries) is not a
// livelock by this rule and still ends at MaxSteps.
//
// Under DPOR a thread parked at a yield after the same fruitless iteration
// twice in a row awaits: it is blocked until another thread writes a cell
// the iteration read, as
// GenMC's await and spin-assume reductions treat such loops; its yield
// then depends only on those writes. A plain yield (ending an iteration
// that wrote) changes nothing and waits only for the other threads' turns,
// which fair scheduling gives, so under DPOR it depends only on the
// clock's steps; without the reduction every yield depends on everything.
// DPOR explores one failed iteration per await instead of every
// interleaving of every retry. A spin may count its tries where the
// explorer cannot see: when nothing else can run, awaiting threads run
// again (TestAwaitMutantIsCaught: with that wake-up removed, a spin that
// gives up after three tries deadlocks).
//
// # Preemption bound and modes
//
// A preemption is a switch away from a thread that could have run on; a
// switch forced by a thread blocking, yielding or returning is free. Most
// concurrency bugs need very few preemptions (Musuvathi and Qadeer, PLDI 2007),
// and bounding them keeps exhaustive search small. Options.Bound sets the
// bound: DefaultBound (2) by default, NoPreemption for 0 (one execution per
// order of the threads: n! for n threads that never block), Unbounded for
// every interleaving (two threads of k independent steps: C(2k, k)).
//
// Mode DFS (the default) is stateless model checking: each execution re-runs
// the scenario from scratch following a prefix of choices, then extends it
// with the default choice (continue the thread that ran last, else the next
// one in cyclic order); afterwards the search backtracks to the deepest
// point with an untried choice that fits the bound. It is exhaustive within
// the bound unless MaxExecutions cuts it short (Result.Complete says which).
// Options.Reduce adds partial-order reduction by sleep sets: an interleaving
// that only swaps independent steps (different cells, or two loads; anything
// with the clock depends on everything) of one already explored is cut short.
// It finds the same bugs with fewer executions, but needs Bound: Unbounded,
// because sleep sets can lose interleavings under a preemption bound.
//
// Mode DPOR explores with no preemption bound but runs only one execution
// per class of equivalent interleavings (Mazurkiewicz traces: two
// interleavings are equivalent when one is the other with adjacent
// independent steps swapped). It is source-DPOR with sleep sets (Abdulla,
// Aronis, Jonsson and Sagonas, POPL 2014; dynamic partial-order reduction
// after Flanagan and Godefroid, POPL 2005): an execution runs to its end,
// then each race in it (two dependent steps of two threads with nothing
// ordering them in between) makes the search also try, at the point before
// the first step, a thread that starts the reversed order. Dependence is
// the one Reduce uses: steps on the same cell, lock or note unless both are
// loads, and anything with the clock (Nanotime, Sleep, SleepFor) with
// everything, but an await (above) depends only on writes to the cells its
// iteration read. A blocked thread counts as one spinning on what it waits
// for. On spin loops the await makes DPOR skip iterations DFS runs, so the
// two reach the same outcomes and end states through different steps
// (TestAwaitMatchesDFSOnSpins: ten spin scenarios, examples/once and
// examples/seqlock among them, as many to 137 times fewer executions than
// unbounded DFS; TestAwaitMatchesDFSOnRandomSpinPrograms: random programs
// of cell operations and spins, 3000 of them in one run, 643248 DFS
// executions against 20433; Vyukov's ring with a claim by store is found
// at execution 15, where DPOR without the await needed 16637 and DFS at
// bound 2 258: TestDPORFindsTheSpinRingBug).
// Sleep sets keep two complete executions from being equivalent, so
// Schedules counts Mazurkiewicz traces; Pruned counts the executions they
// cut short, the price of source sets over optimal DPOR (in one run, not
// recorded elsewhere, on 3000 random programs of 2 or 3 threads: 13644
// executions for 11831 traces, 1.15 per trace). It reaches every outcome
// and failure unbounded DFS reaches, in far fewer executions, and finishes
// scenarios unbounded DFS cannot (see the table below). ModeEnv
// (SCHEDKIT_MODE=dpor) switches a test binary's DFS scenarios to it
// without editing them.
//
// For scenarios too large for DFS, mode Random runs MaxExecutions random
// walks, and mode PCT runs MaxExecutions executions of probabilistic
// concurrency testing (Burckhardt et al., ASPLOS 2010): random distinct
// thread priorities, the highest-priority runnable thread runs, and Depth
// change points at random steps each drop the running thread below all
// others. Both are seeded by Options.Seed.
//
// The same options always give the same executions in the same order. If an
// execution does not repeat what an earlier one did on the same choices, the
// scenario depends on something besides the schedule, and DFS reports
// ErrNondeterministic. Every mode also re-runs a failed execution from its
// recorded schedule before it reports it (engine.go's confirm): one that
// does not repeat there (a real goroutine, time, map order, a global carried
// from one execution to the next) is reported as ErrNondeterministic,
// "nondeterminism outside the explorer", with the step where the re-run left
// the schedule, not with a replay key that would not replay it
// (TestFailureRepeatsOnItsSchedule).
//
// # Outcomes and reachability
//
// Run.Outcome labels an execution's end state ("a=1 b=0"), and Reached,
// called in a thread, labels a state on the way ("the CAS lost");
// Result.Outcomes counts the executions per label, and Check logs them.
// Options.MustReach names labels that some execution must report: if none
// does, Result.Unreached lists them and Check fails, so a scenario whose
// race no longer happens (the code moved, a bound too small) is noticed
// instead of passing without testing anything (loom's users ask for both:
// tokio-rs/loom#284). Under DPOR and Reduce an execution stands for its
// class, so counts are per class. A Random or PCT label whose window is a few steps wide
// is lost whenever a change adds a scheduling point and moves every schedule
// of a fixed seed; Options.Seeds lets the search go on from the next seeds,
// MaxExecutions each, until every label is reached (TestSeedsUntilReached).
//
// # End states and records
//
// Every execution that runs to its end, or fails, gets a fingerprint of its
// end state, with no help from the scenario: the final value of every
// cell, lock and note its threads touched (a pointer to a named object as
// its name; after a successful CAS, whose new value atomicx does not
// report, that CAS: its thread, its place among the thread's steps and what
// the thread had seen, which fix the value written), the virtual clock,
// the outcome labels and the failure's message. A cell is known by its
// name, else by the first thread in thread order to touch it and that
// thread's step, so equivalent interleavings end in one state.
// Result.States counts the distinct end states and Result.StateHash hashes
// their set: two searches of a scenario with equal pairs reached the same
// states. The fingerprints cost a few percent of the CPU profile of three
// lfq scenarios under DPOR (owner-vs-thief, steal-vs-steal, wraparound)
// and under a tenth on BenchmarkEndStates's 130 cells written once each,
// its worst case (single profiles on the loaded 2-vCPU machine: 2% and 9%
// first, 6% and 7% in a rerun at load average 22, 4 of 64 and 5 of 76
// samples).
//
// RecordEnv (SCHEDKIT_RECORD=file) makes every exploration of a test binary
// append a Record (name, search, completeness, executions, end states, the
// failure) to the file as a JSON line, and MaxExecutionsEnv lowers every
// DFS and DPOR scenario's MaxExecutions: with ModeEnv they run a suite of
// existing scenarios under another search, capped, and keep what it
// reached, as TestDPORMatchesDFSOnComponents does.
//
// CheckFails is Check for a scenario that must fail, as a known-buggy
// variant kept beside the correct code: it fails the test when every
// execution passes, so a variant the scenario no longer catches is noticed
// (the examples use it).
//
// # DPOR against DFS: the components' scenarios
//
// Executions and wall time of every explore scenario of lfq, runnext,
// globalq, stealing and spinning (go test -tags schedcheck -short -run
// TestExplore...), under ModeEnv=bound=2 (DFS, preemption bound 2),
// =reduce (unbounded DFS with sleep sets) and =dpor. A * marks a search cut
// at the scenario's MaxExecutions (incomplete). Measured once each on a
// 2-vCPU machine shared with about seven other jobs (load average 14 to
// 19), so times are rough, counts exact. Bound 2 is cheapest but covers
// only two preemptions. Against unbounded DFS with sleep sets, DPOR never
// runs more executions (as many to 84x fewer), and it completes six
// scenarios that the sleep sets alone cannot finish within MaxExecutions
// (lfq-owner-vs-two-thieves: 75862 executions in 22 s against more than
// 200000; runnext-steal-into-a-queue-being-stolen: 12369 in 1.7 s).
// The scenarios cut under DPOR too have three threads of long loops; they
// keep their preemption bound.
//
// TestDPORMatchesDFSOnComponents checks the table on end states, not only
// verdicts: in long mode it runs every TestExplore* of the components
// under plain unbounded DFS (capped at 20000 executions), DFS with sleep
// sets (100000) and DPOR, and wherever a DFS search finishes, DPOR must
// finish and reach the same end states (States and StateHash). Run on
// 2026-11-25 (the machine above, load 20 to 35): 80 scenarios; 55
// enumerable (all 55 by sleep sets, 10 of them by plain DFS too), DPOR
// equal on all 65 pairs; 3 must fail (seeded faults' catchers), and all
// three searches stop at the same failure; 22 are not enumerable by DFS,
// and DPOR finishes 6 of them: globalq-two-producers-and-a-reader,
// lfq-owner-vs-two-thieves, runnext-put-take-vs-first-passes,
// runnext-steal-into-a-queue-being-stolen, runnext-thief-with-own-tasks,
// spinning-drop-vs-submit. The executor's 14 scenarios (bound 1 in their
// own tests, capped at 20000 in every search) are not enumerable, and DPOR
// finishes 3 of them (ctx-vs-error, group-wait-1p, wait-own-first); their
// end states are not yet comparable, though: plain DFS found as many as it
// ran executions, so some cell there holds a pointer to an unnamed object
// (an address). The other 16 not enumerable: TestExploreIdleMask, globalq-every-
// operation, globalq-putbatch-vs-getbatch-vs-readers, runnext-no-delay-
// displace-vs-steal-and-empty, runnext-slot-put-vs-two-thieves,
// runnext-slot-thief-is-victim, runnext-take-vs-two-thieves,
// runnext-two-thieves-vs-putnext-get-delay and eight of spinning's. With
// the seeded fault dpor-skips-load-race (-tags schedmutant: DPOR never
// reverses a race that begins with a load) the comparison fails on 32
// scenarios. The long run took 43 minutes; under -short the test
// compares runnext's 9 smallest scenarios (about a second of searching
// after linking one test binary).
//
//	scenario                                           DFS bound 2   DFS, sleep sets              DPOR
//	lfq-owner-vs-thief                                 614 / 0.21s      6039 / 2.36s      3281 / 0.81s
//	lfq-owner-vs-two-thieves                          5786 / 1.56s  200000* / 41.56s    75862 / 21.78s
//	lfq-steal-vs-steal                                6386 / 0.97s      7340 / 1.23s       694 / 0.16s
//	lfq-get-vs-steal-last-item                         129 / 0.01s        47 / 0.00s        18 / 0.02s
//	lfq-get-vs-steal-two-items                         279 / 0.03s       208 / 0.02s        91 / 0.03s
//	lfq-drain-and-batch-vs-steal                       386 / 0.05s       295 / 0.06s       126 / 0.03s
//	lfq-len-vs-owner                                   220 / 0.02s       549 / 0.05s       302 / 0.03s
//	lfq-wraparound                                     463 / 0.05s       740 / 0.07s       267 / 0.03s
//	lfq-steal-vs-overflow                          87715 / 179.42s      1517 / 4.09s        18 / 0.03s
//	lfq-tiny-thief-with-own-items                      264 / 0.03s        63 / 0.00s         8 / 0.00s
//	lfq-tiny-inconsistent-read-into-half-full          404 / 0.05s       706 / 0.12s       122 / 0.01s
//	lfq-tiny-steal-from-a-ring-being-stolen-into      2586 / 0.45s       319 / 0.04s         9 / 0.00s
//	lfq-tiny-get-own-vs-steal-from-it                 1306 / 0.16s       192 / 0.03s        14 / 0.00s
//	lfq-tiny-putbatch-vs-steal                         181 / 0.02s        33 / 0.01s         6 / 0.00s
//	lfq-tiny-overflow-vs-steal                         211 / 0.02s        55 / 0.01s        14 / 0.00s
//	lfq-tiny-overflow-vs-two-thieves                  3258 / 0.45s      1640 / 0.26s       108 / 0.01s
//	lfq-tiny-wraparound                                415 / 0.04s       155 / 0.03s        25 / 0.00s
//	lfq-two-slots-overflow-vs-steal                    144 / 0.02s        49 / 0.01s        13 / 0.00s
//	runnext-take-vs-steal                              116 / 0.04s       130 / 0.10s        31 / 0.01s
//	runnext-take-vs-two-thieves                       7672 / 1.85s  200000* / 61.13s  200000* / 45.52s
//	runnext-displace-vs-steal                          502 / 0.06s     13558 / 2.94s      4164 / 0.64s
//	runnext-put-take-vs-last-pass                      604 / 0.09s     17165 / 4.24s      4639 / 0.82s
//	runnext-put-take-vs-first-passes                   924 / 0.15s  200000* / 53.09s    76217 / 14.29s
//	runnext-thief-waits-delay                          151 / 0.02s       101 / 0.01s        21 / 0.00s
//	runnext-owner-takes-within-delay                   309 / 0.05s      9914 / 1.50s      2879 / 0.29s
//	runnext-replace-during-wait                          1 / 0.00s         1 / 0.00s         1 / 0.00s
//	runnext-aba-same-pointer-reput                       1 / 0.00s         1 / 0.00s         1 / 0.00s
//	runnext-aba-reput-as-thief-wakes                   394 / 0.05s     24204 / 7.86s      7661 / 1.13s
//	runnext-replace-as-thief-wakes                     448 / 0.07s    47696 / 12.78s     25438 / 4.42s
//	runnext-two-thieves-vs-putnext-get-delay         12296 / 2.84s  200000* / 58.67s  200000* / 42.45s
//	runnext-empty-vs-putnext-get                       191 / 0.03s       575 / 0.07s       293 / 0.02s
//	runnext-empty-vs-drain                             215 / 0.05s      1791 / 0.32s      1052 / 0.11s
//	runnext-steal-nothing-vs-putnext-get               502 / 0.30s     13558 / 4.75s      4164 / 0.56s
//	runnext-drain-vs-steal                             475 / 0.13s      1941 / 0.61s       570 / 0.06s
//	runnext-no-delay-displace-vs-steal-and-empty      9198 / 2.84s  200000* / 43.25s  200000* / 36.88s
//	runnext-thief-with-own-tasks                      1889 / 0.71s  200000* / 65.57s   160203 / 40.18s
//	runnext-steal-into-a-queue-being-stolen           7962 / 1.92s  200000* / 48.93s     12369 / 1.66s
//	globalq-putbatch-vs-getbatch                       150 / 0.08s       699 / 0.17s       484 / 0.06s
//	globalq-put-vs-get-last-item                       774 / 0.07s      1695 / 0.47s      1075 / 0.09s
//	globalq-len-reader-vs-writer                       358 / 0.04s     33839 / 6.37s     20731 / 2.03s
//	globalq-two-consumers-batches                     1808 / 0.21s    88369 / 23.99s     53565 / 5.28s
//	globalq-two-producers-and-a-reader                2010 / 0.22s  200000* / 25.48s   181935 / 16.91s
//	globalq-empty-fast-path-vs-put                     113 / 0.02s       473 / 0.03s       305 / 0.03s
//	globalq-putbatch-vs-getbatch-vs-readers           1963 / 0.26s  200000* / 23.91s  200000* / 22.23s
//	globalq-every-operation                           4013 / 0.98s  200000* / 28.06s  200000* / 26.04s
//	stealing-two-thieves-split-the-ring              13528 / 2.41s    55629 / 17.20s      2866 / 0.92s
//	stealing-last-pass-runnext-vs-owner             86680 / 51.86s      1887 / 0.88s        33 / 0.02s
//	stealing-last-pass-runnext-waits-delay            6812 / 2.14s      1132 / 0.29s       100 / 0.03s
//	stealing-delay-vs-spawn                           1537 / 0.41s       418 / 0.11s       139 / 0.02s
//	stealing-spawn-vs-two-thieves                    21284 / 8.31s    47987 / 21.09s      7502 / 2.32s
//	stealing-idle-P-skipped                            273 / 0.04s        51 / 0.01s        14 / 0.00s
//	spinning-submit-wakes-parked                      1992 / 0.34s       335 / 0.11s        89 / 0.03s
//	spinning-submit-two                               4097 / 0.98s  100000* / 48.41s  100000* / 17.70s
//	spinning-two-submitters                         58282 / 14.53s  100000* / 41.80s  100000* / 25.17s
//	spinning-drop-vs-submit                           6145 / 1.05s  100000* / 45.36s    35549 / 12.49s
//	spinning-drop-vs-two-submitters               100000* / 33.85s  100000* / 42.17s  100000* / 27.84s
//	spinning-last-spinner-wakes                       3353 / 0.99s  100000* / 39.82s  100000* / 34.99s
//	spinning-needspinning                             1070 / 0.24s       246 / 0.03s        45 / 0.00s
//	spinning-handoff-vs-submit                       23760 / 5.26s  100000* / 28.90s  100000* / 27.03s
//	spinning-handoff-vs-wakep                         8003 / 2.09s  100000* / 36.90s  100000* / 30.73s
//	spinning-respin-vs-wakep                        43613 / 12.10s  100000* / 48.31s  100000* / 23.24s
//	spinning-acquire-vs-drop                      100000* / 40.48s  100000* / 33.10s  100000* / 28.51s
//
// # Long mode and bound 3
//
// Long reports long mode: go test without -short, as the stress tests read
// it (a million items there), unless SCHEDKIT_LONG=1 or 0 says otherwise.
// A scenario that wants a deeper search where it can afford one sets
// Options.LongBound, usually to LongBound (3): Bound applies under -short
// (CI, the kill matrix) and LongBound in long mode, and Result.Bound and
// the summary line say which ran. Each extra preemption multiplies the
// executions by roughly the number of steps, so check the count of a
// scenario at bound 3 before you ask for it.
//
// # Schedules from bytes: fuzzing the interleaving
//
// Mode Bytes runs one execution whose decisions come from Options.Decisions,
// so go test -fuzz, by mutating those bytes, searches schedules with no
// preemption bound (fuzz/ has a target per component). Only a scheduling
// point with two or more runnable threads consumes a byte, b: the runnable
// threads are listed in the default order (the thread that ran last first,
// then the others in cyclic order after it), b&7 modulo their number picks
// one, and b>>3 more such points continue it (fewer if it blocks or ends).
// So 0x00 lets the running thread go on, 0x01 switches to the next one, and
// 0xf9 switches and runs that thread through 31 further choices. When the
// bytes are spent, the default choice runs every thread on until it blocks
// or ends, as DFS and replay extend a schedule. The same bytes give the same
// schedule; a failure reports it like any other, and SCHEDKIT_REPLAY or
// Options.Replay replays it without the bytes.
//
// # Failures, traces and replay
//
// An execution fails when Check returns an error, a thread or Check panics
// (*PanicError, with the stack), the threads deadlock (*DeadlockError) or
// livelock (*LivelockError), an execution exceeds MaxSteps (ErrStepLimit),
// a thread blocks outside the
// explorer for 20 seconds (*StuckError: a channel, a sync.Mutex, time.Sleep),
// or a Run.Drain that blocks for ever (a deadlock too). Explore stops at
// the first failure and returns it in Result.Failure; with
// Options.KeepGoing it searches on and collects every distinct failure
// (the same check failing with the same message counts once) in
// Result.Failures, up to MaxFailures (20). Check fails the test with this
// report, after replaying the failing schedule once to find each step's
// file:line (so the search itself pays nothing for them):
//
//	explore lostupdate: execution 2 failed: lost update: counter = 1
//	schedule: 0.1x2.0 (4 steps)
//	trace:
//	     1  T0 load counter = 0                      bugs_test.go:77
//	     2  T1 load counter = 0                      bugs_test.go:77
//	     3  T1 store counter ← 1                     bugs_test.go:78
//	     4  T0 store counter ← 1                     bugs_test.go:78
//	replay: SCHEDKIT_REPLAY='lostupdate:0.1x2.0'
//
// A read-modify-write prints both values, the one it found and the one it
// left: "add c 0 → 1", "swap c 1 → 2", "cas head ok: 3 → 5", and a CAS
// that lost the value that made it lose, "cas head failed, saw 4"
// (atomicx.RMWHook). A packed word (a head and a tail in one uint64)
// prints as explore.Format(&cell, func(uint64) string) makes it, "h=3 t=5",
// in loads, stores and both sides of those.
//
// A schedule is run-length encoded: "0.1x2.0" runs thread 0 for one step,
// thread 1 for two, then thread 0 ("-" is the empty schedule). Past 48
// characters a replay key carries a compact token instead, "z" and URL
// base64 of the runs as varints, deflated when shorter: a 10,000-step
// spin whose long form runs past 10 KB is under 80 characters. Both forms
// are accepted wherever a schedule is. In a trace a
// cell reads by the name given with Name, with the field path inside a named
// struct ("r.tail", "r.slots[3]"), else as "#n" numbered by first access in
// the execution (raw addresses change from run to run); a stored pointer to a
// named object reads as "&name".
//
// To replay, set the environment variable SCHEDKIT_REPLAY to "name:schedule"
// and run the test again (Check prints the full command line, with the
// build tags, -short and the SCHEDKIT_ settings of the failing run, such as
// SCHEDKIT_MUTATION): the scenario of that name runs exactly that schedule
// once and fails the same way. A bare schedule replays every scenario the
// binary runs, so select one with -run. Options.Replay does the same from
// code. A replay never passes quietly: a schedule that names a thread that
// cannot run, ends while the execution goes on, or outlasts it fails with
// ErrReplayDiverged; one that runs to its end with every check passing
// fails Check's test ("does not reproduce a failure here"; a schedule given
// in Options.Replay may pass); and under a key that names another scenario,
// every scenario Check runs fails its test saying which name the key wants,
// though it still runs its own search.
//
// # Deadlines: nothing hangs
//
// Every exploration ends on its own, whatever the code under test does. An
// execution that spins forever fails: a fair livelock (every thread spins
// without changing anything) as a *LivelockError after three rounds, a spin
// loop without a yield or one that writes on every try at Options.MaxSteps
// (10000 by default) with ErrStepLimit; a thread that blocks outside atomicx fails
// after 20 seconds with *StuckError. The whole exploration has a wall-clock
// Options.Deadline (under Check, nine tenths of what is left of the test
// binary's -timeout; else DefaultDeadline, 5 minutes): past it, the
// exploration stops as inconclusive: Result.Incomplete (not Failure: no
// bug was shown) holds the execution in progress, its error wrapping
// ErrDeadline, its schedule, trace and replay line, and Check fails the
// test saying "inconclusive, not a bug found", where a bound too big for the
// scenario or very slow spinning would otherwise meet the binary's timeout
// with nothing said. If build or Check themselves hang, the explorer cannot
// report; a watchdog (internal/watchdog) then ends the process a little
// after the deadline (a twentieth of it, 30 seconds to 2 minutes, so still
// inside the test binary's -timeout under Check), printing where the
// explorer was (the execution, and its schedule if Check hangs) and every
// goroutine's stack.
//
// # Data races on plain memory
//
// Memory the threads share without atomics goes in atomicx.Plain cells
// (PlainSlice for a buffer). Each execution keeps a vector clock per
// thread, computed from its steps when a plain access needs them (so a
// scenario without plain cells pays nothing), with the edges atomicx's
// operations make: an atomic store, add, swap or successful CAS releases
// to its cell's clock (joined: a load after two stores acquires both, a
// little coarser than the memory model's "observes the last"), a load, an
// add, a swap or any CAS acquires it, and a store acquires nothing (it
// observes nothing: TestStoreDoesNotAcquire); Unlock releases the Mutex
// and Lock acquires it; Wakeup
// releases the Note and a woken Sleep or SleepFor acquires it; a send
// happens before the receive that gets its value, a receive before the
// completion of the sends on its channel after it (coarser than the
// memory model's k-th receive before the (k+C)-th send, never missing an
// edge it has), Close before a receive that finds the channel closed, a
// Signal or Broadcast before the Wait it wakes returns, a Cancel before
// what observes it; build happens before every thread and every thread
// before Check. A plain access that does not happen after an earlier one
// of another thread, one of them a write, fails the execution with a
// *DataRaceError:
//
//	explore init-once-plain/dfs: execution 1 failed: data race on flag: T0 wrote it at step 2 (explore/race_test.go:36) and T1 read it at step 4 (explore/race_test.go:35), with no happens-before edge between them through atomicx
//	trace:
//	     1  T0 read flag = 0
//	     2  T0 write flag ← 1
//	     3  T0 add #1 0 → 1
//	     4  T1 read flag = 1
//
// A race is reported in the first execution that has one, whatever the
// order of the two accesses in it, so the schedule that shows it is often
// the first one DFS runs. The checker is a FastTrack-style detector
// (Flanagan and Freund, PLDI 2009) without its epoch compression, as
// loom's UnsafeCell checks; its seeded faults (SCHEDKIT_EXPLORE_MUTANT in a
// schedmutant build: race-no-unlock-release, race-no-store-release,
// race-never) each fail TestRaceCheckerFaultsAreCaught.
//
// # Options from the environment
//
// SCHEDKIT_EXPLORE_MAXSTEPS, SCHEDKIT_EXPLORE_DEADLINE (a duration),
// SCHEDKIT_EXPLORE_SEED, SCHEDKIT_EXPLORE_KEEPGOING (1 or 0) and
// SCHEDKIT_EXPLORE_MAXFAILURES set MaxSteps, Deadline, Seed, KeepGoing and
// MaxFailures of every exploration of a test binary, over what the code
// says (MaxStepsEnv and the others); ModeEnv and MaxExecutionsEnv choose
// the search and cap it. The replay command carries them.
//
// # Linearizability from a model
//
// Package explore/lincheck checks an object against a sequential model
// with no invariant written by hand: give the operations (a call on the
// object, a step on the model) and the model's initial state, and it
// generates small seeded scenarios, explores them here, checks each
// execution's history with porcupine and reports the smallest failing
// scenario. Its histories are stamped with Position and read with Steps.
//
// # Writing a scenario
//
// The code under test must reach shared memory only through atomicx (cells,
// Mutex, Note, the clock) or through memory those order, as race-free code
// does. It must be deterministic given the schedule: no real time, no
// unseeded randomness, no map-order dependence, no goroutines of its own
// (their atomicx calls are not controlled: only the scenario's threads are),
// and no blocking on channels or sync primitives. build makes everything
// fresh in every execution and must not keep state across executions. A
// test of the module's own code reads:
//
//	func TestCounter(t *testing.T) {
//		explore.Check(t, explore.Options{}, func() explore.Run {
//			var c atomicx.Int64
//			explore.Name(&c, "counter")
//			inc := func() { c.Add(1) }
//			return explore.Run{
//				Threads: []func(){inc, inc},
//				Check: func() error {
//					if n := c.Load(); n != 2 {
//						return fmt.Errorf("counter = %d", n)
//					}
//					return nil
//				},
//			}
//		})
//	}
//
// and runs with go test -tags schedcheck. Check logs
// "explore NAME: N executions, N schedules, bound B, mode M", the line that
// cmd/schedkit verify reads.
//
// # Unmodified code
//
// A package written on sync/atomic and sync runs under the explorer without
// an edit: cmd/schedkit's explore command builds its tests with -tags
// schedcheck and every .go file of the package replaced, through go build's
// -overlay, by a rewritten copy:
//
//	go run github.com/schedkit/schedkit/cmd/schedkit explore ./mypkg -- -run '^TestExplore' -v
//
// The import of sync/atomic becomes atomicx under the same name, and atomicx
// has every name of sync/atomic with its methods: the typed cells, Uintptr,
// Value and the function forms, so atomic.AddInt64(&x, 1) on a plain int64
// is a scheduling point keyed by x's address (atomicx/compat.go: the address
// is the cell, no shadow table is needed). sync's Mutex, RWMutex, Cond and
// NewCond, Once, WaitGroup, OnceFunc, OnceValue and OnceValues become
// atomicx's; sync.Pool, sync.Map and sync.Locker stay sync's and are not
// explored. A use with no counterpart (a dot import, a name newer than
// atomicx) is reported as file:line:column, and nothing runs. Every edit
// stays on its line, so traces, panics and compiler errors name the user's
// own lines. Only the named packages (and those -rewrite names) are
// rewritten: what they import runs on the real sync/atomic, unexplored, and
// a value of a rewritten type cannot be passed to them (the compiler says
// where). Goroutines the package starts are not the scenario's threads, as
// everywhere (Writing a scenario). The package's own test calls Check with
// threads that call its API, as for code on atomicx; under a plain go test
// it would see no scheduling point, so examples/stdring's test skips unless
// reflect finds atomic.Uint64 outside sync/atomic. A failure's replay goes
// through the command too (the line after the replay line), and -n prints
// the rewrite. examples/stdring, a ring on sync/atomic and sync.Mutex,
// checked by a scenario and, from a bounded FIFO model alone, by
// explore/lincheck, and its seeded bug (-tags stdringbug) are run by
// cmd/schedkit's TestExploreExample; TestRewriteGolden holds the rewrite of each form,
// TestRewriteReportsUnsupported the reports, and
// TestRewriteCoversTheStandardLibrary checks atomicx against every name and
// method of sync/atomic and sync.
//
// # Builds
//
// The explorer needs atomicx's hook, which exists only under the build tag
// schedcheck. The package compiles without it too: Explore then returns
// ErrNoSchedcheck and Check skips the test, so scenario tests need no build
// tag of their own; the first skip in a test binary says so on stderr, and
// SCHEDKIT_REQUIRE_SCHEDCHECK=1 (for CI) makes Explore return
// ErrSchedcheckRequired and the skips fail instead (this package's tests have one, as they also test
// atomicx's schedcheck side). The hook is installed only while an exploration
// runs and affects only the goroutines of its scenarios; other goroutines,
// including parallel tests, pass through it untouched.
//
// Goroutines are told apart by their runtime descriptor, read in a few
// nanoseconds by getg_amd64.s and getg_arm64.s; other architectures parse
// runtime.Stack, which works but costs microseconds per operation.
//
// # Properties and the tests that hold them
//
//	DFS runs every interleaving once (C(2k,k), multinomials, n!)  TestUnboundedCountIsBinomial, TestThreeThreadCountIsMultinomial, TestBoundZeroCountsThreadOrders
//	the bound admits exactly the schedules of that many switches  TestBoundedCountMatchesFormula
//	LongBound applies in long mode only                           TestLongBoundInLongMode, TestLongFollowsShortAndTheEnvironment
//	sleep sets cut only equivalent interleavings                  TestReductionCollapsesIndependentThreads, TestReductionKeepsEveryOutcome
//	DPOR: DFS's outcomes, end states, failures; one run per trace TestDPORMatchesDFS, TestDPORMatchesDFSOnRandomPrograms
//	DPOR: DFS's end states on the components' scenarios           TestDPORMatchesDFSOnComponents
//	end states: final values, CAS writes, labels; one per class   TestEndStatesAreFinalValues, TestEndStatesSeeCASAndLabels
//	CheckFails fails the test unless some execution fails         TestCheckFailsWantsAFailure
//	outcomes counted; MustReach fails when nothing gets there     TestOutcomesCountEachLabel, TestMustReachFailsWhenNoExecutionGetsThere, TestOutcomePanicFails
//	every mode finds the classic bugs, passes their fixes          TestLostUpdate, TestCheckThenAct, TestABBADeadlock, TestLostWakeup
//	same options, same executions                                 TestDeterministic
//	a failure replays to the same trace                           TestReplayReproducesTheFailure, TestReplayFromEnvironment
//	a replay that diverges, passes or names no scenario fails     TestReplayThatDivergesFails, TestReplayThatPassesFailsCheck, TestReplayOfAnotherNameSaysSo
//	the replay line carries the tags, -short and SCHEDKIT_ settings TestReplayCommandCarriesTheBuild
//	bytes reach schedules past the bound                          TestBytesReachPastTheBound, TestBytesSearchFindsTheBug
//	same bytes, same schedule; the decoding as stated above       TestBytesAreDeterministic, TestBytesDecoding, TestBytesFailureNamesTheSchedule
//	a spin that never ends fails at MaxSteps, in every mode       TestSpinForeverHitsTheStepLimit, TestSpinWithoutYieldHitsStepLimit
//	yields are fair: spinners let the thread they wait for run    TestFairSpinWaitersLetTheReleaserRun, TestUnfairSchedulingStarvesTheReleaser
//	a fair livelock is reported as one, its cycle once; it replays TestSpinLivelockIsReported
//	spinners a last store releases are no livelock                TestSlowReleaseIsNotALivelock
//	DPOR's awaits: DFS's outcomes and end states on spins, fewer  TestAwaitMatchesDFSOnSpins, TestAwaitMatchesDFSOnRandomSpinPrograms, TestAwaitMutantIsCaught, TestDPORFindsTheSpinRingBug
//	the wall-clock deadline stops with the schedule in progress   TestSpinForeverHitsTheDeadline, TestDeadlineCutsALongExploration
//	Check keeps the deadline inside the binary's -timeout         TestCheckKeepsWithinTheTestDeadline
//	a hanging Check ends the process with where it was and stacks TestHangingCheckIsReportedByTheWatchdog
//	a thread stuck outside atomicx is reported, not waited on     TestStuckThreadIsReported
//	the virtual clock moves only when every thread is blocked     TestClockStartsNonZeroAndOnlyMovesWhenAllBlock, TestVirtualSleepIsInstant
//	only a scenario's goroutines are controlled                   TestOtherGoroutinesAreNotControlled, TestParallelExplorations
//	without -tags schedcheck Explore refuses and Check skips      TestWithoutSchedcheckExploreRefusesAndCheckSkips
//	the skip is said once per binary; the switch makes it fail    TestSkipIsSaidOncePerBinary, TestRequireSchedcheckFails
//	a plain check-then-set and a racy publish are data races      TestPlainCheckThenSetIsARace, TestPlainBufferPublishedByARacyIndex
//	plain accesses are scheduling points                          TestPlainAccessesAreSchedulingPoints
//	every happens-before edge orders; a read before it races      TestHappensBeforeEdges, TestStoreDoesNotAcquire
//	each forgotten edge is a false race; race-never misses it     TestRaceCheckerFaultsAreCaught
//	channels, select, Cond, Cancel, compare_exchange explored     TestChanUnderTheExplorer, TestChanBlockingIsModelled, TestSelectUnderTheExplorer, TestCondUnderTheExplorer, TestCancelUnderTheExplorer, TestCompareExchangeUnderTheExplorer
//	DPOR: DFS's classes and end states on those primitives        TestDPORMatchesDFSOnPrimitives
//	their trace lines                                             TestPrimitiveTraceLines
//	read-modify-writes print old -> new, a lost CAS what it saw   TestReadModifyWritesSayOldAndNew
//	Format prints a cell's values; a pointer CAS names objects    TestFormatPrintsPackedWords, TestPointerCASNamesTheObjects
//	Check's report gives each step's file:line                    TestCheckReportsFileLines
//	KeepGoing collects each distinct failure once                 TestKeepGoingCollectsDistinctFailures
//	a deadline is Incomplete, inconclusive, not a Failure         TestSpinForeverHitsTheDeadline, TestDeadlineCutsALongExploration, TestCheckKeepsWithinTheTestDeadline
//	Drain runs last, explored; a drain that blocks is a deadlock  TestDrainRunsAsAnExploredThread
//	SCHEDKIT_EXPLORE_* set options; bad values are refused        TestOptionsFromTheEnvironment
//	a token holds any schedule, a long spin in tens of bytes      TestCompactReplayToken
//
// # Compared with loom, Lincheck, CHESS and GenMC
//
// What each does that this explorer does not, and the reverse. Each claim
// about another tool was checked against its own documents: loom's README
// and loom::model::Builder (docs.rs, 0.7), Lincheck's guide on
// kotlinlang.org, CHESS's OSDI 2008 paper and its team's talk "Concurrency
// Checking with CHESS: Learning from Experience", GenMC's manual and its
// 2021 tool paper.
//
// loom (Rust) runs a loom::model closure again and again under the C11
// memory model, after CDSChecker: besides interleavings it explores the
// values a relaxed or acquire load may read. Here memory is sequentially
// consistent (Limitations), as Go's sync/atomic is, so weak-memory bugs
// are out of scope; loom's own README lists the gaps of its model (SeqCst
// taken as AcqRel, no load buffering). Its preemption_bound
// (LOOM_MAX_PREEMPTIONS) is Options.Bound; its UnsafeCell, whose with and
// with_mut accesses are checked for causality, is atomicx.Plain. loom's
// types replace std's under cfg(loom) in the crate's own source; here
// schedkit explore rewrites sync/atomic and sync without an edit (Unmodified
// code). A spin lock under loom fails with "Model exceeded maximum number
// of branches" (max_branches); here a yielding spin is scheduled fairly and
// runs to its end, and only a fair livelock fails, its cycle shown once
// (examples/*/spin_test.go). loom can checkpoint a long search to a file
// and resume it; the explorer cannot (a failure's replay token is all it
// keeps). Linearizability is not loom's: a separate crate builds it on top.
//
// Lincheck (Kotlin, JVM) takes declared operations (@Operation) and a
// sequential specification, generates concurrent scenarios, checks their
// results for linearizability and minimizes a failing scenario; so does
// explore/lincheck. Lincheck tests a class as written, inserting its
// thread switches at shared-memory accesses and synchronization points;
// here the code is on atomicx or rewritten to it. It also has a stress
// mode on real threads, which the explorer does not (the repository's
// real-runtime tests are separate). Its model checking, sequentially
// consistent like this one, explores a bounded number of schedules per
// scenario (invocationsPerIteration); explore/lincheck runs every
// interleaving of a scenario within the preemption bound, or every class
// under DPOR (Result.Complete says whether it finished), so a pass says
// more about the scenarios it generated. Both minimize a failure by
// removing operations (here: to a local minimum, see explore/lincheck).
//
// CHESS (Windows, Win32 and .NET) attaches to an existing program and takes
// control of its thread scheduling: no source change. The explorer took
// its preemption bounding (PLDI 2007) and its fair scheduling of yields
// (PLDI 2008, Fair scheduling above), but controls only a scenario's
// threads and atomicx's operations, in source it compiles. CHESS's team
// also lists store-buffer simulation (CAV 2008), which the explorer lacks,
// and data-race detection and automatic linearizability checking (PLDI
// 2010), which it has in Plain cells and explore/lincheck.
//
// GenMC (C and C++, and Rust, through LLVM IR) is a stateless model checker
// for weak memory models: RC11 by default, IMM, LKMM and SC; its DPOR is
// optimal (each consistent execution once), where source-DPOR with sleep
// sets here cuts some executions short (1.15 executions per trace on random
// programs, above). It reports races on non-atomic variables and some
// memory errors (a double free). Its manual requires finite traces, with
// infinite loops bounded, and data determinism; the explorer requires the
// determinism too, but runs unbounded spin loops to a fair end or a
// livelock report.
//
// The explorer's own: it explores Go, with a virtual clock (timeouts,
// sleeps) and modelled channels, select, Cond and cancellation; DFS, DPOR,
// PCT, random walks and byte-driven fuzzing of the same scenario; replay
// from a token of tens of bytes; and distinct failures collected in one
// run (KeepGoing).
//
// # Limitations
//
// Memory is sequentially consistent, as atomicx's operations are: weaker
// orderings are not explored. Plain memory outside atomicx.Plain cells is
// not seen, so a data race on it is invisible here (the race detector's
// job). Select takes the first ready case in the order given, where the
// runtime picks one at random: a scenario that needs the other choice
// lists its cases in the other order. A spin loop without a yield pins the default schedule on
// itself until MaxSteps. Fairness costs states that need a yielding
// thread's next step before some other runnable thread's next step: a
// yield is taken to mean "I wait for the others". The livelock rule and
// the await cannot see a thread's local variables: a spin that gives up
// after more than three fruitless tries, while every other thread spins or
// is blocked, is reported as a livelock, and under DPOR such a spin tries
// again only when nothing else can run, so its giving up is explored only
// there. DPOR is compared with DFS on yields inside spin loops only: with a
// yield in straight-line code, fairness makes whether a thread may run
// depend on which threads ran since its yield, which DPOR's races do not
// see, and it can miss states DFS reaches (two threads, "add c0; store c1;
// add c0" against "load c1; yield; swap c1": DPOR misses the swap before
// the store). A Mutex or Note shared between scenario threads and
// outside goroutines is not supported.
package explore
