package suite

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/alitto/pond/v2"
	"github.com/panjf2000/ants/v2"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"

	"github.com/schedkit/schedkit/executor"
)

// The chain (workload 3, issue 10) and the run-queue experiment on it. The
// shape is the runtime's BenchmarkCreateGoroutinesParallel (proc_test.go):
// GOMAXPROCS chains run at once, each task spawning the next one and
// exiting. Nothing is shared between chains but the scheduler, so the
// figure is what one spawn plus one schedule costs and how that scales.
//
// Tally is the exactly-once check of these workloads and of skewed; its
// tests (bench/chain_test.go) drive it with a task run twice, a late
// duplicate and a refused submit, each of which it must report.

// ChainHops is the number of tasks each chain runs per op of the chain
// workloads: 20k, 2k under Quick. An op is GOMAXPROCS chains, so its
// tasks grow with the Ps and every chain is as long at 16 Ps as at 1: the
// cost of starting the chains and of the last one's end (Ms woken, Ms
// parked) is spread over as many tasks per P at every point of the
// scaling curve, as in the runtime's benchmark, whose chains are b.N/procs
// long.
func ChainHops() int {
	if Quick {
		return 2_000
	}
	return 20_000
}

// Strand is one sequence of counted task runs: a chain, or a run of
// consecutive tasks of a workload whose tasks are not chained (skewed). Its counter sits on a
// cache line of its own, so chains share nothing (the runtime's benchmark
// passes the count down as an argument) and the run-queue experiment is
// not drowned by a contended counter.
type Strand struct {
	ran  atomic.Int64
	want int64
	t    *Tally
	// hop is the impl's task func (hopT the executor's), made once per
	// strand so that a spawn allocates no closure of ours.
	hop  func()
	hopT func(executor.Task)
	_    [128]byte
}

// Tally counts the runs of a workload's tasks, Want in all, split among
// strands, and tells when every strand has made its quota. A task that runs
// twice pushes its strand past the quota (Check reports it); a task lost
// leaves Wait waiting, and the benchmark's timeout names it.
type Tally struct {
	Strands []*Strand
	done    sync.WaitGroup
	mu      sync.Mutex
	err     error
	armed   bool
}

// NewTally splits total runs among n strands (the first ones take the
// remainder).
func NewTally(n, total int) *Tally {
	if n < 1 || total < n {
		panic(fmt.Sprintf("suite: NewTally called with %d strands for %d runs", n, total))
	}
	t := &Tally{Strands: make([]*Strand, n)}
	for i := range t.Strands {
		w := total / n
		if i < total%n {
			w++
		}
		t.Strands[i] = &Strand{want: int64(w), t: t}
	}
	return t
}

// Arm starts a round: it checks that nothing ran since the last Check (a
// late duplicate) and zeroes the counts.
func (t *Tally) Arm() error {
	if t.armed {
		panic("suite: Tally.Arm called twice without Wait")
	}
	if err := t.Check(); err != nil {
		return err
	}
	for _, s := range t.Strands {
		s.ran.Store(0)
	}
	t.done.Add(len(t.Strands))
	t.armed = true
	return nil
}

// Wait returns once every strand has made its quota (or failed), and
// checks the counts.
func (t *Tally) Wait() error {
	t.done.Wait()
	t.armed = false
	return t.Check()
}

// Check reports a failure or a strand past its quota. (One short of it
// cannot have ended: Wait would still be waiting.)
func (t *Tally) Check() error {
	t.mu.Lock()
	err := t.err
	t.mu.Unlock()
	if err != nil {
		return err
	}
	for i, s := range t.Strands {
		if n := s.ran.Load(); n > s.want {
			return fmt.Errorf("strand %d: %d runs, want %d: a task ran twice", i, n, s.want)
		}
	}
	return nil
}

// Run records one task run and reports whether the strand wants more: a
// chain's hop spawns the next only then. The run that makes the quota ends
// the strand; a run past it stays in the count for Check.
func (s *Strand) Run() bool {
	n := s.ran.Add(1)
	switch {
	case n < s.want:
		return true
	case n == s.want:
		s.t.done.Done()
	}
	return false
}

