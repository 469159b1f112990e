//go:build schedmutant

package executor_test

import (
	"errors"
	"testing"
	"time"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/killmatrix"
)

// Bar item 8 for the executor: every seeded mutation (mutation.go) against
// every checker, each cell in a child process with a time limit (a mutant
// can deadlock a synctest bubble, which panics, or hang). The fixed
// scenarios run in synctest bubbles and are deterministic; the stress run
// is not; the explorer runs the real M loop, Ms and sysmon as its threads
// (explore_test.go), every interleaving within bound 1.
//
// Run it with go test -tags schedcheck,schedmutant -run '^TestKillMatrix$' ./executor/
// (without schedcheck the explorer column reads n/a).

var killConfig = killmatrix.Config{
	Component: "executor",
	CellTest:  "TestKillMatrixCell",
	Spec:      "Executor",
	TLADir:    "../proofs/tla",
	Mutations: executor.Mutations(),
	Set:       executor.SetMutation,
	// A cell's time limit only tells a hung mutant from a slow cell, so it
	// is generous: the explorer's cell takes about 40 s of CPU and ran past
	// 90 s on a loaded machine, a false alarm on the real code.
	Timeout: 5 * time.Minute,
	// The checkers that catch each mutant, tried first under -short (the
	// verdict still needs two deterministic kills): a mutant costs two
	// cells instead of every column before its killers (the executor's
	// matrix took 299 s under -short at a load average of 12 before).
	Killers: map[string][]string{
		"SysmonOff":                  {"hog", "blockers"},
		"WaitBlocksP":                {"helps", "forkjoin"},
		"NoRecheck":                  {"lostwake", "lostwake2"},
		"NoFairnessTick":             {"fairburst", "fairtree"},
		"NoRecordReuse":              {"allocs", "chain"},
		"SpawnIgnoresOwnership":      {"retaken", "retaken2"},
		"StaleGenAccepted":           {"stalegen", "stalegen2"},
		"RetakeNoCur":                {"retaken", "retaken2"},
		"MsNeverExit":                {"keepalive", "keepalive2"},
		"ResizeLeavesTimers":         {"resizetimers", "resizetimers2"},
		"CallSleepUncapped":          {"latetimer", "latetimer2"},
		"HelpOthersFirst":            {"ownfirst", "nesting"},
		"TakeIgnoresClaim":           {"ownfirst", "forkjoin"},
		"LazyCtxMissesError":         {"groupctx", "ctxerror"},
		"RecycleEarly":               {"ownfirst", "forkjoin"},
		"NoHelpCap":                  {"helpcap", "helpcap2"},
		"NoYield":                    {"yield", "yield2"},
		"PreemptKeepsNext":           {"preempt", "preempt2"},
		"PreemptRequeueNoWake":       {"preemptwake", "preemptwake2"},
		"SpinNoNeedSpinning":         {"needspin", "needspin2"},
		"SpinDropNoNeedSpinning":     {"dropneed", "dropneed2"},
		"LocalWakesOnlyIdle":         {"spawnneed", "spawnneed2"},
		"WakeSkipsOnRequest":         {"stalereq", "stalereq2"},
		"SpinNoWakeOnLastSpinner":    {"lastspinner", "lastspinner2"},
		"NoSpawnWake":                {"wake-spawn", "wake-spawng"},
		"NoGlobalSpawnWake":          {"wake-global", "wake-retake"},
		"SubmitWakesOnlyIdle":        {"needspin", "needspin2"},
		"RecheckGlobalOnly":          {"recheck", "recheck2"},
		"FairnessEvery62":            {"fair61", "fair61chain"},
		"SubmitChecksBeforeInflight": {"closerace", "closerace2"},
		"AbandonIgnoresInflight":     {"closerace", "closerace2"},
		"AbandonNoSecondLook":        {"deadline", "deadline2"},
		"BlockingKeepsNoP":           {"blockrunnext", "blockprocs"},
		"RetakeCountedAsHandoff":     {"counters", "counters2"},
		"UnparkOnOldP":               {"counters", "counters2"},
		"WokenSpinUncounted":         {"counters", "counters2"},
		"WaitEarly":                  {"groupdone", "groupdone2"},
		"RetakeWhenNothingWaits":     {"alone", "alone2"},
		"GoexitUnwindsWaiter":        {"goexit", "goexit2"},
		"BoundNotReleased":           {"overload", "overload2"},
		"FullWakesNobody":            {"overload", "overload2"},
		"ReserveLoadStore":           {"room", "room2"},
		"RoomFreedAfterLook":         {"room", "room2"},
		"CloseWakesBeforeClosing":    {"roomclose", "roomclose2"},
		"GlobalFreeNoZero":           {"reuse", "freelists"},
		"SpillKeepsLocal":            {"reuse", "freelists"},
		"FreeZeroAfterPut":           {"freezero", "freezero2"},
		"SyscallNeverRetaken":        {"syscall", "syscall2"},
		"SyscallExitIgnoresRetake":   {"syscall", "syscall2"},
		"JoinTakesBackStolen":        {"join", "join2"},
		"JoinSkipsWaitForThief":      {"join", "join2"},
		"JoinStateReusedBeforeWait":  {"join", "join2"},
		"SubmitSkipsWakeAlways":      {"wake-submit", "lostwake"},
		"SubmitSkipsWakeOnBacklog":   {"explorer", "submitpair"},
		"BootNoWait":                 {"boot", "boot2"},
		"TokenCountedAsTask":         {"taskcount", "taskcount2"},
		"SysmonNotKicked":            {"kick", "kick2"},
		"SysmonNoUsleep":             {"usleep", "usleep2"},
		"CallEntryNoWake":            {"lastcall", "lastcall2"},
		"DozeNoRecheck":              {"dozerecheck", "dozerecheck2"},
		"HelpRetakeEarly":            {"helpshort", "helpshort2"},
		"JoinParkNoCAS":              {"joinpark", "joinpark2"},
		"JoinFinishNoSwap":           {"joinfinish", "joinvictim"},
		"JoinErrAfterDone":           {"joinfinish", "joinvictim"},
		"JoinPushNoWake":             {"joinwake", "joinwake2"},
		"ParkChecksAfterPublish":     {"parkearly", "parkrace"},
		"ReadyNoCAS":                 {"parkearly", "parkrace"},
		"ReadyEarlyQueuesToken":      {"parkearly", "parkrace"},
		"HandOnBeforeDetach":         {"parkready", "parkclose"},
		"NoDirectSwitch":             {"pingpong", "relay"},
		"ReadySkipsRunnext":          {"nextfirst", "nextpong"},
		"OutsideGroupKeepsKids":      {"groupmem", "groupmem2"},
		"RetakeServesWaiterFirst":    {"syscallwaiter", "syscallwaiter2"},
		"SyscallTickAfterStatus":     {"callage", "callage2"},
		"ExitWaitAfterToken":         {"exittoken", "exittoken2"},
		"RetakeAtFirstOverrun":       {"sysmon2", "sysmon2b"},
		"RetakeQueuesNoWaiter":       {"waiterbatch", "waiterbatch2"},
		"NoCheckTimers":              {"sleepchain", "sleepchain2"},
		"SysmonSkipsTimers":          {"sleephogs", "sleephogs2"},
		"SleepArmsEarly":             {"sleeporder", "sleeporder2"},
		"CapReleasesEarly":           {"blockcap", "blockcap2"},
		"CapNoWake":                  {"blockcap", "blockcap2"},
		"BlockSkipsRecheck":          {"pollsubmit", "pollblock"},
		"WakeSysmonNoBreak":          {"pollclose", "pollsubmit"},
		"PollReadyNoClaim":           {"pollready2", "pollearly"},
		"ResizeDropsRunnext":         {"resizemove", "resizeclose"},
		"ResizeNoWake":               {"resizegrow", "resizeclose"},
		"ResizeNotInflight":          {"resizeclose", "resizeshutdown"},
	},
	Checkers: []killmatrix.Checker{
		{Name: "sleepchain", Deterministic: true, Run: bubbles(sleeperBesideChain(1))},
		{Name: "sleepchain2", Deterministic: true, Run: bubbles(sleeperBesideChain(2))},
		{Name: "sleephogs", Deterministic: true, Run: bubbles(sleeperBesideHogs(1))},
		{Name: "sleeporder", Deterministic: true, Run: bubbles(sleepersWakeInOrder(1, 20))},
		{Name: "sleeporder2", Deterministic: true, Run: bubbles(sleepersWakeInOrder(2, 20))},
		{Name: "sleephogs2", Deterministic: true, Run: bubbles(sleeperBesideHogs(2))},
		{Name: "blockers", Deterministic: true, Run: bubbles(blockersPlusQueued(1, false), blockersPlusQueued(2, false))},
		{Name: "hog", Deterministic: true, Run: bubbles(hogPlusQueued, pingPongPlusQueued)},
		{Name: "forkjoin", Deterministic: true, Run: bubbles(forkJoin(1, 10), forkJoin(2, 10))},
		{Name: "helps", Deterministic: true, Run: bubbles(waitHelps)},
		{Name: "ownfirst", Deterministic: true, Run: bubbles(waitOwnFirst)},
		{Name: "nesting", Deterministic: true, Run: bubbles(waitNesting(1, 12, nestSlack[1]))},
		{Name: "helpcap", Deterministic: true, Run: bubbles(waitChain(3*executor.HelpNestCap, false))},
		{Name: "helpcap2", Deterministic: true, Run: bubbles(waitChain(3*executor.HelpNestCap, true))},
		{Name: "yield", Deterministic: true, Run: func(*testing.T) error { return readiedGoroutineRuns(false) }},
		{Name: "yield2", Deterministic: true, Run: func(*testing.T) error { return readiedGoroutineRuns(true) }},
		{Name: "preempt", Deterministic: true, Run: bubbles(pingPongSpawnFirst(false))},
		{Name: "preempt2", Deterministic: true, Run: bubbles(pingPongSpawnFirst(true))},
		{Name: "groupctx", Deterministic: true, Run: func(t *testing.T) error {
			return joinErr(ctxAskedAfterError(t), ctxDerivedAfterError(t))
		}},
		{Name: "lostwake", Deterministic: true, Run: bubbles(submitWhileSpinnerWaits(false), submitWhileSpinnerWaits(true))},
		{Name: "lostwake2", Deterministic: true, Run: bubbles(submitFromTaskWhileSpinnerWaits(false), submitFromTaskWhileSpinnerWaits(true))},
		{Name: "fairburst", Deterministic: true, Run: bubbles(fairnessBurst)},
		{Name: "fairtree", Deterministic: true, Run: bubbles(fairnessTree)},
		{Name: "allocs", Deterministic: true, Run: localSpawnAllocs},
		{Name: "chain", Deterministic: true, Run: chainAllocs},
		{Name: "outallocs", Deterministic: true, Run: outsideAllocs},
		{Name: "reuse", Deterministic: true, Run: bubbles(recordsReused(1), recordsReused(2))},
		{Name: "freelists", Deterministic: true, Run: bubbles(freeListsClean(1), freeListsClean(2))},
		{Name: "freezero", Deterministic: true, Run: freeZeroPinned(false)},
		{Name: "freezero2", Deterministic: true, Run: freeZeroPinned(true)},
		{Name: "retaken", Deterministic: true, Run: bubbles(spawnAfterRetake(false))},
		{Name: "retaken2", Deterministic: true, Run: bubbles(spawnAfterRetake(true))},
		{Name: "stalegen", Deterministic: true, Run: bubbles(staleTaskRejected(false))},
		{Name: "stalegen2", Deterministic: true, Run: bubbles(staleTaskRejected(true))},
		{Name: "counters", Deterministic: true, Run: bubbles(countersOneGo, countersUnparkElsewhere(3, false), countersRetake(1))},
		{Name: "counters2", Deterministic: true, Run: bubbles(countersLocalSpawn, countersUnparkElsewhere(3, true), countersRetake(2))},
		{Name: "groupdone", Deterministic: true, Run: bubbles(doneInline, doneFromLocal(false), doneFromLocal(true), doneStolen)},
		{Name: "groupdone2", Deterministic: true, Run: bubbles(doneGlobal, doneRetaken, doneAfterBlocking)},
		{Name: "alone", Deterministic: true, Run: bubbles(longTaskAlone(1))},
		{Name: "alone2", Deterministic: true, Run: bubbles(longTaskAlone(2))},
		{Name: "goexit", Deterministic: true, Run: func(*testing.T) error {
			return joinErr(goexitChild(1, 200), goexitNested(1, 5, 20))
		}},
		{Name: "goexit2", Deterministic: true, Run: func(*testing.T) error { return goexitHelped(1, 200) }},
		{Name: "wake-spawn", Deterministic: true, Run: executor.WakeupCheck("spawn")},
		{Name: "wake-spawng", Deterministic: true, Run: executor.WakeupCheck("spawn-group")},
		{Name: "wake-global", Deterministic: true, Run: executor.WakeupCheck("blocking")},
		{Name: "wake-retake", Deterministic: true, Run: executor.WakeupCheck("retaken")},
		{Name: "wake-submit", Deterministic: true, Run: executor.WakeupCheck("outside")},
		{Name: "wake-ready", Deterministic: true, Run: joinCheck(executor.WakeupCheck("ready"), executor.WakeupCheck("resume"))},
		{Name: "needspin", Deterministic: true, Run: executor.WakeupCheck("needspin")},
		{Name: "needspin2", Deterministic: true, Run: executor.WakeupCheck("needspin2")},
		{Name: "recheck", Deterministic: true, Run: executor.WakeupCheck("recheck")},
		{Name: "recheck2", Deterministic: true, Run: executor.WakeupCheck("recheck2")},
		{Name: "fair61", Deterministic: true, Run: executor.WakeupCheck("fair61")},
		{Name: "fair61chain", Deterministic: true, Run: executor.WakeupCheck("fair61-chain")},
		{Name: "conserve", Deterministic: true, Run: executor.ConserveCheck("local")},
		{Name: "conserve2", Deterministic: true, Run: executor.ConserveCheck("global")},
		{Name: "preemptwake", Deterministic: true, Run: executor.ConserveCheck("preempt")},
		{Name: "preemptwake2", Deterministic: true, Run: executor.ConserveCheck("preempt2")},
		{Name: "dropneed", Deterministic: true, Run: executor.ConserveCheck("dropneed")},
		{Name: "dropneed2", Deterministic: true, Run: executor.ConserveCheck("dropneed2")},
		{Name: "spawnneed", Deterministic: true, Run: executor.ConserveCheck("spawnneed")},
		{Name: "spawnneed2", Deterministic: true, Run: executor.ConserveCheck("spawnneed2")},
		{Name: "stalereq", Deterministic: true, Run: executor.ConserveCheck("stalereq")},
		{Name: "stalereq2", Deterministic: true, Run: executor.ConserveCheck("stalereq2")},
		{Name: "lastspinner", Deterministic: true, Run: executor.ConserveCheck("lastspinner")},
		{Name: "lastspinner2", Deterministic: true, Run: executor.ConserveCheck("lastspinner2")},
		{Name: "closerace", Deterministic: true, Run: closeRace("go-vs-close", "go-vs-shutdown"), RealCodeElsewhere: true},
		{Name: "closerace2", Deterministic: true, Run: closeRace("batch-vs-close", "group-vs-close", "batch-vs-shutdown"), RealCodeElsewhere: true},
		{Name: "deadline", Deterministic: true, Run: closeRace("go-vs-deadline"), RealCodeElsewhere: true},
		{Name: "deadline2", Deterministic: true, Run: closeRace("batch-vs-deadline"), RealCodeElsewhere: true},
		{Name: "blockrunnext", Deterministic: true, Run: bubbles(blockingRetakesP)},
		{Name: "blockprocs", Deterministic: true, Run: bubbles(blockingRespectsProcs(1), blockingRespectsProcs(2))},
		{Name: "overload", Deterministic: true, Run: bubbles(overloadWaiterWoken)},
		{Name: "overload2", Deterministic: true, Run: bubbles(overloadBatchAndGroupWoken)},
		{Name: "syscall", Deterministic: true, Run: bubbles(syscallRetaken(1), syscallRetaken(2))},
		{Name: "syscall2", Deterministic: true, Run: bubbles(syscallRespectsProcs(1), syscallRespectsProcs(2))},
		{Name: "syscallms", Deterministic: true, Run: bubbles(syscallMixed(1), syscallMixed(2))},
		{Name: "keepalive", Deterministic: true, Run: bubbles(keepAliveBurst(1, 24))},
		{Name: "keepalive2", Deterministic: true, Run: bubbles(keepAliveBurst(2, 24))},
		{Name: "resizetimers", Deterministic: true, Run: bubbles(resizeTimers(1))},
		{Name: "resizetimers2", Deterministic: true, Run: bubbles(resizeTimers(3))},
		{Name: "latetimer", Deterministic: true, Run: bubbles(timerBesideLongTasks(1, true), timerBesideLongTasks(1, false))},
		{Name: "latetimer2", Deterministic: true, Run: bubbles(timerBesideLongTasks(2, true), timerBesideLongTasks(2, false))},
		{Name: "syscallshort", Deterministic: true, Run: bubbles(syscallShort(1), syscallShort(2), syscallAfterBackoff)},
		{Name: "syscallclose", Deterministic: true, Run: bubbles(syscallShutdown, syscallClose(1), syscallClose(2), syscallNesting)},
		{Name: "boot", Deterministic: true, Run: bubbles(bootMs(1, false), bootMs(2, false), bootMs(4, false))},
		{Name: "boot2", Deterministic: true, Run: bubbles(bootMs(1, true), bootMs(2, true), bootMs(4, true))},
		{Name: "taskcount", Deterministic: true, Run: bubbles(tasksStolenWait)},
		{Name: "taskcount2", Deterministic: true, Run: bubbles(tasksBlockedWait)},
		{Name: "join", Deterministic: true, Run: bubbles(joinStolen, joinReuse(false))},
		{Name: "join2", Deterministic: true, Run: bubbles(joinStolenRing, joinReuse(true), joinThiefRobbed)},
		{Name: "kick", Deterministic: true, Run: bubbles(syscallKicked(false))},
		{Name: "kick2", Deterministic: true, Run: bubbles(syscallKicked(true))},
		{Name: "usleep", Deterministic: true, Run: bubbles(syscallNoMRuns(1, false), syscallNoMRuns(2, false))},
		{Name: "usleep2", Deterministic: true, Run: bubbles(syscallNoMRuns(1, true), syscallNoMRuns(2, true))},
		{Name: "lastcall", Deterministic: true, Run: bubbles(syscallLastCall(1))},
		{Name: "lastcall2", Deterministic: true, Run: bubbles(syscallLastCall(2))},
		{Name: "dozerecheck", Deterministic: true, Run: executor.SyscallOrderCheck("dozerecheck")},
		{Name: "dozerecheck2", Deterministic: true, Run: executor.SyscallOrderCheck("dozerecheck2")},
		{Name: "helpshort", Deterministic: true, Run: bubbles(syscallShortHelped(false))},
		{Name: "helpshort2", Deterministic: true, Run: bubbles(syscallShortHelped(true))},
		{Name: "syscallwaiter", Deterministic: true, Run: bubbles(syscallWaiterBeside(1, false), syscallWaiterBeside(2, false))},
		{Name: "syscallwaiter2", Deterministic: true, Run: bubbles(syscallWaiterBeside(1, true), syscallWaiterBeside(2, true))},
		{Name: "callage", Deterministic: true, Run: executor.SyscallOrderCheck("callage")},
		{Name: "callage2", Deterministic: true, Run: exploreSyscall("syscall-second-call"), RealCodeElsewhere: true},
		{Name: "exittoken", Deterministic: true, Run: executor.SyscallOrderCheck("exittoken")},
		{Name: "exittoken2", Deterministic: true, Run: exploreSyscall("syscall-exit-waits"), RealCodeElsewhere: true},
		{Name: "sysmon2", Deterministic: true, Run: executor.SyscallOrderCheck("sysmon2")},
		{Name: "sysmon2b", Deterministic: true, Run: executor.SyscallOrderCheck("pingpong-request")},
		{Name: "waiterbatch", Deterministic: true, Run: bubbles(syscallWaiterBehindBatch(1))},
		{Name: "waiterbatch2", Deterministic: true, Run: bubbles(syscallWaiterBehindBatch(2))},
		{Name: "joinpark", Deterministic: true, Run: joinRace("join-park-vs-finish"), RealCodeElsewhere: true},
		{Name: "joinpark2", Deterministic: true, Run: joinRace("join-park-vs-finish-apanics"), RealCodeElsewhere: true},
		{Name: "joinfinish", Deterministic: true, Run: joinRace("join-finish-vs-park"), RealCodeElsewhere: true},
		{Name: "joinvictim", Deterministic: true, Run: joinRace("join-thief-victim"), RealCodeElsewhere: true},
		{Name: "joinwake", Deterministic: true, Run: executor.JoinWakeCheck("push")},
		{Name: "joinwake2", Deterministic: true, Run: executor.JoinWakeCheck("push-nested")},
		{Name: "groupmem", Deterministic: true, Run: func(t *testing.T) error { return groupBytesPerChild(t, 1) }},
		{Name: "groupmem2", Deterministic: true, Run: func(t *testing.T) error { return groupBytesPerChild(t, 2) }},
		{Name: "parkearly", Deterministic: true, Run: executor.ParkCheck("parkearly")},
		{Name: "parkrace", Deterministic: true, Run: executor.ParkCheck("parkrace")},
		{Name: "pingpong", Deterministic: true, Run: executor.ParkCheck("pingpong")},
		{Name: "relay", Deterministic: true, Run: executor.ParkCheck("relay")},
		{Name: "nextfirst", Deterministic: true, Run: executor.ParkCheck("nextfirst")},
		{Name: "nextpong", Deterministic: true, Run: executor.ParkCheck("nextpong")},
		{Name: "parkshapes", Deterministic: true, Run: executor.ParkCheck("shapes")},
		{Name: "parkready", Deterministic: true, Run: explorePark("park-vs-ready"), RealCodeElsewhere: true},
		{Name: "parkclose", Deterministic: true, Run: explorePark("park-vs-close"), RealCodeElsewhere: true},
		{Name: "parksteal", Deterministic: true, Run: explorePark("steal-readied"), RealCodeElsewhere: true},
		{Name: "parkretake", Deterministic: true, Run: explorePark("park-vs-retake"), RealCodeElsewhere: true},
		{Name: "parktask", Deterministic: true, Run: explorePark("park-vs-task-ready"), RealCodeElsewhere: true},
		{Name: "explorer", Deterministic: true, Run: killByExplorer, RealCodeElsewhere: true},
		{Name: "resizemove", Deterministic: true, Run: bubbles(resizeHolders(1), resizeHolders(5))},
		{Name: "resizegrow", Deterministic: true, Run: bubbles(resizeGrowWakes)},
		{Name: "resizeclose", Deterministic: true, Run: bubbles(resizeCloseBetween(false))},
		{Name: "resizeshutdown", Deterministic: true, Run: bubbles(resizeCloseBetween(true))},
		// The one scenario of the explorer column that catches a lazily made
		// context missing its group's error: the whole column ran 36 s of CPU
		// to reach it, this runs it alone (well under a second).
		{Name: "ctxerror", Deterministic: true, Run: exploreCases("ctx-vs-error"), RealCodeElsewhere: true},
		{Name: "submitpair", Deterministic: true, Run: killBySubmitPairs, RealCodeElsewhere: true},
		{Name: "room", Deterministic: true, Run: exploreRoom(false), RealCodeElsewhere: true},
		{Name: "room2", Deterministic: true, Run: exploreRoom(true), RealCodeElsewhere: true},
		{Name: "roomclose", Deterministic: true, Run: exploreRoomClose(0), RealCodeElsewhere: true},
		{Name: "roomclose2", Deterministic: true, Run: exploreRoomClose(1), RealCodeElsewhere: true},
		{Name: "blockcap", Deterministic: true, Run: func(t *testing.T) error {
			return capBubble(t, blockingCapped(1, 2, 6, false), blockingCapped(2, 2, 6, false))
		}},
		{Name: "blockcap2", Deterministic: true, Run: func(t *testing.T) error {
			return capBubble(t, blockingCapped(1, 2, 6, true), blockingCapped(2, 2, 6, true))
		}},
		{Name: "pollready", Deterministic: true, Run: explorePoll("poll-ready"), RealCodeElsewhere: true},
		{Name: "pollready2", Deterministic: true, Run: explorePoll("poll-ready-2p"), RealCodeElsewhere: true},
		{Name: "pollearly", Deterministic: true, Run: executor.PollCheck("early")},
		{Name: "pollblock", Deterministic: true, Run: executor.PollCheck("block")},
		{Name: "pollclose", Deterministic: true, Run: explorePoll("poll-vs-close"), RealCodeElsewhere: true},
		{Name: "pollsubmit", Deterministic: true, Run: explorePoll("poll-submit"), RealCodeElsewhere: true},
		{Name: "stress", Run: killByStress},
		{Name: "realtime", Run: killByRealtime}, // an extra: its verdict depends on the machine (realtime_test.go)
	},
}

