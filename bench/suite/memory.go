package suite

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alitto/pond/v2"

	"github.com/schedkit/schedkit/executor"
)

// memBench is one impl of memory: tiny-one's submit-and-wait, reported as
// the heap bytes and allocations per task (runtime.MemStats TotalAlloc and
// Mallocs over the timed ops), after one warm-up round that starts the
// workers and fills the free lists, so that the figures are the steady
// state's.
func memBench(im tinyImpl) func(b *testing.B) {
	return func(b *testing.B) {
		n := TinyN()
		run, closePool := im.open(b, n)
		defer closePool()
		tinyRound(b, run, false, n)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for b.Loop() {
			tinyRound(b, run, false, n)
		}
		runtime.ReadMemStats(&after)
		tasks := float64(b.N) * float64(n)
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/tasks, "B/task")
		b.ReportMetric(float64(after.Mallocs-before.Mallocs)/tasks, "allocs/task")
	}
}

// QueuedN is the number of tasks memory-1m queues: 1M, or 100k under Quick.
func QueuedN() int {
	if Quick {
		return 100_000
	}
	return 1_000_000
}

// inUse is the memory the peak is read from: heap spans in use and
// goroutine stacks, after a full collection so that garbage is not counted.
func inUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse + ms.StackInuse
}

// queueCounters are what one op of memory-1m counts: queued tasks that ran
// (none may run before the gate opens) and, for the go impl, goroutines
// that reached the gate.
var (
	queuedRan     atomic.Int64
	queuedParked  atomic.Int64
	queuedDone    sync.WaitGroup
	queuedBlocked sync.WaitGroup
)

// queuedTask is every queued task's body: it counts its run. It is one
// func made once, so no impl pays for a closure per task.
func queuedTask() {
	queuedRan.Add(1)
	queuedDone.Done()
}

// queuedImpl is one way to hold n tasks that have not run. fill starts the
// pool, occupies every worker with a task blocked on gate, and submits n
// tasks (queuedTask) behind them; it returns when all n are queued and
// close, which stops the pool once gate is closed and the queue drained.
type queuedImpl struct {
	name string
	fill func(b *testing.B, gate chan struct{}, n int) (close func())
}

// blocker occupies a worker until gate closes; queuedBlocked counts the
// workers it has reached.
func blocker(gate chan struct{}) func() {
	return func() {
		queuedBlocked.Done()
		<-gate
	}
}

var queuedImpls = []queuedImpl{
	{"schedkit", func(b *testing.B, gate chan struct{}, n int) func() {
		// The longest slice: sysmon hands a P whose task outlives the slice
		// to another M while work waits, which would run the queue early.
		e, err := executor.New(executor.Config{Slice: executor.MaxSlice})
		if err != nil {
			b.Fatal(err)
		}
		blk := blocker(gate)
		queuedBlocked.Add(e.Procs())
		for range e.Procs() {
			if err := e.Go(func(executor.Task) { blk() }); err != nil {
				b.Fatal(err)
			}
		}
		queuedBlocked.Wait()
		f := func(executor.Task) { queuedTask() }
		for range n {
			if err := e.Go(f); err != nil {
				b.Fatal(err)
			}
		}
		return func() {
			if err := e.Close(); err != nil {
				b.Error(err)
			}
		}
	}},
	{"go", func(b *testing.B, gate chan struct{}, n int) func() {
		f := func() {
			queuedParked.Add(1)
			<-gate
			queuedTask()
		}
		for range n {
			go f()
		}
		// Wait until every goroutine is parked on gate, not merely made.
		for queuedParked.Load() < int64(n) {
			time.Sleep(time.Millisecond)
		}
		return func() {}
	}},
	{"pond", func(b *testing.B, gate chan struct{}, n int) func() {
		p := pond.NewPool(Procs()) // the default queue is unbounded
		blk := blocker(gate)
		queuedBlocked.Add(Procs())
		for range Procs() {
			if err := p.Go(blk); err != nil {
				b.Fatal(err)
			}
		}
		queuedBlocked.Wait()
		for range n {
			if err := p.Go(queuedTask); err != nil {
				b.Fatal(err)
			}
		}
		return p.StopAndWait
	}},
	{"chanpool", func(b *testing.B, gate chan struct{}, n int) func() {
		p := NewChanPool(Procs(), n) // a buffer that holds them all
		blk := blocker(gate)
		queuedBlocked.Add(Procs())
		for range Procs() {
			p.Submit(blk)
		}
		queuedBlocked.Wait()
		for range n {
			p.Submit(queuedTask)
		}
		return p.Close
	}},
}

