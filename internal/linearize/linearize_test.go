package linearize_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/internal/linearize"
)

// registerModel is a register of ints, initially 0: input regOp, output the
// value a read returned (ignored for writes).
type regOp struct {
	write bool
	v     int
}

var registerModel = porcupine.Model{
	Init: func() any { return 0 },
	Step: func(state, input, output any) (bool, any) {
		in := input.(regOp)
		if in.write {
			return true, in.v
		}
		return output.(int) == state.(int), state
	},
	DescribeOperation: func(input, output any) string {
		in := input.(regOp)
		if in.write {
			return fmt.Sprintf("write(%d)", in.v)
		}
		return fmt.Sprintf("read() -> %d", output)
	},
}

// queueModel is a FIFO queue of ints: input is the value to enqueue, or -1
// for a dequeue, whose output is the value taken or -1 when empty. The
// state is an immutable []int.
var queueModel = porcupine.Model{
	Init: func() any { return []int(nil) },
	Step: func(state, input, output any) (bool, any) {
		q := state.([]int)
		if x := input.(int); x >= 0 {
			return true, append(q[:len(q):len(q)], x)
		}
		if len(q) == 0 {
			return output.(int) == -1, q
		}
		return output.(int) == q[0], q[1:]
	},
	Equal: func(a, b any) bool {
		x, y := a.([]int), b.([]int)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	},
}

// op builds a hand-written operation.
func op(client int, input any, call int64, output any, ret int64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: input, Call: call, Output: output, Return: ret}
}

// visualizationDir points the package at a directory the test removes.
func visualizationDir(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv(linearize.DirEnv, dir)
	return dir
}

func TestCheckOperationsRegister(t *testing.T) {
	t.Run("legal: a read overlapping a write sees either value", func(t *testing.T) {
		ops := []porcupine.Operation{
			op(0, regOp{write: true, v: 1}, 0, nil, 10),
			op(1, regOp{}, 5, 1, 15),
			op(2, regOp{}, 6, 0, 8), // overlaps the write: the old value is fine
			op(1, regOp{}, 20, 1, 25),
		}
		res, err := linearize.CheckOperations("register", registerModel, ops, time.Second)
		require.NoError(t, err)
		assert.Equal(t, porcupine.Ok, res.Outcome)
		assert.Equal(t, 4, res.Operations)
		assert.Equal(t, 3, res.Concurrent) // the write and the two reads inside it
		assert.Empty(t, res.File)
	})
	t.Run("illegal: a read after the write returned sees the old value", func(t *testing.T) {
		dir := visualizationDir(t)
		ops := []porcupine.Operation{
			op(0, regOp{write: true, v: 1}, 0, nil, 10),
			op(1, regOp{}, 11, 0, 12),
		}
		res, err := linearize.CheckOperations("TestRegister/stale read", registerModel, ops, time.Second)
		require.ErrorIs(t, err, linearize.ErrNotLinearizable)
		assert.NotErrorIs(t, err, linearize.ErrTimeout)
		assert.Equal(t, porcupine.Illegal, res.Outcome)
		assert.Equal(t, 0, res.Concurrent)
		assert.Equal(t, dir, filepath.Dir(res.File))
		assert.True(t, strings.HasPrefix(filepath.Base(res.File), "TestRegister_stale_read-"), res.File)
		assert.Contains(t, err.Error(), res.File)
		html, rerr := os.ReadFile(res.File)
		require.NoError(t, rerr)
		// The operations' descriptions are in the embedded JSON data.
		assert.True(t, strings.Contains(string(html), "write(1)"), "the visualization describes the operations")
	})
}

