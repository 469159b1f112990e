package executor

import "github.com/schedkit/schedkit/globalq"

// A mutation is a seeded fault in the executor, for proving that its
// checkers catch real bugs (docs/DESIGN.md, rung 8). In a normal build the
// current mutation is the constant noMutation and every faulty branch
// compiles away; under the build tag schedmutant a test selects one with
// SetMutation.
type mutation uint8

const (
	noMutation mutation = iota
	// SysmonOff: sysmon never retakes a P, so a task that holds its P
	// (blocked, or spinning on the CPU) starves the work queued behind it
	// whenever no other P can take that work.
	sysmonOff
	// WaitBlocksP: a Wait inside a task blocks its M, holding the P,
	// instead of running queued tasks and handing the P away: nested
	// fork-join on every P deadlocks unless sysmon steps in.
	waitBlocksP
	// NoRecheck: the re-check of every queue that spinning runs through
	// Config.Work (when the last spinner drops, and in HandoffP) answers
	// "no work": a task submitted while an M spun, which skipped its
	// wakeup because of that spinner, waits with every M parked.
	noRecheck
	// NoFairnessTick: findRunnable skips the 61st-tick look at the global
	// queue, so a P busy with local work serves the global queue only when
	// its own queue runs dry.
	noFairnessTick
	// NoRecordReuse: a finished task's record is not kept for the P's next
	// spawn (gfput drops it), so every local spawn allocates.
	noRecordReuse
	// SpawnIgnoresOwnership: a local spawn uses the P its worker last held
	// without taking the P's status word, so a task whose P sysmon took
	// puts its child in a queue that is no longer its own.
	spawnIgnoresOwnership
	// HelpOthersFirst: a Wait inside a task runs whatever its P's queue
	// gives first (findHelp) instead of its own group's children, the
	// order before issue 9's fix: a nested Wait runs an ancestor's other
	// child, and the nesting of Waits on an M grows with the number of
	// tasks rather than the depth of the tree.
	helpOthersFirst
	// TakeIgnoresClaim: an M that dequeues a group's child runs it without
	// taking its claim word, so a child its Wait already ran inline (its
	// record still queued) runs twice.
	takeIgnoresClaim
	// LazyCtxMissesError: a group's context made after the group's first
	// error (its first Done or Value) is not cancelled by that error.
	lazyCtxMissesError
	// RecycleEarly: a group child's record is recycled by the first of its
	// two holders to let go (its Wait or the queue), so a record still
	// queued is reused for another task, or sits twice on a free list.
	recycleEarly
	// NoHelpCap: a Wait helps with other queued tasks at any nesting, so
	// Waits that each wait on a group whose children run elsewhere stack
	// up on one M as deep as the number of such tasks.
	noHelpCap
	// NoYield: an M never calls runtime.Gosched between tasks, so a
	// goroutine readied on the Go P it runs on (sysmon, a handoff's new
	// M, a waiter) waits for the runtime's 10 ms preemption.
	noYield
	// PreemptKeepsNext: the M a retaken P is handed to takes the runnext
	// task first, inheriting the overrun slice, so a runnext ping-pong
	// goes on ahead of the tasks queued in the ring.
	preemptKeepsNext
	// NoSpawnWake: a local spawn (Task.Go, a group's Go in a task) puts
	// its task in its P's queue and wakes nobody, so with every other M
	// parked an idle P never starts on it.
	noSpawnWake
	// NoGlobalSpawnWake: a spawn by a task without a P (in Blocking, or
	// after a retake) puts its task in the global queue and wakes nobody.
	noGlobalSpawnWake
	// SubmitWakesOnlyIdle: an outside submit wakes an M only if a P idles
	// and no M spins, so with every P held it never asks for a spinner
	// (needspinning), and an M that gives up its P without spinning,
	// having looked before the submit, parks with the task queued.
	submitWakesOnlyIdle
	// RecheckGlobalOnly: the re-check of Executor.work (the spinner's
	// drop-and-recheck, HandoffP) looks at the global queue only, not at
	// the Ps' queues.
	recheckGlobalOnly
	// FairnessEvery62: findRunnable's look at the global queue comes
	// every 62nd tick instead of every 61st.
	fairnessEvery62
	// SubmitChecksBeforeInflight: an outside submit checks closing before
	// it counts itself in flight, so Close can find the executor quiet
	// and stop between the check and the publication: the submit returns
	// nil and its task never runs.
	submitChecksBeforeInflight
	// BlockingKeepsNoP: Task.Blocking returns without taking a P back,
	// so the task goes on beside Procs others, spawning globally.
	blockingKeepsNoP
	// RetakeCountedAsHandoff: sysmon's retake counts in Stats' Handoffs
	// instead of Retakes (its event is still EventRetake).
	retakeCountedAsHandoff
	// UnparkOnOldP: a parked M woken with a P counts its unpark on the P
	// it gave back before parking, not the one it was given.
	unparkOnOldP
	// WokenSpinUncounted: an M woken spinning (Wakep, a handoff) starts
	// spinning with no SpinStarts and no EventSpin, so its SpinStop pairs
	// with nothing: issue 14's unbalanced spin counters.
	wokenSpinUncounted
	// WaitEarly: a group's count of unfinished tasks starts at -1, so its
	// Wait returns while its last child still runs.
	waitEarly
	// RetakeWhenNothingWaits: sysmon retakes a P whose task overran its
	// slice even when nothing waits for the P, making a handoff (and an
	// M) for nothing.
	retakeWhenNothingWaits
	// GoexitUnwindsWaiter: a Wait runs tasks inline on the waiting task's
	// own goroutine, as before issue 14's fix, so a task it runs that calls
	// runtime.Goexit ends the waiting task too: its Wait never returns and
	// the M goes on on a new goroutine.
	goexitUnwindsWaiter
	// BoundNotReleased: a counted outside task does not free its room
	// under Config.MaxQueued when an M takes it to run, so the bound
	// fills for good and submitters wait forever.
	boundNotReleased
	// FullWakesNobody: freeing room under Config.MaxQueued wakes no
	// waiting submitter (only Close does): a Go or GoContext that found the
	// queue full waits although room appeared.
	fullWakesNobody
	// ReserveLoadStore: reserve takes room under Config.MaxQueued by a
	// load and a store instead of one CAS, so two submitters that look at
	// once at a bound of 1 both get in (and queued ends below zero).
	reserveLoadStore
	// RoomFreedAfterLook: unqueue looks for waiting submitters before it
	// frees the room, not after: a submitter that registers between the
	// two and then finds no room sleeps with nobody left to wake it.
	roomFreedAfterLook
	// CloseWakesBeforeClosing: Close and Shutdown wake the submitters
	// waiting for room under Config.MaxQueued before they set closing, not
	// after: a submitter that registers between the two sees no closing,
	// finds no room and sleeps, and Close waits for it for ever.
	closeWakesBeforeClosing
	// SyscallNeverRetaken: sysmon skips Ps in pSyscall, so a call in
	// Task.Syscall that blocks keeps its P however long it lasts, with
	// work queued behind it (the pessimistic path's reason to exist).
	syscallNeverRetaken
	// SyscallExitIgnoresRetake: Task.Syscall's return takes its P back
	// with a plain store, not a CAS from pSyscall, so after a retake two
	// Ms hold the P and the task runs beside Procs others.
	syscallExitIgnoresRetake
	// BootNoWait: New returns before its Ms have parked, so a submit made
	// at once finds no idle M and makes one more (newm), and the boot M
	// it raced with parks unused.
	bootNoWait
	// SysmonNotKicked: an M never acts for a late sysmon while a call is
	// in pSyscall: it neither retakes the call's P itself (helpRetake) nor
	// wakes a sysmon whose round is overdue, so a call's retake waits on the Go
	// timer, which is a millisecond late when Go's Ps idle, or a yield
	// period late when every Go P runs an M.
	sysmonNotKicked
	// SysmonNoUsleep: sysmon sleeps on its Go timer at a call's pace even
	// while every P is in a call or idle and no M runs (neither its spin
	// to the call's threshold nor, on 1 P, its usleep), so with every Go P
	// idle its 20µs lasts netpoll's millisecond, and a blocked call keeps
	// its P with work waiting.
	sysmonNoUsleep
	// HelpRetakeEarly: an M's look between tasks (helpRetake) retakes a
	// P in pSyscall as soon as work waits for it, without the call having
	// lasted SyscallThreshold, so short calls lose their P and cost a
	// handoff and an M.
	helpRetakeEarly
	// GlobalFreeNoZero: a record that a P with a full free list sends to
	// the global list (gfspill) is not zeroed, so the task that reuses it,
	// an outside submit or another P's spawn, inherits the fields its last
	// task left: a group child's claim taken (the task is dropped), its
	// group, its room under Config.MaxQueued.
	globalFreeNoZero
	// SpillKeepsLocal: a P that spills records to the global list keeps
	// them on its own list too, so one record is handed out twice: to a
	// spawn on the P and to an outside submit (or another P's refill).
	spillKeepsLocal
	// FreeZeroAfterPut: a record freed without a P (a refused submit's,
	// one released off any P) is zeroed after it goes on the global free
	// list, not before, so an outside submitter that takes it in between
	// has its func (and its room under Config.MaxQueued) wiped.
	freeZeroAfterPut
	// JoinTakesBackStolen: a Task.Join takes its b back without winning
	// b's claim word, so a b that a thief took runs twice.
	joinTakesBackStolen
	// JoinSkipsWaitForThief: a Task.Join whose b a thief took returns
	// without waiting for it, while b may still run.
	joinSkipsWaitForThief
	// JoinStateReusedBeforeWait: a Task.Join whose b a thief took puts its
	// join state back on the M's free list before it waits, so a Join run
	// meanwhile (in the wait's help) reuses it, and the thief's finish
	// ends the wrong Join, or a reset hides it from the right one.
	joinStateReusedBeforeWait
	// SubmitSkipsWakeAlways: an outside submit never wakes an M (as a
	// submit skipped Wakep while another task was queued, 64f6661,
	// removed: two submitters each saw the other's task): with every M
	// parked the task waits for ever.
	submitSkipsWakeAlways
	// TokenCountedAsTask: a runnext hit that is not a task inheriting the
	// slice (a resume token that wakes a Wait) is not taken off Stats'
	// derived Tasks (procStats), so every Wait woken through runnext
	// counts as one more task.
	tokenCountedAsTask
	// ResizeDropsRunnext: SetProcs, taking a P away (destroy), moves its
	// ring to the global queue but not its runnext task: lost.
	resizeDropsRunnext
	// ResizeNoWake: SetProcs puts the tasks of a P it takes away on the
	// global queue, or adds a P while work waits, without waking an M:
	// with every M parked (or the old Ps held) the work waits for the
	// next submit.
	resizeNoWake
	// ResizeNotInflight: SetProcs does not count itself in flight, so
	// Close finds the executor quiescent while the tasks of a P taken away
	// are in SetProcs's hand, stops the Ms, and those tasks never run.
	resizeNotInflight
	// AbandonIgnoresInflight: Shutdown past its deadline does not wait for
	// submits in flight (abandoned): one that passed its closing check
	// before closing puts its task after the look, and Shutdown returns a
	// count without it; the task is accepted, never run, never counted.
	abandonIgnoresInflight
	// AbandonNoSecondLook: Shutdown's look past its deadline does not
	// read the Ps' status words again after the queues (the code before
	// issue 22): takeP counts a take before the P leaves pIdle, so an M
	// whose take the first count already holds, whose P the look saw idle
	// and whose task was out of every queue, is missed, and Shutdown
	// returns before that task is dropped and counted.
	abandonNoSecondLook
	// SubmitSkipsWakeOnBacklog: 64f6661's removed rule: an outside submit
	// that sees another task queued beside its own after its put skips
	// Wakep. Two submitters that each see the other's task both skip,
	// and with every M parked both tasks wait for ever.
	submitSkipsWakeOnBacklog
	// RetakeServesWaiterFirst: a P retaken from a call goes to a task back
	// from another call that waits for a P (handToWaiter) even when work
	// is queued on it, issue 22's bug: that task calls again, and the P's
	// own queue runs only when no caller waits.
	retakeServesWaiterFirst
	// SyscallTickAfterStatus: entersyscall moves its P to pSyscall before
	// it counts the call in syscalltick, so sysmon, which reads the status
	// word and then the tick, can see the new call with the old call's
	// tick and retake it at once, for the earlier call's age.
	syscallTickAfterStatus
	// ExitWaitAfterToken: exitsyscall0 queues a returning call's exit
	// token before it sets exitWait, so an M that runs the token at once
	// finds no wait to claim and drops it, and the task waits for a P
	// with no token queued.
	exitWaitAfterToken
	// RetakeAtFirstOverrun: sysmon's first look at a slice that
	// overran both asks the holder to end it (p.preempted) and retakes
	// the P in the same round, where the first overrun must only ask: a
	// runnext ping-pong that the request alone ends costs a handoff.
	retakeAtFirstOverrun
	// RetakeQueuesNoWaiter: a call's P retaken with work queued on it is
	// handed off for that work and no task back from a call that waits
	// is queued behind it (queueWaiter): the waiters are served only from
	// the global queue's tail, behind a batch of outside tasks, each
	// pinning its M meanwhile.
	retakeQueuesNoWaiter
	// JoinParkNoCAS: a Task.Join whose b a thief runs decides to park with
	// a load of its join state and then a store of joinParked, not one
	// CAS: a thief whose finish lands between them sees the Join pending,
	// readies nobody, and the joiner parks for ever.
	joinParkNoCAS
	// JoinFinishNoSwap: a thief's finish of a stolen b reads the join
	// state and then stores joinDone, not one Swap: a joiner that parks
	// between them is never readied (and its joinParked is overwritten).
	joinFinishNoSwap
	// JoinErrAfterDone: a thief's finish of a stolen b records b's panic
	// (or Goexit) after it sets joinDone: a joiner that sees the flag
	// first returns nil, and the late write lands on a join state the
	// M may have reused.
	joinErrAfterDone
	// JoinPushNoWake: Task.Join puts b in its P's runnext and wakes
	// nobody, so with every other M parked an idle P never starts on b
	// (it runs after a, inline: no parallelism).
	joinPushNoWake
	// PreemptRequeueNoWake: the preempt path (localGet after sysmon's
	// request, or on a retaken P) puts the runnext task on the global
	// queue and wakes nobody, so with a P idle and no M spinning it waits
	// while the holder runs its ring: golang/go#27732's problem 4.
	preemptRequeueNoWake
	// SpinNoNeedSpinning: spinning's NoNeedSpinning under the executor
	// (ReleaseP, findRunnable's "return P and block", ignores
	// needspinning): golang/go#45867, CL 310850's lost handshake between
	// a wakep that finds no idle P and a non-spinning M that gives its P
	// up. The executor's own code is unchanged: SetMutation selects the
	// component's fault, to check that the executor's suite sees it.
	spinNoNeedSpinning
	// SpinDropNoNeedSpinning: spinning's DropNoNeedSpinning under the
	// executor (the spinner's drop-and-recheck finds work and no idle P
	// and does not set needspinning): golang/go#45867's handshake on the
	// recheck's side (checkRunqsNoP's pidlegetSpinning), so a non-spinning
	// M gives its P up beside the work.
	spinDropNoNeedSpinning
	// OutsideGroupKeepsKids: an outside group's Go puts each child on the
	// group's kids list, as a task's group does, so every finished
	// child's record (and its func) stays reachable until a Wait drops
	// the list: about 70 bytes per finished child, kept.
	outsideGroupKeepsKids
	// LocalWakesOnlyIdle: a put into the caller's own P's queue (a local
	// spawn, a Join's b, a readied token, the preempt requeue) wakes an M
	// only if a P is idle and no M spins, as before issue 22 (the
	// runtime's wakep before golang/go#45867's fix): with every P held it
	// never asks for a spinner, and an M that looked before the put gives
	// its P up without spinning, the work left behind the caller's task.
	localWakesOnlyIdle
	// SpinNoWakeOnLastSpinner: spinning's NoWakeOnLastSpinner under the
	// executor (execute's ResetSpinning, the last spinner to find work,
	// starts no other): resetspinning's wakep, so work queued behind what
	// the spinner found waits beside an idle P.
	spinNoWakeOnLastSpinner
	// WakeSkipsOnRequest: a local put skips Wakep whenever a spinner was
	// asked for (needspinning), even with a P idle: a request left set by
	// a spinner that released its P finds no M to serve it, and the work
	// waits beside the idle P.
	wakeSkipsOnRequest
	// NoDirectSwitch: a parking task always hands its P to a spare, even
	// when its P's runnext holds a readied task's resume token, so a
	// ping-pong costs two goroutine switches per wait (a performance
	// fault: the benchmarks and the switch counts catch it).
	noDirectSwitch
	// ReadySkipsRunnext: Waker.Ready by a task puts the readied task on
	// the global queue instead of the waker's runnext (goready's
	// runqput next=true), so a producer and its consumer do not run back
	// to back on one P.
	readySkipsRunnext
	// ParkChecksAfterPublish: Park hands its P on and then stores Waiting
	// without the commit CAS, so a Ready that came between (it saw
	// Parking, set Runnable and queued nothing) is lost: the task sleeps
	// for ever (the lost wakeup gopark's unlockf exists to prevent).
	parkChecksAfterPublish
	// ReadyNoCAS: Ready stores Runnable and queues the token whatever the
	// state, so a Ready before the commit both lets Park go on and queues
	// a token: the task is resumed twice.
	readyNoCAS
	// HandOnBeforeDetach: Park commits, hands its P on, and only then
	// clears its P and M fields, so a resume between the commit and the
	// clear has its P and M overwritten: the task goes on with neither.
	handOnBeforeDetach
	// ReadyEarlyQueuesToken: a Ready that finds Parking also queues the
	// resume token, so the task that went on at once is resumed again.
	readyEarlyQueuesToken
	// NoCheckTimers: findRunnable does not run its P's expired timers, so
	// a sleeping task waits for sysmon's round (or a spinning M's timer
	// pass) instead of waking at its P's next schedule.
	noCheckTimers
	// SysmonSkipsTimers: sysmon never runs expired timers, so with every
	// P's holder in a long task a timer waits for a task to end.
	sysmonSkipsTimers
	// SleepArmsEarly: Sleep arms its timer for half the time asked, so a
	// task wakes early (time.Sleep's one promise broken).
	sleepArmsEarly
	// CapReleasesEarly: a Blocking or Syscall call under Config.MaxBlocking
	// holds no slot across its func (the count is given back as the call
	// starts), so N blocked calls make N Ms again.
	capReleasesEarly
	// CapNoWake: a capped call that returns gives its slot back to the
	// pool without readying the oldest waiter, which stays parked for ever
	// (semrelease without its readyWithTime).
	capNoWake
	// BlockSkipsRecheck: sysmon enters its blocking poll without looking
	// at sysmonWait again after it published blocking, so a waker that
	// cleared sysmonWait just before (and so saw blocking 0 and wrote no
	// eventfd) leaves sysmon asleep in epoll_wait: no retakes, and stop
	// never reaches it (the Dekker pair of poller.block and wakeSysmon).
	blockSkipsRecheck
	// WakeSysmonNoBreak: wakeSysmon wakes only sysmon's note, never the
	// blocking poll, so a sysmon asleep in epoll_wait sleeps on through a
	// takeP and through Close (netpollBreak missing).
	wakeSysmonNoBreak
	// PollReadyNoClaim: a poll or a deadline queues the parked task's
	// resume token without claiming its park word, so a token can run
	// before the task has committed its park (resumed before parked).
	pollReadyNoClaim
	// StaleGenAccepted: a Task is judged by its worker and the state of
	// the P's status word, not the generation in it (the spawn's CAS and
	// current compare the word without its generation): a Task whose func
	// has returned, or an outer Task while a task its Wait runs is running,
	// passes as current and spawns into the P's queue (TaskGen.tla's
	// mutant of that name).
	staleGenAccepted
	// RetakeNoCur: a retake does not publish w.cur after its CAS, so the
	// task that lost its P is judged stale by its own next Go (TaskGen.tla).
	retakeNoCur
	// MsNeverExit: the Sched gets no keep-alive (Config.MKeepAlive is
	// ignored), so the Ms a burst of blocking calls made stay parked until
	// Close, as the runtime's idle Ms do (issue 25).
	msNeverExit
	// ResizeLeavesTimers: SetProcs, taking a P away (destroy), leaves its
	// timers in its heap instead of moving them to a P in service
	// ((*p).destroy's timers.take): no holder's schedule runs them any
	// more, only the scans of sysmon and spinning Ms.
	resizeLeavesTimers
	// CallSleepUncapped: sysmon's sleep at a call's pace while a call is
	// in pSyscall is not ended by the earliest timer, so a timer due on a
	// P held by a long task or call waits up to two rounds.
	callSleepUncapped
	// CallEntryNoWake: the last M to enter a call leaves sysmon in its
	// doze at a call's pace (wakeSysmonForCall wakes only a backed-off
	// one), so with no M left to kick it the retake waits for sysmon's Go
	// timer, a millisecond when every Go P idles.
	callEntryNoWake
	// DozeNoRecheck: sysmon, about to doze at a call's pace, does not look
	// again at the Ps after publishing the doze, so the last M entering
	// its call between sysmon's round and that store wakes nothing and
	// the call keeps its P until the Go timer.
	dozeNoRecheck
)