// queuedBench is one impl of memory-1m: per op, QueuedN tasks held
// unrun, the memory they and the pool hold measured, then the gate opened
// and every task checked to have run exactly once.
func queuedBench(im queuedImpl) func(b *testing.B) {
	return func(b *testing.B) {
		n := QueuedN()
		var peak uint64
		for b.Loop() {
			queuedRan.Store(0)
			queuedParked.Store(0)
			queuedDone.Add(n)
			base := inUse()
			gate := make(chan struct{})
			closePool := im.fill(b, gate, n)
			held := inUse()
			if got := queuedRan.Load(); got != 0 {
				b.Fatalf("%d queued tasks ran before the gate opened", got)
			}
			if held > base {
				peak = max(peak, held-base)
			}
			close(gate)
			queuedDone.Wait()
			closePool()
			if got := queuedRan.Load(); got != int64(n) {
				b.Fatalf("%d tasks ran, want %d", got, n)
			}
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
		b.ReportMetric(float64(peak)/float64(n), "peak-B/task")
	}
}

func init() {
	mem := Workload{
		Name:   "memory",
		Title:  "heap bytes and allocations per task",
		Metric: "B/task",
		About: `tiny-one's submit-and-wait (100k tasks of one atomic add from outside, one
submit each; 10k with -quick), after one warm-up round, reported as the heap bytes
(runtime.MemStats.TotalAlloc) and allocations (Mallocs) per task over the timed
ops: the pool's own cost per task, since every task func is made once. Counted:
every heap allocation of the process while the ops run (the pool's task records,
queue nodes, futures, per-Go bookkeeping, and for go f() the runtime's goroutine
records it makes when its free list runs short). Not counted: goroutine stacks,
which come from the runtime's stack caches and not the heap, and whatever is
reused from free lists; memory-1m measures what is held, stacks included.`,
	}
	for _, im := range tinyImpls {
		mem.Impls = append(mem.Impls, Impl{Name: im.name, Bench: memBench(im)})
	}
	Register(mem)

	held := Workload{
		Name:   "memory-1m",
		Title:  "memory held by 1M queued tasks",
		Metric: "peak-MiB",
		About: `Per op, 1M tasks (100k with -quick) are held without running, and the
memory held is read at that point: HeapInuse+StackInuse after runtime.GC(), less
the same read before the pool was started. So it counts the pool (its workers'
stacks, its queue) and every waiting task (its record or queue slot, or for go
its goroutine: stack and record), but not garbage, nor memory the runtime holds
free. peak-B/task is the same over the task count. Then the gate opens, and
every task must run exactly once.

- schedkit: every P's M runs a task blocked on the gate, then 1M Executor.Go
  calls queue behind them in the global queue (Config.Slice is MaxSlice so that
  sysmon does not hand a blocked P to a new M, which would run the queue early).
- go: 1M goroutines, each parked on the gate channel (waited for until all are).
- pond: GOMAXPROCS workers blocked on the gate, 1M Pool.Go calls in its
  unbounded queue.
- chanpool: GOMAXPROCS workers blocked on the gate, 1M sends into a channel
  buffered to hold them all.

ants, errgroup and conc have no queue: a submit beyond their workers blocks the
submitter, so holding 1M tasks would take 1M blocked submitting goroutines (the
go row, plus the pool's cost).`,
	}
	for _, im := range queuedImpls {
		held.Impls = append(held.Impls, Impl{Name: im.name, Bench: queuedBench(im)})
	}
	Register(held)
}
