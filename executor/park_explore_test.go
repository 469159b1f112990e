package executor

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// The explorer on park and ready (-tags schedcheck): the parking task on
// its M, a spare worker waiting for a parking task's P, the Ms, and an
// outside thread that readies the task and closes the executor. In every
// interleaving within the bound the task resumes exactly once (ran[0]),
// holding a P, and Close returns: a lost wakeup shows as a deadlock, a
// second resume or a resume before the park as a task that runs on with
// its worker's fields overwritten (two holders of a P, or none).
// MustReach asks for both sides of each race: the Ready before the commit
// (the task goes on, EarlyReadies) and after it (the token is queued).
//
//	scenario            race                                      kill-matrix column
//	park-vs-ready       an outside Ready against the park, 1 P    parkready (bound 1)
//	steal-readied       P0's M steals the token a task readied    parksteal (no preemption)
//	                    into P1's runnext
//	park-vs-close       Close against a park readied by a task    parkclose (bound 1)
//	park-vs-task-ready  a Ready by a task on the other P against  parktask (PCT, 1000 runs)
//	                    the commit
//	park-vs-retake      sysmon's retake against the park's claim  parkretake (PCT, 1000 runs)
//	                    of its P (gopark's no-P path)
//
// At bound 1 the 2-P scenarios and the retake pass 100,000 executions
// without finishing (over two minutes each at load 10), so they run
// without preemptions or as PCT from a fixed seed (the same executions
// each run).

// spareThread makes a worker with no M and returns its goroutine's body
// for the explorer: the M loop, which finds no M and waits as a spare
// (schedule's spare call) until a parking task hands it its M and P, or
// stop ends it. A scenario's thread waits for it to be listed
// (awaitSpares) before it submits, as the explorer cannot run a fresh
// spare's goroutine started during the run.
func (e *Executor) spareThread() func() {
	y := e.newWorker()
	e.live.Add(1)
	return func() {
		y.gid.Store(goid())
		defer e.mexit(y)
		e.schedule(y)
	}
}

// awaitSpares waits until n spares are listed.
func awaitSpares(e *Executor, n int) { e.awaitSpares(n) }

// parkAfterSignal publishes t's Waker in k, signals kn (the waker's
// thread waits on it) and parks.
func parkAfterSignal(t Task, k *Waker, kn *atomicx.Note) {
	*k = t.Waker()
	kn.Wakeup()
	t.Park(*k)
}

// parkReached labels the side of the race a park saw, from its P's
// counters (the task reads them on the P it resumed on: the early ready
// kept it).
func parkReached(t Task) {
	if t.w.p.Load().stats.earlyReadies.Load() != 0 {
		explore.Reached("readied before the commit")
	} else {
		explore.Reached("readied after the commit")
	}
}

var parkReach = []string{"readied before the commit", "readied after the commit"}

// parkCases are the park races. In park-vs-ready an outside Ready races
// the park on the only P (its token goes to the global queue; the spare
// takes the P and runs it). In park-vs-close the outside Ready races
// Close, which must wait for the parked task. In steal-readied task B on
// P1 readies A into its runnext and blocks holding P1 until A has run:
// P0's M must steal the token (after the steal delay) and resume A.
var parkCases = []exploreCase{
	{
		name: "park-vs-ready", procs: 1, spares: 1, tasks: 1,
		submit: func(e *Executor, ran []atomicx.Int32) {
			awaitSpares(e, 1)
			var kn atomicx.Note
			explore.Name(&kn, "waker")
			var k Waker
			_ = e.Go(func(t Task) {
				parkAfterSignal(t, &k, &kn)
				parkReached(t)
				ran[0].Add(1)
			})
			kn.Sleep()
			k.Ready(Task{})
		},
	},
	{
		name: "steal-readied", procs: 2, spares: 1, tasks: 2,
		submit: func(e *Executor, ran []atomicx.Int32) {
			awaitSpares(e, 1)
			var kn, an atomicx.Note
			explore.Name(&kn, "waker")
			explore.Name(&an, "aRan")
			var k Waker
			_ = e.Go(func(t Task) {
				parkAfterSignal(t, &k, &kn)
				var readies, stolen uint64
				for _, p := range e.ps {
					readies += p.stats.taskReadies.Load()
					stolen += p.stats.stolen.Load()
				}
				if readies == 1 && stolen != 0 {
					explore.Reached("stolen from runnext")
				}
				ran[0].Add(1)
				an.Wakeup()
			})
			_ = e.Go(func(b Task) {
				kn.Sleep()
				k.Ready(b)
				an.Sleep() // holding its P: only a steal runs the token
				ran[1].Add(1)
			})
		},
	},
}

