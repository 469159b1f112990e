package suite

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alitto/pond/v2"
	"github.com/panjf2000/ants/v2"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"

	"github.com/schedkit/schedkit/executor"
)

// The mixed workload: CPU-bound tasks of which every tenth also blocks for
// a millisecond (handoff's case: entersyscallblock hands the P to another
// M, so the CPUs stay busy while the blocked task sleeps).

const (
	// mixedWork is each task's arithmetic, in ppSpin rounds (a few µs).
	mixedWork = 2048
	// mixedEvery: one task in mixedEvery blocks.
	mixedEvery = 10
	// mixedBlock is how long a blocking task sleeps.
	mixedBlock = time.Millisecond
)

// mixedPerP is the number of tasks per op and P: 6000 (about 15-25ms of
// arithmetic per P at 2.5-4µs a task, so the last sleeper's 1ms, which
// nothing can overlap, is about 5% of an op), 400 under Quick.
func mixedPerP() int {
	if Quick {
		return 400
	}
	return 6000
}

// mixedNap is the blocking call, a package-level func so that passing it
// to Task.Blocking allocates nothing.
func mixedNap() { time.Sleep(mixedBlock) }

// mixedSlot is one task's record: how many times it ran and its result.
type mixedSlot struct {
	runs atomic.Int32
	out  uint64
}

// mixedRound is the shared state of one impl's rounds.
type mixedRound struct {
	slots []mixedSlot
	wg    sync.WaitGroup
	errs  ppErr
	// blocked counts the calls blocked now and most the largest count
	// seen, for schedkit's Ms made against the calls blocked at once.
	blocked, most atomic.Int64
}

// nap is mixedNap counted in blocked and most.
func (r *mixedRound) nap() {
	b := r.blocked.Add(1)
	for m := r.most.Load(); b > m && !r.most.CompareAndSwap(m, b); m = r.most.Load() {
	}
	mixedNap()
	r.blocked.Add(-1)
}

// compute is task i's arithmetic; blocks says whether it also blocks.
func (r *mixedRound) compute(i int) { r.slots[i].out = ppSpin(mixedWork, uint64(i)) }

func (r *mixedRound) blocks(i int) bool { return i%mixedEvery == 0 }

func (r *mixedRound) finish(i int) {
	r.slots[i].runs.Add(1)
	r.wg.Done()
}

// check is the verdict on an op of tasks 0..k-1 once all have finished:
// each ran once, and no Blocking failed.
func (r *mixedRound) check(k int) error {
	if err := r.errs.get(); err != nil {
		return err
	}
	for i := range r.slots[:k] {
		if c := r.slots[i].runs.Load(); c != 1 {
			return fmt.Errorf("mixed: task %d ran %d times, want 1", i, c)
		}
	}
	return nil
}

// mixedRun submits tasks 0..k-1 of the op (r.wg.Add done) and, for a
// pool made per op, waits for them.
type mixedRun func(k int)

// mixedBench runs the workload on one impl: open makes the impl's n tasks
// for r and returns their run, and close. A warm-up of an eighth of the
// tasks (workers started, Ms made; a bounded pool's full op takes most of
// a second), then whole ops until b.Loop stops.
func mixedBench(open func(b *testing.B, r *mixedRound, n int) (mixedRun, func())) func(*testing.B) {
	return func(b *testing.B) {
		n := mixedPerP() * Procs()
		r := &mixedRound{slots: make([]mixedSlot, n)}
		run, closeImpl := open(b, r, n)
		defer closeImpl()
		one := func(k int) {
			for i := range r.slots[:k] {
				r.slots[i].runs.Store(0)
			}
			r.wg.Add(k)
			run(k)
			r.wg.Wait()
			if err := r.check(k); err != nil {
				b.Fatal(err)
			}
		}
		one(n / 8)
		m := StartTasks(n)
		for b.Loop() {
			one(n)
		}
		m.Report(b)
	}
}

// How schedkit's blocking tasks block.
const (
	mixedBlocking = iota // Task.Blocking: the P handed off before the call
	mixedSyscall         // Task.Syscall: the P kept, retaken by sysmon after 20µs
	mixedNoBlock         // no blocking at all
)

// mixedSchedkit submits the tasks in one GoBatch; a blocking task sleeps
// inside Task.Blocking or Task.Syscall, or not at all (how). It reports
// the Ms made beyond the Ps (Ms) and the most calls blocked at once
// (blocked), over the whole benchmark.
func mixedSchedkit(how int) func(*testing.B, *mixedRound, int) (mixedRun, func()) {
	return func(b *testing.B, r *mixedRound, n int) (mixedRun, func()) {
		e := NewExecutor(b, executor.Config{})
		nap := r.nap // one method value, not one per call
		fs := make([]func(executor.Task), n)
		for i := range fs {
			fs[i] = func(t executor.Task) {
				r.compute(i)
				if how != mixedNoBlock && r.blocks(i) {
					var err error
					if how == mixedSyscall {
						err = t.Syscall(nap)
					} else {
						err = t.Blocking(nap)
					}
					if err != nil {
						r.errs.set(err)
					}
				}
				r.finish(i)
			}
		}
		return func(k int) {
				if err := e.GoBatch(fs[:k]); err != nil {
					b.Fatal(err)
				}
			}, func() {
				s := e.Stats()
				b.ReportMetric(float64(s.Ms-len(s.Procs)), "Ms")
				b.ReportMetric(float64(r.most.Load()), "blocked")
			}
	}
}

