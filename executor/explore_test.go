package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// The interleaving explorer (explore, -tags schedcheck) on the
// composed M loop: the executor's Ms, and sysmon when asked, run as the
// explorer's threads (build's goStart collects them instead of starting
// goroutines), beside a thread that submits tasks and then closes the
// executor. Every interleaving within the preemption bound must run every
// task exactly once, and end: a lost wakeup shows as a deadlock (Close
// waiting for quiescence with every M parked while a task is queued).
// Without the tag the scenarios skip.

// exploreCase is one scenario: Procs Ps, extra Ms beyond Procs, sysmon as a
// thread or not, and what the submitting thread does before it closes.
type exploreCase struct {
	name   string
	procs  int
	extraM int
	// spares are workers waiting as spares (park.go) from the start: a
	// parking task hands its P to one, as the explorer cannot run a
	// goroutine started during the run.
	spares int
	sysmon bool
	slice  time.Duration
	tasks  int
	submit func(e *Executor, ran []atomicx.Int32)
	// other, if set, is a second outside thread submitting beside submit;
	// Close waits for it.
	other func(e *Executor, ran []atomicx.Int32)
	// want is how many times each ran cell must count (1 if nil).
	want []int32
	// shortPCT, if set, makes the default (-short) mode run this many PCT
	// executions from a fixed seed instead of every interleaving at bound
	// 1; long mode (explore.Long) keeps the exhaustive DFS. For a scenario
	// whose bound-1 space costs a large share of the test command's budget.
	shortPCT int
}

func (c exploreCase) run() explore.Run {
	var threads []func()
	late := 0
	started := false
	e, err := build(Config{Procs: c.procs, Slice: c.slice}, func(f func()) {
		if started {
			late++ // a goroutine started during the run (a Goexit) would not run
			return
		}
		threads = append(threads, f)
	}, false)
	if err != nil {
		panic(err)
	}
	for range c.procs + c.extraM {
		e.startM()
	}
	if c.sysmon {
		e.live.Add(1)
		e.goStart(e.sysmon)
	}
	for range c.spares {
		threads = append(threads, e.spareThread())
	}
	started = true
	nameCells(e)
	ran := make([]atomicx.Int32, c.tasks)
	for i := range ran {
		explore.Name(&ran[i], fmt.Sprintf("ran[%d]", i))
	}
	var closeErr error
	var otherDone atomicx.Note
	explore.Name(&otherDone, "otherDone")
	if c.other != nil {
		threads = append(threads, func() {
			c.other(e, ran)
			otherDone.Wakeup()
		})
	}
	threads = append(threads, func() {
		c.submit(e, ran)
		if c.other != nil {
			otherDone.Sleep()
		}
		closeErr = e.Close()
	})
	return explore.Run{
		Threads: threads,
		Check: func() error {
			if closeErr != nil {
				return closeErr
			}
			if late != 0 {
				return fmt.Errorf("%d goroutines were started during the run", late)
			}
			for i := range ran {
				want := int32(1)
				if c.want != nil {
					want = c.want[i]
				}
				if n := ran[i].Load(); n != want {
					return fmt.Errorf("cell ran[%d] counted %d, want %d", i, n, want)
				}
			}
			if n := e.global.Len(); n != 0 {
				return fmt.Errorf("%d tasks left in the global queue", n)
			}
			return nil
		},
	}
}

var bg = context.Background()

func count(ran []atomicx.Int32, i int) func(Task) { return func(Task) { ran[i].Add(1) } }

