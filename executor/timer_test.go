package executor_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// sleepersWakeInOrder: n tasks on procs Ps sleep (n-i) ms each, i by i, in
// a bubble, whose clock is exact: each wakes no earlier than asked and no
// later than a millisecond after, the shortest sleeper first, and every
// timer fired. With 1 P the sleepers' P is the one that runs their timers
// (checkTimers at each schedule); the wake order is the timers' order.
func sleepersWakeInOrder(procs, n int) scenario {
	return func(t *testing.T) error {
		e, err := executor.New(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		var mu sync.Mutex
		var order []int
		var errs []error
		start := time.Now()
		for i := range n {
			d := time.Duration(n-i) * time.Millisecond
			if err := e.Go(func(t executor.Task) {
				t0 := time.Now()
				if err := t.Sleep(d); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				slept := time.Since(t0)
				mu.Lock()
				defer mu.Unlock()
				order = append(order, n-i)
				if slept < d {
					errs = append(errs, fmt.Errorf("slept %v, asked %v: early", slept, d))
				} else if slept > d+time.Millisecond {
					errs = append(errs, fmt.Errorf("slept %v, asked %v: late", slept, d))
				}
			}); err != nil {
				return err
			}
		}
		if err := e.Close(); err != nil {
			return err
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		if len(order) != n {
			return fmt.Errorf("%d of %d sleepers woke", len(order), n)
		}
		for i, v := range order {
			if v != i+1 {
				return fmt.Errorf("wake order %v, want shortest first", order)
			}
		}
		s := e.Stats()
		if s.TimersFired != uint64(n) || s.Total.TaskParks != uint64(n) {
			return fmt.Errorf("%d timers fired and %d parks for %d sleepers", s.TimersFired, s.Total.TaskParks, n)
		}
		if s.Ms > procs+2 {
			return fmt.Errorf("%d Ms for %d sleepers on %d Ps", s.Ms, n, procs)
		}
		if took := time.Since(start); took > time.Duration(n)*time.Millisecond+time.Millisecond {
			return fmt.Errorf("%d sleepers took %v", n, took)
		}
		return nil
	}
}

func TestSleepersWakeInOrder(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprint(procs), func(t *testing.T) {
			require.NoError(t, inBubble(t, sleepersWakeInOrder(procs, 50)))
		})
	}
}

// sleeperBesideHogs: every P is held by a task that blocks without telling
// the executor (a Go sleep), and a task queued behind one of them sleeps
// 1ms: sysmon runs its timer (no P's holder reaches a schedule) and
// retakes a P for it, so it wakes within a slice or so of its time, not
// when the hogs end.
func sleeperBesideHogs(procs int) scenario {
	return func(t *testing.T) error {
		e, err := executor.New(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		var slept atomic.Int64
		done := make(chan struct{})
		if err := e.Go(func(t executor.Task) {
			t0 := time.Now()
			for i := range procs {
				t.Go(func(executor.Task) { time.Sleep(time.Duration(50+i) * time.Millisecond) })
			}
			_ = t.Sleep(time.Millisecond)
			slept.Store(int64(time.Since(t0)))
			close(done)
		}); err != nil {
			return err
		}
		<-done
		if err := e.Close(); err != nil {
			return err
		}
		if d := time.Duration(slept.Load()); d < time.Millisecond || d > 3*executor.DefaultSlice {
			return fmt.Errorf("a 1ms sleep beside %d hogs took %v", procs, d)
		}
		return nil
	}
}

func TestSleeperBesideHogs(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprint(procs), func(t *testing.T) {
			require.NoError(t, inBubble(t, sleeperBesideHogs(procs)))
		})
	}
}

func TestAfterFuncStopReset(t *testing.T) {
	require.NoError(t, inBubble(t, func(t *testing.T) error {
		e, err := executor.New(executor.Config{Procs: 2})
		if err != nil {
			return err
		}
		var ran atomic.Int64
		var at atomic.Int64
		start := time.Now()
		stopped := e.AfterFunc(5*time.Millisecond, func(executor.Task) { ran.Add(100) })
		e.AfterFunc(2*time.Millisecond, func(executor.Task) {
			at.Store(int64(time.Since(start)))
			ran.Add(1)
		})
		reset := e.AfterFunc(time.Millisecond, func(executor.Task) { ran.Add(10) })
		if !stopped.Stop() {
			return errors.New("Stop of a pending AfterFunc returned false")
		}
		if !reset.Reset(3 * time.Millisecond) {
			return errors.New("Reset of a pending AfterFunc returned false")
		}
		time.Sleep(10 * time.Millisecond)
		if stopped.Stop() || reset.Stop() {
			return errors.New("Stop after the timer fired (or was stopped) returned true")
		}
		if err := e.Close(); err != nil {
			return err
		}
		if ran.Load() != 11 {
			return fmt.Errorf("ran %d, want the 2ms func (1) and the reset one (10)", ran.Load())
		}
		if d := time.Duration(at.Load()); d != 2*time.Millisecond {
			return fmt.Errorf("a 2ms AfterFunc ran after %v", d)
		}
		return nil
	}))
}

