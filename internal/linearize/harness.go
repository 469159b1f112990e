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
	// Steps bounds porcupine's search per history, in calls of the model's
	// Step (0: DefaultSteps), so that the verdict is the same on every
	// machine; Timeout (0: DefaultTimeout) is a wall-clock safety net. A
	// search that spends either is inconclusive (ErrInconclusive): the
	// history is recorded again smaller (Worker.Ops), up to Shrinks times,
	// and if none decides it counts as neither a pass nor a fail.
	Steps   int64
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
	// Prepare, if not nil, rewrites a recorded history before Tally and the
	// check, for an object whose operations are not each one atomic step:
	// one recorded call that takes effect in two steps becomes two
	// operations with its interval (a timer's Reset: its stop, then its
	// arming), two calls that take effect together become one with the
	// intersection of their intervals (an unbuffered channel's send and
	// receive). What it cannot rewrite it should leave for the model to
	// refute, so that a broken history is still Illegal, with its
	// visualization.
	Prepare func(ops []Op[I, O]) []Op[I, O]
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
	shrink   int
}

// Ops is how many operations a thread meant to make n should make in this
// recording: n, halved for every time the history was recorded again after
// an inconclusive check (see Stress.Steps), and at least 1.
func (w *Worker[I, O]) Ops(n int) int { return max(1, n>>w.shrink) }

// Shrinks is how many times Run records a history again, each time with
// half the operations (Worker.Ops), after a check that was inconclusive.
const Shrinks = 3

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

// DefaultTimeout is porcupine's wall-clock limit per history when
// Stress.Timeout is 0: far past what DefaultSteps takes, so only a stalled
// machine meets it, and then the check is inconclusive.
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

// Run records history h under the given name and checks it. If the check
// is inconclusive it records the history again, with the same seeds and
// half the operations (Worker.Ops), up to Shrinks times, the retries named
// name-s1, name-s2 and so on. The Result and error are CheckBudget's for
// the last recording, its Shrink set; a panic in Setup or a thread is not
// recovered. Call it from one goroutine at a time.
func (s *Stress[I, O]) Run(name string, h int) (Result, error) {
	if s.Setup == nil {
		panic("linearize: Stress.Run called with no Setup")
	}
	res, err := s.record(name, h, 0)
	for shrink := 1; shrink <= Shrinks && errors.Is(err, ErrInconclusive); shrink++ {
		res, err = s.record(fmt.Sprintf("%s-s%d", name, shrink), h, shrink)
	}
	return res, err
}

// record records history h once, with shrink, and checks it.
func (s *Stress[I, O]) record(name string, h, shrink int) (Result, error) {
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
			c: rec.Client(k), leadDone: &leadDone, shrink: shrink}
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
	if s.Prepare != nil {
		ops = untyped(s.Prepare(typed[I, O](ops)))
	}
	if s.Tally != nil {
		s.Tally(typed[I, O](ops))
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	res, err := CheckBudget(name, hist.Model, ops, s.Steps, timeout)
	res.Shrink = shrink
	return res, err
}

// typed converts a history recorded by Workers to typed operations.
func typed[I, O any](ops []porcupine.Operation) []Op[I, O] {
	out := make([]Op[I, O], len(ops))
	for i, op := range ops {
		out[i] = Op[I, O]{Client: op.ClientId, Input: op.Input.(I), Output: op.Output.(O), Call: op.Call, Return: op.Return}
	}
	return out
}

// untyped converts typed operations back to porcupine's.
func untyped[I, O any](ops []Op[I, O]) []porcupine.Operation {
	out := make([]porcupine.Operation, len(ops))
	for i, op := range ops {
		out[i] = porcupine.Operation{ClientId: op.Client, Input: op.Input, Output: op.Output, Call: op.Call, Return: op.Return}
	}
	return out
}

// Summary adds up what a series of histories exercised.
type Summary struct {
	Histories, Operations int
	// Concurrent counts the operations that overlapped another client's.
	Concurrent int
	// Checking is the time porcupine's searches took, Steps their steps
	// and MaxSteps the most one history took.
	Checking        time.Duration
	Steps, MaxSteps int64
	// Shrunk counts the histories decided only when recorded smaller;
	// Inconclusive those no recording decided (neither passed nor failed).
	Shrunk, Inconclusive int
}

