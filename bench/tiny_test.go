package bench

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/alitto/pond/v2"
	"github.com/panjf2000/ants/v2"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"

	"github.com/schedkit/schedkit/executor"
)

// tinyN is the number of tasks per op of BenchmarkTiny.
const tinyN = 100_000

// tinyCount is the one atomic add every tiny task does.
var tinyCount atomic.Int64

// tinyImpl is one implementation's way to run tiny tasks submitted from
// outside it. open starts the pool (outside the timed loop) and returns
// run, which submits n tasks, one at a time or as one batch, and returns
// once every one of them has run, and close, which stops the pool.
type tinyImpl struct {
	name string
	open func(b *testing.B, n int) (run func(batch bool), close func())
}

// tinyImpls are the implementations of BenchmarkTiny, in implOrder. Where
// the task must signal its end itself (go, ants, pond, chanpool, schedkit)
// it does so through a sync.WaitGroup (the go statement's own idiom);
// errgroup, conc and pond's TaskGroup count their tasks themselves.
var tinyImpls = []tinyImpl{
	{"schedkit", func(b *testing.B, n int) (func(bool), func()) {
		e := newExecutor(b, executor.Config{})
		var wg sync.WaitGroup
		f := func(executor.Task) { tinyCount.Add(1); wg.Done() }
		fs := make([]func(executor.Task), n)
		for i := range fs {
			fs[i] = f
		}
		return func(batch bool) {
			wg.Add(n)
			if batch {
				if err := e.GoBatch(fs); err != nil {
					b.Fatal(err)
				}
			} else {
				for range n {
					if err := e.Go(f); err != nil {
						b.Fatal(err)
					}
				}
			}
			wg.Wait()
		}, func() {}
	}},
	{"go", func(b *testing.B, n int) (func(bool), func()) {
		var wg sync.WaitGroup
		f := func() { tinyCount.Add(1); wg.Done() }
		return func(bool) { // no batch: the same loop
			wg.Add(n)
			for range n {
				go f()
			}
			wg.Wait()
		}, func() {}
	}},
	{"ants", func(b *testing.B, n int) (func(bool), func()) {
		p, err := ants.NewPool(procs())
		if err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		f := func() { tinyCount.Add(1); wg.Done() }
		return func(bool) { // no batch submit: the loop
			wg.Add(n)
			for range n {
				if err := p.Submit(f); err != nil {
					b.Fatal(err)
				}
			}
			wg.Wait()
		}, p.Release
	}},
	{"pond", func(b *testing.B, n int) (func(bool), func()) {
		p := pond.NewPool(procs())
		var wg sync.WaitGroup
		f := func() { tinyCount.Add(1); wg.Done() }
		plain := func() { tinyCount.Add(1) }
		fs := make([]func(), n)
		for i := range fs {
			fs[i] = plain
		}
		return func(batch bool) {
			if batch { // TaskGroup.Submit(fs...): one call, a loop inside
				if err := p.NewGroup().Submit(fs...).Wait(); err != nil {
					b.Fatal(err)
				}
				return
			}
			wg.Add(n)
			for range n {
				if err := p.Go(f); err != nil {
					b.Fatal(err)
				}
			}
			wg.Wait()
		}, p.StopAndWait
	}},
	{"errgroup", func(b *testing.B, n int) (func(bool), func()) {
		f := func() error { tinyCount.Add(1); return nil }
		return func(bool) { // no batch: the loop
			var g errgroup.Group
			g.SetLimit(procs())
			for range n {
				g.Go(f)
			}
			if err := g.Wait(); err != nil {
				b.Fatal(err)
			}
		}, func() {}
	}},
	{"conc", func(b *testing.B, n int) (func(bool), func()) {
		f := func() { tinyCount.Add(1) }
		return func(bool) { // no batch: the loop; a pool is done after Wait
			p := pool.New().WithMaxGoroutines(procs())
			for range n {
				p.Go(f)
			}
			p.Wait()
		}, func() {}
	}},
	{"chanpool", func(b *testing.B, n int) (func(bool), func()) {
		p := newChanPool(procs(), 256)
		var wg sync.WaitGroup
		f := func() { tinyCount.Add(1); wg.Done() }
		return func(bool) { // no batch: the loop
			wg.Add(n)
			for range n {
				p.submit(f)
			}
			wg.Wait()
		}, p.close
	}},
}

// BenchmarkTiny runs tinyN tiny tasks (each one atomic add) per op,
// submitted from outside the pool by one goroutine, and waits for them all.
//
//   - submit=one: one submit call per task.
//   - submit=batch: the whole 100k at once where the pool can: schedkit's
//     Executor.GoBatch (one lock of the global queue, two allocations for
//     the batch); pond's TaskGroup.Submit(fs...) (one call, but a loop of
//     single submits inside, and waited through the group). go, ants,
//     errgroup, conc and chanpool have no batch submit: their batch is the
//     same loop as submit=one.
//
// Bounded pools block the submitter when their workers are busy (ants,
// errgroup, conc) or their buffer is full (chanpool: 256); pond and the
// executor queue without bound.
func BenchmarkTiny(b *testing.B) {
	for _, mode := range []string{"one", "batch"} {
		for _, im := range tinyImpls {
			b.Run("submit="+mode+"/impl="+im.name, func(b *testing.B) {
				b.ReportAllocs()
				run, closePool := im.open(b, tinyN)
				defer closePool()
				round := func() {
					before := tinyCount.Load()
					run(mode == "batch")
					if got := tinyCount.Load() - before; got != tinyN {
						b.Fatalf("%d tasks ran, want %d", got, tinyN)
					}
				}
				round() // warm-up: workers started, free lists filled
				m := startTasks(tinyN)
				for b.Loop() {
					round()
				}
				m.report(b)
			})
		}
	}
}
