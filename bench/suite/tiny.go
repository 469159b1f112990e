package suite

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

// TinyN is the number of tasks per op of tiny-one and tiny-batch: 100k, or
// 10k under Quick.
func TinyN() int {
	if Quick {
		return 10_000
	}
	return 100_000
}

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

// tinyImpls are the implementations of the tiny workloads, schedkit first.
// Where the task must signal its end itself (go, ants, pond, chanpool,
// schedkit) it does so through a sync.WaitGroup (the go statement's own
// idiom); errgroup, conc and pond's TaskGroup count their tasks themselves.
// Task funcs are made once, in open, so that allocations per task are the
// pool's own and not a closure's.
var tinyImpls = []tinyImpl{
	{"schedkit", func(b *testing.B, n int) (func(bool), func()) {
		e := NewExecutor(b, executor.Config{})
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
		p, err := ants.NewPool(Procs())
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
		p := pond.NewPool(Procs())
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
			g.SetLimit(Procs())
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
			p := pool.New().WithMaxGoroutines(Procs())
			for range n {
				p.Go(f)
			}
			p.Wait()
		}, func() {}
	}},
	{"chanpool", func(b *testing.B, n int) (func(bool), func()) {
		p := NewChanPool(Procs(), 256)
		var wg sync.WaitGroup
		f := func() { tinyCount.Add(1); wg.Done() }
		return func(bool) { // no batch: the loop
			wg.Add(n)
			for range n {
				p.Submit(f)
			}
			wg.Wait()
		}, p.Close
	}},
}

// tinyRound runs one round of n tasks through run and fails b unless
// exactly n tasks ran.
func tinyRound(b *testing.B, run func(bool), batch bool, n int) {
	before := tinyCount.Load()
	run(batch)
	if got := tinyCount.Load() - before; got != int64(n) {
		b.Fatalf("%d tasks ran, want %d", got, n)
	}
}

// tinyBench is one impl of tiny-one (batch false) or tiny-batch: TinyN
// tasks per op, after one warm-up round that starts the workers and fills
// the free lists.
func tinyBench(im tinyImpl, batch bool) func(b *testing.B) {
	return func(b *testing.B) {
		b.ReportAllocs()
		n := TinyN()
		run, closePool := im.open(b, n)
		defer closePool()
		tinyRound(b, run, batch, n)
		m := StartTasks(n)
		for b.Loop() {
			tinyRound(b, run, batch, n)
		}
		m.Report(b)
	}
}

// tinyAbout is what both tiny workloads share in their About.
const tinyAbout = `Each task is one atomic add, submitted from outside the pool by one
goroutine; an op submits 100k of them (10k with -quick) and waits for all. Bounded
pools block the submitter when their workers are busy (ants, errgroup, conc) or
their buffer is full (chanpool: 256, a P's ring); pond and the executor queue
without bound. Every bounded pool has GOMAXPROCS workers, as the executor has
GOMAXPROCS Ps. Where the task must signal its end itself (schedkit, go, ants,
pond, chanpool) it does so through a sync.WaitGroup; errgroup (SetLimit) and conc
(WithMaxGoroutines) count their own tasks. Task funcs are made once, so
allocs/task is the pool's own cost.`

func init() {
	one := Workload{
		Name:  "tiny-one",
		Title: "100k tiny tasks from outside, one submit each",
		About: tinyAbout + `

One submit call per task: Executor.Go, go f(), Pool.Submit (ants), Pool.Go
(pond), Group.Go (errgroup), Pool.Go (conc), a channel send (chanpool).`,
	}
	batch := Workload{
		Name:  "tiny-batch",
		Title: "100k tiny tasks from outside, as one batch",
		About: tinyAbout + `

The whole op as one batch where the pool has a batch submit: schedkit's
Executor.GoBatch (one lock of the global queue, two allocations for the batch);
pond's TaskGroup.Submit(fs...) (one call, but a loop of single submits inside,
waited through the group). go, ants, errgroup, conc and chanpool have no batch
submit: theirs is tiny-one's loop.`,
	}
	for _, im := range tinyImpls {
		one.Impls = append(one.Impls, Impl{Name: im.name, Bench: tinyBench(im, false)})
		batch.Impls = append(batch.Impls, Impl{Name: im.name, Bench: tinyBench(im, true)})
	}
	Register(one)
	Register(batch)
}
