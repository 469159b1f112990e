package suite

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alitto/pond/v2"
	"github.com/panjf2000/ants/v2"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"

	"github.com/schedkit/schedkit/executor"
)

// The ping-pong workload: runnext's case. Each pair's two sides hand a
// message back and forth, and the side readied by a message runs next on
// the same P in the same slice (runqput with next=true, execute's
// inheritTime), so a pair never lets its P's other tasks run by itself:
// only the slice, enforced by sysmon (retake), does. The figure is how long
// the tasks queued behind the pairs wait.

const (
	// ppSlice is the unit of the waits: the executor's default slice,
	// which is also the Go runtime's forcePreemptNS, the slice its sysmon
	// enforces on the goroutine peers. The executor keeps the default so
	// that every impl is measured in the same unit; a round is a few
	// slices long anyway (five of queuing, then the last task's wait).
	ppSlice = executor.DefaultSlice
	// ppGap is how often a pair's ping side queues a task: eight per slice.
	ppGap = ppSlice / 8
	// ppGiveUp bounds a queued task's wait: a pair whose last queued task
	// has waited this long stops, and the benchmark fails, rather than
	// ping-ponging until go test's timeout.
	ppGiveUp = 100 * ppSlice
	// ppWork is the arithmetic each side does per message (ppSpin rounds,
	// a fraction of a µs): a message is real work, so the P is mostly
	// running a task when sysmon looks, as in a real ping-pong.
	ppWork = 256
)

// ppQueued is the number of tasks each pair queues per round, ppGap apart:
// 40 (five slices of queuing), 16 (two) under Quick.
func ppQueued() int {
	if Quick {
		return 16
	}
	return 40
}

// ppSpin is n rounds of xorshift on x: CPU work the compiler cannot drop,
// since the caller keeps the result.
func ppSpin(n int, x uint64) uint64 {
	x |= 1
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// ppPair is one pair's round. Its two sides run one at a time (each is
// readied by the other's message), so msgs, sink and the ping side's
// fields need no atomics; a queued task writes only its own slots.
type ppPair struct {
	q       int
	spawned int       // ping side: queued tasks spawned so far
	last    time.Time // ping side: when the last was spawned
	at      []time.Time
	wait    []time.Duration // queued task i's wait, written by it
	runs    []atomic.Int32  // how many times queued task i ran
	ran     atomic.Int32    // queued tasks that ran
	msgs    int             // messages sent by both sides
	lost    bool            // a side saw a message out of turn
	gaveUp  bool            // ping side: stopped with tasks still queued
	sink    uint64
}

func newPPPair(q int) *ppPair {
	return &ppPair{q: q, at: make([]time.Time, q), wait: make([]time.Duration, q), runs: make([]atomic.Int32, q)}
}

func (p *ppPair) reset() {
	p.spawned, p.msgs, p.lost, p.gaveUp = 0, 0, false, false
	p.ran.Store(0)
	for i := range p.runs {
		p.runs[i].Store(0)
	}
}

// due says whether the ping side queues a task now, and which: the first
// at once, the others ppGap apart, q in all. It stamps the task's spawn.
func (p *ppPair) due() (int, bool) {
	if p.spawned == p.q {
		return 0, false
	}
	now := time.Now()
	if p.spawned > 0 && now.Sub(p.last) < ppGap {
		return 0, false
	}
	i := p.spawned
	p.spawned++
	p.last, p.at[i] = now, now
	return i, true
}

// land is queued task i's body: its wait from spawn to start.
func (p *ppPair) land(i int) {
	p.wait[i] = time.Since(p.at[i])
	p.runs[i].Add(1)
	p.ran.Add(1)
}

// over says whether the pair may stop: every queued task spawned and run.
// A pair keeps passing messages until then, so every queued task waits
// behind a running ping-pong, however fast the machine; or until the last
// has waited ppGiveUp (gaveUp: the benchmark fails).
func (p *ppPair) over() bool {
	if p.spawned < p.q {
		return false
	}
	if int(p.ran.Load()) == p.q {
		return true
	}
	if time.Since(p.last) > ppGiveUp {
		p.gaveUp = true
		return true
	}
	return false
}

// check is the round's verdict once the pair has stopped: every queued
// task ran once, in time, and the messages alternated.
func (p *ppPair) check() error {
	if p.lost {
		return fmt.Errorf("pingpong: a message was lost or delivered twice: a step ran other than once")
	}
	if p.gaveUp {
		return fmt.Errorf("pingpong: a pair stopped after its queued tasks waited %v: %d of %d ran", ppGiveUp, p.ran.Load(), p.q)
	}
	for i := range p.runs {
		if n := p.runs[i].Load(); n != 1 {
			return fmt.Errorf("pingpong: queued task %d ran %d times, want 1", i, n)
		}
	}
	return nil
}

// ppOpen starts an impl for the pairs and returns round, which runs one
// round of every pair and returns when all have stopped, and close.
type ppOpen func(b *testing.B, pairs []*ppPair) (round func(), close func())

// ppBench runs the workload on one impl: Procs pairs per round, one warm-up
// round, then rounds until b.Loop stops; it reports the largest and the
// 99th-percentile wait of a queued task in slices, and ns per message.
func ppBench(open ppOpen) func(*testing.B) {
	return func(b *testing.B) {
		pairs := make([]*ppPair, Procs())
		for i := range pairs {
			pairs[i] = newPPPair(ppQueued())
		}
		round, closeImpl := open(b, pairs)
		defer closeImpl()
		var waits []time.Duration
		msgs := 0
		one := func() {
			for _, p := range pairs {
				p.reset()
			}
			round()
			for _, p := range pairs {
				if err := p.check(); err != nil {
					b.Fatal(err)
				}
				waits = append(waits, p.wait...)
				msgs += p.msgs
			}
		}
		one() // warm-up: workers started, not measured
		waits, msgs = waits[:0], 0
		for b.Loop() {
			one()
		}
		if msgs == 0 || len(waits) == 0 {
			b.Fatal("no message passed or no task queued")
		}
		slices.Sort(waits)
		b.ReportMetric(float64(waits[len(waits)-1])/float64(ppSlice), "max-wait-slices")
		b.ReportMetric(float64(waits[(len(waits)-1)*99/100])/float64(ppSlice), "p99-wait-slices")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(msgs), "ns/msg")
	}
}

