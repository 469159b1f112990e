package suite

import (
	"sync/atomic"
	"testing"

	"github.com/schedkit/schedkit/executor"
)

// Skewed (workload 6, issue 10): every task is spawned on one P, and the
// other Ps have work only if they steal it (stealing's case: runqsteal
// from findRunnable's stealWork).

// SkewedTasks is the number of tasks per op of the skewed workload: 10k
// tasks of about 1.5 µs of CPU work each (2k under Quick).
func SkewedTasks() int {
	if Quick {
		return 2_000
	}
	return 10_000
}

// skewedIters is the length of SkewedWork's loop: about 1.5 µs of CPU on
// the machine RESULTS.md names (several times a spawn's cost, so a
// thief's help pays; short enough that a steal of half a ring matters).
const skewedIters = 750

// skewedSink keeps SkewedWork's result alive.
var skewedSink atomic.Int64

// SkewedWork is one task's CPU work: a dependent xorshift loop the
// compiler cannot remove, touching no shared memory (the sink's store is
// never taken).
func SkewedWork() {
	x := uint64(88172645463325252)
	for range skewedIters {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	if x == 0 {
		skewedSink.Add(1)
	}
}

// skewedChunk is how many tasks count on one strand: the tasks are
// spawned in order and a thief steals the oldest half of a queue, so a
// strand's counter is mostly touched by one P at a time, and a round's
// WaitGroup once per chunk. One shared counter would move between the Ps
// on nearly every task and charge the workload a cache miss per task that
// is no part of the scheduler under test.
const skewedChunk = 256

// benchSkewed runs rounds of SkewedTasks tasks, counted by strands of
// about skewedChunk tasks each. setup makes each strand's task func and
// returns spawn, which starts every task of a round, in strand order, and
// returns.
func benchSkewed(b *testing.B, setup func(t *Tally) (spawn func() error)) {
	n := SkewedTasks()
	t := NewTally((n+skewedChunk-1)/skewedChunk, n)
	spawn := setup(t)
	round := func() {
		if err := t.Arm(); err != nil {
			b.Fatal(err)
		}
		if err := spawn(); err != nil {
			b.Fatal(err)
		}
		if err := t.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	round() // warm-up: the executor's records, the runtime's free goroutines
	m := StartTasks(n)
	for b.Loop() {
		round()
	}
	m.Report(b)
	if err := t.Check(); err != nil {
		b.Fatal(err)
	}
}

const skewedAbout = `All work is spawned on one P and the other Ps must steal to help: one task submitted from outside
spawns 10k tasks (2k in quick runs) in a loop and returns; each does about 1.5 µs of CPU work (a dependent
xorshift loop) and counts itself on one of 40 counters, each for 250 consecutive tasks (one shared counter would
move between the Ps on every task). One op is the 10k tasks; ns/task is the op's wall time over them. Run at 1
and 2 Ps: the target is at least 1.8x the 1-P throughput at 2 Ps (schedkit's ns/task at 1 P over its ns/task at
2 Ps; the ratio column compares go with schedkit at each P count).

- schedkit: executor.Config{}; the spawner task's Task.Go puts each task in its P's runnext (the one before
  moves to the ring; a full ring sends half to the global queue); idle Ps steal half a ring at a time.
- go: go f() from one goroutine, the benchmark's, for reference: the runtime's own runnext, runq and stealing.`

func init() {
	Register(Workload{
		Name:  "skewed",
		Title: "Skewed: every task spawned on one P, the others steal",
		About: skewedAbout,
		Procs: []int{1, 2},
		Impls: []Impl{
			{"schedkit", func(b *testing.B) {
				e := NewExecutor(b, executor.Config{})
				benchSkewed(b, func(tl *Tally) func() error {
					for _, s := range tl.Strands {
						s.hopT = func(executor.Task) { SkewedWork(); s.Run() }
					}
					spawner := func(t executor.Task) {
						for _, s := range tl.Strands {
							for range s.want {
								t.Go(s.hopT)
							}
						}
					}
					return func() error { return e.Go(spawner) }
				})
			}},
			{"go", func(b *testing.B) {
				benchSkewed(b, func(tl *Tally) func() error {
					for _, s := range tl.Strands {
						s.hop = func() { SkewedWork(); s.Run() }
					}
					return func() error {
						for _, s := range tl.Strands {
							for range s.want {
								go s.hop()
							}
						}
						return nil
					}
				})
			}},
		},
	})
}