func (m *Summary) add(res Result, err error) {
	m.Histories++
	m.Operations += res.Operations
	m.Concurrent += res.Concurrent
	m.Checking += res.Elapsed
	m.Steps += res.Steps
	m.MaxSteps = max(m.MaxSteps, res.Steps)
	switch {
	case errors.Is(err, ErrInconclusive):
		m.Inconclusive++
	case res.Shrink > 0:
		m.Shrunk++
	}
}

// decided is how many histories a check accepted or refuted.
func (m Summary) decided() int { return m.Histories - m.Inconclusive }

// String is the summary's log line.
func (m Summary) String() string {
	s := fmt.Sprintf("%d histories, %d operations (%d overlapped another thread's), porcupine %v, %d steps (at most %d in one)",
		m.Histories, m.Operations, m.Concurrent, m.Checking.Round(time.Millisecond), m.Steps, m.MaxSteps)
	if m.Shrunk > 0 || m.Inconclusive > 0 {
		s += fmt.Sprintf(", %d decided only when recorded smaller, %d inconclusive", m.Shrunk, m.Inconclusive)
	}
	return s
}

// CheckAll records and checks histories 0 to n-1 and fails t at the first
// that is not linearizable (naming the seed and the visualization). A
// history that no recording decided (see Run) is neither a pass nor a fail:
// it is counted, and if fewer than half of the n were decided the test is
// skipped as inconclusive. It returns what they exercised, for the coverage
// a test requires.
func (s *Stress[I, O]) CheckAll(t testing.TB, n int) Summary {
	t.Helper()
	t.Logf("%s: seed %d", s.Name, s.Seed)
	var sum Summary
	for h := range n {
		res, err := s.Run(fmt.Sprintf("%s-h%d", s.Name, h), h)
		sum.add(res, err)
		if errors.Is(err, ErrInconclusive) {
			t.Logf("history %d (seed %d): inconclusive at every size, neither linearizable nor refuted: %v", h, s.Seed, err)
			continue
		}
		if err != nil {
			t.Fatalf("history %d (seed %d): %v", h, s.Seed, err)
		}
	}
	if 2*sum.decided() < n {
		t.Skipf("%s: %v: only %d of %d histories decided: inconclusive", s.Name, sum, sum.decided(), n)
	}
	t.Logf("%s: %v, all decided ones linearizable", s.Name, sum)
	return sum
}

// FirstFailure records and checks histories 0 to n-1 and returns the first
// error that refutes one, or nil: the kill matrix's form of CheckAll. An
// inconclusive history is passed over; if none was decided, it returns an
// error wrapping ErrInconclusive, which is no catch.
func (s *Stress[I, O]) FirstFailure(n int) error {
	var last error
	decided := 0
	for h := range n {
		_, err := s.Run(fmt.Sprintf("%s-h%d", s.Name, h), h)
		if errors.Is(err, ErrInconclusive) {
			last = err
			continue
		}
		if err != nil {
			return err
		}
		decided++
	}
	if decided == 0 && last != nil {
		return fmt.Errorf("none of %d histories decided: %w", n, last)
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
	// Within is the most decided histories a bug that shows without
	// overlap may take to be caught (0: 20).
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
// Illegal with its visualization on disk, and fails t if the variant gets
// past c's limits. An inconclusive history (see Run) is neither a catch nor
// a pass and does not count towards Within; if as many as Within (at least
// 20) come before a catch, the test is skipped as inconclusive. It returns
// the refuting check's Result; the visualization is removed when the test
// ends.
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
		sum.add(res, err)
		if errors.Is(err, ErrInconclusive) {
			if sum.Inconclusive >= max(c.Within, 20) {
				t.Skipf("inconclusive: %v; no history refuted, %d undecided at every size (seed %d)", sum, sum.Inconclusive, s.Seed)
			}
			continue
		}
		if err != nil {
			if res.File != "" {
				t.Cleanup(func() { os.Remove(res.File) })
			}
			switch {
			case !errors.Is(err, ErrNotLinearizable):
				t.Fatalf("history %d (seed %d) failed, but not as not linearizable: %v", h, s.Seed, err)
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
		case !c.RaceOnly && sum.decided() >= c.Within:
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
