package bench

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit/executor"
)

// The executor against the pools users know (issue 9, "Speed"). The
// workloads are in tiny_test.go (100k tiny tasks from outside, one at a time
// and as one batch) and forkjoin_test.go (a binary fork-join tree); this file
// holds what they share, the executor-only benchmarks (local spawn's
// allocations, scheduling latency) and the channel pool.
//
// Every workload has one sub-benchmark per implementation, impl=NAME, in
// this order:
//
//	schedkit  executor.New(executor.Config{}): GOMAXPROCS Ps
//	go        a go statement per task, a sync.WaitGroup to wait
//	ants      github.com/panjf2000/ants/v2, ants.NewPool(GOMAXPROCS)
//	pond      github.com/alitto/pond/v2, pond.NewPool(GOMAXPROCS)
//	errgroup  golang.org/x/sync/errgroup, Group.SetLimit(GOMAXPROCS)
//	conc      github.com/sourcegraph/conc/pool, New().WithMaxGoroutines(GOMAXPROCS)
//	chanpool  GOMAXPROCS goroutines ranging over one channel of func()
//
// Every bounded pool gets GOMAXPROCS workers, as the executor has GOMAXPROCS
// Ps. Besides ns/op each reports ns/task (wall time per task), cpu-ns/task
// (the process's CPU time per task, which leaves out time spent waiting for
// a CPU on a shared machine) and allocs/task, and checks that every task ran
// exactly once (b.Fatal otherwise).
//
// Task funcs are made once, outside the timed loop, wherever the pool's API
// allows it (the executor's and errgroup's signatures included), so that
// allocs/task is the pool's own cost and not a closure per task.

// implOrder is the order of the impl= sub-benchmarks, schedkit first.
var implOrder = []string{"schedkit", "go", "ants", "pond", "errgroup", "conc", "chanpool"}

// procs is the worker count every pool gets.
func procs() int { return runtime.GOMAXPROCS(0) }

// taskMeter reports the per-task metrics of a benchmark whose every op runs
// tasksPerOp tasks. start it just before the b.Loop, report just after.
type taskMeter struct {
	tasksPerOp int
	cpu        cpuMeter
	mallocs    uint64
}

func startTasks(tasksPerOp int) taskMeter {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return taskMeter{tasksPerOp: tasksPerOp, cpu: startCPU(), mallocs: ms.Mallocs}
}

func (m taskMeter) report(b *testing.B) {
	end, cpuOK := processCPU()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if b.N == 0 {
		return
	}
	tasks := float64(b.N) * float64(m.tasksPerOp)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/tasks, "ns/task")
	if m.cpu.ok && cpuOK {
		b.ReportMetric(float64((end-m.cpu.start).Nanoseconds())/tasks, "cpu-ns/task")
	}
	b.ReportMetric(float64(ms.Mallocs-m.mallocs)/tasks, "allocs/task")
}

// newExecutor makes an executor for a benchmark and closes it when the
// benchmark ends, failing it if Close reports a panic.
func newExecutor(b *testing.B, cfg executor.Config) *executor.Executor {
	e, err := executor.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := e.Close(); err != nil {
			b.Error(err)
		}
	})
	return e
}

// chanPool is the pool a user writes by hand: one worker per core ranging
// over one channel of funcs. Its buffer size is the caller's: 256 (a P's
// ring) for tasks from outside; 0 for fork-join, where trySubmit hands a
// task over only to a worker that waits for one.
type chanPool struct {
	ch      chan func()
	workers sync.WaitGroup
}

func newChanPool(workers, buffer int) *chanPool {
	p := &chanPool{ch: make(chan func(), buffer)}
	p.workers.Add(workers)
	for range workers {
		go func() {
			defer p.workers.Done()
			for f := range p.ch {
				f()
			}
		}()
	}
	return p
}

// submit queues f, blocking while the buffer is full.
func (p *chanPool) submit(f func()) { p.ch <- f }

// trySubmit hands f to the channel if that does not block, and reports
// whether it did.
func (p *chanPool) trySubmit(f func()) bool {
	select {
	case p.ch <- f:
		return true
	default:
		return false
	}
}

// close stops the workers once the queued funcs have run.
func (p *chanPool) close() {
	close(p.ch)
	p.workers.Wait()
}

// spawnN is the number of tasks per op of BenchmarkExecutorLocalSpawn.
const spawnN = 100_000

// chainLeft counts the hops a chain may still make; chainEnds counts the
// chains that have ended.
var (
	chainLeft atomic.Int64
	chainEnds sync.WaitGroup
	chainRan  atomic.Int64
)

// chainHop is one hop of a chain on the executor: it spawns the next hop
// locally (this P's runnext) until the chains have made spawnN hops. It is
// a package-level func, so a spawn of it needs no closure.
func chainHop(t executor.Task) {
	chainRan.Add(1)
	if chainLeft.Add(-1) < 0 {
		chainEnds.Done()
		return
	}
	t.Go(chainHop)
}

