package bench

import (
	"errors"
	"strings"
	"sync"
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

// fakeFill is a QueuedFill on one channel-pool worker, correct when mut is
// "" and otherwise broken as named: "early" leaves the worker free, so a
// task runs before the gate opens (fill returns only once one has);
// "twice" queues one task twice; "lost" queues one fewer; "fillerr" and
// "closeerr" fail.
func fakeFill(mut string) suite.QueuedFill {
	return func(gate <-chan struct{}, n int, task func()) (func() error, error) {
		if mut == "fillerr" {
			return nil, errors.New("fake fill failed")
		}
		p := suite.NewChanPool(1, n+1)
		started := make(chan struct{})
		p.Submit(func() {
			close(started)
			if mut != "early" {
				<-gate
			}
		})
		<-started
		first := make(chan struct{})
		var once sync.Once
		wrapped := func() {
			task()
			once.Do(func() { close(first) })
		}
		switch mut {
		case "twice":
			p.Submit(wrapped)
		case "lost":
			n--
		}
		for range n {
			p.Submit(wrapped)
		}
		if mut == "early" {
			<-first
		}
		return func() error {
			p.Close()
			if mut == "closeerr" {
				return errors.New("fake close failed")
			}
			return nil
		}, nil
	}
}

// TestHoldQueued checks memory-1m's op against fake pools: a correct one
// passes and holds at least half its channel buffer (8 bytes a task), and
// each broken one is rejected with its own error.
func TestHoldQueued(t *testing.T) {
	const n = 100_000
	held, err := suite.HoldQueued(fakeFill(""), n)
	if err != nil {
		t.Fatalf("correct fill: %v", err)
	}
	if held < n*8/2 {
		t.Errorf("correct fill: held %d bytes, want at least %d (half its channel buffer)", held, n*8/2)
	}
	for mut, want := range map[string]string{
		"early":    "ran before the gate opened",
		"twice":    "task runs in all once the pool closed",
		"lost":     "task runs in all once the pool closed",
		"fillerr":  "fake fill failed",
		"closeerr": "fake close failed",
	} {
		if _, err := suite.HoldQueued(fakeFill(mut), n); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("fill %s: error %v, want one containing %q", mut, err, want)
		}
	}
}
