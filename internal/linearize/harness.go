package linearize

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/schedkit/schedkit/internal/watchdog"
)

// Stress is a series of recorded histories of one object under test, the
// loop every component's linearizability test runs: history h builds a
// fresh object, starts one goroutine per thread (together, behind a
// spinning barrier, so that short histories still overlap), records every
// operation they make, waits for them under a watchdog and checks the
// history against the model. I and O are the operations' input and output
// types, as the model's Step receives them.
type Stress[I, O any] struct {
	// Name names the series; the loops name history h Name-h<h>.
	Name string
	// Seed and the history's number seed every random choice: Setup's rng
	// is PCG(Seed, h<<8) and thread k's PCG(Seed, h<<8|k+1), so a seed and
	// a history number replay a history's choices (not its timing).
	Seed uint64
	// Timeout bounds porcupine's search per history (0: DefaultTimeout).
	// A search that runs out is an error wrapping ErrTimeout, never a pass.
	Timeout time.Duration
	// Deadline bounds the recording of one history (0: DefaultDeadline).
	// Past it the watchdog prints every goroutine's stack and the history
	// so far, and panics naming the history.
	Deadline time.Duration
	// Setup builds history h: a fresh object under test, the model of its
	// initial state, and the threads that drive it.
	Setup func(h int, rng *rand.Rand) History[I, O]
	// Tally, if not nil, sees the operations of every history that ran to
	// its end, before the check: for the coverage counts a test requires.
	Tally func(ops []Op[I, O])
}

// History is one history to record, as Stress.Setup builds it.
type History[I, O any] struct {
	Model porcupine.Model
	// Threads[k] runs on its own goroutine as client k. A nil entry stands
	// for a client with no goroutine and no operations (an idle P).
	Threads []func(w *Worker[I, O])
}

// Op is one recorded operation with its input and output typed.
type Op[I, O any] struct {
	Client       int
	Input        I
	Output       O
	Call, Return int64
}

// Worker is a thread's handle on its history: its Client, typed, and its
// random numbers.
type Worker[I, O any] struct {
	// ID is the thread's client id, its index in History.Threads.
	ID int
	// Rand is the thread's own generator, seeded by Stress.Seed, the
	// history and ID.
	Rand     *rand.Rand
	c        *Client
	leadDone *atomic.Bool
}

// Begin records the call of an operation; see Client.Begin.
func (w *Worker[I, O]) Begin(in I) { w.c.Begin(in) }

// End records the return of the open operation; see Client.End.
func (w *Worker[I, O]) End(out O) { w.c.End(out) }

// EndFunc stamps the return, then builds the output; see Client.EndFunc.
func (w *Worker[I, O]) EndFunc(out func() O) {
	w.c.mustBeOpen("EndFunc")
	ret := w.c.r.clock.Add(1)
	w.c.close(ret, out())
}

// Yield gives up the processor with probability 1/n, so that one thread's
// operations spread over the others' instead of running in one burst.
func (w *Worker[I, O]) Yield(n int) {
	if w.Rand.IntN(n) == 0 {
		runtime.Gosched()
	}
}

// LeadDone reports whether thread 0 has returned: the other threads stop
// then, so that the history stays concurrent to its end.
func (w *Worker[I, O]) LeadDone() bool { return w.leadDone.Load() }

// DefaultTimeout is porcupine's limit per history when Stress.Timeout is 0.
const DefaultTimeout = 30 * time.Second

// DefaultDeadline is the watchdog's limit on recording one history when
// Stress.Deadline is 0: a minute under -short, three in long mode. A
// history takes milliseconds; only a hang comes near either.
func DefaultDeadline() time.Duration {
	if testing.Testing() && testing.Short() {
		return time.Minute
	}
	return 3 * time.Minute
}

// startWatchdog arms a history's deadline; tests replace it.
var startWatchdog = watchdog.Start

