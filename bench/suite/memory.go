package suite

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

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

// QueuedFill is one way to hold n tasks that have not run: it starts the
// pool, occupies every worker with a task blocked on gate, and puts n
// calls of task behind them, returning once all n are held; close stops
// the pool, returning only when every queued task has run (the gate
// closed), and reports what the pool reports (an executor's panics).
type QueuedFill func(gate <-chan struct{}, n int, task func()) (close func() error, err error)

// HoldQueued is one op of memory-1m: it holds n tasks through fill, reads
// the memory held (HeapInuse+StackInuse after a GC, less the same before
// fill), then opens the gate and closes the pool. It returns an error if a
// task ran before the gate opened, if, once closed, the tasks did not run
// exactly n times in all, or if fill or close failed.
func HoldQueued(fill QueuedFill, n int) (held uint64, err error) {
	var ran atomic.Int64
	task := func() { ran.Add(1) } // one func per op, shared by every task
	base := inUse()
	gate := make(chan struct{})
	closePool, err := fill(gate, n, task)
	if err != nil {
		close(gate)
		return 0, err
	}
	if now := inUse(); now > base {
		held = now - base
	}
	early := ran.Load()
	close(gate)
	if err := closePool(); err != nil {
		return 0, err
	}
	if early != 0 {
		return 0, fmt.Errorf("%d of %d queued tasks ran before the gate opened", early, n)
	}
	if got := ran.Load(); got != int64(n) {
		return 0, fmt.Errorf("%d task runs in all once the pool closed, want %d", got, n)
	}
	return held, nil
}

// blockWorkers submits k tasks that each block on gate, and returns once
// all k have started, so that k workers are taken.
func blockWorkers(gate <-chan struct{}, k int, submit func(func()) error) error {
	var started sync.WaitGroup
	started.Add(k)
	blk := func() {
		started.Done()
		<-gate
	}
	for range k {
		if err := submit(blk); err != nil {
			return err
		}
	}
	started.Wait()
	return nil
}

// queuedImpls are the implementations of memory-1m, schedkit first.
var queuedImpls = []struct {
	name string
	fill QueuedFill
}{
	{"schedkit", func(gate <-chan struct{}, n int, task func()) (func() error, error) {
		// The longest slice: sysmon hands a P whose task outlives the slice
		// to another M while work waits, which would run the queue early.
		e, err := executor.New(executor.Config{Slice: executor.MaxSlice})
		if err != nil {
			return nil, err
		}
		err = blockWorkers(gate, e.Procs(), func(f func()) error {
			return e.Go(func(executor.Task) { f() })
		})
		if err != nil {
			return nil, err
		}
		f := func(executor.Task) { task() }
		for range n {
			if err := e.Go(f); err != nil {
				return nil, err
			}
		}
		return e.Close, nil
	}},
	{"go", func(gate <-chan struct{}, n int, task func()) (func() error, error) {
		var parked, done sync.WaitGroup
		parked.Add(n)
		done.Add(n)
		f := func() {
			parked.Done()
			<-gate
			task()
			done.Done()
		}
		for range n {
			go f()
		}
		parked.Wait() // every goroutine on the gate, not merely made
		return func() error { done.Wait(); return nil }, nil
	}},
	{"pond", func(gate <-chan struct{}, n int, task func()) (func() error, error) {
		p := pond.NewPool(Procs()) // the default queue is unbounded
		if err := blockWorkers(gate, Procs(), p.Go); err != nil {
			return nil, err
		}
		for range n {
			if err := p.Go(task); err != nil {
				return nil, err
			}
		}
		return func() error { p.StopAndWait(); return nil }, nil
	}},
	{"chanpool", func(gate <-chan struct{}, n int, task func()) (func() error, error) {
		p := NewChanPool(Procs(), n) // a buffer that holds them all
		err := blockWorkers(gate, Procs(), func(f func()) error { p.Submit(f); return nil })
		if err != nil {
			return nil, err
		}
		for range n {
			p.Submit(task)
		}
		return func() error { p.Close(); return nil }, nil
	}},
}

// queuedBench is one impl of memory-1m: HoldQueued per op, QueuedN tasks;
// peak-MiB is the most any op held.
func queuedBench(fill QueuedFill) func(b *testing.B) {
	return func(b *testing.B) {
		n := QueuedN()
		var peak uint64
		for b.Loop() {
			held, err := HoldQueued(fill, n)
			if err != nil {
				b.Fatal(err)
			}
			peak = max(peak, held)
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
		held.Impls = append(held.Impls, Impl{Name: im.name, Bench: queuedBench(im.fill)})
	}
	Register(held)
}