// mixedPeer runs the tasks on a peer: begin, called once per op, returns
// the op's submit and a wait that returns when every task submitted has
// run (a pool made per op, as errgroup and conc must be), or nil for a pool
// made once (mixedPool) that the op's WaitGroup waits for. A blocking task
// just sleeps on its worker.
func mixedPeer(begin func(b *testing.B) (submit func(func()) error, wait func() error), close func()) func(*testing.B, *mixedRound, int) (mixedRun, func()) {
	return func(b *testing.B, r *mixedRound, n int) (mixedRun, func()) {
		fs := make([]func(), n)
		for i := range fs {
			fs[i] = func() {
				r.compute(i)
				if r.blocks(i) {
					mixedNap()
				}
				r.finish(i)
			}
		}
		return func(k int) {
			submit, wait := begin(b)
			for i, f := range fs[:k] {
				if err := submit(f); err != nil {
					b.Fatalf("submit of task %d: %v", i, err)
				}
			}
			if wait != nil {
				if err := wait(); err != nil {
					b.Fatal(err)
				}
			}
		}, close
	}
}

// mixedPool is mixedPeer for a pool made once per benchmark by open.
func mixedPool(open func(b *testing.B) (submit func(func()) error, close func())) func(*testing.B, *mixedRound, int) (mixedRun, func()) {
	return func(b *testing.B, r *mixedRound, n int) (mixedRun, func()) {
		submit, closePool := open(b)
		return mixedPeer(func(*testing.B) (func(func()) error, func() error) { return submit, nil }, closePool)(b, r, n)
	}
}

func init() {
	Register(Workload{
		Name:  "mixed",
		Title: "CPU-bound tasks, 10% blocking for 1ms (handoff's case)",
		About: fmt.Sprintf("An op is %d tasks per P (%d under -quick), submitted from outside; each does a few "+
			"µs of arithmetic, and every tenth then blocks for 1ms (time.Sleep). ns/task is the op's wall time "+
			"per task. schedkit: one GoBatch; a blocking task sleeps inside Task.Blocking, which hands its P to "+
			"another M (entersyscallblock, handoffp), so the other tasks keep every P busy, and takes a P back "+
			"after. schedkit-syscall: the same in Task.Syscall, the optimistic path: the P stays with the call and "+
			"sysmon hands it off once the call has lasted 20µs with work waiting (the runtime's retake of a "+
			"_Psyscall P); a task back from its call takes the next P retaken from a call. The schedkit rows "+
			"report Ms, the Ms made beyond the Ps, and blocked, the most calls blocked at once. "+
			"schedkit-noblock: the same tasks with no blocking at all, the reference of the target. "+
			"Target: schedkit's throughput within 20%% of schedkit-noblock's (its ns/task at most 1.2x), i.e. "+
			"the arithmetic runs at full speed with the sleeps overlapped, since a sleeping task holds no P. "+
			"An op holds 15-25ms of arithmetic per P, so the last sleeper's 1ms, which nothing can overlap, "+
			"is about 5%% of it (a quarter under -quick). go: a go statement per task (a sleeping goroutine "+
			"holds no P either). ants (blocking submit), pond, errgroup (SetLimit), conc (WithMaxGoroutines), "+
			"chanpool (buffered 256): GOMAXPROCS workers, one submit per task, a blocking task sleeping on its "+
			"worker, so the pool's CPUs idle while its workers sleep: what handoff avoids.", 6000, 400),
		Impls: []Impl{
			{"schedkit", mixedBench(mixedSchedkit(mixedBlocking))},
			{"schedkit-syscall", mixedBench(mixedSchedkit(mixedSyscall))},
			{"schedkit-noblock", mixedBench(mixedSchedkit(mixedNoBlock))},
			{"go", mixedBench(mixedPeer(func(*testing.B) (func(func()) error, func() error) {
				return func(f func()) error { go f(); return nil }, nil
			}, func() {}))},
			{"ants", mixedBench(mixedPool(func(b *testing.B) (func(func()) error, func()) {
				p, err := ants.NewPool(Procs())
				if err != nil {
					b.Fatal(err)
				}
				return p.Submit, p.Release
			}))},
			{"pond", mixedBench(mixedPool(func(*testing.B) (func(func()) error, func()) {
				p := pond.NewPool(Procs())
				return p.Go, p.StopAndWait
			}))},
			{"errgroup", mixedBench(mixedPeer(func(*testing.B) (func(func()) error, func() error) {
				g := new(errgroup.Group)
				g.SetLimit(Procs())
				return func(f func()) error { g.Go(func() error { f(); return nil }); return nil }, g.Wait
			}, func() {}))},
			{"conc", mixedBench(mixedPeer(func(*testing.B) (func(func()) error, func() error) {
				p := pool.New().WithMaxGoroutines(Procs())
				return func(f func()) error { p.Go(f); return nil }, func() error { p.Wait(); return nil }
			}, func() {}))},
			{"chanpool", mixedBench(mixedPool(func(*testing.B) (func(func()) error, func()) {
				p := NewChanPool(Procs(), 256)
				return func(f func()) error { p.Submit(f); return nil }, p.Close
			}))},
		},
	})
}
