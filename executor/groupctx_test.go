package executor_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// A group's context is made lazily (the first Done or Value); these pin
// errgroup's semantics on both sides of that moment.

type ctxKey struct{}

// ctxAskedAfterError: the group fails before anyone has looked at its
// context; the context made afterwards must already be cancelled with the
// group's error as its cause, and a context derived from it too.
func ctxAskedAfterError(*testing.T) error {
	e, err := executor.New(executor.Config{Procs: 1})
	if err != nil {
		return err
	}
	boom := errors.New("boom")
	g, ctx := e.NewGroup(context.Background())
	g.Go(func(executor.Task) error { return boom })
	waitErr := g.Wait()
	err = joinErr(nil, e.Close())
	if !errors.Is(waitErr, boom) {
		err = joinErr(err, fmt.Errorf("Wait returned %v, want boom", waitErr))
	}
	select {
	case <-ctx.Done():
	default:
		return joinErr(err, errors.New("a group context first asked for after the group's error is not done"))
	}
	if c := context.Cause(ctx); !errors.Is(c, boom) {
		err = joinErr(err, fmt.Errorf("the cause is %v, want the group's first error", c))
	}
	if !errors.Is(ctx.Err(), context.Canceled) {
		err = joinErr(err, fmt.Errorf("Err is %v, want context.Canceled", ctx.Err()))
	}
	return err
}

// ctxDerivedAfterError: the same, with the first look at the context being
// a context derived from it (context.WithCancel calls Value and Done).
func ctxDerivedAfterError(*testing.T) error {
	e, err := executor.New(executor.Config{Procs: 1})
	if err != nil {
		return err
	}
	boom := errors.New("boom")
	res := make(chan error, 1)
	if err := e.Go(func(t executor.Task) {
		g, ctx := t.NewGroup(context.Background())
		g.Go(func(executor.Task) error { return boom })
		g.Go(func(executor.Task) error { return nil })
		_ = g.Wait()
		d, cancel := context.WithCancel(ctx)
		defer cancel()
		select {
		case <-d.Done():
			res <- nil
		default:
			res <- errors.New("a context derived from a failed group's context is not done")
		}
	}); err != nil {
		return err
	}
	return joinErr(<-res, e.Close())
}

func TestGroupContextAskedAfterError(t *testing.T) {
	within(t, time.Minute, "Wait and Close of a group that failed", func() {
		require.NoError(t, ctxAskedAfterError(t))
		require.NoError(t, ctxDerivedAfterError(t))
	})
}

func TestGroupContextAskedBeforeError(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	boom := errors.New("boom")
	g, ctx := e.NewGroup(context.Background())
	done := ctx.Done()
	g.Go(func(executor.Task) error { return boom })
	<-done // cancelled by the error, before Wait
	assert.ErrorIs(t, context.Cause(ctx), boom)
	assert.ErrorIs(t, g.Wait(), boom)
	require.NoError(t, e.Close())
}

func TestGroupContextAfterWait(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 1})
	for _, ask := range []bool{false, true} {
		g, ctx := e.NewGroup(context.Background())
		if ask {
			_ = ctx.Done()
		}
		require.NoError(t, ctx.Err(), "a running group's context is live (asked=%v)", ask)
		g.Go(func(executor.Task) error { return nil })
		require.NoError(t, g.Wait())
		assert.ErrorIs(t, ctx.Err(), context.Canceled, "Wait cancels (asked=%v)", ask)
		<-ctx.Done()
		assert.ErrorIs(t, context.Cause(ctx), context.Canceled, "no error: the cause is Canceled (asked=%v)", ask)
	}
	require.NoError(t, e.Close())
}

func TestGroupContextFollowsParent(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 1})
	dl := time.Now().Add(time.Hour)
	parent, cancel := context.WithDeadline(context.WithValue(context.Background(), ctxKey{}, "v"), dl)
	g, ctx := e.NewGroup(parent)
	d, ok := ctx.Deadline()
	assert.True(t, ok)
	assert.Equal(t, dl, d)
	require.NoError(t, ctx.Err())
	cancel()
	assert.ErrorIs(t, ctx.Err(), context.Canceled, "the parent's cancel, before the context is made")
	<-ctx.Done()
	assert.Equal(t, "v", ctx.Value(ctxKey{}))
	require.NoError(t, g.Wait())
	require.NoError(t, e.Close())
}

// A group whose context nobody asks for costs one allocation (the Group)
// beyond its tasks' funcs: no context.WithCancelCause.
func TestGroupAllocs(t *testing.T) {
	if schedcheckBuild {
		t.Skip("allocations are counted without -tags schedcheck")
	}
	e := newExec(t, executor.Config{Procs: 1})
	allocs := make(chan float64, 1)
	kid := func(executor.Task) error { return nil }
	require.NoError(t, e.Go(func(t executor.Task) {
		allocs <- testing.AllocsPerRun(100, func() {
			g, _ := t.NewGroup(context.Background())
			g.Go(kid)
			g.Go(kid)
			if err := g.Wait(); err != nil {
				panic(err)
			}
		})
	}))
	a := <-allocs
	require.NoError(t, e.Close())
	assert.LessOrEqual(t, a, 1.0, "allocations per group of two local tasks")
}
