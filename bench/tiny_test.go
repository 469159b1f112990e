package bench

import (
	"testing"

	"github.com/schedkit/schedkit/bench/suite"
)

// BenchmarkTiny runs suite's tiny-task workloads: per op, 100k tasks of one
// atomic add each (10k with -short or -benchtime=Nx), submitted from
// outside the pool by one goroutine, and waits for them all.
//
//   - submit=one: workload tiny-one, one submit call per task;
//   - submit=batch: workload tiny-batch, the whole op at once where the pool
//     can (Executor.GoBatch, pond's TaskGroup.Submit), the same loop
//     elsewhere.
//
// What each impl does is in the workloads' About text (bench/suite/tiny.go).
func BenchmarkTiny(b *testing.B) {
	suite.Quick = testing.Short() || benchtimeIsCount()
	b.Run("submit=one", func(b *testing.B) { suite.Bench(b, "tiny-one") })
	b.Run("submit=batch", func(b *testing.B) { suite.Bench(b, "tiny-batch") })
}
