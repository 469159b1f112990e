package bench

import (
	"testing"

	"github.com/schedkit/schedkit/bench/suite"
)

// BenchmarkMemory runs suite's memory workloads:
//
//   - per=task: workload memory, heap bytes (B/task) and allocations
//     (allocs/task) per task of tiny-one's submit-and-wait;
//   - queued=1m: workload memory-1m, the memory held (peak-MiB) while 1M
//     tasks wait unrun in the pool, or as 1M parked goroutines (100k with
//     -short or -benchtime=Nx).
//
// What is and is not counted is in the workloads' About text
// (bench/suite/memory.go).
func BenchmarkMemory(b *testing.B) {
	suite.Quick = testing.Short() || benchtimeIsCount()
	b.Run("per=task", func(b *testing.B) { suite.Bench(b, "memory") })
	b.Run("queued=1m", func(b *testing.B) { suite.Bench(b, "memory-1m") })
}