// Run records history h under the given name and checks it. The Result
// and error are CheckOperations'; a panic in Setup or a thread is not
// recovered. Call it from one goroutine at a time.
func (s *Stress[I, O]) Run(name string, h int) (Result, error) {
	if s.Setup == nil {
		panic("linearize: Stress.Run called with no Setup")
	}
	hist := s.Setup(h, rand.New(rand.NewPCG(s.Seed, uint64(h)<<8)))
	rec := New(name)
	started := 0
	for _, th := range hist.Threads {
		if th != nil {
			started++
		}
	}
	var ready atomic.Int32
	var leadDone atomic.Bool
	workers := make([]*Worker[I, O], len(hist.Threads))
	for k := range hist.Threads {
		workers[k] = &Worker[I, O]{ID: k, Rand: rand.New(rand.NewPCG(s.Seed, uint64(h)<<8|uint64(k+1))),
			c: rec.Client(k), leadDone: &leadDone}
	}
	deadline := s.Deadline
	if deadline <= 0 {
		deadline = DefaultDeadline()
	}
	stop := startWatchdog(fmt.Sprintf("linearize history %s (seed %d)", name, s.Seed), deadline,
		func() string { return rec.Progress(hist.Model.DescribeOperation) })
	var wg sync.WaitGroup
	// Thread 0 (an owner, as a rule) starts last, so that it is the one to
	// open the barrier and runs at once while the others come out of their
	// yields: its operations overlap theirs from the start.
	for k := len(hist.Threads) - 1; k >= 0; k-- {
		th := hist.Threads[k]
		if th == nil {
			continue
		}
		wg.Go(func() {
			if k == 0 {
				defer leadDone.Store(true)
			}
			for ready.Add(1); ready.Load() < int32(started); {
				runtime.Gosched()
			}
			th(workers[k])
		})
	}
	wg.Wait()
	stop()

	ops, err := rec.Operations()
	if err != nil {
		return Result{}, err
	}
	if s.Tally != nil {
		s.Tally(typed[I, O](ops))
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return CheckOperations(name, hist.Model, ops, timeout)
}

// typed converts a history recorded by Workers to typed operations.
func typed[I, O any](ops []porcupine.Operation) []Op[I, O] {
	out := make([]Op[I, O], len(ops))
	for i, op := range ops {
		out[i] = Op[I, O]{Client: op.ClientId, Input: op.Input.(I), Output: op.Output.(O), Call: op.Call, Return: op.Return}
	}
	return out
}

// Summary adds up what a series of histories exercised.
type Summary struct {
	Histories, Operations int
	// Concurrent counts the operations that overlapped another client's.
	Concurrent int
	// Checking is the time porcupine's searches took.
	Checking time.Duration
}

func (m *Summary) add(res Result) {
	m.Histories++
	m.Operations += res.Operations
	m.Concurrent += res.Concurrent
	m.Checking += res.Elapsed
}

// String is the summary's log line.
func (m Summary) String() string {
	return fmt.Sprintf("%d histories, %d operations (%d overlapped another thread's), porcupine %v",
		m.Histories, m.Operations, m.Concurrent, m.Checking.Round(time.Millisecond))
}

// CheckAll records and checks histories 0 to n-1 and fails t at the first
// that is not linearizable (naming the seed and the visualization) or whose
// check timed out, which is not a pass. It returns what they exercised, for
// the coverage a test requires.
func (s *Stress[I, O]) CheckAll(t testing.TB, n int) Summary {
	t.Helper()
	t.Logf("%s: seed %d", s.Name, s.Seed)
	var sum Summary
	for h := range n {
		res, err := s.Run(fmt.Sprintf("%s-h%d", s.Name, h), h)
		sum.add(res)
		if errors.Is(err, ErrTimeout) {
			t.Fatalf("history %d (seed %d): porcupine timed out: neither linearizable nor refuted: %v", h, s.Seed, err)
		}
		if err != nil {
			t.Fatalf("history %d (seed %d): %v", h, s.Seed, err)
		}
	}
	t.Logf("%s: %v, all linearizable", s.Name, sum)
	return sum
}

// FirstFailure records and checks histories 0 to n-1 and returns the first
// error, or nil: the kill matrix's form of CheckAll.
func (s *Stress[I, O]) FirstFailure(n int) error {
	for h := range n {
		if _, err := s.Run(fmt.Sprintf("%s-h%d", s.Name, h), h); err != nil {
			return err
		}
	}
	return nil
}

// Catch says how a broken variant must be caught by Stress.Catches.
type Catch struct {
	// RaceOnly marks a bug that shows only when operations overlap: it is
	// given until Overlaps overlapping operations to show, and the test
	// skips, saying so, where the machine gives too little parallelism
	// (GOMAXPROCS 1, or GiveUpHistories histories or GiveUpAfter without
	// reaching Overlaps).
	RaceOnly bool
	// Within is the most histories a bug that shows without overlap may
	// take to be caught (0: 20).
	Within int
	// Overlaps is how many overlapping operations a race-only bug may run
	// without a catch (0: 20,000).
	Overlaps int
	// GiveUpHistories and GiveUpAfter end a race-only search that has not
	// reached Overlaps (0: 2,000 histories, 8 s).
	GiveUpHistories int
	GiveUpAfter     time.Duration
}

// Catches proves the check can fail: it records histories of a broken
// variant until one is refuted, requires that refutation to be porcupine's
// Illegal with its visualization on disk (a timeout is not a catch), and
// fails t if the variant gets past c's limits. It returns the refuting
// check's Result; the visualization is removed when the test ends.
func (s *Stress[I, O]) Catches(t testing.TB, c Catch) Result {
	t.Helper()
	if c.RaceOnly && runtime.GOMAXPROCS(0) < 2 {
		t.Skip("GOMAXPROCS is 1: no operations overlap, so a race-only bug cannot show")
	}
	c.defaults()
	var sum Summary
	start := time.Now()
	for h := 0; ; h++ {
		res, err := s.Run(fmt.Sprintf("%s-h%d", s.Name, h), h)
		sum.add(res)
		if err != nil {
			if res.File != "" {
				t.Cleanup(func() { os.Remove(res.File) })
			}
			switch {
			case !errors.Is(err, ErrNotLinearizable):
				t.Fatalf("history %d (seed %d) failed, but not as not linearizable (a timeout is not a catch): %v", h, s.Seed, err)
			case res.Outcome != porcupine.Illegal || res.File == "":
				t.Fatalf("history %d (seed %d): outcome %q, visualization %q: want Illegal with a file: %v", h, s.Seed, res.Outcome, res.File, err)
			}
			if _, serr := os.Stat(res.File); serr != nil {
				t.Fatalf("history %d (seed %d): the visualization is missing: %v", h, s.Seed, serr)
			}
			t.Logf("caught in history %d of seed %d, after %v; this one: %d operations, %d overlapping: %v",
				h, s.Seed, sum, res.Operations, res.Concurrent, err)
			return res
		}
		switch {
		case !c.RaceOnly && sum.Histories >= c.Within:
			t.Fatalf("%v of a variant broken even without overlap, all linearizable (seed %d)", sum, s.Seed)
		case c.RaceOnly && sum.Concurrent >= c.Overlaps:
			t.Fatalf("%v of a broken variant, all linearizable (seed %d)", sum, s.Seed)
		case c.RaceOnly && (sum.Histories >= c.GiveUpHistories || time.Since(start) > c.GiveUpAfter):
			t.Skipf("not caught, but only %d of %d operations in %d histories overlapped: too little parallelism here to expose a race-only bug",
				sum.Concurrent, sum.Operations, sum.Histories)
		}
	}
}

func (c *Catch) defaults() {
	if c.Within <= 0 {
		c.Within = 20
	}
	if c.Overlaps <= 0 {
		c.Overlaps = 20_000
	}
	if c.GiveUpHistories <= 0 {
		c.GiveUpHistories = 2000
	}
	if c.GiveUpAfter <= 0 {
		c.GiveUpAfter = 8 * time.Second
	}
}
