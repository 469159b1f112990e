package future_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/future"
	"github.com/schedkit/schedkit/internal/proptest"
)

var errBoom = errors.New("boom")

func TestGoValueAndError(t *testing.T) {
	for _, procs := range []int{1, 2} {
		e := newExec(t, executor.Config{Procs: procs})
		outer, err := future.Submit(e, func(t executor.Task) ([]int, error) {
			a := future.Go(t, func(executor.Task) (int, error) { return 7, nil })
			b := future.Go(t, func(executor.Task) (int, error) { return 0, errBoom })
			c := future.Go(t, func(executor.Task) (int, error) { return 9, nil })
			va, erra := a.Wait(t)
			vb, errb := b.Wait(t)
			if erra != nil || !errors.Is(errb, errBoom) || vb != 0 {
				return nil, errors.New("wrong a or b")
			}
			vs, err := future.All(t, c, a, b)
			if !errors.Is(err, errBoom) {
				return nil, errors.New("All lost b's error")
			}
			return append([]int{va}, vs...), nil
		})
		require.NoError(t, err)
		vs, err := outer.WaitContext(context.Background())
		require.NoError(t, err)
		assert.Equal(t, []int{7, 9, 7, 0}, vs)
		assert.True(t, outer.Done())
		// A set future returns at once, for the zero Task too.
		vs2, err := outer.Wait(executor.Task{})
		require.NoError(t, err)
		assert.Equal(t, vs, vs2)
		require.NoError(t, e.Close())
		assert.Zero(t, e.Stats().Parked)
	}
}

func TestAllEmptyAndDone(t *testing.T) {
	vs, err := future.All[int](executor.Task{})
	require.NoError(t, err)
	assert.Empty(t, vs)
}

func TestPanicComesBack(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	f, err := future.Submit(e, func(executor.Task) (int, error) { panic(errBoom) })
	require.NoError(t, err)
	v, err := f.WaitContext(context.Background())
	assert.Zero(t, v)
	var pe *executor.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, errBoom, pe.Value)
	assert.False(t, pe.Goexit)
	assert.ErrorIs(t, err, errBoom, "Unwrap gives the panic's error")
	assert.Contains(t, string(pe.Stack), "future_test.TestPanicComesBack", "the stack is the panicking goroutine's")
	// The panic is the future's result, not the executor's: Close reports none.
	require.NoError(t, e.Close())
}

func TestGoexitComesBack(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 1})
	outer, err := future.Submit(e, func(t executor.Task) (bool, error) {
		f := future.Go(t, func(executor.Task) (int, error) { runtime.Goexit(); return 1, nil })
		_, err := f.Wait(t)
		var pe *executor.PanicError
		return errors.As(err, &pe) && pe.Goexit && len(pe.Stack) != 0, nil
	})
	require.NoError(t, err)
	ok, err := outer.WaitContext(context.Background())
	require.NoError(t, err)
	assert.True(t, ok, "the waiter got the Goexit as a *PanicError with Goexit set")
	// The executor reports the Goexit as it does any task's.
	err = e.Close()
	var pe *executor.PanicError
	require.ErrorAs(t, err, &pe)
	assert.True(t, pe.Goexit)
}

func TestWaitContextEnds(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 1})
	var g gate
	f, err := future.Submit(e, func(t executor.Task) (int, error) { g.wait(t); return 3, nil })
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v, err := f.WaitContext(ctx)
	assert.Zero(t, v)
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, f.Done())
	select {
	case <-f.Ready():
		t.Fatal("Ready closed before the result")
	default:
	}
	g.release(executor.Task{})
	<-f.Ready()
	v, err = f.WaitContext(ctx) // set: the result, though ctx has ended
	assert.Equal(t, 3, v)
	require.NoError(t, err)
	require.NoError(t, e.Close())
}

func TestSubmitAfterClose(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 1})
	require.NoError(t, e.Close())
	f, err := future.Submit(e, func(executor.Task) (int, error) { return 1, nil })
	assert.Nil(t, f)
	assert.ErrorIs(t, err, executor.ErrClosed)
}

func TestMisusePanics(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 1})
	proptest.ExpectPanic(t, "Go(nil)", "future: Go called with a nil func", func() { future.Go[int](executor.Task{}, nil) })
	proptest.ExpectPanic(t, "Submit(nil)", "future: Submit called with a nil func", func() { _, _ = future.Submit[int](e, nil) })
	var g gate
	f, err := future.Submit(e, func(t executor.Task) (int, error) { g.wait(t); return 1, nil })
	require.NoError(t, err)
	proptest.ExpectPanic(t, "Wait(zero Task)", "future: Future.Wait called with the zero Task (outside a task, use WaitContext)",
		func() { _, _ = f.Wait(executor.Task{}) })
	// A stale Task: the executor's own panic, naming Task.Waker
	// (its executor closed, so its task has returned).
	e2 := newExec(t, executor.Config{Procs: 1})
	stale := make(chan executor.Task, 1)
	require.NoError(t, e2.Go(func(t executor.Task) { stale <- t }))
	require.NoError(t, e2.Close())
	st := <-stale
	msg := func() (r any) {
		defer func() { r = recover() }()
		_, _ = f.Wait(st)
		return nil
	}()
	assert.True(t, strings.Contains(msg.(string), "Task.Waker"), "got %v", msg)
	g.release(executor.Task{})
	_, err = f.WaitContext(context.Background())
	require.NoError(t, err)
	require.NoError(t, e.Close())
}