var exploreCases = []exploreCase{
	{
		// An outside submit against the Ms' parking and the drop-and-recheck.
		name: "submit-vs-park", procs: 1, extraM: 1, tasks: 2,
		submit: func(e *Executor, ran []atomicx.Int32) {
			_ = e.Go(count(ran, 0))
			_ = e.Go(count(ran, 1))
		},
	},
	{
		// Two outside submitters at once on the only P, every M parked:
		// each sees the other's task queued beside its own, so a submit
		// that skipped its wakeup for a task queued "before" it (64f6661)
		// left both tasks queued and every M parked.
		name: "submit-vs-submit", procs: 1, tasks: 2,
		submit: func(e *Executor, ran []atomicx.Int32) { _ = e.Go(count(ran, 0)) },
		other:  func(e *Executor, ran []atomicx.Int32) { _ = e.Go(count(ran, 1)) },
	},
	{
		// A local spawn into runnext with a second P whose M may steal it.
		name: "spawn-vs-steal", procs: 2, tasks: 2,
		submit: func(e *Executor, ran []atomicx.Int32) {
			_ = e.Go(func(t Task) {
				ran[0].Add(1)
				t.Go(count(ran, 1))
			})
		},
	},
	{
		// A task blocks (on a note: the explorer sees it) until a task
		// queued behind it on the only P has run: sysmon, a thread here,
		// must take the P, on the explorer's virtual clock.
		// Its bound-1 space is 29,144 executions, 42 s of CPU (a third
		// of the explorer step's executor binary): 2,000 PCT executions
		// under -short, all of them in long mode.
		name: "blocker-retake", procs: 1, extraM: 1, sysmon: true, slice: 100 * time.Microsecond, tasks: 2, shortPCT: 2000,
		submit: func(e *Executor, ran []atomicx.Int32) {
			var n atomicx.Note
			explore.Name(&n, "released")
			_ = e.Go(func(Task) {
				n.Sleep()
				ran[0].Add(1)
			})
			_ = e.Go(func(Task) {
				ran[1].Add(1)
				n.Wakeup()
			})
		},
	},
	{
		// A group waited inside a task on the only P: the Wait must run
		// its children itself (no sysmon here to rescue a Wait that holds
		// its P).
		name: "group-wait-1p", procs: 1, tasks: 3,
		submit: groupWait,
	},
	{
		// The same on 2 Ps: the Wait runs its children, or a thief takes
		// one and the Wait sleeps until that child's M readies it.
		name: "group-wait", procs: 2, tasks: 3,
		submit: groupWait,
	},
	{
		// A Wait on the only P whose P's queue holds two tasks of its
		// own task ahead of the group's children (ring: F1 F2 C1,
		// runnext: C2): it must run C2 and C1, its own, and return
		// before F1 or F2 runs (ran[4] counts a foreign task run inside
		// the Wait, which must stay 0).
		name: "wait-own-first", procs: 1, tasks: 6, want: []int32{1, 1, 1, 1, 0, 1},
		submit: func(e *Executor, ran []atomicx.Int32) {
			_ = e.Go(func(t Task) {
				var waiting atomicx.Int32
				foreign := func(i int) func(Task) {
					return func(Task) {
						ran[i].Add(1)
						if waiting.Load() != 0 {
							ran[4].Add(1)
						}
					}
				}
				t.Go(foreign(0))
				t.Go(foreign(1))
				g, _ := t.NewGroup(bg)
				g.Go(func(Task) error { ran[2].Add(1); return nil })
				g.Go(func(Task) error { ran[3].Add(1); return nil })
				waiting.Store(1)
				if g.Wait() == nil {
					ran[5].Add(1)
				}
				waiting.Store(0)
			})
		},
	},
	{
		// A Wait's inline run of its own children races the other P's M
		// stealing the same records (half the ring, or runnext after the
		// delay): each child must run once, whoever claims it, and the
		// records, reused for the children's own spawns, must not run
		// again.
		name: "wait-inline-vs-thief", procs: 2, tasks: 5,
		submit: func(e *Executor, ran []atomicx.Int32) {
			_ = e.Go(func(t Task) {
				g, _ := t.NewGroup(bg)
				g.Go(func(t Task) error { ran[0].Add(1); t.Go(count(ran, 3)); return nil })
				g.Go(func(t Task) error { ran[1].Add(1); return nil })
				g.Go(func(t Task) error { ran[2].Add(1); return nil })
				if g.Wait() == nil {
					ran[4].Add(1)
				}
			})
		},
	},
	{
		// A group's context is made at its first Done while an M runs
		// the group's failing task: whichever comes second (the error or
		// the making) must cancel it, with the error as its cause.
		name: "ctx-vs-error", procs: 1, tasks: 2,
		submit: func(e *Executor, ran []atomicx.Int32) {
			boom := errors.New("boom")
			g, ctx := e.NewGroup(bg)
			g.Go(func(Task) error { ran[0].Add(1); return boom })
			done := ctx.Done()
			_ = g.Wait()
			select {
			case <-done:
				if errors.Is(context.Cause(ctx), boom) {
					ran[1].Add(1)
				}
			default:
			}
		},
	},
	{
		// A task's Syscall blocks (on a note) until a task queued behind
		// it on the only P has run: only a retake of the P in pSyscall
		// lets that task in. The submitting thread plays sysmon: two
		// rounds of retakeAll a threshold apart once the call has begun
		// (sysmon's own loop as a thread made this 24580 executions).
		name: "syscall-retake", procs: 1, extraM: 1, tasks: 2,
		submit: func(e *Executor, ran []atomicx.Int32) {
			var in, n atomicx.Note
			explore.Name(&in, "inCall")
			explore.Name(&n, "released")
			_ = e.Go(func(t Task) {
				_ = t.Syscall(func() {
					in.Wakeup()
					n.Sleep()
				})
				ran[0].Add(1)
			})
			_ = e.Go(func(Task) {
				ran[1].Add(1)
				n.Wakeup()
			})
			in.Sleep()
			now := atomicx.Nanotime()
			e.retakeAll(now)
			e.retakeAll(now + int64(e.cfg.SyscallThreshold))
		},
	},
	{
		// A call that returns as its P is retaken: the submitting thread
		// plays sysmon (two rounds of retakeAll a threshold apart, with a
		// task queued) while the call returns, so the return's CAS and the
		// retake race both ways; the task goes on once, on one P.
		name: "syscall-vs-retake", procs: 1, extraM: 1, tasks: 2,
		submit: func(e *Executor, ran []atomicx.Int32) {
			var in atomicx.Note
			explore.Name(&in, "inCall")
			_ = e.Go(func(t Task) {
				_ = t.Syscall(in.Wakeup)
				ran[0].Add(1)
			})
			_ = e.Go(count(ran, 1))
			in.Sleep()
			now := atomicx.Nanotime()
			e.retakeAll(now)
			e.retakeAll(now + int64(e.cfg.SyscallThreshold))
		},
	},
}