// skPair is a pair on the executor: a message is a local spawn of the
// other side's next step (Task.Go into this P's runnext), the executor's
// idiom for "ready the partner"; the queued tasks are local spawns too.
type skPair struct {
	*ppPair
	queued     []func(executor.Task)
	ping, pong func(executor.Task)
	done       *sync.WaitGroup
}

// A ping step runs after an even number of messages, a pong step after an
// odd one: a step run twice, or lost, breaks the alternation.
func (s *skPair) pingStep(t executor.Task) {
	s.lost = s.lost || s.msgs%2 != 0
	s.sink = ppSpin(ppWork, s.sink)
	if i, ok := s.due(); ok {
		t.Go(s.queued[i]) // into runnext; the next spawn moves it to the ring
	}
	if s.over() {
		s.done.Done()
		return
	}
	s.msgs++
	t.Go(s.pong)
}

func (s *skPair) pongStep(t executor.Task) {
	s.lost = s.lost || s.msgs%2 != 1
	s.sink = ppSpin(ppWork, s.sink)
	s.msgs++
	t.Go(s.ping)
}

func ppSchedkit(b *testing.B, pairs []*ppPair) (func(), func()) {
	return ppExecutor(b, pairs, executor.Config{Slice: ppSlice})
}

// ppSpareP is schedkit's impl with GOMAXPROCS one above the executor's
// Procs while it runs. With every Go P held by an M that runs tasks back to
// back, the executor's sysmon goroutine, and the M a retake hands the P
// to, each wait for the Go runtime to preempt an M (its own 10ms slice)
// before they run; a spare Go P removes that wait, so this row shows the
// executor's retake alone, the other the executor as users run it.
func ppSpareP(b *testing.B, pairs []*ppPair) (func(), func()) {
	procs := len(pairs)
	prev := runtime.GOMAXPROCS(procs + 1)
	round, _ := ppExecutor(b, pairs, executor.Config{Procs: procs, Slice: ppSlice})
	return round, func() { runtime.GOMAXPROCS(prev) }
}

