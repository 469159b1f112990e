// Package future gives tasks of a schedkit executor typed results: Go (or
// Submit, from outside) runs a func returning (T, error) as a task and
// returns a *Future[T]; Wait parks the calling task until the result is
// set, so a task waiting on a future costs a goroutine and no M, and its P
// runs other tasks meanwhile (executor.Task.Park, the runtime's gopark).
//
// # Use
//
//	f := future.Go(t, func(t executor.Task) (int, error) { return work(), nil })
//	v, err := f.Wait(t)                  // inside a task: parks t, no M held
//	vs, err := future.All(t, f1, f2, f3) // fan-in: each result in order, the first error
//	v, err = f.WaitContext(ctx)          // from a goroutine outside the executor
//	<-f.Ready()                          // a channel, made on its first use only
//
// A panic in the func comes back from Wait as an *executor.PanicError with
// the panic's value and the goroutine's stack (built as the executor builds
// its own, whose constructor is unexported: Value, Stack from
// runtime/debug.Stack in the deferred recover); a runtime.Goexit comes back
// as one with Goexit set (and the executor also reports that Goexit, as it
// does every task's, to the task's PanicHandler or Close). A recovered panic
// is the future's result only: it is not passed to Config.PanicHandler.
//
// # How it mirrors the runtime
//
// The runtime has no futures; a Future is the wait queue that a channel's
// close runs (closechan: take every waiting sudog off the queue under
// c.lock, set closed, release the lock, then goready each one) with the
// receive side of chanrecv on a closed channel (the lock, the check of
// closed, else the sudog queued and gopark with the lock released by the
// unlockf):
//
//	Wait        chanrecv on c (block): lock, check closed, else publish the
//	            task's Waker (its sudog) on the queue, unlock, Park (gopark)
//	(set)       closechan: lock, store the result and closed, take the whole
//	            queue, unlock, close the Ready channel if made, then
//	            Waker.Ready(by) for each waiter in queue order (goready: into
//	            the runnext of the finishing task's P, the last readied runs
//	            next, the others go to the ring's tail in order)
//	Done        the lock-free closed check (chanrecv's !block fast path: empty
//	            && closed), one atomic load
//	Ready       a Go channel closed with the future: made on first use, under
//	            the lock, already closed if the result is set
//	WaitContext a select on Ready and ctx.Done: an outside goroutine blocks
//	            in the Go runtime, not on a P of the executor
//	All         sync.WaitGroup.Wait's shape for a list: wait for each in
//	            turn; a done one costs an atomic load, a pending one a park
//
// The finishing task readies the waiters, so they run next on its P and
// inherit its slice, as the runtime's goready puts the woken goroutine in
// runnext ("a runnable g' ready'd by the current g").
//
// # Invariants
//
//   - A result is set exactly once, by the task that ran the func, after the
//     func returned, panicked or called Goexit.
//   - No lost wakeup: a waiter checks for the result and publishes its Waker
//     in one critical section, and the setter stores the result and takes
//     the queue in one; so a waiter either sees the result or is on the
//     queue the setter takes. Park after the unlock: a Ready in between
//     makes Park return at once (executor's Parking state).
//   - Every waiter is readied exactly once (a second Ready of a Waker panics
//     in the executor), and each reads the one result; the fast path reads
//     the result after the done flag, which is stored after the result.
//   - The Ready channel, once made, is closed exactly once, when the result
//     is set (or at once, if made after).
//
// # Checks
//
// Each rule and the test that fails when it breaks:
//
//	value, error, panic, Goexit each come back       TestGoValueAndError, TestPanicComesBack,
//	  to every waiter                                TestGoexitComesBack
//	misuse panics naming the call                    TestMisusePanics
//	many waiters, each readied once, into the        TestManyWaiters, TestReadiedIntoRunnext
//	  finisher's runnext (Procs 1: before queued     (scenarios, synctest bubbles)
//	  work; Stats.TaskReadies, no OutsideReadies)
//	futures completed and waited in random orders    TestModel (rapid, in synctest bubbles)
//	  against a sequential model (tasks, outside
//	  waiters, Ready channels, All)
//	each result to every waiter exactly once         TestStress (-race; 1k futures under -short,
//	  (3 tasks and a run-of-8 All per future)         100k in long mode, at 1, 2 and 4 Ps)
//	complete against wait, two waiters (one with a   TestExplore (-tags schedcheck, waiters are
//	  Ready channel) against it                      explorer threads with a test waker; MustReach
//	                                                 no park, ready before park, parked)
//	10k tasks waiting cost no M (Ms <= Procs+2)      TestTenThousandWaitersNoM (1k under -short)
//	real runtime, GOMAXPROCS 1 and 2, outside load:  TestRealtimeFanIn (long mode; health ticker,
//	  a waiter resumes soon after its result         a busy child per core)
//	seeded mutants, each caught twice                TestKillMatrix (-tags schedmutant)
//
// The explorer runs the future's own protocol with the explorer's threads
// as waiters; the executor's park and ready beneath it are checked by the
// executor's explorer scenarios and proofs/tla/ParkReady.tla. The future
// has no TLA+ spec and no fuzz target of its own.
//
// The seeded mutants (mutation.go): WakeFirstOnly (set readies only the
// first waiter, semrelease's one-waiter shape where close's all-waiters is
// needed), CheckOutsideLock (Wait publishes its Waker without re-checking
// the result under the lock: the lost wakeup gopark's unlockf prevents),
// ChanNotClosed (set leaves a made Ready channel open) and ReadyFromOutside
// (set readies waiters as an outside goroutine, into the global queue,
// instead of the finisher's runnext).
//
// bench/future_test.go measures a fan-out/fan-in of 100k futures against
// errgroup with a results slice, pond's and conc's result pools.
package future