// chainHopClosure is chainHop spawning a fresh closure per hop (capturing
// the hop's number), as most real code does: one allocation per task, the
// closure's, is what a local spawn may cost.
func chainHopClosure(t executor.Task) {
	chainRan.Add(1)
	n := chainLeft.Add(-1)
	if n < 0 {
		chainEnds.Done()
		return
	}
	t.Go(func(t executor.Task) {
		sinkN.Add(n & 1)
		chainHopClosure(t)
	})
}

var sinkN atomic.Int64

// goHop is chainHop for go statements.
func goHop() {
	chainRan.Add(1)
	if chainLeft.Add(-1) < 0 {
		chainEnds.Done()
		return
	}
	go goHop()
}

// BenchmarkExecutorLocalSpawn measures the executor's hottest path, a task
// spawning a task from inside (Task.Go: runnext, the records of finished
// tasks reused per P), against a goroutine starting a goroutine. Per op,
// GOMAXPROCS chains run in parallel, each hop spawning the next and exiting
// (the shape of the runtime's BenchmarkCreateGoroutinesParallel), spawnN
// hops in all (plus one ending hop per chain). Each chain's first hop is
// submitted from outside.
//
//   - closure=none: the hop is a package-level func: a spawn needs no
//     closure, so allocs/task shows what the executor itself allocates
//     (the target: 0).
//   - closure=fresh: each hop spawns a new closure capturing a value: the
//     closure's one allocation per task is the floor; anything above it is
//     the executor's.
//
// The go statement is measured only with closure=none (go f() with a
// package-level f).
func BenchmarkExecutorLocalSpawn(b *testing.B) {
	n := procs()
	run := func(b *testing.B, start func()) {
		b.ReportAllocs()
		round := func() {
			chainRan.Store(0)
			chainLeft.Store(spawnN)
			chainEnds.Add(n)
			for range n {
				start()
			}
			chainEnds.Wait()
			if got := chainRan.Load(); got != int64(spawnN+n) {
				b.Fatalf("%d hops ran, want %d", got, spawnN+n)
			}
		}
		round() // warm-up: the Ps' free records, the runtime's free goroutines
		m := startTasks(spawnN)
		for b.Loop() {
			round()
		}
		m.report(b)
	}
	b.Run("closure=none/impl=schedkit", func(b *testing.B) {
		e := newExecutor(b, executor.Config{})
		run(b, func() {
			if err := e.Go(chainHop); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("closure=fresh/impl=schedkit", func(b *testing.B) {
		e := newExecutor(b, executor.Config{})
		run(b, func() {
			if err := e.Go(chainHopClosure); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("closure=none/impl=go", func(b *testing.B) {
		run(b, func() { go goHop() })
	})
}

// latencyWork is a task's CPU work in BenchmarkExecutorLatency: a short
// loop the compiler cannot remove (about a microsecond).
func latencyWork() {
	x := uint64(88172645463325252)
	for range 300 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	sinkN.Add(int64(x & 1))
}

// BenchmarkExecutorLatency reports the executor's scheduling latency (from
// Executor.Go to the task's start, the executor's own histogram in
// Stats().Latency) under a steady load: one outside goroutine submits tasks
// of about a microsecond of CPU work each, one at a time, keeping at most
// inflight of them submitted and not finished (a semaphore), for
// latencyN tasks per op.
//
//   - inflight=procs: about one task per P, so latency is mostly the wakeup
//     of a parked or spinning M and the trip through the global queue;
//   - inflight=4xprocs: a queue of tasks behind every P, so latency also
//     holds the wait behind the tasks queued before it.
//
// Metrics: p50-ns, p99-ns and max-ns of the latency (each a bucket's upper
// bound, within 25% above the true value), next to ns/task.
func BenchmarkExecutorLatency(b *testing.B) {
	const latencyN = 20_000
	for _, load := range []struct {
		name string
		n    int
	}{{"inflight=procs", procs()}, {"inflight=4xprocs", 4 * procs()}} {
		b.Run(load.name+"/impl=schedkit", func(b *testing.B) {
			b.ReportAllocs()
			e := newExecutor(b, executor.Config{})
			sem := make(chan struct{}, load.n)
			task := func(executor.Task) {
				latencyWork()
				<-sem
			}
			var ran atomic.Int64
			counted := func(t executor.Task) { ran.Add(1); task(t) }
			m := startTasks(latencyN)
			for b.Loop() {
				for range latencyN {
					sem <- struct{}{}
					if err := e.Go(counted); err != nil {
						b.Fatal(err)
					}
				}
				for range load.n { // wait for the last ones
					sem <- struct{}{}
				}
				for range load.n {
					<-sem
				}
			}
			m.report(b)
			if got := ran.Load(); got != int64(b.N)*latencyN {
				b.Fatalf("%d tasks ran, want %d", got, int64(b.N)*latencyN)
			}
			l := e.Stats().Latency
			if l.Count != uint64(b.N)*latencyN {
				b.Fatalf("latency histogram holds %d tasks, want %d", l.Count, uint64(b.N)*latencyN)
			}
			b.ReportMetric(float64(l.P50/time.Nanosecond), "p50-ns")
			b.ReportMetric(float64(l.P99/time.Nanosecond), "p99-ns")
			b.ReportMetric(float64(l.Max/time.Nanosecond), "max-ns")
		})
	}
}
