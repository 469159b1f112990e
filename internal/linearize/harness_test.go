package linearize_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/internal/linearize"
)

// lockedQueue is a mutex-protected queue of ints; lifo breaks it (Deq
// takes the newest), which is wrong even without concurrency.
type lockedQueue struct {
	mu   sync.Mutex
	q    []int
	lifo bool
}

func (l *lockedQueue) Enq(x int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.q = append(l.q, x)
}

func (l *lockedQueue) Deq() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.q) == 0 {
		return -1
	}
	i := 0
	if l.lifo {
		i = len(l.q) - 1
	}
	x := l.q[i]
	l.q = slices.Delete(l.q, i, i+1)
	return x
}

// queueStress drives a lockedQueue with three threads of opsPerThread random
// Enq and Deq, inputs and outputs as queueModel reads them.
func queueStress(name string, seed uint64, lifo bool, opsPerThread int) *linearize.Stress[int, int] {
	return &linearize.Stress[int, int]{
		Name: name,
		Seed: seed,
		Setup: func(h int, rng *rand.Rand) linearize.History[int, int] {
			q := &lockedQueue{lifo: lifo}
			for i := range rng.IntN(3) { // a prefill the model starts from
				q.Enq(1_000_000 + i)
			}
			init := slices.Clone(q.q)
			model := queueModel
			model.Init = func() any { return init }
			thread := func(w *linearize.Worker[int, int]) {
				for i := range w.Ops(opsPerThread) {
					w.Yield(4)
					if w.Rand.IntN(2) == 0 {
						x := w.ID*1000 + i
						w.Begin(x)
						q.Enq(x)
						w.End(0)
						continue
					}
					w.Begin(-1)
					w.End(q.Deq())
				}
			}
			return linearize.History[int, int]{Model: model, Threads: []func(*linearize.Worker[int, int]){thread, thread, thread}}
		},
	}
}

// fakeTB records how a harness loop ended: Fatalf and Skipf end the
// goroutine that runs it, as testing's do.
type fakeTB struct {
	testing.TB
	failed, skipped string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (f *fakeTB) Skip(args ...any) {
	f.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}

// underFake runs loop with a fakeTB on its own goroutine and returns how it
// ended.
func underFake(t *testing.T, loop func(tb testing.TB)) *fakeTB {
	f := &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		loop(f)
	}()
	<-done
	return f
}

func TestStressCheckAll(t *testing.T) {
	visualizationDir(t)
	s := queueStress(t.Name(), 7, false, 30)
	var tallied, enqs, fromPrefill int
	s.Tally = func(ops []linearize.Op[int, int]) {
		tallied += len(ops)
		for _, op := range ops {
			assert.Less(t, op.Call, op.Return)
			assert.Contains(t, []int{0, 1, 2}, op.Client)
			if op.Input >= 0 {
				enqs++
			}
			if op.Output >= 1_000_000 {
				fromPrefill++
			}
		}
	}
	sum := s.CheckAll(t, 20)
	assert.Equal(t, 20, sum.Histories)
	assert.Equal(t, 20*3*30, sum.Operations)
	assert.Equal(t, sum.Operations, tallied, "Tally saw every operation")
	assert.Positive(t, enqs)
	assert.Positive(t, fromPrefill, "the model started from the prefill")
	assert.Contains(t, sum.String(), "20 histories, 1800 operations")
}

func TestStressCheckAllFailsBrokenObject(t *testing.T) {
	visualizationDir(t)
	s := queueStress("lifo", 3, true, 30)
	f := underFake(t, func(tb testing.TB) { s.CheckAll(tb, 50) })
	require.NotEmpty(t, f.failed, "CheckAll passed a LIFO as a FIFO")
	assert.Contains(t, f.failed, "(seed 3)")
	assert.Contains(t, f.failed, "visualization: ")
	assert.Contains(t, f.failed, linearize.ErrNotLinearizable.Error())
	assert.Error(t, s.FirstFailure(50), "FirstFailure, the kill matrix's form, fails it too")
	assert.NoError(t, queueStress("fifo", 3, false, 30).FirstFailure(5))
}

func TestStressCatches(t *testing.T) {
	visualizationDir(t)
	t.Run("a broken variant is caught with its visualization", func(t *testing.T) {
		res := queueStress(t.Name(), 1, true, 30).Catches(t, linearize.Catch{})
		assert.Equal(t, porcupine.Illegal, res.Outcome)
		assert.FileExists(t, res.File)
	})
	t.Run("a correct object is not a catch", func(t *testing.T) {
		f := underFake(t, func(tb testing.TB) {
			queueStress("fifo", 1, false, 10).Catches(tb, linearize.Catch{Within: 5})
		})
		assert.Contains(t, f.failed, "5 histories")
		assert.Contains(t, f.failed, "all linearizable")
	})
	t.Run("a race-only search gives up, saying so", func(t *testing.T) {
		if runtime.GOMAXPROCS(0) < 2 {
			t.Skip("needs GOMAXPROCS >= 2 to reach the give-up path")
		}
		f := underFake(t, func(tb testing.TB) {
			queueStress("fifo", 1, false, 10).Catches(tb, linearize.Catch{RaceOnly: true, Overlaps: 1 << 30, GiveUpHistories: 3})
		})
		assert.Empty(t, f.failed)
		assert.Contains(t, f.skipped, "too little parallelism")
	})
}