// bubbles runs each scenario in its own synctest bubble and returns the
// first error.
func bubbles(ss ...scenario) func(*testing.T) error {
	return func(t *testing.T) error {
		for _, s := range ss {
			if err := inBubble(t, s); err != nil {
				return err
			}
		}
		return nil
	}
}

// joinCheck runs each check in turn and returns the first error.
func joinCheck(cs ...func(*testing.T) error) func(*testing.T) error {
	return func(t *testing.T) error {
		for _, c := range cs {
			if err := c(t); err != nil {
				return err
			}
		}
		return nil
	}
}

// closeRace runs the explorer's close-race scenarios (closerace_test.go).
func closeRace(names ...string) func(*testing.T) error {
	return func(*testing.T) error {
		applicable, err := executor.ExploreCloseRace(names...)
		if !applicable {
			return killmatrix.ErrNotApplicable
		}
		return err
	}
}

func killByExplorer(*testing.T) error {
	applicable, err := executor.ExploreAll()
	if !applicable {
		return killmatrix.ErrNotApplicable
	}
	return err
}

// exploreCases runs the explorer's executor scenarios named (explore_test.go)
// at bound 1.
func exploreCases(names ...string) func(*testing.T) error {
	return func(*testing.T) error {
		applicable, err := executor.ExploreCases(names...)
		if !applicable {
			return killmatrix.ErrNotApplicable
		}
		return err
	}
}