func TestRecorderQueue(t *testing.T) {
	// One goroutine interleaves two clients' Begin and End to build
	// overlapping intervals from the shared clock.
	t.Run("legal: overlapping enqueues may land in either order", func(t *testing.T) {
		rec := linearize.New("queue")
		a, b := rec.Client(0), rec.Client(1)
		a.Begin(1)
		b.Begin(2)
		b.End(nil)
		a.End(nil)
		b.Begin(-1)
		b.End(2) // 2 went in first
		a.Begin(-1)
		a.EndFunc(func() any { return 1 })
		a.Begin(-1)
		a.End(-1)
		res, err := rec.Check(queueModel, time.Second)
		require.NoError(t, err)
		assert.Equal(t, porcupine.Ok, res.Outcome)
		assert.Equal(t, 5, res.Operations)
		assert.Equal(t, 2, res.Concurrent)

		ops, err := rec.Operations()
		require.NoError(t, err)
		for i, o := range ops {
			assert.Less(t, o.Call, o.Return)
			if i > 0 {
				assert.Less(t, ops[i-1].Call, o.Call, "ordered by call")
			}
		}
	})
	t.Run("illegal: sequential enqueues dequeued out of order", func(t *testing.T) {
		visualizationDir(t)
		rec := linearize.New("queue")
		a, b := rec.Client(0), rec.Client(1)
		a.Begin(1)
		a.End(nil)
		a.Begin(2)
		a.End(nil)
		b.Begin(-1)
		b.End(2)
		res, err := rec.Check(queueModel, time.Second)
		require.ErrorIs(t, err, linearize.ErrNotLinearizable)
		assert.Equal(t, porcupine.Illegal, res.Outcome)
		assert.FileExists(t, res.File)
	})
	t.Run("illegal: an item dequeued twice", func(t *testing.T) {
		visualizationDir(t)
		ops := []porcupine.Operation{
			op(0, 7, 0, nil, 1),
			op(1, -1, 2, 7, 5),
			op(2, -1, 3, 7, 4),
		}
		res, err := linearize.CheckOperations("dup", queueModel, ops, time.Second)
		require.ErrorIs(t, err, linearize.ErrNotLinearizable)
		assert.Equal(t, porcupine.Illegal, res.Outcome)
		assert.Equal(t, 2, res.Concurrent)
	})
}

func TestIllegalDefaultDir(t *testing.T) {
	t.Setenv(linearize.DirEnv, "")
	assert.Equal(t, filepath.Join(os.TempDir(), "schedkit-linearize"), linearize.Dir())
	ops := []porcupine.Operation{op(0, -1, 0, 3, 1)} // dequeue from an empty queue returns 3
	res, err := linearize.CheckOperations("TestIllegalDefaultDir", queueModel, ops, time.Second)
	require.ErrorIs(t, err, linearize.ErrNotLinearizable)
	t.Cleanup(func() { os.Remove(res.File) })
	assert.Equal(t, linearize.Dir(), filepath.Dir(res.File))
	assert.FileExists(t, res.File)
}

func TestTimeoutIsUnknownNotPass(t *testing.T) {
	dir := visualizationDir(t)
	// A model whose step never finishes before the deadline.
	stuck := porcupine.Model{
		Init: func() any { return 0 },
		StepContext: func(ctx context.Context, state, input, output any) (bool, any) {
			<-ctx.Done()
			return false, state
		},
	}
	ops := []porcupine.Operation{op(0, 1, 0, 1, 1), op(1, 2, 0, 2, 1)}
	res, err := linearize.CheckOperations("stuck", stuck, ops, 20*time.Millisecond)
	require.ErrorIs(t, err, linearize.ErrTimeout)
	assert.NotErrorIs(t, err, linearize.ErrNotLinearizable)
	assert.Equal(t, porcupine.Unknown, res.Outcome)
	assert.Empty(t, res.File)
	entries, rerr := os.ReadDir(dir)
	require.NoError(t, rerr)
	assert.Empty(t, entries, "no visualization for a timeout")
}

// TestBudgetSpentIsUnknownNotIllegal: a refutation that needs more steps
// than the budget is inconclusive (ErrBudget), never Illegal; within the
// budget it is Illegal; the steps a history takes are the same every time,
// so the verdict depends on the history alone; and a linearizable history
// found within the budget is Ok.
func TestBudgetSpentIsUnknownNotIllegal(t *testing.T) {
	dir := visualizationDir(t)
	// Five concurrent enqueues, then a dequeue that returns what none put:
	// porcupine must try the orders of the enqueues before it refutes it.
	var ops []porcupine.Operation
	for i := range 5 {
		ops = append(ops, op(i, i, 0, 0, 100))
	}
	bad := append(slices.Clone(ops), op(5, -1, 101, 99, 102))
	full, err := linearize.CheckBudget("bad", queueModel, bad, 1<<30, 0)
	require.ErrorIs(t, err, linearize.ErrNotLinearizable)
	os.Remove(full.File)
	again, _ := linearize.CheckBudget("bad", queueModel, bad, 1<<30, 0)
	os.Remove(again.File)
	assert.Equal(t, full.Steps, again.Steps, "the same history takes the same steps")
	require.Greater(t, full.Steps, int64(100), "the refutation tries many orders")

	res, err := linearize.CheckBudget("bad", queueModel, bad, full.Steps-1, 0)
	require.ErrorIs(t, err, linearize.ErrBudget)
	require.ErrorIs(t, err, linearize.ErrInconclusive)
	assert.NotErrorIs(t, err, linearize.ErrNotLinearizable)
	assert.NotErrorIs(t, err, linearize.ErrTimeout)
	assert.Equal(t, porcupine.Unknown, res.Outcome)
	assert.Empty(t, res.File)
	res, err = linearize.CheckBudget("bad", queueModel, bad, full.Steps, 0)
	require.ErrorIs(t, err, linearize.ErrNotLinearizable, "exactly the steps it needs")
	os.Remove(res.File)

	good := append(slices.Clone(ops), op(5, -1, 101, 0, 102))
	res, err = linearize.CheckBudget("good", queueModel, good, 6, 0)
	require.NoError(t, err, "6 steps linearize 6 operations when the first order tried fits")
	assert.Equal(t, porcupine.Ok, res.Outcome)
	_, err = linearize.CheckBudget("good", queueModel, good, 5, 0)
	require.ErrorIs(t, err, linearize.ErrBudget, "5 steps cannot linearize 6 operations")
	entries, rerr := os.ReadDir(dir)
	require.NoError(t, rerr)
	assert.Empty(t, entries, "no visualization left behind")
}

