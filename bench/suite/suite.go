// Package suite holds the executor's workloads, each run against schedkit's
// executor and the pools users know, as plain funcs of a *testing.B: the
// bench module's go test benchmarks call them, and so does the suite runner
// (cmd/benchsuite, behind `go run ./cmd/schedkit bench`), which runs the
// rounds of every workload interleaved in one process and turns them into
// ratios, RESULTS.md's tables and charts.
//
// A workload registers itself (Register) from an init func in its own file.
// Its first Impl is schedkit's executor, the base of every ratio: a ratio
// is the peer's figure over schedkit's for a lower-is-better metric (so
// above 1 means schedkit is faster), schedkit's over the peer's otherwise.
package suite

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/cputime"
)

// Impl is one implementation of a workload.
type Impl struct {
	// Name is the sub-benchmark's impl=NAME: schedkit, go, ants, pond,
	// errgroup, conc, chanpool, or a variant such as globalqonly.
	Name string
	// Bench runs the workload; it must report Workload.Metric with
	// b.ReportMetric (TaskMeter does, for ns/task) and fail the benchmark
	// if a task ran other than once.
	Bench func(b *testing.B)
}

// Workload is one comparison.
type Workload struct {
	// Name is short and file-safe: the runner's -run matches it, the chart
	// is charts/NAME.svg, the go test benchmark is BenchmarkSuite/NAME.
	Name string
	// Title is a heading for RESULTS.md and the chart.
	Title string
	// About says what one op is and what each implementation does, for
	// RESULTS.md.
	About string
	// Metric is the figure compared (a b.ReportMetric unit): "ns/task"
	// unless set.
	Metric string
	// HigherIsBetter is true for a throughput-like metric.
	HigherIsBetter bool
	// Procs are the GOMAXPROCS values to run at (the experiment's scaling
	// curve); nil runs at the GOMAXPROCS the runner was given.
	Procs []int
	// Impls run in this order; Impls[0] is the base of every ratio.
	Impls []Impl
}

// MetricName is w.Metric, or ns/task when unset.
func (w Workload) MetricName() string {
	if w.Metric == "" {
		return "ns/task"
	}
	return w.Metric
}

var (
	mu  sync.Mutex
	all []Workload
)

// Register adds w to the suite. It panics on a duplicate name or a
// workload without impls: both are programming errors.
func Register(w Workload) {
	mu.Lock()
	defer mu.Unlock()
	if len(w.Impls) == 0 {
		panic("suite: Register called with workload " + w.Name + " without impls")
	}
	for _, o := range all {
		if o.Name == w.Name {
			panic("suite: Register called twice for workload " + w.Name)
		}
	}
	all = append(all, w)
}

// All returns every registered workload, sorted by name.
func All() []Workload {
	mu.Lock()
	defer mu.Unlock()
	ws := slices.Clone(all)
	slices.SortFunc(ws, func(a, b Workload) int { return strings.Compare(a.Name, b.Name) })
	return ws
}

// Lookup returns the named workload.
func Lookup(name string) (Workload, bool) {
	for _, w := range All() {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

// Bench runs workload name's impls as sub-benchmarks impl=NAME of b: what
// the bench module's go test benchmarks call.
func Bench(b *testing.B, name string) {
	w, ok := Lookup(name)
	if !ok {
		b.Fatalf("suite: no workload %q", name)
	}
	for _, im := range w.Impls {
		b.Run("impl="+im.Name, im.Bench)
	}
}

// Quick shrinks every workload's size (fewer tasks per op, shallower
// trees) for runs that only check that the suite works: the runner's
// -quick, and go test with -short or -benchtime as a count. Set it
// before running.
var Quick bool

// Procs is the worker count every bounded pool gets: GOMAXPROCS, as the
// executor has GOMAXPROCS Ps.
func Procs() int { return runtime.GOMAXPROCS(0) }

// TaskMeter reports the per-task metrics of a benchmark whose every op
// runs TasksPerOp tasks: ns/task (wall), cpu-ns/task (the process's CPU
// time, where getrusage works) and allocs/task. Start it just before
// b.Loop and Report just after.
type TaskMeter struct {
	tasksPerOp int
	cpu        time.Duration
	cpuOK      bool
	mallocs    uint64
}

// StartTasks starts a TaskMeter for ops of tasksPerOp tasks each.
func StartTasks(tasksPerOp int) TaskMeter {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	cpu, ok := cputime.Process()
	return TaskMeter{tasksPerOp: tasksPerOp, cpu: cpu, cpuOK: ok, mallocs: ms.Mallocs}
}

// Report reports the metrics for the b.N ops run since StartTasks.
func (m TaskMeter) Report(b *testing.B) {
	end, cpuOK := cputime.Process()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if b.N == 0 {
		return
	}
	tasks := float64(b.N) * float64(m.tasksPerOp)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/tasks, "ns/task")
	if m.cpuOK && cpuOK {
		b.ReportMetric(float64((end-m.cpu).Nanoseconds())/tasks, "cpu-ns/task")
	}
	b.ReportMetric(float64(ms.Mallocs-m.mallocs)/tasks, "allocs/task")
}

// NewExecutor makes an executor for a benchmark and closes it when the
// benchmark ends, failing it if Close reports a panic.
func NewExecutor(b *testing.B, cfg executor.Config) *executor.Executor {
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

// ChanPool is the pool a user writes by hand: workers goroutines ranging
// over one channel of funcs, buffered as the caller says (256, a P's ring,
// for tasks from outside; 0 where TrySubmit must hand a task only to a
// worker waiting for one).
type ChanPool struct {
	ch      chan func()
	workers sync.WaitGroup
}

// NewChanPool starts the workers.
func NewChanPool(workers, buffer int) *ChanPool {
	p := &ChanPool{ch: make(chan func(), buffer)}
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

// Submit queues f, blocking while the buffer is full.
func (p *ChanPool) Submit(f func()) { p.ch <- f }

// TrySubmit hands f to the channel if that does not block, and reports
// whether it did.
func (p *ChanPool) TrySubmit(f func()) bool {
	select {
	case p.ch <- f:
		return true
	default:
		return false
	}
}

// Close stops the workers once the queued funcs have run.
func (p *ChanPool) Close() {
	close(p.ch)
	p.workers.Wait()
}
