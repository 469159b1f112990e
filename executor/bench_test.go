package executor_test

import (
	"context"
	"sync"
	"testing"

	"github.com/schedkit/schedkit/executor"
)

// BenchmarkLocalSpawn: one task spawns b.N tasks locally and the executor
// runs them all (spawn, queue, run): the hottest path.
func BenchmarkLocalSpawn(b *testing.B) { localSpawn(b, executor.Config{}) }

// localSpawn is BenchmarkLocalSpawn on an executor made with cfg.
func localSpawn(b *testing.B, cfg executor.Config) {
	e, err := executor.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	var wg sync.WaitGroup
	done := func(executor.Task) { wg.Done() }
	b.ReportAllocs()
	b.ResetTimer()
	wg.Add(b.N)
	_ = e.Go(func(t executor.Task) {
		for range b.N {
			t.Go(done)
		}
	})
	wg.Wait()
	b.StopTimer()
}

// BenchmarkSubmit: tasks submitted one at a time from outside.
func BenchmarkSubmit(b *testing.B) {
	e, err := executor.New(executor.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	var wg sync.WaitGroup
	done := func(executor.Task) { wg.Done() }
	b.ReportAllocs()
	b.ResetTimer()
	wg.Add(b.N)
	for range b.N {
		_ = e.Go(done)
	}
	wg.Wait()
}

// BenchmarkForkJoin: a binary tree of depth 14 (32k tasks), every node
// spawning its two children in a group and waiting on them.
func BenchmarkForkJoin(b *testing.B) {
	e, err := executor.New(executor.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	var node func(t executor.Task, d int) error
	node = func(t executor.Task, d int) error {
		if d == 0 {
			return nil
		}
		g, _ := t.NewGroup(context.Background())
		g.Go(func(t executor.Task) error { return node(t, d-1) })
		g.Go(func(t executor.Task) error { return node(t, d-1) })
		return g.Wait()
	}
	b.ReportAllocs()
	for b.Loop() {
		g, _ := e.NewGroup(context.Background())
		g.Go(func(t executor.Task) error { return node(t, 14) })
		_ = g.Wait()
	}
}

// BenchmarkGoStatement is the baseline: go f() with a WaitGroup.
func BenchmarkGoStatement(b *testing.B) {
	var wg sync.WaitGroup
	b.ReportAllocs()
	wg.Add(b.N)
	for range b.N {
		go wg.Done()
	}
	wg.Wait()
}
