package bench

import (
	"context"
	"runtime"
	"testing"

	"github.com/alitto/pond/v2"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/future"
)

// BenchmarkFutureFanIn is issue 23's fan-out/fan-in target: one op spawns
// 100k small funcs with a result each (10k with -short or -benchtime=Nx)
// and collects every result, in the same run for each way a user would
// write it: schedkit's futures (a task spawns them with future.Go and
// collects them with future.All, parking while one is pending), errgroup
// with a results slice (a goroutine per func), pond's result pool (a group,
// GOMAXPROCS workers) and conc's result pool (GOMAXPROCS goroutines). The
// pools are made once, outside the loop; ns/future is per func.
func BenchmarkFutureFanIn(b *testing.B) {
	n := 100_000
	if testing.Short() || benchtimeIsCount() {
		n = 10_000
	}
	procs := runtime.GOMAXPROCS(0)
	work := func(i int) int { return i*2 + 1 }
	check := func(b *testing.B, vs []int, sum bool) {
		if len(vs) != n {
			b.Fatalf("%d results, want %d", len(vs), n)
		}
		if sum { // conc returns them in completion order
			s := 0
			for _, v := range vs {
				s += v
			}
			if s != n*n {
				b.Fatalf("results sum to %d, want %d", s, n*n)
			}
			return
		}
		for i, v := range vs {
			if v != work(i) {
				b.Fatalf("result %d is %d, want %d", i, v, work(i))
			}
		}
	}
	report := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/future")
	}
	b.Run("impl=schedkit", func(b *testing.B) {
		e, err := executor.New(executor.Config{})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		for b.Loop() {
			outer, err := future.Submit(e, func(t executor.Task) ([]int, error) {
				fs := make([]*future.Future[int], n)
				for i := range fs {
					fs[i] = future.Go(t, func(executor.Task) (int, error) { return work(i), nil })
				}
				return future.All(t, fs...)
			})
			if err != nil {
				b.Fatal(err)
			}
			vs, err := outer.WaitContext(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			check(b, vs, false)
		}
		report(b)
	})
	b.Run("impl=errgroup", func(b *testing.B) {
		for b.Loop() {
			var g errgroup.Group
			vs := make([]int, n)
			for i := range vs {
				g.Go(func() error { vs[i] = work(i); return nil })
			}
			if err := g.Wait(); err != nil {
				b.Fatal(err)
			}
			check(b, vs, false)
		}
		report(b)
	})
	b.Run("impl=pond", func(b *testing.B) {
		p := pond.NewResultPool[int](procs)
		defer p.StopAndWait()
		for b.Loop() {
			g := p.NewGroup()
			for i := range n {
				g.SubmitErr(func() (int, error) { return work(i), nil })
			}
			vs, err := g.Wait()
			if err != nil {
				b.Fatal(err)
			}
			check(b, vs, false)
		}
		report(b)
	})
	b.Run("impl=conc", func(b *testing.B) {
		for b.Loop() {
			p := pool.NewWithResults[int]().WithMaxGoroutines(procs)
			for i := range n {
				p.Go(func() int { return work(i) })
			}
			check(b, p.Wait(), true)
		}
		report(b)
	})
}