// submitPairs are more pairs of outside submitters on the only P, with
// every M parked, for a second check of the wakeup every submit owes
// (kill matrix: submitpair): a batch beside a Go, each seeing the other's
// tasks queued beside its own. (An outside group's Go beside a Go took
// 1.8 s more and goes through the same submit.)
var submitPairs = []exploreCase{
	{
		name: "batch-vs-submit", procs: 1, tasks: 3,
		submit: func(e *Executor, ran []atomicx.Int32) { _ = e.GoBatch([]func(Task){count(ran, 0), count(ran, 1)}) },
		other:  func(e *Executor, ran []atomicx.Int32) { _ = e.Go(count(ran, 2)) },
	},
}

func TestExploreSubmitPairs(t *testing.T) {
	for _, c := range submitPairs {
		t.Run(c.name, func(t *testing.T) {
			explore.Check(t, exploreOptions(c), c.run)
		})
	}
}

// ExploreSubmitPairs runs submitPairs at bound 1 for the kill matrix;
// applicable is false without -tags schedcheck.
func ExploreSubmitPairs() (applicable bool, err error) {
	return exploreCasesBound1(submitPairs)
}

func groupWait(e *Executor, ran []atomicx.Int32) {
	_ = e.Go(func(t Task) {
		g, _ := t.NewGroup(bg)
		g.Go(func(t Task) error { ran[0].Add(1); return nil })
		g.Go(func(t Task) error { ran[1].Add(1); return nil })
		if g.Wait() == nil {
			ran[2].Add(1)
		}
	})
}

