// Package timers is the per-P timer heap of the Go runtime (runtime/time.go):
// timers that run a func once a P's clock reaches their when, kept in one
// heap per P, run by that P at each schedule and by an idle P in its steal
// pass, and stopped or reset from any goroutine.
//
// # Use
//
// The executor keeps one Heap per P. A Timer is a func and its argument;
// Heap.Add arms it on the caller's P, Stop disarms it from anywhere, Reset
// does both. The clock is passed in (now, in nanoseconds), so the heap reads
// no time of its own:
//
//	var heap timers.Heap                       // in each P; the zero Heap is empty
//	t := timers.NewTimer(readyTask, task)      // or t.Init(f, arg) on a Timer in a record
//	heap.Add(t, now+d)                         // a task's Sleep(d), on its P
//	t.Stop()                                   // true: stopped before it fired
//	heap.Reset(t, now+d2)                      // re-arm, wherever it was
//	heap.Run(now, 64)                          // findRunnable, at each schedule
//	if w := p2.Next(); w != 0 && w <= now {    // an idle P's steal pass: no lock
//		p2.Run(now, 64)                        // runs the other P's expired timers
//	}
//	sleepUntil := timers.Earliest(heaps)       // an M parks no longer than this
//
// Add and Reset wake nobody: an executor whose M sleeps until Earliest must
// wake it when it arms a timer earlier than that M's deadline, as the
// runtime's addtimer and modtimer call wakeNetPoller(when).
//
// Example runs a P's timers, a thief's pass and a parking M's bound. The
// func runs on the goroutine that called Run, with no lock held, as
// f(arg, seq, delay): seq is the arming that fired (1 for the timer's first
// Add or Reset, then 2, ...), delay how late it ran (now - when, never
// negative). It may arm, reset or stop timers on any heap, its own included.
// It must not block for long: the timers behind it on that heap wait.
//
// # How it mirrors the runtime
//
//	Heap              timers (p.timers)          a 4-ary min-heap of (when, timer) under its own lock
//	Heap.Add          addtimer: maybeAdd, addHeap   arm a disarmed timer on this heap
//	Timer.Stop        deltimer: (*timer).stop    disarm; true if the arming had not fired
//	Heap.Reset        modtimer, resettimer:      disarm as Stop does, then arm on this heap
//	                  (*timer).modify, reset
//	Heap.Run          (*timers).check, run,      fire what has expired, earliest first, at most max,
//	                  (*timer).unlockAndRun      each func outside the lock (checkTimers, runtimer)
//	Heap.Next         (*timers).wakeTime         the earliest when, one load: findRunnable's pollUntil,
//	                                             stealWork's "does p2 hold an expired timer"
//	Heap.Len          timers.len                 the entries, one load
//	Heap.Take         (*timers).take, from       move every arming of another heap here, keeping its
//	                  (*p).destroy               when and seq (a P taken out of service)
//	Earliest          timeSleepUntil,            the earliest Next of several heaps: how long the last
//	                  checkTimersNoP             M may sleep
//
// Two choices differ from the runtime, each stated with its invariant below.
// Deletion is eager: Stop and Reset take the heap's lock and remove the
// entry at once (each timer knows its index), where the runtime marks a
// zombie and leaves it for the owner's adjust; so a heap holds only live
// armings, Next is exact and Len counts timers, at the cost of one lock of
// the timer's heap per Stop. And the runtime's per-timer lock, which Run
// also takes, is here taken only by the mutators (Add, Stop, Reset): Run
// decides fire against stop with one CAS of the timer's state word, a
// generation count with a pending bit, so a Run never waits for a Stop.
//
// In proofs/tla/Timers.tla the actions carry these names: Add, Reset and
// Stop are the mutators' steps, RunPop (the lock held: pop the earliest
// expired entry, read its state word) and RunFire (the CAS, then the func)
// are Run's, and the earliest-when cell is a variable read without the
// lock. proofs/tla/README.md has the table.
//
// # Invariants
//
//   - A timer's state word is gen<<1 | pending. An arming (Add, Reset) adds
//     one to gen and sets pending, with the timer's lock and the heap's lock
//     held, before its entry is pushed. Pending is cleared exactly once per
//     arming, by CAS: by the Run that fires it or by the Stop (or Reset) that
//     stops it. So each arming fires at most once, is stopped at most once,
//     never both, and Stop's answer says which happened.
//   - While a heap holds an entry of a timer, the timer's gen is that
//     entry's arming (re-arming needs the entry gone: Stop and Reset unlink
//     it under the heap's lock, Run pops it), so the word Run reads under
//     the lock as it pops names the popped arming; a later arming has a
//     larger gen and that Run's CAS fails. A timer has at most one entry in
//     all heaps; while its lock is free, a disarmed timer has none.
//   - Heap order: each entry's when is at most its four children's; Run
//     pops the earliest, so it fires expired timers in when order (equal
//     whens in any order) and stops at the first unexpired one or at max.
//   - The count and earliest-when cells are stored under the lock after
//     every change, so whenever the lock is free they equal the heap's
//     length and its top's when (0: empty). Each change takes effect at its
//     store of the cells, so a Next that starts after an Add (or Reset)
//     has returned reports that arming's when or an earlier one, unless it
//     has fired or been stopped since: an M that parks until Earliest
//     misses no timer armed before its loads (one armed after them is the
//     executor's to wake it for, below).
//   - A func runs with no lock held, after its arming was claimed; a heap
//     clears the slot of every entry it removes, so it keeps no stopped or
//     fired timer reachable.
//   - A when below 1 is stored as 1: 0 is Next's "no timer".
//   - Memory: an entry is 16 bytes; a heap's slice grows to the most
//     timers it has held at once and is not shrunk (as the runtime's), and
//     once grown, Add, Stop, Reset and Run allocate nothing. A Timer is
//     64 bytes on 64-bit; embed it (Init) to spare an allocation per timer.
//
// # Misuse
//
// A zero Heap is ready; a Timer needs its func (NewTimer, Init). A nil
// timer, a timer without a func, Add of a pending timer (Reset re-arms
// one), a nil func, and Run with max < 1 panic with a message that names
// the call. Heaps and timers hold locks and must not be copied after first
// use (go vet's copylocks check). Every operation may be called from any
// goroutine; Init only before the timer is first armed.
//
// # Properties and the tests that fail when they break
//
//	fires in when order, at now >= when, at most max, seq and delay right
//	    TestRunFiresInWhenOrderWithDelay, TestRunStopsAtNowAndAtMax, TestTimersModel,
//	    FuzzTimers, TestScenarios/sift-order, TestLinearizable; Timers.tla NoEarlyFire
//	each arming fires or is stopped, exactly once, never both
//	    TestStressExactlyOnce, TestExploreTimers (fire-vs-stop, reset-vs-run,
//	    steal-vs-owner), TestScenarios/stop-races-fire, TestScenarios/reset-races-run,
//	    TestLinearizable (a runner per heap);
//	    Timers.tla FiredXorStopped, Conservation, AllAccounted
//	Stop and Reset say whether they stopped an arming; eager deletion
//	    TestStopBeforeAndAfterFire, TestStopOfTheTopUpdatesNext,
//	    TestResetRearmsAndMovesBetweenHeaps, TestTimersModel, FuzzTimers
//	Next and Len are the heap's earliest when and length when the lock is free
//	    TestTimersModel, FuzzTimers, TestScenarios/add-then-next, TestExploreTimers;
//	    Timers.tla NextCell
//	Take moves each pending arming once, keeping when and seq; one a Run
//	  popped fires there, one stopped is not moved
//	    TestTakeMovesEveryArming, TestExploreTimers (take-vs-run-stop: Take
//	    against a late Run of the source and a Stop)
//	    [TestExploreTakeCatchesNoTimerLock]
//	Run with nothing expired, Next and Len take no lock
//	    TestUnexpiredPathsTakeNoLock (-tags schedcheck)
//	a func runs with no lock held and may use its heap
//	    TestFuncMayUseTheHeap, TestScenarios/func-rearms-on-its-heap, TestExploreTimers
//	    (steal-vs-owner re-arms from the func); Timers.tla (a deadlock)
//	nothing kept reachable; no allocation once the heap has grown
//	    TestHeapKeepsNoStoppedOrFiredTimer, TestSteadyStateDoesNotAllocate
//	misuse panics naming the call
//	    TestMisusePanicsNamingTheCall, TestTimersModel, FuzzTimers (Add of a pending timer)
//
// The seeded mutants (mutation.go) and what kills them, two deterministic
// checkers each (killmatrix_test.go prints the table):
//
//	StopAfterFire    Stop decides by a load and a store    explorer (fire-vs-stop), scenarios
//	ClaimIgnoresGen  Run's CAS re-reads the word           explorer (reset-vs-run), scenarios
//	RunUnderLock     the func runs under the heap's lock   explorer (steal-vs-owner: deadlock), scenarios
//	NextNotUpdated   Add leaves the earliest-when cell     model, scenarios (and the explorer)
//	HeapSiftWrong    siftDown sees two of four children    model, scenarios
//
// # Where each rung of the ladder lives
//
//	unit tests             timer_test.go, scenarios_test.go, example_test.go
//	state machine (rapid)  model_test.go           TestTimersModel (two heaps against sorted lists)
//	fuzz targets           ../fuzz/timers_fuzz_test.go  FuzzTimers, ../fuzz/timers_interleaved_test.go FuzzTimersInterleaved
//	race stress            stress_test.go          TestStressExactlyOnce (a watchdog per run)
//	explorer               explore_test.go         TestExploreTimers (-tags schedcheck, bound 2)
//	linearizability        linearize_test.go       TestLinearizable (two mutators, a runner per heap; a Reset
//	                                               checked as its stop and its arming, a Run as one step per fire)
//	TLA+                   ../proofs/tla/Timers.tla (README.md there: the actions and states)
//	seeded mutants         mutation.go, killmatrix_test.go (-tags schedcheck,schedmutant)
//	benchmark              ../bench/timers_test.go (against container/heap under a sync.Mutex)
package timers
