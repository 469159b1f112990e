package executor

import (
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// The explorer on Task.Syscall's races (issue 22, section 2; -tags
// schedcheck): the submitting thread plays sysmon (retakeAll at times it
// chooses) while a task's calls enter, return and wait, and the Ms run
// the queued work and exit tokens. syscallHook reports each racy step to
// the explorer (syscallExploreRun); MustReach asks for every shape a scenario is meant to
// drive, so one that stops reaching it fails.

var syscallExploreCases = []exploreCase{
	{
		// A second call on the same P after sysmon saw the first: the
		// round two thresholds later races the first call's return, a
		// spawn (work waits for the P) and the second call's entry. No
		// call lasts a threshold from its own start, so no interleaving
		// may retake (ran[2] counts a retake). SyscallTickAfterStatus
		// lets the round see the second call with the first one's tick.
		name: "syscall-second-call", procs: 1, extraM: 1, tasks: 3, want: []int32{1, 1, 0},
		submit: func(e *Executor, ran []atomicx.Int32) {
			var in, seen atomicx.Note
			explore.Name(&in, "inCall")
			explore.Name(&seen, "seen")
			_ = e.Go(func(t Task) {
				_ = t.Syscall(func() {
					in.Wakeup()
					seen.Sleep()
				})
				t.Go(count(ran, 1))
				_ = t.Syscall(func() {})
				ran[0].Add(1)
			})
			in.Sleep()
			now := atomicx.Nanotime()
			e.retakeAll(now) // sees the first call
			seen.Wakeup()
			if n, _, _ := e.retakeAll(now + 2*int64(e.cfg.SyscallThreshold)); n != 0 {
				ran[2].Add(1)
			}
			switch e.ps[0].seenCall {
			case 2:
				explore.Reached("the round saw the second call")
			case 1:
				explore.Reached("the round saw no second call")
			}
		},
	},
	{
		// An exit racing the retake's aftermath: a call is retaken (two
		// rounds, a task queued) and returns while the handoff's M runs
		// the queued task, then looks for work: the exit takes the P if
		// it is idle, else queues its token, which that M runs. Under
		// ExitWaitAfterToken the M can take the token before the wait is
		// set, drop it, and the task waits for ever (Close hangs).
		name: "syscall-exit-waits", procs: 1, extraM: 1, tasks: 2,
		submit: func(e *Executor, ran []atomicx.Int32) {
			var in, rel atomicx.Note
			explore.Name(&in, "inCall")
			explore.Name(&rel, "released")
			_ = e.Go(func(t Task) {
				_ = t.Syscall(func() {
					in.Wakeup()
					rel.Sleep()
				})
				ran[0].Add(1)
			})
			in.Sleep()
			_ = e.Go(func(Task) {
				ran[1].Add(1)
				rel.Wakeup()
			})
			now := atomicx.Nanotime()
			e.retakeAll(now)
			e.retakeAll(now + int64(e.cfg.SyscallThreshold))
		},
	},
	{
		// A waiter racing the handoff: task a's call is retaken for task
		// b, which releases a's call and calls in turn; the thread's two
		// rounds on b's call race a's return. A round that finds a
		// waiting (its token queued: work waits) retakes b's P and hands
		// it to a (handToWaiter); one that finds it not back yet leaves
		// the P to b, and a's token runs once b is done.
		name: "syscall-waiter-vs-handoff", procs: 1, extraM: 1, tasks: 2,
		submit: func(e *Executor, ran []atomicx.Int32) {
			var inA, relA, inB, relB atomicx.Note
			explore.Name(&inA, "inCallA")
			explore.Name(&relA, "releasedA")
			explore.Name(&inB, "inCallB")
			explore.Name(&relB, "releasedB")
			_ = e.Go(func(t Task) {
				_ = t.Syscall(func() {
					inA.Wakeup()
					relA.Sleep()
				})
				ran[0].Add(1)
			})
			inA.Sleep()
			_ = e.Go(func(t Task) {
				relA.Wakeup()
				_ = t.Syscall(func() {
					inB.Wakeup()
					relB.Sleep()
				})
				ran[1].Add(1)
			})
			now := atomicx.Nanotime()
			e.retakeAll(now)
			e.retakeAll(now + int64(e.cfg.SyscallThreshold)) // a's call, for b
			inB.Sleep()
			now += 2 * int64(e.cfg.SyscallThreshold)
			e.retakeAll(now)
			e.retakeAll(now + int64(e.cfg.SyscallThreshold)) // b's call, for a if it waits
			relB.Wakeup()
		},
	},
}

// syscallExploreReach is what each scenario must reach.
var syscallExploreReach = map[string][]string{
	"syscall-second-call":       {"the round saw the second call", "the round saw no second call", "call entering"},
	"syscall-exit-waits":        {"exit retaken", "exit token queued", "exit token claimed"},
	"syscall-waiter-vs-handoff": {"exit retaken", "exit token queued", "handed to waiter", "exit token claimed"},
}

// syscallExploreRun is c.run with syscallHook reporting each step, and
// yielding (a switch the preemption bound does not count) between the two
// stores whose order a mutant swaps: at a call's entry (syscalltick, the
// status word) and at a return's wait (exitWait, the exit token). A
// reordering shows only if another thread runs between them; at bound 1
// the one preemption is spent bringing that thread to its look (sysmon's
// round, an M's look at the global queue).
func syscallExploreRun(c exploreCase) func() explore.Run {
	return func() explore.Run {
		syscallHook = func(step string) {
			explore.Reached(step)
			if step == "call entering" || step == "exit token queued" {
				atomicx.Sleep(0)
			}
		}
		return c.run()
	}
}

func TestExploreSyscall(t *testing.T) {
	defer func() { syscallHook = nil }()
	for _, c := range syscallExploreCases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "syscall-waiter-vs-handoff" && !explore.Long() {
				// 18520 executions, 26 s: long mode only (the bubbles
				// syscallwaiter and syscallms cover its rule in -short).
				t.Skip("long mode only (SCHEDKIT_LONG=1): 26 s at bound 1")
			}
			opts := exploreOptions(c)
			opts.MustReach = syscallExploreReach[c.name]
			explore.Check(t, opts, syscallExploreRun(c))
		})
	}
}

// ExploreSyscall runs the scenarios named at bound 1 for the kill matrix,
// with their MustReach; applicable is false without -tags schedcheck.
func ExploreSyscall(names ...string) (applicable bool, err error) {
	defer func() { syscallHook = nil }()
	for _, name := range names {
		var c *exploreCase
		for i := range syscallExploreCases {
			if syscallExploreCases[i].name == name {
				c = &syscallExploreCases[i]
			}
		}
		if c == nil {
			panic("executor: no syscall explorer scenario " + name)
		}
		opts := exploreOptions(*c)
		opts.MustReach = syscallExploreReach[name]
		if applicable, err := exploreCell(name, opts, syscallExploreRun(*c), true); !applicable || err != nil {
			return applicable, err
		}
	}
	return true, nil
}