// joinRace runs the explorer's Join race scenario named name
// (join_explore_test.go).
func joinRace(name string) func(*testing.T) error {
	return func(*testing.T) error {
		applicable, err := executor.ExploreJoinRaces(name)
		if !applicable {
			return killmatrix.ErrNotApplicable
		}
		return err
	}
}

// exploreSyscall runs the explorer's Syscall scenario named
// (syscall_explore_test.go) with its MustReach.
func exploreSyscall(name string) func(*testing.T) error {
	return func(*testing.T) error {
		applicable, err := executor.ExploreSyscall(name)
		if !applicable {
			return killmatrix.ErrNotApplicable
		}
		return err
	}
}

// explorePark runs the explorer's park scenario named
// (park_explore_test.go) with its MustReach.
func explorePark(name string) func(*testing.T) error {
	return func(*testing.T) error {
		applicable, err := executor.ExplorePark(name)
		if !applicable {
			return killmatrix.ErrNotApplicable
		}
		return err
	}
}

// explorePoll runs the explorer's poll scenario named
// (poll_explore_test.go) with its MustReach.
func explorePoll(name string) func(*testing.T) error {
	return func(*testing.T) error {
		applicable, err := executor.ExplorePoll(name)
		if !applicable {
			return killmatrix.ErrNotApplicable
		}
		return err
	}
}