func ppExecutor(b *testing.B, pairs []*ppPair, cfg executor.Config) (func(), func()) {
	e := NewExecutor(b, cfg)
	var wg sync.WaitGroup
	starts := make([]func(executor.Task), len(pairs))
	for k, p := range pairs {
		s := &skPair{ppPair: p, done: &wg, queued: make([]func(executor.Task), p.q)}
		for i := range p.q {
			s.queued[i] = func(executor.Task) { p.land(i) }
		}
		s.ping, s.pong = s.pingStep, s.pongStep
		starts[k] = s.ping
	}
	return func() {
		wg.Add(len(pairs))
		if err := e.GoBatch(starts); err != nil {
			b.Fatal(err)
		}
		wg.Wait()
	}, func() {}
}

// ppGoroutines is a pair as the Go runtime runs it: two goroutines passing
// the message over unbuffered channels (a send readies the receiver into
// the sender's P's runnext), the ping side queuing task i with submit. It
// returns when the pair stops; the pong goroutine ends with it.
func ppGoroutines(p *ppPair, queued []func(), submit func(func())) {
	toPong, toPing := make(chan int), make(chan int)
	go func() {
		for m := range toPong {
			p.lost = p.lost || m != p.msgs
			p.sink = ppSpin(ppWork, p.sink)
			p.msgs++
			toPing <- p.msgs
		}
	}()
	for {
		p.sink = ppSpin(ppWork, p.sink)
		if p.over() {
			close(toPong)
			return
		}
		p.msgs++
		toPong <- p.msgs
		// Past the first message each side blocks in its send until the
		// other receives, and that receive readies it: the one below
		// readies pong, which displaces a task queued here from runnext,
		// as the executor's message does. Queued before the send, a task
		// would take runnext after pong was readied and jump ahead.
		if i, ok := p.due(); ok {
			submit(queued[i])
		}
		m := <-toPing
		p.lost = p.lost || m != p.msgs
	}
}

// ppPeer adapts a peer: the pairs are goroutines (a pool of Procs workers
// cannot host 2*Procs sides that wait on each other: the queued tasks
// would get no worker until the pairs end, or the pairs would deadlock);
// the queued tasks go to the peer with submit. begin, if set, makes the
// round's pool and returns its submit and its wait.
func ppPeer(begin func(b *testing.B) (submit func(func()), wait func() error)) ppOpen {
	return func(b *testing.B, pairs []*ppPair) (func(), func()) {
		queued := make([][]func(), len(pairs))
		for k, p := range pairs {
			queued[k] = make([]func(), p.q)
			for i := range p.q {
				queued[k][i] = func() { p.land(i) }
			}
		}
		return func() {
			submit, wait := begin(b)
			var wg sync.WaitGroup
			wg.Add(len(pairs))
			for k, p := range pairs {
				go func() {
					defer wg.Done()
					ppGoroutines(p, queued[k], submit)
				}()
			}
			wg.Wait()
			if err := wait(); err != nil {
				b.Fatal(err)
			}
		}, func() {}
	}
}

// ppErr records the first error a submit returned on a pair's goroutine,
// where b.Fatal may not be called; the round's wait returns it.
type ppErr struct {
	mu  sync.Mutex
	err error
}

func (e *ppErr) set(err error) {
	e.mu.Lock()
	if e.err == nil {
		e.err = err
	}
	e.mu.Unlock()
}

func (e *ppErr) get() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// ppLongLived adapts a peer whose pool lives across rounds: open makes it
// and returns its submit (which may fail) and close.
func ppLongLived(open func(b *testing.B) (submit func(func()) error, close func())) ppOpen {
	return func(b *testing.B, pairs []*ppPair) (func(), func()) {
		submit, closePool := open(b)
		var errs ppErr
		round, _ := ppPeer(func(*testing.B) (func(func()), func() error) {
			return func(f func()) {
				if err := submit(f); err != nil {
					errs.set(fmt.Errorf("submit of a queued task: %w", err))
					f() // run it here, so that its pair can stop
				}
			}, errs.get
		})(b, pairs)
		return round, closePool
	}
}