// TestStressPrepareRewritesTheHistory: Prepare sees every recorded
// operation, and what it returns is what Tally sees and porcupine checks.
func TestStressPrepareRewritesTheHistory(t *testing.T) {
	visualizationDir(t)
	s := queueStress(t.Name(), 5, false, 20)
	var prepared, tallied, deqs int
	s.Prepare = func(ops []linearize.Op[int, int]) []linearize.Op[int, int] {
		prepared += len(ops)
		return slices.DeleteFunc(ops, func(op linearize.Op[int, int]) bool { return op.Input < 0 })
	}
	s.Tally = func(ops []linearize.Op[int, int]) {
		tallied += len(ops)
		for _, op := range ops {
			if op.Input < 0 {
				deqs++
			}
		}
	}
	sum := s.CheckAll(t, 5)
	assert.Equal(t, 5*3*20, prepared, "Prepare saw every operation")
	assert.Equal(t, sum.Operations, tallied, "Tally saw the prepared history")
	assert.Zero(t, deqs, "the Deqs Prepare dropped")
	assert.Less(t, tallied, prepared)

	s = queueStress(t.Name()+"-wrong", 5, false, 20)
	s.Prepare = func(ops []linearize.Op[int, int]) []linearize.Op[int, int] {
		for i := range ops {
			if ops[i].Input < 0 {
				ops[i].Output = 42_000_000 // never enqueued
			}
		}
		return ops
	}
	res := s.Catches(t, linearize.Catch{Within: 5})
	assert.Equal(t, porcupine.Illegal, res.Outcome, "a rewritten output is checked")
}

func TestStressSeedReplaysChoices(t *testing.T) {
	inputs := func(seed uint64) [][]int {
		s := queueStress("replay", seed, false, 25)
		per := make([][]int, 3)
		s.Tally = func(ops []linearize.Op[int, int]) {
			for _, op := range ops {
				per[op.Client] = append(per[op.Client], op.Input)
			}
		}
		require.NoError(t, s.FirstFailure(4))
		return per
	}
	a := inputs(11)
	assert.Equal(t, a, inputs(11), "a seed replays every thread's choices")
	assert.NotEqual(t, a, inputs(12))
}

func TestStressThreads(t *testing.T) {
	t.Run("LeadDone stops the others; a nil thread is a client without a goroutine", func(t *testing.T) {
		var after int
		s := &linearize.Stress[int, int]{Name: "lead", Seed: 1, Setup: func(int, *rand.Rand) linearize.History[int, int] {
			q := &lockedQueue{}
			return linearize.History[int, int]{Model: queueModel, Threads: []func(*linearize.Worker[int, int]){
				func(w *linearize.Worker[int, int]) {
					for i := range 5 {
						w.Begin(i)
						q.Enq(i)
						w.End(0)
					}
				},
				nil,
				func(w *linearize.Worker[int, int]) {
					for !w.LeadDone() {
						runtime.Gosched()
					}
					after++
				},
			}}
		}}
		var clients []int
		s.Tally = func(ops []linearize.Op[int, int]) {
			for _, op := range ops {
				clients = append(clients, op.Client)
			}
		}
		require.NoError(t, s.FirstFailure(3))
		assert.Equal(t, 3, after, "thread 2 saw thread 0 finish in every history")
		assert.Equal(t, slices.Repeat([]int{0}, 15), clients)
	})
	t.Run("Run without Setup panics", func(t *testing.T) {
		assert.PanicsWithValue(t, "linearize: Stress.Run called with no Setup", func() {
			(&linearize.Stress[int, int]{}).Run("x", 0)
		})
	})
}