// killBySubmitPairs runs the explorer's submitPairs (explore_test.go).
func killBySubmitPairs(*testing.T) error {
	applicable, err := executor.ExploreSubmitPairs()
	if !applicable {
		return killmatrix.ErrNotApplicable
	}
	return err
}

// exploreRoomClose runs one of the explorer's Close-vs-waiter scenarios
// (overload_explore_test.go).
func exploreRoomClose(i int) func(*testing.T) error {
	return func(*testing.T) error {
		applicable, err := executor.ExploreRoomClose(i)
		if !applicable {
			return killmatrix.ErrNotApplicable
		}
		return err
	}
}

// freeZeroPinned runs a pinned race on the global free list
// (gfree_hook_test.go): on the list alone, or through a refused TryGo.
func freeZeroPinned(viaTryGo bool) func(*testing.T) error {
	return func(*testing.T) error {
		applicable, err := executor.FreeZeroPinned(viaTryGo)
		if !applicable {
			return killmatrix.ErrNotApplicable
		}
		return err
	}
}

// exploreRoom runs the explorer's MaxQueued scenarios
// (overload_explore_test.go): the first pair, or the second.
func exploreRoom(second bool) func(*testing.T) error {
	return func(*testing.T) error {
		applicable, err := executor.ExploreRoom(second)
		if !applicable {
			return killmatrix.ErrNotApplicable
		}
		return err
	}
}

func killByStress(t *testing.T) error {
	for _, c := range []stressCfg{
		{items: 20_000, procs: 4, submitters: 2, seed: 1},
		{items: 5_000, procs: 1, submitters: 2, seed: 2},
	} {
		ok := t.Run("", func(t *testing.T) { runStress(t, c) })
		if !ok {
			return errors.New("stress run failed")
		}
	}
	return nil
}

// TestKillMatrixCell is one cell, run only as a child of TestKillMatrix.
func TestKillMatrixCell(t *testing.T) { killmatrix.Cell(t, killConfig) }

func TestKillMatrix(t *testing.T) { killmatrix.Run(t, killConfig) }
