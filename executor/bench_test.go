package executor_test

import (
	"context"
	"sync"
	"testing"
	"time"

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

// BenchmarkSyscallShort and BenchmarkBlockingShort: one task makes b.N
// calls of 1µs (a spin) through Task.Syscall, the optimistic path (the P
// stays with the call), or Task.Blocking, the pessimistic one (a handoff
// before each call, a P taken back after); BenchmarkDirectShort calls it
// plainly, the floor. ns/call, the Ms made beyond the Ps, and the Ps
// handed off (retakes and handoffs) per call.
func BenchmarkSyscallShort(b *testing.B) { shortCalls(b, "syscall") }

func BenchmarkBlockingShort(b *testing.B) { shortCalls(b, "blocking") }

func BenchmarkDirectShort(b *testing.B) { shortCalls(b, "direct") }

func shortCalls(b *testing.B, how string) {
	e, err := executor.New(executor.Config{})
	if err != nil {
		b.Fatal(err)
	}
	for e.Stats().Total.Parks < uint64(e.Procs()) {
		time.Sleep(100 * time.Microsecond) // a submit before the Ms park makes one more
	}
	call := func() {
		for start := time.Now(); time.Since(start) < time.Microsecond; {
		}
	}
	done := make(chan struct{})
	b.ReportAllocs()
	b.ResetTimer()
	_ = e.Go(func(t executor.Task) {
		defer close(done)
		for range b.N {
			switch how {
			case "syscall":
				_ = t.Syscall(call)
			case "blocking":
				_ = t.Blocking(call)
			default:
				call()
			}
		}
	})
	<-done
	b.StopTimer()
	if err := e.Close(); err != nil {
		b.Fatal(err)
	}
	s := e.Stats()
	b.ReportMetric(float64(s.Ms-len(s.Procs)), "Ms")
	b.ReportMetric(float64(s.Total.Retakes+s.Total.Handoffs)/float64(b.N), "handoffs/call")
}