// TestStressWatchdog fires a history's watchdog by hand while one thread is
// inside an operation: the report names the history and its seed and shows
// the history so far, the open operation included.
func TestStressWatchdog(t *testing.T) {
	var what string
	var d time.Duration
	stopped := false
	release := make(chan struct{})
	inside := make(chan struct{})
	var report string
	defer linearize.SetStartWatchdog(func(w string, dd time.Duration, diag func() string) func() {
		what, d = w, dd
		go func() {
			<-inside
			report = diag()
			close(release)
		}()
		return func() { stopped = true }
	})()
	model := queueModel
	model.DescribeOperation = func(input, output any) string { return fmt.Sprintf("op(%v) -> %v", input, output) }
	s := &linearize.Stress[int, int]{Name: "hang", Seed: 5, Deadline: 42 * time.Second,
		Setup: func(int, *rand.Rand) linearize.History[int, int] {
			q := &lockedQueue{}
			return linearize.History[int, int]{Model: model, Threads: []func(*linearize.Worker[int, int]){
				func(w *linearize.Worker[int, int]) {
					for i := range 3 {
						w.Begin(i)
						q.Enq(i)
						w.End(0)
					}
					w.Begin(-1)
					close(inside)
					<-release // stuck here until the diagnosis was taken
					w.End(q.Deq())
				},
			}}
		}}
	_, err := s.Run("hang-h0", 0)
	require.NoError(t, err)
	assert.Equal(t, "linearize history hang-h0 (seed 5)", what)
	assert.Equal(t, 42*time.Second, d)
	assert.True(t, stopped, "the watchdog is stopped once the threads returned")
	assert.Contains(t, report, `history "hang-h0" so far`)
	assert.Contains(t, report, "client 0: 3 operations returned")
	assert.Contains(t, report, "op(2) -> 0")
	assert.Contains(t, report, "still open: -1")
}

func TestDefaultDeadline(t *testing.T) {
	if testing.Short() {
		assert.Equal(t, time.Minute, linearize.DefaultDeadline())
	} else {
		assert.Equal(t, 3*time.Minute, linearize.DefaultDeadline())
	}
}

func TestStressSizes(t *testing.T) {
	if testing.Short() {
		assert.Equal(t, 50_000, linearize.StressItems())
		assert.Equal(t, time.Minute, linearize.StressDeadline())
		assert.Equal(t, 200, linearize.Histories())
	} else {
		assert.Equal(t, 1_000_000, linearize.StressItems())
		assert.Equal(t, 5*time.Minute, linearize.StressDeadline())
		assert.Equal(t, 2000, linearize.Histories())
	}
}

// TestProgressWithoutDescribe prints values when the model describes none.
func TestProgressWithoutDescribe(t *testing.T) {
	rec := linearize.New("p")
	c := rec.Client(3)
	c.Begin(7)
	c.End(8)
	assert.Contains(t, rec.Progress(nil), "client 3: 1 operations returned\n    [1, 2] 7 -> 8")
}

// TestStressShrinksAnInconclusiveHistory: a history too big for the step
// budget is inconclusive, so Run records it again with half the operations
// until one decides; the verdict then counts, and the summary says so.
func TestStressShrinksAnInconclusiveHistory(t *testing.T) {
	visualizationDir(t)
	// 3 threads of 40: 120 operations need at least 120 steps, past a
	// budget of 100; 3 of 10 (the third shrink) decide in far fewer.
	s := queueStress(t.Name(), 5, false, 40)
	s.Steps = 100
	var sizes []int
	s.Tally = func(ops []linearize.Op[int, int]) { sizes = append(sizes, len(ops)) }
	res, err := s.Run("shrink-h0", 0)
	require.NoError(t, err)
	assert.Positive(t, res.Shrink, "decided only when recorded smaller")
	assert.LessOrEqual(t, res.Steps, int64(100))
	require.Len(t, sizes, res.Shrink+1, "one recording per size")
	assert.Equal(t, 120, sizes[0])
	for i := 1; i < len(sizes); i++ {
		assert.Equal(t, 3*(40>>i), sizes[i], "recording %d has half the operations of the one before", i)
	}
	sum := s.CheckAll(t, 5)
	assert.Equal(t, 5, sum.Shrunk)
	assert.Zero(t, sum.Inconclusive)
	assert.Contains(t, sum.String(), "5 decided only when recorded smaller, 0 inconclusive")
}

// TestStressInconclusiveIsNoVerdict: with a budget no linearizable history
// can meet at any size, the histories are neither passed nor failed:
// CheckAll skips, saying inconclusive, Catches skips rather than call a
// correct object uncaught, and FirstFailure returns ErrInconclusive, not a
// refutation. (A refutation within the budget stands: every step it took
// was the model's own.)
func TestStressInconclusiveIsNoVerdict(t *testing.T) {
	dir := visualizationDir(t)
	s := queueStress("fifo", 2, false, 8)
	s.Steps = 1 // 3 operations at the smallest size need 3 steps
	f := underFake(t, func(tb testing.TB) { s.CheckAll(tb, 4) })
	assert.Empty(t, f.failed)
	assert.Contains(t, f.skipped, "only 0 of 4 histories decided: inconclusive")
	f = underFake(t, func(tb testing.TB) { s.Catches(tb, linearize.Catch{}) })
	assert.Empty(t, f.failed)
	assert.Contains(t, f.skipped, "inconclusive")
	err := s.FirstFailure(3)
	require.ErrorIs(t, err, linearize.ErrInconclusive)
	assert.NotErrorIs(t, err, linearize.ErrNotLinearizable)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no visualization for an inconclusive check")
}