// parkRetakeCase: sysmon's retake races the park on the only P: the
// submitting thread plays sysmon (three rounds of retakeAll a slice apart,
// with a task queued behind the parking one: the first round looks, the
// second asks, the third retakes a P still in pTask), then readies the
// task from outside. A park whose claim of its P fails takes gopark's
// no-P path (it keeps its P-less M, swapped at the resume); MustReach
// asks for that side and for the park that hands its P on.
var parkRetakeCase = exploreCase{
	name: "park-vs-retake", procs: 1, extraM: 1, spares: 1, slice: 100 * time.Microsecond, tasks: 2,
	submit: func(e *Executor, ran []atomicx.Int32) {
		awaitSpares(e, 1)
		var kn atomicx.Note
		explore.Name(&kn, "waker")
		var k Waker
		_ = e.Go(func(t Task) {
			parkAfterSignal(t, &k, &kn)
			if e.ps[0].stats.taskParks.Load() == 0 && e.ps[0].stats.earlyReadies.Load() == 0 {
				explore.Reached("parked without a P")
			} else if e.ps[0].stats.taskParks.Load() != 0 {
				explore.Reached("parked with its P")
			}
			ran[0].Add(1)
		})
		_ = e.Go(count(ran, 1))
		kn.Sleep()
		now := atomicx.Nanotime()
		for i := range int64(3) {
			e.retakeAll(now + i*int64(e.cfg.Slice))
		}
		k.Ready(Task{})
	},
}

// parkTaskCase: a task on the other P readies the parking task, racing
// its commit: an early Ready lets it go on with its P; a later one puts
// its token in the readier's runnext (goready's pSpawn CAS on the
// readier's P), whose M runs it once the readier ends, or the parker's
// spare steals it. PCT from a fixed seed, as park-vs-retake (two Ps).
var parkTaskCase = exploreCase{
	name: "park-vs-task-ready", procs: 2, spares: 1, tasks: 2,
	submit: func(e *Executor, ran []atomicx.Int32) {
		awaitSpares(e, 1)
		var kn atomicx.Note
		explore.Name(&kn, "waker")
		var k Waker
		_ = e.Go(func(t Task) {
			parkAfterSignal(t, &k, &kn)
			parkReached(t)
			ran[0].Add(1)
		})
		_ = e.Go(func(b Task) {
			kn.Sleep()
			k.Ready(b)
			ran[1].Add(1)
		})
	},
}

// retakeOptions: at bound 1 park-vs-retake's two Ms, spare and sysmon
// rounds pass 100,000 executions (160 s at load 10, every one correct), so
// it runs PCT's 1000 executions from a fixed seed (the same executions
// each run) with both sides of the race required.
func retakeOptions() explore.Options {
	return pctOptions(parkRetakeCase, "parked without a P", "parked with its P")
}

// parkCloseCase: Close races a park and its ready on the only P: the
// task spawns b with its Waker and parks (the spare takes the P, runs b,
// whose Ready puts the task's token in runnext, and resumes it), while
// the outside thread closes at once: Close must wait for the parked task.
var parkCloseCase = exploreCase{
	name: "park-vs-close", procs: 1, spares: 1, tasks: 2,
	submit: func(e *Executor, ran []atomicx.Int32) {
		awaitSpares(e, 1)
		_ = e.Go(func(t Task) {
			k := t.Waker()
			t.Go(func(b Task) {
				k.Ready(b)
				ran[1].Add(1)
			})
			t.Park(k)
			ran[0].Add(1)
		})
	},
}

// parkScenarios are every park scenario with the options it runs with.
func parkScenarios() []struct {
	c    exploreCase
	opts explore.Options
} {
	ready := exploreOptions(parkCases[0])
	ready.MustReach = parkReach
	return []struct {
		c    exploreCase
		opts explore.Options
	}{
		{parkCases[0], ready},
		{parkCases[1], stealOptions(parkCases[1])},
		{parkCloseCase, exploreOptions(parkCloseCase)},
		{parkTaskCase, pctOptions(parkTaskCase, parkReach...)},
		{parkRetakeCase, retakeOptions()},
	}
}

func TestExplorePark(t *testing.T) {
	for _, s := range parkScenarios() {
		t.Run(s.c.name, func(t *testing.T) {
			t.Parallel() // an executor of its own, as TestExploreExecutor's
			explore.Check(t, s.opts, s.c.run)
		})
	}
}

// ExplorePark runs the park scenario named name for the kill matrix, with
// its MustReach (the bound, or PCT's executions, of TestExplorePark's
// -short run); applicable is false without -tags schedcheck.
func ExplorePark(name string) (applicable bool, err error) {
	for _, s := range parkScenarios() {
		if s.c.name == name {
			return exploreCell(name, s.opts, s.c.run, true)
		}
	}
	panic("executor: no park scenario " + name)
}

// stealOptions: steal-readied's two Ms, the spare and the steal delay's
// sleeps make bound 1 over 100,000 executions (166 s at load 10), so it
// runs without preemptions (every switch at a blocking step or a sleep).
func stealOptions(c exploreCase) explore.Options {
	return explore.Options{Name: "executor-" + c.name, Bound: explore.NoPreemption, LongBound: 1, MustReach: []string{"stolen from runnext"}}
}

// pctOptions: PCT's 1000 executions from seed 1 with reach required; while
// a label is unreached, 1000 more from each next seed, 4 seeds in all
// (explore.Options.Seeds), so that a change adding a scheduling point, which
// moves every schedule of a seed, does not lose a narrow window.
func pctOptions(c exploreCase, reach ...string) explore.Options {
	return explore.Options{Name: "executor-" + c.name, Mode: explore.PCT, Seed: 1, MaxExecutions: 1000, MustReach: reach, Seeds: 4}
}
