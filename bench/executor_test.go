package bench

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/suite"
	"github.com/schedkit/schedkit/executor"
)

// The executor's own benchmarks: local spawn's allocations and scheduling
// latency. The workloads that compare it with the pools users know (tiny
// tasks, fork-join, memory) live in package suite (bench/suite), with thin
// go test wrappers in tiny_test.go, forkjoin_test.go and memory_test.go;
// the helpers shared by all (suite.TaskMeter for ns/task, cpu-ns/task and
// allocs/task, suite.NewExecutor, suite.ChanPool, suite.Procs) are there too.

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
	n := suite.Procs()
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
		m := suite.StartTasks(spawnN)
		for b.Loop() {
			round()
		}
		m.Report(b)
	}
	b.Run("closure=none/impl=schedkit", func(b *testing.B) {
		e := suite.NewExecutor(b, executor.Config{})
		run(b, func() {
			if err := e.Go(chainHop); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("closure=fresh/impl=schedkit", func(b *testing.B) {
		e := suite.NewExecutor(b, executor.Config{})
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
// bound, within 25% above the true value; of the one task in
// executor.LatencySample that the histogram times), next to ns/task.
func BenchmarkExecutorLatency(b *testing.B) {
	const latencyN = 20_000
	for _, load := range []struct {
		name string
		n    int
	}{{"inflight=procs", suite.Procs()}, {"inflight=4xprocs", 4 * suite.Procs()}} {
		b.Run(load.name+"/impl=schedkit", func(b *testing.B) {
			b.ReportAllocs()
			e := suite.NewExecutor(b, executor.Config{})
			sem := make(chan struct{}, load.n)
			task := func(executor.Task) {
				latencyWork()
				<-sem
			}
			var ran atomic.Int64
			counted := func(t executor.Task) { ran.Add(1); task(t) }
			m := suite.StartTasks(latencyN)
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
			m.Report(b)
			if got := ran.Load(); got != int64(b.N)*latencyN {
				b.Fatalf("%d tasks ran, want %d", got, int64(b.N)*latencyN)
			}
			l := e.Stats().Latency
			// One outside task in LatencySample is timed (20000 is a
			// multiple of it, so every op times the same number).
			if want := uint64(b.N) * latencyN / executor.LatencySample; l.Count != want {
				b.Fatalf("latency histogram holds %d tasks, want %d (one in %d)", l.Count, want, executor.LatencySample)
			}
			b.ReportMetric(float64(l.P50/time.Nanosecond), "p50-ns")
			b.ReportMetric(float64(l.P99/time.Nanosecond), "p99-ns")
			b.ReportMetric(float64(l.Max/time.Nanosecond), "max-ns")
		})
	}
}
