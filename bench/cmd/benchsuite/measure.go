package main

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/suite"
	"github.com/schedkit/schedkit/internal/watchdog"
)

// sample is one run of one impl of one workload at one GOMAXPROCS.
type sample struct {
	// Value is the workload's metric; CPU its cpu-ns/task where the impl
	// reported one (NaN otherwise).
	Value, CPU float64
	// N is testing's iteration count.
	N int
	// Fail says why the run produced no figure; empty for a good run.
	Fail string
}

func (s sample) ok() bool { return s.Fail == "" }

// group is one workload at one GOMAXPROCS: the unit a table block, a
// ratio and a bar group are made of.
type group struct {
	W     suite.Workload
	Procs int
	// Runs[i][r] is impl i's sample in round r.
	Runs [][]sample
}

// plan is what a run measures, in the order it measures it.
type plan struct {
	Groups []*group
	// Skipped names the workloads left out and why (no Procs value
	// selected).
	Skipped []string
}

// makePlan keeps the workloads whose name matches sel (nil: all) and
// picks each one's GOMAXPROCS values: a workload with Procs runs at each
// of its values that is in cpu, or, when cpu is nil, at each one at most
// numCPU (more Ps than cores measures the OS scheduler, so it takes
// asking for); one without Procs at each value of cpu, in increasing
// order (go test's -cpu), or at cur when cpu is nil. impl (nil: all)
// keeps the impls whose name it matches, and always the first, the base
// of every ratio.
func makePlan(ws []suite.Workload, match, impl func(string) bool, cpu []int, numCPU, cur int) plan {
	var p plan
	for _, w := range ws {
		if match != nil && !match(w.Name) {
			continue
		}
		if impl != nil {
			ims := w.Impls[:1:1]
			for _, im := range w.Impls[1:] {
				if impl(im.Name) {
					ims = append(ims, im)
				}
			}
			w.Impls = ims
		}
		var ps []int
		if len(w.Procs) == 0 {
			ps = []int{cur}
			if cpu != nil {
				ps = slices.Compact(slices.Sorted(slices.Values(cpu)))
			}
		}
		for _, n := range w.Procs {
			if (cpu == nil && n <= numCPU) || (cpu != nil && slices.Contains(cpu, n)) {
				ps = append(ps, n)
			}
		}
		if len(ps) == 0 {
			why := fmt.Sprintf("%s: none of its Procs %v is at most NumCPU %d (-cpu selects them)", w.Name, w.Procs, numCPU)
			if cpu != nil {
				why = fmt.Sprintf("%s: none of its Procs %v is in -cpu %v", w.Name, w.Procs, cpu)
			}
			p.Skipped = append(p.Skipped, why)
			continue
		}
		for _, n := range ps {
			p.Groups = append(p.Groups, &group{W: w, Procs: n, Runs: make([][]sample, len(w.Impls))})
		}
	}
	return p
}

// runs is the number of benchmark runs in one round.
func (p plan) runs() int {
	n := 0
	for _, g := range p.Groups {
		n += len(g.W.Impls)
	}
	return n
}

// progress is told of each run as it starts and ends.
type progress interface {
	start(desc string)
	done()
}

// measureRounds runs count rounds, each running every impl of every group
// once, so that a slow spell of the machine lands on every impl of a
// round alike and the per-round ratios stay fair.
func measureRounds(p plan, count int, timeout time.Duration, pr progress) {
	for round := range count {
		for _, g := range p.Groups {
			for i, im := range g.W.Impls {
				desc := fmt.Sprintf("round %d/%d %s procs=%d impl=%s", round+1, count, g.W.Name, g.Procs, im.Name)
				pr.start(desc)
				g.Runs[i] = append(g.Runs[i], measure(g.W, im, g.Procs, timeout, desc))
				pr.done()
			}
		}
	}
}

// measure runs one impl once with testing.Benchmark at GOMAXPROCS procs.
// The run fails when the benchmark failed (testing.Benchmark then hides
// the message, so the sample names the go test command that shows it),
// panicked, or did not report the workload's metric. A run that hangs is
// ended by a watchdog after timeout, with every goroutine's stack.
func measure(w suite.Workload, im suite.Impl, procs int, timeout time.Duration, desc string) sample {
	old := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(old)
	runtime.GC() // the previous run's garbage is not this run's cost
	stop := watchdog.Start("benchsuite "+desc, timeout, nil)
	defer stop()

	var (
		mu       sync.Mutex
		failed   bool
		panicked string
	)
	res := testing.Benchmark(func(b *testing.B) {
		// Registered first, so run last: after the impl's own cleanups,
		// which may fail the benchmark too (an executor's Close).
		b.Cleanup(func() {
			if b.Failed() {
				mu.Lock()
				failed = true
				mu.Unlock()
			}
		})
		defer func() {
			if r := recover(); r != nil {
				mu.Lock()
				panicked = fmt.Sprint(r)
				mu.Unlock()
				b.Fatalf("panic: %v", r)
			}
		}()
		im.Bench(b)
	})
	mu.Lock()
	defer mu.Unlock()
	rerun := fmt.Sprintf("cd bench && go test -run '^$' -bench 'Suite/^%s$/^impl=%s$' -cpu %d -benchtime 1x . shows why",
		w.Name, im.Name, procs)
	switch {
	case panicked != "":
		return sample{Fail: "panicked: " + panicked}
	case failed || res.N == 0:
		return sample{Fail: "the benchmark failed; " + rerun}
	}
	v, ok := metricOf(res, w.MetricName())
	if !ok {
		return sample{Fail: fmt.Sprintf("did not report its metric %s (it reported %v)", w.MetricName(), reported(res))}
	}
	if !finite(v) {
		return sample{Fail: fmt.Sprintf("reported %s = %v", w.MetricName(), v)}
	}
	s := sample{Value: v, CPU: nan(), N: res.N}
	if c, ok := res.Extra["cpu-ns/task"]; ok {
		s.CPU = c
	}
	return s
}

// metricOf is the figure name from a benchmark's result: a metric it
// reported with b.ReportMetric, or testing's own per-op figures.
func metricOf(res testing.BenchmarkResult, name string) (float64, bool) {
	if v, ok := res.Extra[name]; ok {
		return v, true
	}
	if res.N == 0 {
		return 0, false
	}
	switch name {
	case "ns/op":
		return float64(res.T.Nanoseconds()) / float64(res.N), true
	case "B/op":
		return float64(res.MemBytes) / float64(res.N), true
	case "allocs/op":
		return float64(res.MemAllocs) / float64(res.N), true
	}
	return 0, false
}

// reported lists the metric names a result carries.
func reported(res testing.BenchmarkResult) []string {
	names := []string{"ns/op"}
	for k := range res.Extra {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