func init() {
	Register(Workload{
		Name:   "pingpong",
		Title:  "Ping-pong pairs with tasks queued behind them (runnext's case)",
		Metric: "max-wait-slices",
		About: "GOMAXPROCS pairs per round, each passing a message back and forth (each side does ~0.5µs of " +
			"arithmetic per message); every slice/8 a pair's ping side queues a task on its own P, 40 per pair " +
			"(16 under -quick), and the pair keeps going until all of its queued tasks have run, so every " +
			"queued task waits behind a running ping-pong. The side a message readies runs next on the same P " +
			"and inherits the slice (runnext), so only the slice, enforced by sysmon, lets a queued task run. " +
			"max-wait-slices (the metric) is the largest spawn-to-start wait of a queued task over all rounds, " +
			"in slices of 10ms (the executor's default Config.Slice, kept so that every impl has the same unit: " +
			"it is also the Go runtime's forcePreemptNS, the slice its sysmon enforces on goroutines); " +
			"p99-wait-slices the 99th percentile; ns/msg the round's wall time per message. Target: no queued " +
			"task waits longer than two slices. schedkit: a message is a local spawn of the partner's next step " +
			"(Task.Go into runnext), a queued task a local spawn before it (moved from runnext to the ring by " +
			"the message). schedkit-sparep: the same with GOMAXPROCS one above the executor's Procs during the " +
			"run: with every Go P held by an M running tasks back to back, the executor's sysmon goroutine, and " +
			"the M a retake hands the P to, each wait for the Go runtime to preempt an M (its own 10ms slice) " +
			"before they run; a spare Go P removes that wait, so this row is the executor's retake alone and " +
			"schedkit's the executor as users run it (Procs = GOMAXPROCS). go: each pair two goroutines over unbuffered channels (a send readies the receiver " +
			"into runnext), a queued task a go statement. ants, pond, errgroup, conc, chanpool: the same " +
			"goroutine pairs (Procs workers could not host 2*Procs sides that wait on each other), each queued " +
			"task submitted to a pool of GOMAXPROCS workers (ants blocking; pond unbounded queue; errgroup " +
			"SetLimit and conc WithMaxGoroutines, one per round; chanpool buffered 256), whose worker " +
			"goroutine the Go scheduler must then run beside the pairs; a bounded pool's submit blocks the " +
			"ping side while every worker is taken (a worker readied but not yet run counts), which pauses " +
			"that pair and lets its P run the queue: a shorter wait bought by stalling the pair.",
		Impls: []Impl{
			{"schedkit", ppBench(ppSchedkit)},
			{"schedkit-sparep", ppBench(ppSpareP)},
			{"go", ppBench(ppPeer(func(*testing.B) (func(func()), func() error) {
				return func(f func()) { go f() }, func() error { return nil }
			}))},
			{"ants", ppBench(ppLongLived(func(b *testing.B) (func(func()) error, func()) {
				p, err := ants.NewPool(Procs())
				if err != nil {
					b.Fatal(err)
				}
				return p.Submit, p.Release
			}))},
			{"pond", ppBench(ppLongLived(func(*testing.B) (func(func()) error, func()) {
				p := pond.NewPool(Procs())
				return p.Go, p.StopAndWait
			}))},
			{"errgroup", ppBench(ppPeer(func(*testing.B) (func(func()), func() error) {
				var g errgroup.Group
				g.SetLimit(Procs())
				return func(f func()) { g.Go(func() error { f(); return nil }) }, g.Wait
			}))},
			{"conc", ppBench(ppPeer(func(*testing.B) (func(func()), func() error) {
				p := pool.New().WithMaxGoroutines(Procs())
				return p.Go, func() error { p.Wait(); return nil }
			}))},
			{"chanpool", ppBench(ppLongLived(func(*testing.B) (func(func()) error, func()) {
				p := NewChanPool(Procs(), 256)
				return func(f func()) error { p.Submit(f); return nil }, p.Close
			}))},
		},
	})
}
