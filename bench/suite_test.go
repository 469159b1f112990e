package bench

import (
	"testing"

	"github.com/schedkit/schedkit/bench/suite"
)

// BenchmarkSuite runs every workload of package suite (the executor against
// the pools users know), one sub-benchmark per workload and impl:
// BenchmarkSuite/NAME/impl=IMPL. -cpu sets the Ps; the suite runner
// (go run ./cmd/schedkit bench) interleaves rounds and computes the ratios
// instead. -short or -benchtime=Nx shrinks every workload (suite.Quick).
func BenchmarkSuite(b *testing.B) {
	suite.Quick = testing.Short() || benchtimeIsCount()
	for _, w := range suite.All() {
		b.Run(w.Name, func(b *testing.B) { suite.Bench(b, w.Name) })
	}
}