// Fail ends the strand with err (a pool refused a submit): the round's
// Wait returns and reports it.
func (s *Strand) Fail(err error) {
	s.t.mu.Lock()
	if s.t.err == nil {
		s.t.err = err
	}
	s.t.mu.Unlock()
	s.t.done.Done()
}

// chainRound is one impl's way to run a round of chains: begin (may be nil)
// readies the pool, start submits a strand's first hop from outside, and
// end (may be nil) runs after every strand made its quota (a pool's Wait).
type chainRound struct {
	begin func()
	start func(i int) error
	end   func() error
}

// benchChain runs the chain with GOMAXPROCS strands of ChainHops tasks
// per op. setup makes each strand's hop and returns the round's funcs.
func benchChain(b *testing.B, setup func(b *testing.B, t *Tally) chainRound) {
	tasks := Procs() * ChainHops()
	t := NewTally(Procs(), tasks)
	r := setup(b, t)
	round := func() {
		if err := t.Arm(); err != nil {
			b.Fatal(err)
		}
		if r.begin != nil {
			r.begin()
		}
		for i := range t.Strands {
			if err := r.start(i); err != nil {
				b.Fatal(err)
			}
		}
		err := t.Wait()
		if r.end != nil {
			err = errors.Join(err, r.end())
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	round() // warm-up: the executor's free records, the runtime's free goroutines, the pools' workers
	m := StartTasks(tasks)
	for b.Loop() {
		round()
	}
	m.Report(b)
	if err := t.Check(); err != nil {
		b.Fatal(err)
	}
}

// chainExecutor is the chain on an executor made with cfg: the first hop of
// each strand from outside (the global queue), every later one by Task.Go
// from the hop before it (runnext, or the one global queue under
// GlobalQueueOnly).
func chainExecutor(cfg executor.Config) func(*testing.B) {
	return func(b *testing.B) {
		benchChain(b, func(b *testing.B, t *Tally) chainRound {
			e := NewExecutor(b, cfg)
			for _, s := range t.Strands {
				s.hopT = func(tk executor.Task) {
					if s.Run() {
						tk.Go(s.hopT)
					}
				}
			}
			return chainRound{start: func(i int) error { return e.Go(t.Strands[i].hopT) }}
		})
	}
}

// chainGo is the chain of go statements, as in the runtime's benchmark.
func chainGo(b *testing.B) {
	benchChain(b, func(b *testing.B, t *Tally) chainRound {
		for _, s := range t.Strands {
			s.hop = func() {
				if s.Run() {
					go s.hop()
				}
			}
		}
		return chainRound{start: func(i int) error { go t.Strands[i].hop(); return nil }}
	})
}

// chainSubmit is the chain on a pool whose submit may fail: a hop submits
// the next, and a refusal ends the strand with the error.
func chainSubmit(b *testing.B, t *Tally, submit func(func()) error) chainRound {
	for _, s := range t.Strands {
		s.hop = func() {
			if s.Run() {
				if err := submit(s.hop); err != nil {
					s.Fail(err)
				}
			}
		}
	}
	return chainRound{start: func(i int) error { return submit(t.Strands[i].hop) }}
}

// chainAbout is the chain workload's About.
const chainAbout = `GOMAXPROCS chains run at once, each task spawning the next and exiting: the shape of the runtime's
BenchmarkCreateGoroutinesParallel. One op is GOMAXPROCS chains of 20k tasks each (2k in quick runs), so every
chain is as long at any P count; ns/task is the op's wall time over its tasks. Each chain's first task is submitted from outside; its count sits on
its own cache line, so chains share nothing but the scheduler. A task that runs twice fails the benchmark.

- schedkit: executor.Config{}; each task spawns the next with Task.Go (the P's runnext).
- go: go f() spawning the next goroutine.
- ants: ants.NewPool(2*GOMAXPROCS), blocking Submit from inside a task. With GOMAXPROCS workers every worker
  could be inside Submit waiting for a free worker: a deadlock. A chain holds at most two workers at once (the
  task, and the next it submits), so 2*GOMAXPROCS never waits for ever; only GOMAXPROCS run at a time.
- pond: pond.NewPool(GOMAXPROCS), unbounded queue: Go from inside a task never blocks.
- errgroup: a Group per op with SetLimit(2*GOMAXPROCS), Go from inside a task, Wait at the end; the limit is
  doubled for ants' reason (Go blocks at the limit, and the caller holds a slot until it returns).
- conc: a pool.New().WithMaxGoroutines(2*GOMAXPROCS) per op, Go from inside a task (blocks at the limit: ants'
  reason again), Wait once every chain has ended (Wait closes the pool to further Go).
- chanpool: suite.ChanPool with GOMAXPROCS workers and a buffer of 256; a task sends the next to the channel.
  A chain has at most one task queued, so the buffer never fills and the send never blocks.`

// chainScalingAbout is the run-queue experiment's About.
const chainScalingAbout = `The run-queue experiment, the seed's reason for the runtime's distributed run queues: the chain
workload (see chain) on schedkit's executor as it is (schedkit: a runnext slot and a ring per P, stealing) and on
the same executor with executor.Config{GlobalQueueOnly: true} (globalqonly: every spawn and every schedule goes
through the one locked global queue, nothing else changed), at 1, 2, 4, 8 and 16 Ps (points above the Ps the run
allows are skipped), and beside them the Go runtime's own chain (go: go f(), as in chain). The ratio is each
impl's ns/task over schedkit's; the table after it is each impl's throughput at every P count over its
throughput at 1 P, per round. The reference: a Go runtime modified to
use one global run queue took about 4x longer at 4 cores and 31x at 16 cores (Kavya Joshi, "The Scheduler Saga",
GopherCon 2018). The targets here: globalqonly at least 2x at 2 Ps, growing with Ps; go at least 2x at every
P count; schedkit's throughput growing with its Ps (issue 16: 1.8x at 2 Ps, 12x at 16).`

func init() {
	Register(Workload{
		Name:  "chain",
		Title: "Chain: each task spawns the next (BenchmarkCreateGoroutinesParallel's shape)",
		About: chainAbout,
		Impls: []Impl{
			{"schedkit", chainExecutor(executor.Config{})},
			{"go", chainGo},
			{"ants", func(b *testing.B) {
				benchChain(b, func(b *testing.B, t *Tally) chainRound {
					p, err := ants.NewPool(2 * Procs())
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(p.Release)
					return chainSubmit(b, t, p.Submit)
				})
			}},
			{"pond", func(b *testing.B) {
				benchChain(b, func(b *testing.B, t *Tally) chainRound {
					p := pond.NewPool(Procs())
					b.Cleanup(p.StopAndWait)
					return chainSubmit(b, t, p.Go)
				})
			}},
			{"errgroup", func(b *testing.B) {
				benchChain(b, func(b *testing.B, t *Tally) chainRound {
					// errgroup's funcs return an error: one per strand, made
					// once, so a hop's Go allocates no closure of ours.
					var g *errgroup.Group
					hops := make([]func() error, len(t.Strands))
					for i, s := range t.Strands {
						hops[i] = func() error {
							if s.Run() {
								g.Go(hops[i])
							}
							return nil
						}
					}
					return chainRound{
						begin: func() {
							g = new(errgroup.Group)
							g.SetLimit(2 * Procs())
						},
						start: func(i int) error { g.Go(hops[i]); return nil },
						end:   func() error { return g.Wait() },
					}
				})
			}},
			{"conc", func(b *testing.B) {
				benchChain(b, func(b *testing.B, t *Tally) chainRound {
					var p *pool.Pool
					r := chainSubmit(b, t, func(f func()) error { p.Go(f); return nil })
					r.begin = func() { p = pool.New().WithMaxGoroutines(2 * Procs()) }
					r.end = func() error { p.Wait(); return nil }
					return r
				})
			}},
			{"chanpool", func(b *testing.B) {
				benchChain(b, func(b *testing.B, t *Tally) chainRound {
					p := NewChanPool(Procs(), 256)
					b.Cleanup(p.Close)
					return chainSubmit(b, t, func(f func()) error { p.Submit(f); return nil })
				})
			}},
		},
	})
	Register(Workload{
		Name:  "chain-scaling",
		Title: "The run-queue experiment: distributed run queues against one global queue on the chain",
		About: chainScalingAbout,
		Procs: []int{1, 2, 4, 8, 16},
		Impls: []Impl{
			{"schedkit", chainExecutor(executor.Config{})},
			{"globalqonly", chainExecutor(executor.Config{GlobalQueueOnly: true})},
			{"go", chainGo},
		},
	})
}