// exploreOptions: bound 1 is complete for every scenario in seconds;
// long mode asks for bound 2, which MaxExecutions cuts short (reported).
func exploreOptions(c exploreCase) explore.Options {
	if c.shortPCT > 0 && !explore.Long() {
		return explore.Options{Name: "executor-" + c.name, Mode: explore.PCT, Seed: 1, MaxExecutions: c.shortPCT}
	}
	return explore.Options{Name: "executor-" + c.name, Bound: 1, LongBound: 2}
}

func TestExploreExecutor(t *testing.T) {
	for _, c := range exploreCases {
		t.Run(c.name, func(t *testing.T) {
			// Each scenario explores an executor of its own, and an
			// exploration runs one thread at a time: two at once keep a
			// 2-core machine busy (blocker-retake alone is half of the
			// test's 40 s of CPU).
			t.Parallel()
			explore.Check(t, exploreOptions(c), c.run)
		})
	}
}

// exploreAll runs every scenario at bound 1, for the kill matrix; nil
// without -tags schedcheck is reported by the caller as not applicable.
func exploreAll() (bool, error) { return exploreCasesBound1(exploreCases) }

// ExploreCases runs the exploreCases named at bound 1 for the kill matrix; a
// name that matches none is an error, so a renamed scenario cannot turn its
// cell into a silent pass. applicable is false without -tags schedcheck.
func ExploreCases(names ...string) (applicable bool, err error) {
	var cs []exploreCase
	for _, name := range names {
		i := slices.IndexFunc(exploreCases, func(c exploreCase) bool { return c.name == name })
		if i < 0 {
			return true, fmt.Errorf("no explorer scenario named %q", name)
		}
		cs = append(cs, exploreCases[i])
	}
	return exploreCasesBound1(cs)
}

// exploreCasesBound1 runs each of cs at bound 1 and returns the first
// failure; applicable is false without -tags schedcheck.
func exploreCasesBound1(cs []exploreCase) (bool, error) {
	for _, c := range cs {
		if applicable, err := exploreCell(c.name, exploreOptions(c), c.run, false); !applicable || err != nil {
			return applicable, err
		}
	}
	return true, nil
}

// exploreCell is a kill-matrix cell's run of one scenario: every
// interleaving at opts.Bound (LongBound dropped), its failure named, and,
// with reach, a MustReach label never reached is a failure too;
// applicable is false without -tags schedcheck.
func exploreCell(name string, opts explore.Options, build func() explore.Run, reach bool) (applicable bool, err error) {
	opts.LongBound = 0
	r, err := explore.Explore(opts, build)
	switch {
	case errors.Is(err, explore.ErrNoSchedcheck):
		return false, nil
	case err != nil:
		return true, err
	case r.Failure != nil:
		return true, fmt.Errorf("%s: %v", name, r.Failure.Err)
	case reach && len(r.Unreached) != 0:
		return true, fmt.Errorf("%s: %v", name, r.UnreachedError())
	}
	return true, nil
}

// nameCells names the executor's own cells in traces.
func nameCells(e *Executor) {
	for _, c := range []struct {
		p    any
		name string
	}{
		{&e.closing, "closing"}, {&e.inflight, "inflight"}, {&e.quiet, "quiet"}, {&e.quietBy, "quietBy"},
		{&e.nm, "nm"}, {&e.live, "live"}, {&e.exited, "exited"}, {&e.stopped, "stopped"},
		{&e.sysmonNote, "sysmonNote"}, {&e.sysmonWait, "sysmonWait"}, {&e.mu, "e.mu"}, {&e.closeMu, "closeMu"},
		{&e.global, "global"}, {&e.abandon, "abandon"},
	} {
		explore.Name(c.p, c.name)
	}
	for i, p := range e.ps {
		explore.Name(p, fmt.Sprintf("P%d", i))
	}
	for _, w := range e.workers {
		explore.Name(w, fmt.Sprintf("M%d", w.id))
	}
}