func TestRecorderMisuse(t *testing.T) {
	rec := linearize.New("misuse")
	c := rec.Client(0)
	assert.PanicsWithValue(t, "linearize: Recorder.Client called twice with id 0", func() { rec.Client(0) })
	assert.PanicsWithValue(t, "linearize: Recorder.Client called with negative id -1", func() { rec.Client(-1) })
	assert.PanicsWithValue(t, "linearize: Client.End called with no open operation", func() { c.End(nil) })
	assert.PanicsWithValue(t, "linearize: Client.EndFunc called with no open operation", func() {
		c.EndFunc(func() any { t.Error("EndFunc computed the output of no operation"); return nil })
	})
	c.Begin(1)
	assert.PanicsWithValue(t, "linearize: Client.Begin called while an operation is open", func() { c.Begin(2) })

	// A pending operation is not a history porcupine can check.
	_, err := rec.Operations()
	require.Error(t, err)
	res, err := rec.Check(queueModel, time.Second)
	require.ErrorContains(t, err, "client 0 has an operation that began and did not end")
	assert.NotErrorIs(t, err, linearize.ErrNotLinearizable)
	assert.NotErrorIs(t, err, linearize.ErrTimeout)
	assert.Empty(t, res.Outcome)

	c.End(nil)
	_, err = rec.Check(queueModel, time.Second)
	require.NoError(t, err)
}

func TestEmptyHistory(t *testing.T) {
	res, err := linearize.New("empty").Check(queueModel, time.Second)
	require.NoError(t, err)
	assert.Equal(t, porcupine.Ok, res.Outcome)
	assert.Zero(t, res.Operations)
}

// TestConcurrentRecording records goroutines that share a mutex-protected
// queue: the history must be linearizable, and the race detector must find
// nothing in the recorder itself.
func TestConcurrentRecording(t *testing.T) {
	const clients, perClient = 4, 100
	var mu sync.Mutex
	var q []int
	rec := linearize.New(t.Name())
	var ready atomic.Int32 // a spinning barrier, so that the clients start together
	var wg sync.WaitGroup
	for id := range clients {
		wg.Go(func() {
			c := rec.Client(id)
			for ready.Add(1); ready.Load() < clients; {
				runtime.Gosched()
			}
			for i := range perClient {
				if i%8 == 0 {
					runtime.Gosched()
				}
				if i%2 == 0 {
					x := id*perClient + i
					c.Begin(x)
					mu.Lock()
					q = append(q, x)
					mu.Unlock()
					c.End(nil)
					continue
				}
				c.Begin(-1)
				mu.Lock()
				out := -1
				if len(q) > 0 {
					out, q = q[0], q[1:]
				}
				mu.Unlock()
				c.End(out)
			}
		})
	}
	wg.Wait()
	res, err := rec.Check(queueModel, 10*time.Second)
	require.NoError(t, err)
	assert.Equal(t, clients*perClient, res.Operations)
	t.Logf("%d operations, %d concurrent, checked in %v", res.Operations, res.Concurrent, res.Elapsed)

	ops, err := rec.Operations()
	require.NoError(t, err)
	seen := map[int64]bool{}
	for _, o := range ops {
		assert.False(t, seen[o.Call] || seen[o.Return], "timestamps are distinct")
		seen[o.Call], seen[o.Return] = true, true
	}
}

func TestErrorsAreDistinct(t *testing.T) {
	assert.ErrorIs(t, linearize.ErrTimeout, linearize.ErrInconclusive)
	assert.ErrorIs(t, linearize.ErrBudget, linearize.ErrInconclusive)
	assert.False(t, errors.Is(linearize.ErrBudget, linearize.ErrTimeout))
	assert.False(t, errors.Is(linearize.ErrInconclusive, linearize.ErrNotLinearizable))
	assert.False(t, errors.Is(linearize.ErrTimeout, linearize.ErrNotLinearizable))
	assert.False(t, errors.Is(linearize.ErrNotLinearizable, linearize.ErrTimeout))
}
