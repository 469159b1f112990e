// Package executor is a task executor that schedules tasks the way the Go
// runtime schedules goroutines, composed from schedkit's verified
// components and nothing else: every P owns a runnext.Queue (a runnext
// slot before an lfq.Ring), submits from outside go to one globalq.Queue,
// idle Ms steal through a stealing.Stealer, and spinning.Sched does the
// spinning-M accounting, parking and wakeups.
//
//	e, _ := executor.New(executor.Config{})     // GOMAXPROCS Ps
//	e.Go(func(t executor.Task) {                 // from any goroutine
//		t.Go(func(executor.Task) { ... })        // local spawn: this P's runnext
//		g, _ := t.NewGroup(ctx)                  // fork-join
//		g.Go(func(executor.Task) error { ... })
//		_ = g.Wait()                             // runs queued tasks while it waits
//	})
//	e.Close()                                    // runs everything accepted, then stops
//
// # Ps, Ms and the schedule loop
//
// There are Procs Ps. An M is a goroutine (a worker) with a spinning.M; at
// most Procs Ms hold a P at any instant (spinning's idle set hands each P
// to one M), and an M without work parks on spinning's idle list and is
// reused. More Ms are started only when a P is handed off and no M is idle
// (spinning's NeedM, the runtime's newm): after Blocking, a retake, a Wait
// that sleeps.
//
// Each operation mirrors a function of the runtime's proc.go:
//
//	Executor.Go, GoBatch   newproc from outside a P: globrunqput(batch), wakep
//	GoContext, TryGo       no runtime counterpart (see Overload)
//	Task.Go                newproc: runqput(next=true) into the P's runnext; the
//	                       displaced task to the ring; a full ring's half to the
//	                       global queue in one batch (runqputslow); wakep unless an M
//	                       spins (with no P idle it asks for a spinner: needspinning)
//	task records           gfget, gfput, sched.gFree (gfree.go): a P reuses the
//	                       records of its finished tasks (64 at most), moves 32 to
//	                       a global free list in one lock when full and refills 32
//	                       from it when empty; an outside submit takes its record
//	                       from it (one uncontended lock, none when it is empty)
//	schedule               schedule: findRunnable, execute, again
//	findRunnable           findRunnable: every 61st tick one global task
//	                       (globalq.FairnessTick); runnext (inherits the slice);
//	                       the ring; a global batch (globrunqgetbatch, n =
//	                       min(len, len/Procs+1, 128)); stealing's four passes
//	                       (stealWork, runnext only on the last) if the spinning
//	                       rule lets the M spin; then releasep, pidleput, the
//	                       drop-and-recheck (spinning.M.DropSpinning over
//	                       Executor.work, checkRunqsNoP) and stopm
//	execute                execute: resetspinning; schedtick++ unless inherited
//	run                    goexit0, with recover: panics to the group or handler
//	sysmon, retakeAll      sysmon (20µs doubling to 10ms, sleep when all Ps idle)
//	                       and retake: a P whose slice (schedtick unchanged) ran
//	                       past Config.Slice while work waits is asked to end it
//	                       (p.preempted, preemptone), and a round later, if a task
//	                       still holds it, taken (CAS of its status word) and
//	                       handed off (handoffp)
//	kickSysmon, usleep,    sysmon's usleep on a thread of its own: sysmon is a
//	spinForCall            goroutine on a Go timer, so while a call is in
//	                       pSyscall an M wakes it when its round is overdue (the
//	                       Ms run timers at their scheduling points: checkTimers
//	                       in schedule); the last M to enter a call wakes its
//	                       doze (wakeSysmonForCall, with sysmon's look again
//	                       after publishing it), and while no M runs it waits
//	                       for the earliest call's threshold on the CPU, yielding
//	                       its Go P at every turn (with nothing due, in
//	                       nanosleep: the runtime's usleep); SysmonDoze.tla
//	helpRetake             retake's _Psyscall case (pp.syscallwhen: callSince) done
//	                       by an M between tasks (every kickEvery tasks while a
//	                       call is in progress), since sysmon's round waits for a
//	                       Go P: a call past SyscallThreshold while work waits is
//	                       retaken at the threshold plus a few tasks
//	                       (TestSyscallLateSysmonKicked; TestSyscallShortNotHelped:
//	                       not before it; HelpRetakeEarly)
//	boot                   no runtime counterpart (it makes Ms only in startm's
//	                       newm): New returns once its Procs Ms have parked
//	Task.Blocking          entersyscallblock (handoffp at once), then exitsyscall
//	Task.Syscall           entersyscall: the P stays with the call (pSyscall),
//	                       then exitsyscall: exitsyscallfast's CAS back to the
//	                       same P, else exitsyscall0 (an idle P, else wait)
//	Config.MaxBlocking     no runtime counterpart (debug.SetMaxThreads only kills
//	                       the process): errgroup's SetLimit, a semaphore of
//	                       slots taken before each Blocking or Syscall call;
//	                       past it the call parks (Task.Park, no M) and a
//	                       returning call hands its slot to the oldest waiter
//	                       (semrelease's handoff, FIFO) readied into its
//	                       runnext (blockcap.go; blockcap_test.go: at most
//	                       Procs + MaxBlocking Ms; mutants CapReleasesEarly,
//	                       CapNoWake)
//	retakeSyscall          retake's _Psyscall case: a call seen by sysmon for
//	                       SyscallThreshold (syscalltick unchanged) while work
//	                       waits, or for a Slice in any case, loses its P
//	                       (handoffp); with work queued on it an M runs that
//	                       work (startm) and a task back from a call that
//	                       waits for a P queues behind it, else the P goes to
//	                       that task (handToWaiter): retakeServes
//	reacquire, waitP       exitsyscall: an idle P (pidleget), else the task's resume
//	                       token goes to the global queue and it parks (exitsyscall0)
//	resume                 execute of a goroutine that exitsyscall0 or Gosched queued
//	Task.Yield             Gosched (goschedImpl): globrunqput, then schedule
//	Task.Join              no runtime counterpart (Rayon's join): b to the ring's
//	                       tail (runqput next=false), a called inline, b taken
//	                       back (its claim word) or waited for (join.go)
//	Group.Wait (in a task) no runtime counterpart: runs its group's children that
//	                       have not started, then other queued tasks, while it waits,
//	                       on a helper goroutine of the M (a coroutine)
//	ready                  ready: the woken waiter's token goes to the waker's runnext
//	checkDead              checkdead: Close's quiescence (every M idle, no work,
//	                       no task parked)
//	Task.Waker, Task.Park  gopark: the task publishes its Waker, then parks; its
//	                       P and M go on (handOn) to the task whose token runnext
//	                       holds (the direct switch) or a spare worker (park.go)
//	Waker.Ready            goready (ready: runqput next=true, wakep): the parked
//	                       task's token to the waker's runnext, or from outside
//	                       the global queue
//	Task.Sleep             timeSleep: the worker's timer on its P's heap, then
//	                       gopark; the timer readies it (goroutineReady)
//	checkTimers            checkTimers at the top of findRunnable: the P's expired
//	                       timers run, what they ready goes to its runnext
//	stealTimers            stealWork's timer pass: a spinning M runs the other
//	                       Ps' expired timers before it steals
//	sysmonTimers, timerCap sysmon's timeSleepUntil and wakeups for timers: with
//	                       every P idle it sleeps until the earliest timer, else
//	                       each round's sleep ends by it (a call's pace too), and
//	                       it runs timers of idle Ps and of held Ps a round
//	                       overdue (no timer waits past a round and 20µs)
//	AfterFunc, GoTimeout   time.AfterFunc (goFunc) and context.WithTimeout, on the
//	                       executor's heaps: the task is spawned where the timer runs
//	OpenFD, FD             poll_runtime_pollOpen and internal/poll's FD: epoll
//	                       (netpollopen, edge-triggered), a netpoll.Desc per fd,
//	                       FD.Acquire/Release as fdMutex (poll.go, poll_linux.go)
//	FD.WaitRead, WaitWrite poll_runtime_pollWait: the task parks on the Desc
//	                       (netpollblock, netpollblockcommit); an outside
//	                       goroutine blocks on a note
//	FD.SetReadDeadline ... poll_runtime_pollSetDeadline: a timer on P 0's heap,
//	                       netpolldeadlineimpl by generation
//	FD.Close, evictAll     poll_runtime_pollUnblock then netpollclose; Close
//	                       evicts every descriptor first
//	poller.event,          netpoll's loop over epoll's events: netpollready
//	readyFired             (netpollunblock per direction, the stale fdseq tag
//	                       dropped) and netpollgoready: the token to the fired
//	                       stack, claimed as goready's casgstatus
//	pollIdle               findRunnable's netpoll(0) before stealing: what it
//	                       readies goes to the polling P's queue (injectglist)
//	sysmonPoll             sysmon's netpoll(0) while a P idles, or after 10ms
//	mPoll, poller.block    findRunnable's blocking netpoll(delay): an M that parks
//	                       while tasks wait for I/O blocks in epoll_wait until
//	                       the next timer (one poller at a time, sched.lastpoll),
//	                       else sysmon's all-idle sleep does; an eventfd write
//	                       (netpollBreak) from stop, Close and timers breaks it
//	                       (explorer: poll_explore_test.go, its kernel faked;
//	                       mutants BlockSkipsRecheck, WakeSysmonNoBreak,
//	                       PollReadyNoClaim)
//
// # Ownership: the P's status word
//
// A P's status word (the runtime's p.status) holds a state and the id of
// the worker that holds the P. pIdle: nobody. pSched: the holder runs
// scheduler code and alone uses the P's queue. pTask: the holder runs a
// task; sysmon may retake the P by CAS after a Slice (there is no
// preemption), and the task's handle may lock the queue for a spawn by CAS
// to pSpawn. pSyscall: the holder's task is in Task.Syscall (the runtime's
// _Psyscall); only the holder moves pTask to pSyscall and back, by CAS, and
// sysmon retakes the P by CAS once the call has lasted SyscallThreshold
// (20µs) while work waits. Every change that can race is a CAS that
// names the holder, so a worker whose P was retaken fails its next CAS and
// never touches that P again; its task goes on without a P (its spawns go
// to the global queue) and, when it ends, its M takes an idle P or parks,
// in exitsyscall's order.
//
// The Task a func receives is the only way to reach a P's owner-side queue
// methods. It names its worker and the generation of the task; used after
// the task returned, Go panics naming the call and Blocking and Yield
// return ErrNotInTask. In pTask, pSpawn and pSyscall the status word also
// holds the generation of the holder's innermost task (issue 25): a task's
// start is one store of that word and its end one CAS from it, and a
// spawn's CAS to pSpawn is also the check that its Task is the running
// one; a worker's cur names the task only while it runs without a P
// (proofs/tla/TaskGen.tla; TestStaleTaskRejected checks a returned Task,
// and an outer one inside its Wait, against the next task on the same P,
// the seeded fault StaleGenAccepted its broken variant). Passing a Task to another goroutine while the task
// runs is misuse the executor cannot detect, but cannot corrupt a queue
// either: every queue access through a Task holds the status word.
//
// A task that lost its P to sysmon runs on without one, since nothing can
// preempt it: while it runs, it is a task beyond the Procs that hold Ps
// (as a goroutine in a system call is in the runtime). It takes a P again
// at its next Blocking, Syscall or Yield, or in a Wait that has to sleep.
//
// A task waiting for a P (after Blocking, in Yield, in a Wait that found
// nothing to run) parks on its worker's note; its resume token (a record in
// the worker) sits in a queue, and the M that runs it hands over its P by
// swapping spinning.Ms with the waiting worker: spinning's accounting moves
// with the P.
//
// A Group has errgroup's shape except that its funcs take the Task, as
// every task's func does, so that they can spawn and make groups of their
// own: g.Go(func(executor.Task) error { return f() }) adapts an errgroup
// func. Its context is made only when first asked for (Done or Value), so
// a group nobody asks costs one allocation.
//
// # Fork-join: own children first, claimed once
//
// A Wait inside a task runs its own group's children first. A queue can
// only hand out its oldest task (the ring is FIFO), and the oldest is
// usually an ancestor's other child, with a subtree under it: a Wait that
// ran it would nest Waits on its M as deep as the number of tasks, not the
// tree's depth. So a group child's record is reachable twice: from the
// queue it was spawned into (which thieves steal from) and from its
// group's kids list (a CAS-pushed stack a Wait takes whole by Swap). Its
// claim word decides who runs it: the Wait that takes it off the list, or
// the M (owner or thief) that dequeues it, whichever CASes the word first;
// a dequeued record already claimed is dropped without counting as a
// task. Its two references are counted: the record is recycled (gfput)
// when both are gone, never while either side could still read it. A Wait
// looks at its P's queue head first (the child spawned last sits in
// runnext): an own child there leaves the queue at once; a claimed record
// is dropped; another task is put back, not run. Only with none of its
// own left does it help with other queued work, so its P never idles
// while work waits.
//
// # Join: a binary fork-join without a group
//
// Task.Join(a, b) puts b's record at the ring's tail, where a thief may
// take it at once (the work-first rule), calls a, and takes b back by its
// claim word; the ring drops the claimed record unrun later (a get, a
// steal, or a Join's overflow, which recycles it). A thief that
// claimed b first runs it as a task; the Join helps or sleeps until b's
// end (joinFinish, whose Swap of the join state is its last touch). Its
// state is a Group that no handle reaches, kept on the M's free list and
// reused: so a Join allocates nothing, where a Group costs one allocation
// and a Wait a coroutine switch pair. A NewGroup's *Group is not reused:
// the user may hold it after Wait (a second Wait must return the same
// error, a Go must panic), and a pointer carries no generation that
// could tell a reused group from the old. Use Join for two-way divide and
// conquer, a Group for n children, errors, a context, or a Wait elsewhere.
// Join's sides are calls of the calling task: a panic in either comes
// back from Join as a *PanicError after both ran; runtime.Goexit in
// either ends the calling task after the other side has finished.
//
// # Waiting: park and ready, timers
//
// A task that waits (on a taskchan, a future, a timer, the blocking cap,
// or a structure of your own) parks: Task.Waker starts the wait, the task
// publishes its Waker under its structure's lock, unlocks, and calls
// Task.Park; whoever ends the wait calls Waker.Ready with its own Task (or
// the zero Task from outside). The parked task keeps its goroutine (its
// stack) and gives away what makes it an M, its spinning.M and its P, so
// 10,000 parked tasks cost 10,000 goroutines and no M: Stats.Ms stays at
// Procs plus the Ms of blocked calls. The ready puts the task's resume
// token in the waker's runnext, so a producer and its consumer run back to
// back on one P, the consumer in the producer's slice. A park word per
// worker (its seq and a state: running, parking, waiting, runnable) is
// decided by CAS on both sides: a Ready before the park's commit makes
// Park return at once with the P kept, after it queues the token; a second
// Ready of one Waker panics. proofs/tla/ParkReady.tla checks the protocol
// (no lost wakeup, resumed at most once per park, never before parked).
// Close waits for parked tasks as for running ones: a task parked for ever
// keeps Close waiting, as a goroutine blocked for ever keeps a WaitGroup.
// Shutdown's deadline counts a parked task as running: it is not dropped,
// and one readied after the deadline goes on (with no P) at the later
// Close. A task that parks holding no P (in Blocking's or Syscall's f, or
// with its P just retaken) keeps its M while parked, and resumes holding
// the P of the M that runs its token, so the rest of such an f runs on a P
// (sysmon retakes it past a slice while work waits). A Join that waits for
// its stolen b still hands its P off and sleeps with its M; a Wait parks.
//
// Each P keeps its timers in a timers.Heap. Task.Sleep parks with the
// worker's timer armed on its P; the M that runs the timer (the P's holder
// at its next schedule, a spinning M's timer pass, or sysmon) readies the
// task into its own P's runnext. AfterFunc's timer spawns a task the same
// way; GoTimeout's cancels the task's context. A timer fires no earlier
// than asked, and no later than a sysmon round (min(10ms, Slice/8)) and
// 20µs after while every M is busy; with every P idle, sysmon sleeps until
// the next timer and wakes an M for it. The task a timer readies while
// every P is held by a long task waits for a P: a holder's end, or
// sysmon's retake of a P whose slice overran. An AfterFunc still pending when Close finds
// the executor quiescent never fires.
//
// # Waiting for sockets: the network poller
//
// Executor.OpenFD registers a non-blocking descriptor with the executor's
// epoll instance (made at the first call), edge-triggered for both
// directions; package tasknet builds TCP listeners and connections on it.
// A task whose read or write found EAGAIN waits with FD.WaitRead or
// WaitWrite: it parks on the descriptor's netpoll.Desc, whose semaphore
// and commit CAS make an event racing the park neither lost nor delivered
// twice (proofs/tla/PollDesc.tla), and its P goes on. Three pollers ready
// it, as the runtime's: an M whose queues and the global queue are empty
// polls without blocking before it steals, and runs what it readied on its
// own P; sysmon polls at each round while a P idles (or after 10ms while
// every P is busy) and readies into the global queue; and an M about to
// park while tasks wait blocks in epoll_wait itself until the next timer
// (one such poller at a time; with every P idle and no M polling, sysmon's
// sleep is that epoll_wait), runs what it readied on an idle P, and is
// broken through an eventfd by Close, stop or an earlier timer. Deadlines are
// timers on P 0's heap; an expired one wakes the waiter with
// os.ErrDeadlineExceeded. FD.Close wakes its waiters (net.ErrClosed) and
// closes the number after the operations in progress (Acquire, Release);
// Executor.Close and Shutdown first evict every descriptor, so a task
// parked on a socket wakes with ErrPollerClosed and Close does not wait
// for a peer that never writes.
// Under -tags schedcheck the poller is the explorer's fake kernel and OpenFD fails outside a scenario (TestOpenFDFailsWithoutExplorer).
//
// # Ps that change at run time
//
// Executor.SetProcs(n) is the runtime's procresize (GOMAXPROCS(n)) without
// stopping the world (resize.go). Every P made stays in allPs (allp, which
// only grows) and in every scan that must not miss a task or a timer; the
// Sched and the Stealer know the n in service:
//
//	grow                   procresize's new Ps: made or brought back idle
//	                       (spinning's AddP), the victim order remade for n
//	                       (randomOrder.reset), then wakep if work waits
//	shrink                 (*p).destroy, with only the P taken away quiesced:
//	                       spinning's RetireP takes an idle P out at once, or
//	                       marks a held one so its release retires it; an M
//	                       between tasks sees p.dying in findRunnable and lets
//	                       it go (M.DropP); a task's P is retaken (retake
//	                       retires a dying P); then SetProcs alone moves
//	                       runnext and ring to the global queue in one batch
//	                       and wakes an M; its timers go to an idle P in
//	                       service, else P 0 (destroy's timers.take, which
//	                       moves them to procresize's own P: SetProcs may
//	                       have none), each arming kept (timers.Heap.Take)
//	Config.Procs 0         sysmon reads GOMAXPROCS once a second (the
//	                       runtime's own re-read of the CPU limit) and
//	                       resizes to it
//
// Why no world stop is needed: once RetireP reports a P out, no M holds it
// and none will be handed it, so its queue has one owner (SetProcs), and
// thieves with an older Stealer only race with that owner's gets, as with
// any owner. While SetProcs holds the tasks it counts as a submit in
// flight (Close waits), and the drop-and-recheck skips a dying P's queue
// because SetProcs wakes an M once the tasks are on the global queue.
//
//	promise                                            test
//	bad counts refused, ErrClosed, Procs/Stats true    resize_test.go TestResizeRejectsBadCounts
//	a P taken away hands runnext and ring on before    TestResizeMovesTheQueue (bubble, counters:
//	  SetProcs returns (no sysmon round needed)          Stats.Moved, QueueLen)
//	a new P is woken for queued work                   TestResizeGrowWakes (bubble)
//	Close/Shutdown never quiescent mid-move            TestResizeCloseBetween (bubble, hook)
//	Procs 0 follows GOMAXPROCS                         TestResizeFollowsGOMAXPROCS (bubble clock)
//	1,000 resizes under a flood: exactly once          TestResizeStress (-race, GOMAXPROCS 1, 2)
//	resize vs steal, submit, Close; grow vs submit     resize_explore_test.go TestExploreResize
//	                                                     (explorer, DPOR, 300 executions each)
//	a P taken away hands its timers on before          TestResizeMovesTimers (bubble: the heaps' lengths,
//	  SetProcs returns; each fires exactly once          a moved timer stopped, the rest fired once each)
//	seeded faults ResizeDropsRunnext, ResizeNoWake,    killmatrix_test.go (resizemove, resizegrow,
//	  ResizeNotInflight, ResizeLeavesTimers              resizeclose, resizeshutdown, resizetimers,
//	                                                     resizetimers2)
//
// # Overload
//
// The runtime queues goroutines without bound; a producer that outruns
// the Ms would grow the global queue until memory runs out. So, as pond's
// WithQueueSize, ants' blocking submit and errgroup's SetLimit do,
// Config.MaxQueued bounds the outside tasks accepted and not yet started.
// The bound is checked in submit (Executor.Go, GoBatch, GoContext, TryGo,
// an outside group's Go) and nowhere else: local spawns and a task's
// group children are never refused or counted, so fork-join never waits on
// room. A counted task frees its room when an M takes it to run (execute)
// or drops it at Shutdown. Without a bound, submit pays one predictable
// branch and nothing is counted. A submitter without room waits in line
// (Go, GoBatch, GoContext until its context ends) and each freed room
// wakes the first; Close and Shutdown wake them all with ErrClosed. A task
// that has to wait hands its P off first, as Blocking does.
//
// # Invariants
//
//   - Every task accepted (a submit that returned nil, every local spawn,
//     every group task) runs exactly once, or, past a Shutdown deadline, is
//     dropped and counted; never both, never twice. Shutdown's count holds
//     every task queued at its deadline.
//   - Under Config.MaxQueued at most MaxQueued outside tasks are accepted
//     and not started; a submitter waiting for room is woken when room
//     appears (no lost wakeup), when its context ends, or by Close.
//   - At most Procs Ms hold a P, and a P is used by at most one goroutine at
//     a time: its status word's holder in pSched, or a holder of pSpawn.
//   - No lost wakeup: while a task is queued and a P is idle, some M is
//     spinning or about to be started (spinning's protocol; work is every
//     queue, local ones included).
//   - A task cannot keep its P past the slice while work waits for that P.
//     sysmon first asks the holder to end the slice at its next get
//     (preemptone); if a round later the same task still holds the P,
//     sysmon takes it (retake). A runnext ping-pong shares one slice, and
//     ends at the request with no handoff and no new M.
//   - A global task waits at most 61 ticks of a busy P (its fairness check),
//     unless global tasks queued before it.
//   - A Wait inside a task never idles its P while tasks are queued on it:
//     nested fork-join on every P at once finishes without sysmon.
//   - A Wait runs its own group's children before other queued tasks, so
//     Waits nest on an M about as deep as the task tree (its depth on one
//     P), whatever the number of tasks.
//   - After sysmon's request (or a retake) for an overrun slice, the P's
//     runnext task does not inherit the slice: it goes to the global
//     queue's tail (as gopreempt_m puts a preempted goroutine there), so
//     the tasks queued behind a runnext ping-pong run next. The request is
//     honoured whether sysmon saw the holder in a task or between tasks:
//     with GOMAXPROCS 1 sysmon gets a Go P only when an M yields, between
//     tasks, where a rule for running tasks alone never fired.
//   - sysmon polls at least every Slice/8 while any P is busy (the runtime
//     backs off to 10 ms, its slice), so an overrun is seen within a
//     quarter slice: a task queued behind one ping-pong waits about 1.25
//     slices, behind a task that holds its P about 1.4 (the request, then
//     the retake a round later).
//   - A call in Task.Syscall that returns within SyscallThreshold keeps its
//     P: no handoff, no M. One still in progress a threshold after sysmon
//     first saw it, with work waiting for its P (its queue, or any queue
//     with no P idle), or a Slice after, loses it; while a P is in pSyscall
//     sysmon sleeps at most max(20µs, SyscallThreshold/2), and a call's
//     entry wakes a sysmon that has backed off past that, so the retake
//     comes about two thresholds after the call began. A Go timer is late
//     (a 20µs one lasts netpoll's 1.1ms with every Go P idle, or until an
//     M yields with every Go P busy): while a call is in pSyscall an M
//     that finds sysmon's round overdue wakes it (every kickEvery tasks);
//     the last M to enter a call wakes sysmon's doze, and while no M runs
//     sysmon waits for the earliest call's threshold on the CPU
//     (spinForCall: at most a threshold a call, yielding its Go P at every
//     turn), so the retake comes at the threshold; the OS can still make
//     it late on a loaded machine.
//   - New returns with its Procs Ms parked, so a submit made at once
//     makes no M: Ms beyond Procs are made only for Ps handed off while no
//     M idles.
//   - Back from a call whose P was retaken, a task takes an idle P or waits
//     for one, and never runs beside Procs other tasks (exitsyscall's CAS
//     fails on a retaken P). A retaken call's P runs the work queued on it
//     first, as handoffp does (issue 22: a task back from another call was
//     served first, called again, and the queue waited 12 to 167ms), and
//     the waiting task queues behind that work. While it waits it pins its M
//     (the runtime's goroutine pins none), so once a handoff would make an M
//     beyond twice the calls blocked (and none idles), or when nothing is
//     queued on the P, the retake hands the P to it (handToWaiter) rather
//     than to a new M: the Ms made beyond Procs stay near the calls blocked
//     at once (demo: 13 to 18 Ms for 3000 files, 887 to 1148 with Blocking).
//   - Once a burst of calls is over its Ms go: an M that parks while more
//     Ms are alive than Ps are in service exits once it has idled
//     Config.MKeepAlive (DefaultMKeepAlive, 10 s; negative: never, the
//     runtime's way), its goroutine ended and its record kept for the next
//     M (stopm, spinning's Config.KeepAlive). The runtime never ends an
//     idle M (stopm parks it for good; mexit ends only an M whose locked
//     goroutine exited); here an M is a goroutine a burst multiplies, and
//     24 blocked Blocking calls left 25 parked until Close. The exit is
//     decided under the Sched's lock against mget, so an M handed a P as
//     its keep-alive ran out keeps it (spinning's TestExploreKeepAlive
//     [ExitIgnoresWake]); it holds no P and no task (stopm panics
//     otherwise); Close's quiescence counts the Ms alive (made less
//     spinning's NMFreed). Stats.LiveMs, IdleMs and ExitedMs count them.
//     TestKeepAliveIdleMsExit (bubble: after the burst and twice the
//     keep-alive at most Procs Ms and Procs+1 goroutines, and a second
//     burst runs; kill-matrix keepalive, keepalive2 [MsNeverExit]);
//     TestRealtimeKeepAliveMsExit (real clock, 1ms keep-alive: judged by
//     the state reached, a health ticker makes a stalled wait inconclusive).
//   - An M calls runtime.Gosched every 64 tasks (yieldEvery), so sysmon,
//     a handoff's new M and a readied waiter, goroutines that need a Go P,
//     run within 64 short tasks even when every Go P runs an M.
//   - A Wait helps with tasks not its group's only while fewer than
//     helpNestCap (16) Waits are nested on its M; past that it hands its P
//     away and sleeps. So a tree whose groups are waited by the tasks that
//     made them nests at most its depth plus 16 on any number of Ps, and
//     Waits on groups whose children run elsewhere never stack past 16.
//   - A group child runs exactly once, whether its Wait runs it inline or
//     an M or thief dequeues it; a claimed record left in a queue is
//     dropped, not counted as a task, and recycled only when no queue and
//     no kids list holds it.
//   - A group's context, made lazily, is cancelled by the first error
//     (its cause), by Wait, and by its parent, whenever it is first asked
//     for.
//   - A panic never ends an M: it goes to the task's group (as its error) or
//     to Config.PanicHandler (default: Close returns them). A task that
//     calls runtime.Goexit is reported the same way (a *PanicError with
//     Goexit set) and ends nothing else: run by the M loop, its goroutine
//     ends and the M continues on a new one; run inline by a Wait, it runs
//     on a helper goroutine of the M, never the waiting task's, so the Wait
//     returns and its task goes on. A task must not Wait while locked to
//     its OS thread (the helper is a coroutine: the runtime refuses the
//     switch).
//   - A local spawn reads no clock (the steal delay is the thief's to
//     wait) and allocates nothing once its P has recycled records.
//   - An outside submit (Go, TryGo, GoContext, a GoBatch of up to 64)
//     allocates nothing once the free lists hold records. A record is
//     recycled only by its last holder, zeroed when freed, and on at most
//     one free list; a refused submit gives its records back. The global
//     list keeps at most 128Ki records, and after each garbage collection
//     drops those nobody took since the last (keeping 1024). A group keeps
//     nothing per finished task: the ~70 bytes per finished outside task
//     right after a burst are these records, Wait or no Wait.
//   - Task.Join runs a and b exactly once each and returns after both;
//     b runs inline or on one thief, never both (its claim word), and
//     the join state is reused only after the thief's last touch.
//   - Every outside submit calls Wakep after publishing, even with other
//     tasks queued: a queued task does not tell a submitter whether its
//     own wakeup is still to come (two submitters that each saw the
//     other's task both skipped: explorer submit-vs-submit).
//   - Stats reads per-P atomic counters, written by their P's holder: no
//     lock on any path an M takes.
//
// # Verification: property -> test
//
//	bad input (config, nil funcs, zero/stale Task,      executor_test.go
//	  submit after Close, Close twice/from a task,
//	  Blocking/Yield outside a task, group reuse)
//	exactly once, counted; a million in long mode       stress_test.go TestStressExactlyOnce
//	Close under load loses nothing                      stress_test.go TestCloseUnderLoadLosesNothing
//	goroutines end (Ms, sysmon) after Close             main_test.go (goleak after every test)
//	blockers + queued; a hog + queued; runnext          starvation_test.go (testing/synctest)
//	  ping-pong + queued: sysmon's retake
//	the same on the real runtime: runnext ping-pong     realtime_test.go TestRealtimePingPong,
//	  + an outside or a ring task, a hog, a blocked       TestRealtimeHog, TestRealtimeBlockers,
//	  task, Blocking, Yield (5 s slice) + queued, a       TestRealtimeYield, TestRealtimeGlobalStream,
//	  global stream, fork-join; GOMAXPROCS 1 and 2,       TestRealtimeForkJoin: bound 250 ms, a health
//	  Procs below, equal to and above it                  ticker beside it (internal/realtime)
//	the same beside a busy process on every core        realtime_test.go TestRealtimeUnderContention
//	a global task within 61 ticks of a busy P           starvation_test.go TestStarvationGlobalStream
//	no lost wakeup at the drop-and-recheck              starvation_test.go TestSubmitWhileSpinnerWaits
//	a handoff sees the P's local work                   starvation_test.go TestLocalSpawnThenBlock
//	nested fork-join on every P of 1 and 2 Ps           starvation_test.go TestForkJoinNestedOnEveryP
//	local spawn allocates nothing                       alloc_test.go
//	outside submit + run allocates nothing once warm    gfree_test.go TestOutsideSubmitAllocatesNothing
//	  (Go, TryGo, GoContext, GoBatch of 64; 1 and 2 Ps)
//	records reused across kinds run each task once;     gfree_test.go TestRecordsReusedExactlyOnce,
//	  free lists zeroed, distinct, counted; refused       TestFreeListsZeroedAndDistinct (bubbles),
//	  submits give records back; -race stress             TestRefusedSubmitReturnsItsRecord,
//	                                                      TestStressRecordsReused
//	a record is zero before it goes on the global list: gfree_hook_test.go TestFreeListZeroesBeforePut
//	  a taker pinned right after a put's unlock (the      (-tags schedcheck; pinned races)
//	  list alone; a refused TryGo's record)
//	a refused TryGo's record reused by another Go, in   gfree_explore_test.go TestExploreFreeList
//	  every interleaving (bound 1): each task once,       (-tags schedcheck)
//	  lists clean; MustReach the record reused
//	idle records trimmed at GC, down to 1024            gfree_test.go TestGlobalFreeTrimmedAtGC
//	local spawn reads no clock                          clock_schedcheck_test.go (-tags schedcheck)
//	every interleaving (bound 1): each task once, no    explore_test.go TestExploreExecutor (-tags schedcheck)
//	  deadlock, Wait returns, sysmon unblocks a P
//	  (blocker-retake: 2,000 PCT runs under -short,
//	  every interleaving at bound 1 in long mode)
//	panics to the group, the handler, or Close          executor_test.go
//	a parked task costs no M (2000 parked, 2 Ps: <= 4   park_test.go TestParkedTasksCostNoM,
//	  Ms); a ping-pong of parks delivers every value;     TestParkPingPong, TestReadyTwicePanics,
//	  a second Ready panics; Close waits for a parked     TestParkMisusePanics, TestCloseWaitsForParked
//	  task
//	a Ready before the commit lets Park go on (never    parkcheck_test.go TestParkChecks: parkearly,
//	  resumed twice); after it, the task resumes once,    parkrace (bubbles; they kill
//	  in the readier's runnext, holding a P and an M;     ParkChecksAfterPublish, ReadyNoCAS,
//	  every committed park readied once (counters)        ReadyEarlyQueuesToken)
//	a park hands its P straight to the task its         parkcheck_test.go pingpong, relay
//	  runnext readied (direct switch, no spare)           (NoDirectSwitch)
//	a readied task runs next, before the ring; a        parkcheck_test.go nextfirst, nextpong
//	  runnext ping-pong keeps a ring task out             (ReadySkipsRunnext)
//	a readied token in a blocked task's runnext is      parkcheck_test.go stolenready, busyready,
//	  stolen; an outside Ready beside busy Ps; a park     noppark, deadline
//	  with its P retaken (no P); Shutdown's deadline
//	  with a task parked, readied later
//	park against an outside Ready and against a         park_explore_test.go TestExplorePark
//	  task's on the other P (MustReach both sides),       (-tags schedcheck; HandOnBeforeDetach)
//	  Close against a park and its Ready, a readied
//	  token stolen from runnext, sysmon's retake
//	  against the park (MustReach the no-P path):
//	  bound 1, or no preemption, or PCT from a seed
//	a parked task's P starts queued work; proc_test's   park_realtime_test.go TestRealtimePark,
//	  TestPingPongHog with a park/ready mailbox:          TestRealtimeParkUnderContention
//	  bound 250 ms beside a health ticker, GOMAXPROCS
//	  1 and 2, and beside a busy process per core
//	sleepers wake no earlier than asked and within      timer_test.go TestSleepersWakeInOrder
//	  1ms, shortest first (bubbles, 1 and 2 Ps)
//	a sleeper on a busy P wakes at its holder's next    timer_test.go TestSleeperBesideChain
//	  schedule (within a 10us task of its time)
//	a sleeper behind hogs on every P wakes within 3     timer_test.go TestSleeperBesideHogs
//	  slices: sysmon runs the timer and retakes a P
//	a timer on a P held by a long task (or a call in   latetimer_test.go TestTimerBesideLongTasks
//	  pSyscall) fires within a sysmon round and 20µs      (bubble, 1 and 2 Ps, Slice 8s)
//	  (Stats.TimerMaxLate): seeded fault                  killmatrix_test.go (latetimer,
//	  CallSleepUncapped fires it 11ms late                latetimer2)
//	AfterFunc's Stop and Reset; GoTimeout's context     timer_test.go TestAfterFuncStopReset,
//	  ends with DeadlineExceeded at its time              TestGoTimeout
//	5000 tasks asleep at once on 2 Ps: <= 4 Ms          timer_test.go TestSleepingTasksCostNoM
//	a task parked on a socket wakes on data, its P      poll_test.go TestPollReadParksAndWakes
//	  runs other tasks meanwhile (Procs 1 and 2)
//	a deadline (future or past) and FD.Close wake a     poll_test.go TestPollCloseAndDeadlineWake
//	  parked read with ErrDeadlineExceeded, ErrClosed
//	Executor.Close evicts tasks and goroutines parked   poll_test.go TestPollExecutorCloseEvictsWaiters
//	  on descriptors; OpenFD fails after it
//	hundreds of connections parked cost no M each,      tasknet/conn_test.go TestEchoManyConnections,
//	  slowloris, resets, half-close, bulk EAGAIN,         TestSlowloris, TestResetAndHalfClose,
//	  GOMAXPROCS 1 and 2, beside busy processes;          TestBulkTransfer, TestEchoUnderLoad
//	  no goroutine or descriptor leaks
//	Goexit in a task a Wait runs inline ends only that  goexit_test.go TestGoexitInGroupChild,
//	  task: Wait returns its *PanicError, the waiter      TestGoexitInHelpedTask, TestGoexitNested
//	  and the M go on, counted (GOMAXPROCS 1 and 2,       (real runtime, a watchdog each)
//	  Procs 1 and 2; a child, a helped task, 5 deep)
//	Shutdown: drops and counts at the deadline, never   shutdown_test.go (testing/synctest)
//	  runs a dropped task, Close waits for the rest
//	Shutdown's count exact: ran + notRun == accepted    shutdown_test.go TestShutdownCountExact (real
//	  (Procs 1, 2, 4; GOMAXPROCS 1, 2)                    runtime; failed 10 to 23 of 200 rounds before)
//	Close keeps 100 panics, counts the rest             shutdown_test.go TestClosePanicsCapped
//	MaxQueued: bad config, nil ctx/func, a batch over   overload_test.go TestMaxQueuedConfig,
//	  the bound; TryGo at the bound wraps ErrFull;        TestOverloadBadInput, TestTryGoFull,
//	  GoContext's ended context accepts nothing;          TestGoContextEnded, TestCloseWakesBlocked-
//	  Close/Shutdown wake waiters; a task waits off its   Submitters, TestGoFromTaskWaitsWithoutItsP
//	  P; waiters woken as room appears (synctest)         TestOverloadWaiterWoken, ...BatchAndGroupWoken
//	MaxQueued in every interleaving (bound 1): two      overload_explore_test.go TestExploreOverload
//	  TryGo at a bound of 1; two Go, and two GoContext,   (-tags schedcheck)
//	  the second waiting as the M frees room; each task
//	  once, queued back to 0; MustReach both accepted
//	  and one refused, woken by freed room and found it;
//	  Close racing a Go (a GoBatch) waiting for room:     (close-vs-waiter, close-vs-batch-waiter)
//	  refused with ErrClosed, Close returns; MustReach
//	  the waiter closed
//	a flood of 8 producers: queued <= 64 sampled,       overload_test.go TestOverloadFlood
//	  each task once, heap growth < 1/4 of unbounded
//	unbounded submit: one branch (not measurable)       BenchmarkSubmitOnly, BenchmarkSubmit
//	a Wait runs its own queued child at once            scenarios_test.go TestWaitHelps
//	a Wait runs its own children before others, and a   nesting_test.go TestWaitRunsOwnChildrenFirst
//	  claimed record left queued is dropped, not rerun
//	Waits nest at most the tree's depth on 1 P, and     nesting_test.go TestWaitNestingBounded
//	  depth + 16 on 2 and 4 Ps (depth 12)
//	a Wait helps others only under 16 nested Waits      nesting_test.go TestWaitHelpNestingCapped
//	after a retake runnext goes behind the queued tasks preempt_test.go TestPreemptedRunnextGoesBehind
//	a goroutine readied on a busy M's Go P runs within  yield_test.go TestMLoopYields
//	  two yield periods (GOMAXPROCS 1, counted in tasks)
//	a child runs once when its Wait races a thief       explore_test.go wait-inline-vs-thief (schedcheck)
//	lazy group context: error, Wait, parent cancel it;  groupctx_test.go TestGroupContext*, explore_test.go
//	  made after the error it is already cancelled        ctx-vs-error (schedcheck)
//	a group costs one allocation                        groupctx_test.go TestGroupAllocs
//	61 ticks beside a local burst and a local tree      scenarios_test.go TestFairnessBurst, TestFairnessTree
//	no lost wakeup for a submit made by a task          scenarios_test.go TestSubmitFromTaskWhileSpinnerWaits
//	no lost wakeup for two outside submits at once,     explore_test.go submit-vs-submit,
//	  each seeing the other's task queued (1 P)           TestExploreSubmitPairs (schedcheck)
//	a Task whose P was retaken spawns globally          scenarios_test.go TestSpawnAfterRetakeGoesGlobal
//	no lost wakeup, nothing else to rescue the work:    wakeup_test.go TestWakeupNoneLost (synctest),
//	  with every other M parked an idle P starts on       TestWakeupNoneLostReal (real clock)
//	  an outside Go, GoBatch, group Go, a Task.Go, a
//	  group Go in a task, a spawn in Blocking or after
//	  a retake, a readied waiter, a Blocking's resume
//	a submit with every P held asks for a spinner       wakeup_test.go TestSubmitAsksForSpinner
//	the drop-and-recheck and a handoff see local queues wakeup_test.go TestRecheckSeesLocalQueues
//	a global task starts at exactly tick 61 (and 122)   wakeup_test.go TestFairnessExactTicks
//	a submit racing Close: accepted runs once, before   closerace_test.go TestExploreCloseRace (schedcheck)
//	  Close returns; refused never runs; racing a
//	  Shutdown whose deadline passes: run or counted
//	Shutdown past its deadline against the M taking the closerace_test.go TestExploreCloseRace
//	  P for the task: its look reads the Ps again after   (go-vs-deadline, batch-vs-deadline: DPOR,
//	  the queues (takeP counts before the P leaves        cut at 2000 executions; MustReach counted
//	  pIdle): run or counted, never neither               not run, ran)
//	Blocking takes a P back: a spawn after it hits      blocking_test.go TestBlockingRetakesP,
//	  runnext, one reacquire each, never beside Procs     TestBlockingRespectsProcs
//	  other tasks
//	runtime/trace: each task a trace task with a region trace_test.go TestRuntimeTrace (parsed by
//	  and a log of its ID, P and M; as many steal,      `go tool trace -d=parsed`; broken traces rejected)
//	  handoff and park logs as Stats counts
//	TaskEvents: one start and one end per task, nested  trace_test.go TestTaskEvents
//	  per M; a steal names a victim, not the thief
//	Task.ID: unique, 0 for the zero Task, kept          trace_test.go TestTaskID
//	tracing off: one atomic load per task               bench_test.go BenchmarkLocalSpawn against the
//	                                                    same before trace.go (see trace.go)
//	Stats.Tasks counts each task once: a chain task     taskcount_test.go TestTasksCountedOnce (bubbles:
//	  only as a runnext hit (Tasks is derived), a Wait    a stolen child, a child handed off with its
//	  woken by a token through runnext not at all         P by Blocking)
//	every Stats counter equals its events, P by P; per  counters_test.go TestCountersMatchEventsBubble,
//	  M parks and spins alternate; after Close            TestCountersMatchEventsReal (GOMAXPROCS 1, 2)
//	  SpinStarts == SpinStops, Parks - Unparks == Ms
//	a long task alone: no retake, no handoff, Procs Ms  counters_test.go TestLongTaskAloneCostsNothing(Real)
//	an outside group keeps under 8 bytes per finished  group_mem_test.go TestGroupOutsideKeepsNoBytesPerChild
//	  child before its Wait, once the free list is        (1 and 2 Ps, 20000 children; collects until
//	  trimmed (72 B right after the children finish)      the list is trimmed; groupmem, groupmem2)
//	a Wait returns after its last child, on every path  groupdone_test.go TestWaitReturnsAfterEveryChild
//	  (inline, runnext, ring, stolen, global, retaken,
//	  after Blocking)
//	Syscall: 200 calls of 1µs with work waiting keep  syscall_test.go TestSyscallShortKeepsP (bubble),
//	  the P (no retake, no handoff, Procs Ms); on the     TestRealtimeSyscallShort (20000 empty calls,
//	  real runtime a retake is judged against the time    GOMAXPROCS 1 and 2, internal/realtime)
//	  a thread waited for a CPU
//	a blocked call with work waiting is retaken within  syscall_test.go TestSyscallRetakenWhileWorkWaits
//	  10 thresholds (runnext on 1 P, the global queue     (bubble), TestRealtimeSyscall (a call on every
//	  with no P idle on 2), a retake, not a handoff       P, 5 s slice, bound 250 ms)
//	the same after sysmon backed off (5ms with nothing  syscall_test.go TestSyscallAfterBackoff (bubble)
//	  waiting): within 5 thresholds (1.03ms without the
//	  call's wakeup of sysmon)
//	with sysmon's Go timer 1ms late and every P in a    syscall_test.go TestSyscallNoMRuns,
//	  call, queued work starts within 5 thresholds: the   TestSyscallLastCallWakesSysmon (bubbles, 1
//	  last call's entry wakes sysmon, which waits on the  and 2 Ps; CallEntryNoWake, SysmonNoUsleep:
//	  CPU, and looks again after publishing a doze        1.02ms), syscall_sysmon_test.go dozerecheck
//	                                                      (DozeNoRecheck: 1.04ms)
//	a retaken call's P runs its own queue before a task syscall_queued_test.go
//	  back from another call that waits (issue 22): a     TestSyscallWaiterBesideQueued, TestSyscall-
//	  task spawned before the call starts within 5        QueuedBesideCallers (bubbles; 230µs with
//	  thresholds; callers looping over Syscall(1ms)       RetakeServesWaiterFirst)
//	  on the real runtime (GOMAXPROCS 1 and 2, and       syscall_realtime_test.go TestRealtimeSyscall-
//	  beside a busy process per core): callers looping    Queued, TestRealtimeSyscallRespectsProcs,
//	  over Syscall(1ms) with a task spawned before each   ...UnderContention (internal/realtime; 12.6ms
//	  call: median wait at most 5ms; back from a call     median with SyscallNeverRetaken)
//	  a task never runs beside Procs others
//	a task back from a call waits behind the ring of    syscall_queued_test.go TestSyscallWaiterBehind-
//	  the next call's P retaken with work queued, not     Batch (bubbles, 1 and 2 Ps: after 129 of 300
//	  behind the global queue's tail                      batch tasks; 299 with RetakeQueuesNoWaiter)
//	back from a retaken call a task never runs beside   syscall_test.go TestSyscallRespectsProcs
//	  Procs others (1 and 2 Ps)
//	mixed (10% of tasks blocking 1ms in Syscall): Ms    syscall_test.go TestSyscallMixedMs (bubble),
//	  beyond Procs at most twice the calls blocked at     TestRealtimeSyscallMixed (GOMAXPROCS 1, 2)
//	  once; the calls overlap the work; Stats.Calls 0     (Stats.MaxCalls at least the workload's own count)
//	  after Close
//	sysmon late (its Go timer made 1ms late): an M      syscall_test.go TestSyscallLateSysmonKicked,
//	  running wakes it, and with its 1 P in a call it     TestSyscallNoMRunsOSTimer (bubbles: 40µs,
//	  sleeps on the OS's timer: a queued task starts      1.04ms without either rule)
//	  within 5 thresholds
//	a submit right after New makes no M beyond Procs    boot_test.go TestBootMakesProcsMs (bubbles,
//	  (Procs 1, 2, 4; a Go, a GoBatch)                    Procs 1, 2, 4), TestBootMakesProcsMsReal
//	                                                      (GOMAXPROCS 1, 2; 20 rounds)
//	Shutdown retakes a P in pSyscall at its deadline;   syscall_test.go TestSyscallShutdown,
//	  Close while calls block on every P; Syscall,        TestSyscallClose, TestSyscallNesting
//	  Blocking, a Wait, Yield or a panic inside f
//	SyscallThreshold out of 1µs..Slice, nil f, stale    syscall_test.go TestSyscallBadInput
//	  or zero Task
//	every interleaving (bound 1): a call that only a    explore_test.go syscall-retake, syscall-vs-retake
//	  retake unblocks; a return racing the retake         (-tags schedcheck)
//	the order rules of Syscall and sysmon, each at the  syscall_sysmon_test.go TestSyscallOrder: callage,
//	  step a reordering shows: syscalltick before the     exittoken, sysmon2 (the test plays sysmon or an
//	  status word (a second call is not retaken for       M at the step), pingpong-request (bubble: a
//	  the first one's age); exitWait before the exit      runnext ping-pong ends at the request, no
//	  token; the first overrun only asks, the next        retake); syscall_explore_test.go TestExplore-
//	  round retakes                                       Syscall: syscall-second-call, syscall-exit-waits,
//	                                                      syscall-waiter-vs-handoff (long mode), MustReach
//	                                                      each racy shape (-tags schedcheck)
//	Join: both sides once (1, 2, 4 Ps), a depth-16 tree, join_test.go TestJoinRunsBothOnce, TestJoinTree,
//	  no allocation once warm, bad input, panics from     TestJoinAllocatesNothing, TestJoinBadInput,
//	  either side, Goexit ends the task after both,       TestJoinPanics, TestJoinGoexit, TestJoinModel
//	  a random tree against a sequential model (rapid)    (rapid), TestJoinGoexitStolen (b stolen,
//	                                                      Goexit in a or b: the task ends once, after b)
//	Join under -race: 4 roots of 2^10 leaves on 4 Ps,   join_test.go TestJoinStress
//	  each leaf once, no Join before its b
//	Join's b stolen from the ring, a Join in another's  join_test.go TestJoinScenarios (bubbles; the
//	  wait while its thief ends, and a thief robbed of   kill matrix's join and join2)
//	  its own Join's b while both a sides run (3 Ps)
//	every interleaving (bound 1): take-back against a   join_explore_test.go TestExploreJoin
//	  thief stealing b from the ring; MustReach taken     (-tags schedcheck)
//	  back and stolen
//	every interleaving (bound 1) of a stolen b's finish  join_explore_test.go TestExploreJoinRaces
//	  against its joiner's park (the joiner helps, then   (-tags schedcheck; about 20000 executions;
//	  parks or finds b done; a panicking a or b), and a   kill matrix joinpark, joinpark2, joinfinish,
//	  thief that is a victim (its own Join's b stolen     joinvictim, a scenario each): MustReach
//	  by the first joiner): b runs once, every Join       parked, park lost, readied, finished first,
//	  returns after it, with b's panic                    stolen, victim robbed by the joiner
//	a Join's push wakes an idle P (the other M parked   join_wake_test.go TestJoinWake (bubbles,
//	  before the Join, b in the ring or, GlobalQueueOnly, wakeBound; kill matrix joinwake, joinwake2)
//	  the global queue; or the joiner's P idle under a
//	  nested Join): b starts within the bound, and a
//	  parked joiner is readied by its woken thief
//	work conservation, composed: with every P busy but  conserve_test.go TestConserveComposed (bubbles,
//	  one and its M parked, every path that makes work    wakeBound; its table names each path's function
//	  runnable (spawns, outside submits, a Join's b, a    and the runtime's; kill matrix conserve,
//	  Wait's help, overflow, Blocking's and Syscall's     conserve2); the preempt requeue and golang/go
//	  returns) has an idle P start the work; the          #45867's needspinning handshake as the M loop's
//	  preempt requeue wakes an M for an idle P; a         steps (preemptwake, preemptwake2, dropneed,
//	  recheck that finds work and no P asks for a         dropneed2, spawnneed, spawnneed2, stalereq,
//	  spinner, and so does a local put (spawn, Join's b)  stalereq2, lastspinner, lastspinner2)
//	  with every P held, but a pending request stands in
//	  for it only while no P idles; the last spinner to
//	  find work starts another for what is queued behind
//	  it
//	seeded mutants, two deterministic kills each        mutation.go, killmatrix_test.go (-tags schedmutant):
//	                                                    SysmonOff, WaitBlocksP, NoRecheck, NoFairnessTick,
//	                                                    NoRecordReuse, SpawnIgnoresOwnership,
//	                                                    HelpOthersFirst, TakeIgnoresClaim,
//	                                                    LazyCtxMissesError, RecycleEarly,
//	                                                    NoHelpCap, NoYield, PreemptKeepsNext,
//	                                                    GoexitUnwindsWaiter, NoSpawnWake,
//	                                                    NoGlobalSpawnWake, SubmitWakesOnlyIdle,
//	                                                    RecheckGlobalOnly, FairnessEvery62,
//	                                                    SubmitChecksBeforeInflight, BlockingKeepsNoP,
//	                                                    RetakeCountedAsHandoff, UnparkOnOldP,
//	                                                    WokenSpinUncounted, WaitEarly,
//	                                                    RetakeWhenNothingWaits, BoundNotReleased,
//	                                                    FullWakesNobody, ReserveLoadStore,
//	                                                    RoomFreedAfterLook, CloseWakesBeforeClosing,
//	                                                    SyscallNeverRetaken,
//	                                                    SyscallExitIgnoresRetake, GlobalFreeNoZero,
//	                                                    SpillKeepsLocal, FreeZeroAfterPut,
//	                                                    JoinTakesBackStolen,
//	                                                    JoinSkipsWaitForThief,
//	                                                    JoinStateReusedBeforeWait,
//	                                                    JoinParkNoCAS, JoinFinishNoSwap,
//	                                                    JoinErrAfterDone, JoinPushNoWake,
//	                                                    OutsideGroupKeepsKids,
//	                                                    SubmitSkipsWakeAlways, BootNoWait,
//	                                                    SysmonNotKicked, SysmonNoUsleep, HelpRetakeEarly,
//	                                                    CallEntryNoWake, DozeNoRecheck,
//	                                                    AbandonIgnoresInflight, AbandonNoSecondLook,
//	                                                    SubmitSkipsWakeOnBacklog,
//	                                                    RetakeServesWaiterFirst, SyscallTickAfterStatus,
//	                                                    ExitWaitAfterToken, RetakeAtFirstOverrun,
//	                                                    RetakeQueuesNoWaiter,
//	                                                    PreemptRequeueNoWake, SpinNoNeedSpinning,
//	                                                    SpinDropNoNeedSpinning (the last two select
//	                                                    spinning's fault: SetMutation),
//	                                                    LocalWakesOnlyIdle, SpinNoWakeOnLastSpinner,
//	                                                    WakeSkipsOnRequest, ParkChecksAfterPublish,
//	                                                    ReadyNoCAS, ReadyEarlyQueuesToken,
//	                                                    HandOnBeforeDetach, NoDirectSwitch,
//	                                                    ReadySkipsRunnext
//
// # Tracing
//
// While runtime/trace is on, every task is a trace.Task and region of
// type TraceTaskType with a log naming its ID, P and M, and every Event is a
// trace.Log of category "schedkit.<kind>", so `go tool trace` shows the
// executor's work beside the goroutines. Config.OnEvent with
// Config.TaskEvents gets task starts and ends too (`schedkit trace` draws
// them). See trace.go.
//
// The explorer (explore, -tags schedcheck) runs the real M loop:
// every goroutine of the executor is started through one function, which
// explore_test.go replaces to run the Ms and sysmon as the explorer's
// threads, beside a thread that submits and closes (and a second
// submitting thread where asked); every shared access of the executor's
// own state goes through atomicx. Its scenarios (a submit against
// parking, two submits at once, a local spawn against a thief, a blocked task
// that only sysmon's retake unblocks, a group Wait on 1 and 2 Ps, a Wait
// with other tasks queued ahead of its children, a Wait's inline run
// against a thief, a lazy context against the group's error, a call in
// Syscall that only a retake unblocks, a call's return against its retake,
// the last two with the submitting thread calling retakeAll as sysmon
// would) are complete at preemption bound 1; long mode asks for bound 2.
package executor