// mutationNames are the names tests and the kill matrix share.
var mutationNames = [...]string{
	noMutation:     "none",
	sysmonOff:      "SysmonOff",
	waitBlocksP:    "WaitBlocksP",
	noRecheck:      "NoRecheck",
	noFairnessTick: "NoFairnessTick",
	noRecordReuse:  "NoRecordReuse",

	spawnIgnoresOwnership:  "SpawnIgnoresOwnership",
	helpOthersFirst:        "HelpOthersFirst",
	takeIgnoresClaim:       "TakeIgnoresClaim",
	noDirectSwitch:         "NoDirectSwitch",
	readySkipsRunnext:      "ReadySkipsRunnext",
	parkChecksAfterPublish: "ParkChecksAfterPublish",
	readyNoCAS:             "ReadyNoCAS",
	handOnBeforeDetach:     "HandOnBeforeDetach",
	readyEarlyQueuesToken:  "ReadyEarlyQueuesToken",
	noCheckTimers:          "NoCheckTimers",
	sysmonSkipsTimers:      "SysmonSkipsTimers",
	sleepArmsEarly:         "SleepArmsEarly",
	lazyCtxMissesError:     "LazyCtxMissesError",
	recycleEarly:           "RecycleEarly",
	noHelpCap:              "NoHelpCap",
	noYield:                "NoYield",
	preemptKeepsNext:       "PreemptKeepsNext",

	noSpawnWake:                "NoSpawnWake",
	noGlobalSpawnWake:          "NoGlobalSpawnWake",
	submitWakesOnlyIdle:        "SubmitWakesOnlyIdle",
	recheckGlobalOnly:          "RecheckGlobalOnly",
	fairnessEvery62:            "FairnessEvery62",
	submitChecksBeforeInflight: "SubmitChecksBeforeInflight",
	blockingKeepsNoP:           "BlockingKeepsNoP",

	retakeCountedAsHandoff: "RetakeCountedAsHandoff",
	unparkOnOldP:           "UnparkOnOldP",
	wokenSpinUncounted:     "WokenSpinUncounted",
	waitEarly:              "WaitEarly",
	retakeWhenNothingWaits: "RetakeWhenNothingWaits",
	goexitUnwindsWaiter:    "GoexitUnwindsWaiter",

	boundNotReleased: "BoundNotReleased",
	fullWakesNobody:  "FullWakesNobody",

	reserveLoadStore:   "ReserveLoadStore",
	roomFreedAfterLook: "RoomFreedAfterLook",

	closeWakesBeforeClosing: "CloseWakesBeforeClosing",

	resizeDropsRunnext: "ResizeDropsRunnext",
	resizeNoWake:       "ResizeNoWake",
	resizeNotInflight:  "ResizeNotInflight",

	syscallNeverRetaken:      "SyscallNeverRetaken",
	syscallExitIgnoresRetake: "SyscallExitIgnoresRetake",
	bootNoWait:               "BootNoWait",
	sysmonNotKicked:          "SysmonNotKicked",
	sysmonNoUsleep:           "SysmonNoUsleep",
	helpRetakeEarly:          "HelpRetakeEarly",

	globalFreeNoZero: "GlobalFreeNoZero",
	spillKeepsLocal:  "SpillKeepsLocal",
	freeZeroAfterPut: "FreeZeroAfterPut",

	joinTakesBackStolen:       "JoinTakesBackStolen",
	joinSkipsWaitForThief:     "JoinSkipsWaitForThief",
	joinStateReusedBeforeWait: "JoinStateReusedBeforeWait",
	submitSkipsWakeAlways:     "SubmitSkipsWakeAlways",

	tokenCountedAsTask:     "TokenCountedAsTask",
	abandonIgnoresInflight: "AbandonIgnoresInflight",
	abandonNoSecondLook:    "AbandonNoSecondLook",

	submitSkipsWakeOnBacklog: "SubmitSkipsWakeOnBacklog",

	retakeServesWaiterFirst: "RetakeServesWaiterFirst",

	syscallTickAfterStatus: "SyscallTickAfterStatus",
	exitWaitAfterToken:     "ExitWaitAfterToken",
	retakeAtFirstOverrun:   "RetakeAtFirstOverrun",
	retakeQueuesNoWaiter:   "RetakeQueuesNoWaiter",

	joinParkNoCAS:    "JoinParkNoCAS",
	joinFinishNoSwap: "JoinFinishNoSwap",
	joinErrAfterDone: "JoinErrAfterDone",
	joinPushNoWake:   "JoinPushNoWake",

	preemptRequeueNoWake: "PreemptRequeueNoWake",
	spinNoNeedSpinning:   "SpinNoNeedSpinning",

	spinDropNoNeedSpinning: "SpinDropNoNeedSpinning",
	localWakesOnlyIdle:     "LocalWakesOnlyIdle",

	spinNoWakeOnLastSpinner: "SpinNoWakeOnLastSpinner",

	outsideGroupKeepsKids: "OutsideGroupKeepsKids",
	wakeSkipsOnRequest:    "WakeSkipsOnRequest",

	capReleasesEarly: "CapReleasesEarly",
	capNoWake:        "CapNoWake",

	blockSkipsRecheck: "BlockSkipsRecheck",
	wakeSysmonNoBreak: "WakeSysmonNoBreak",
	pollReadyNoClaim:  "PollReadyNoClaim",

	staleGenAccepted: "StaleGenAccepted",
	retakeNoCur:      "RetakeNoCur",

	msNeverExit:        "MsNeverExit",
	resizeLeavesTimers: "ResizeLeavesTimers",

	callSleepUncapped: "CallSleepUncapped",
	callEntryNoWake:   "CallEntryNoWake",
	dozeNoRecheck:     "DozeNoRecheck",
}

// fairnessTick is globalq.FairnessTick (findRunnable's schedtick%61), or
// every 62nd tick under the seeded fault FairnessEvery62.
func fairnessTick(schedtick uint32) bool {
	if mutant == fairnessEvery62 {
		return schedtick%62 == 0
	}
	return globalq.FairnessTick(schedtick)
}