func TestGoTimeout(t *testing.T) {
	require.NoError(t, inBubble(t, func(t *testing.T) error {
		e, err := executor.New(executor.Config{Procs: 1})
		if err != nil {
			return err
		}
		errs := make(chan error, 2)
		start := time.Now()
		if err := e.GoTimeout(context.Background(), 3*time.Millisecond, func(ctx context.Context, t executor.Task) {
			for ctx.Err() == nil {
				_ = t.Sleep(time.Millisecond)
			}
			if d := time.Since(start); !errors.Is(ctx.Err(), context.DeadlineExceeded) || d != 3*time.Millisecond {
				errs <- fmt.Errorf("ctx ended after %v with %v", d, ctx.Err())
				return
			}
			errs <- nil
		}); err != nil {
			return err
		}
		var keep context.Context
		if err := e.GoTimeout(context.Background(), time.Hour, func(ctx context.Context, t executor.Task) {
			keep = ctx
		}); err != nil {
			return err
		}
		if err := e.Close(); err != nil {
			return err
		}
		if !errors.Is(keep.Err(), context.Canceled) {
			return fmt.Errorf("a returned task's context: %v, want Canceled", keep.Err())
		}
		if s := e.Stats(); s.TimersFired != 4 { // three sleeps and the timeout
			return fmt.Errorf("%d timers fired, want 4", s.TimersFired)
		}
		return <-errs
	}))
}

// TestSleepingTasksCostNoM: many tasks sleep at once on the real clock; no
// M is made per sleeper.
func TestSleepingTasksCostNoM(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	const n = 5000
	var woke atomic.Int64
	for range n {
		require.NoError(t, e.Go(func(t executor.Task) {
			_ = t.Sleep(20 * time.Millisecond)
			woke.Add(1)
		}))
	}
	maxMs := 0
	for woke.Load() < n {
		maxMs = max(maxMs, e.Stats().Ms)
		time.Sleep(time.Millisecond)
	}
	require.NoError(t, e.Close())
	require.LessOrEqual(t, maxMs, 4, "Ms while %d tasks slept", n)
	require.Equal(t, uint64(n), e.Stats().TimersFired)
}

// sleeperBesideChain: a task sleeps 1ms on a P that a chain of short
// tasks (10µs each, through runnext) keeps busy, one chain per P. The
// holder runs the timer at its next schedule (checkTimers) and readies the
// sleeper into its runnext, so it wakes within a task's length of its
// time; sysmon, which gives a busy P's holder a round first, would put it
// on the global queue behind the chain.
func sleeperBesideChain(procs int) scenario {
	return func(t *testing.T) error {
		e, err := executor.New(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		var slept atomic.Int64
		var stop atomic.Bool
		var link func(executor.Task)
		link = func(t executor.Task) {
			time.Sleep(10 * time.Microsecond) // "computing"
			if !stop.Load() {
				t.Go(link)
			}
		}
		ready := make(chan struct{})
		if err := e.Go(func(t executor.Task) {
			for range procs - 1 {
				t.Go(link) // stolen by the other Ps
			}
			<-ready
			t.Go(link)
			t0 := time.Now()
			_ = t.Sleep(time.Millisecond)
			slept.Store(int64(time.Since(t0)))
			stop.Store(true)
		}); err != nil {
			return err
		}
		time.Sleep(100 * time.Microsecond) // the other chains find their Ps
		close(ready)
		if err := e.Close(); err != nil {
			return err
		}
		if d := time.Duration(slept.Load()); d < time.Millisecond || d > time.Millisecond+15*time.Microsecond {
			return fmt.Errorf("a 1ms sleep beside %d busy chains took %v", procs, d)
		}
		return nil
	}
}

func TestSleeperBesideChain(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprint(procs), func(t *testing.T) {
			require.NoError(t, inBubble(t, sleeperBesideChain(procs)))
		})
	}
}
