package bench

import (
	"flag"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/suite"
)

// benchtimeIsCount reports whether -test.benchtime is an iteration count
// (such as 1x) rather than a duration: such runs only check that every
// benchmark runs and is correct, so they set suite.Quick.
func benchtimeIsCount() bool {
	f := flag.Lookup("test.benchtime")
	return f != nil && strings.HasSuffix(f.Value.String(), "x")
}

// BenchmarkForkJoin runs suite's forkjoin workload: one binary fork-join
// tree per op, each node spawning two children and waiting for both, depth
// 20 (depth 16 with -short or -benchtime=Nx); ns/task is per node and
// stack-MiB the largest StackInuse seen after a tree. How each impl spawns
// and waits is in the workload's About text (bench/suite/forkjoin.go).
func BenchmarkForkJoin(b *testing.B) {
	suite.Quick = testing.Short() || benchtimeIsCount()
	suite.Bench(b, "forkjoin")
}
