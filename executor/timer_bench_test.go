package executor_test

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit/executor"
)

// sleepersN is how many tasks BenchmarkSleepers puts to sleep at once
// (issue 23's 100k; 10k under -short).
func sleepersN() int {
	if testing.Short() {
		return 10_000
	}
	return 100_000
}

// BenchmarkSleepers: n tasks each sleep 1ms, then compute a little (a
// short hash loop); one op is the whole batch, from the first submit to
// the last task's end. Reported per run: wall/ideal (the batch's time over
// the 1ms sleep), the sleeps' lateness p50/p99/max (how long past 1ms each
// task woke), and the bytes of heap and stack in use per sleeper at the
// moment every task is asleep. impl=goroutines is the same batch as
// goroutines calling time.Sleep, the peer measured in the same run.
func BenchmarkSleepers(b *testing.B) {
	n := sleepersN()
	b.Run("impl=schedkit", func(b *testing.B) {
		e, err := executor.New(executor.Config{})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		runSleepers(b, n, func(body func(sleep func())) {
			if err := e.Go(func(t executor.Task) { body(func() { _ = t.Sleep(time.Millisecond) }) }); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("impl=goroutines", func(b *testing.B) {
		runSleepers(b, n, func(body func(sleep func())) {
			go body(func() { time.Sleep(time.Millisecond) })
		})
	})
}

// runSleepers runs the batch b.N times with spawn starting each sleeper.
func runSleepers(b *testing.B, n int, spawn func(body func(sleep func()))) {
	late := make([]time.Duration, n)
	var ratio, bytes float64
	for b.Loop() {
		var wg sync.WaitGroup
		var asleep atomic.Int64
		var peak runtime.MemStats
		var base runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&base)
		allAsleep := make(chan struct{})
		wg.Add(n)
		start := time.Now()
		for i := range n {
			spawn(func(sleep func()) {
				defer wg.Done()
				if asleep.Add(1) == int64(n) {
					close(allAsleep)
				}
				t0 := time.Now()
				sleep()
				late[i] = time.Since(t0) - time.Millisecond
				x := uint64(i)
				for range 100 { // "computing"
					x ^= x<<13 ^ x>>7
				}
				if x == 42 {
					b.Log(x)
				}
			})
		}
		<-allAsleep
		runtime.ReadMemStats(&peak)
		wg.Wait()
		ratio = float64(time.Since(start)) / float64(time.Millisecond)
		used := func(m *runtime.MemStats) float64 { return float64(m.HeapInuse + m.StackInuse) }
		bytes = (used(&peak) - used(&base)) / float64(n)
	}
	slices.Sort(late)
	b.ReportMetric(ratio, "wall/ideal")
	b.ReportMetric(float64(late[n/2].Microseconds()), "late-p50-us")
	b.ReportMetric(float64(late[n*99/100].Microseconds()), "late-p99-us")
	b.ReportMetric(float64(late[n-1].Microseconds()), "late-max-us")
	b.ReportMetric(bytes, "B/sleeper")
}
