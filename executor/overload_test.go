package executor_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/watchdog"
)

// Overload (issue 14, section 4): Config.MaxQueued bounds the outside
// tasks accepted and not yet started; Go, GoBatch and an outside group's Go
// wait for room, GoContext until its context ends, TryGo not at all.

// overloadDeadline arms a deadline for a test that waits on the executor:
// past it the process ends naming what it waited for, with every
// goroutine's stack (internal/watchdog).
func overloadDeadline(t *testing.T, what string) (stop func()) {
	return watchdog.Start(t.Name()+": "+what, 2*time.Minute, nil)
}

// waitUntil polls cond until it holds; the caller's watchdog bounds it.
func waitUntil(cond func() bool) {
	for !cond() {
		time.Sleep(50 * time.Microsecond)
	}
}

// gated starts one task per P that blocks until the returned func is
// called, and returns once every P holds one: nothing queued behind them
// runs until then (the slice is a minute, so sysmon leaves them alone).
func gated(t *testing.T, e *executor.Executor) (open func()) {
	t.Helper()
	open, err := holdEveryP(e)
	if err != nil {
		open()
		require.NoError(t, err)
	}
	return open
}

// holdEveryP is gated for a scenario, which returns its errors: open may
// be called more than once, and is to be called on every path.
func holdEveryP(e *executor.Executor) (open func(), err error) {
	gate := make(chan struct{})
	open = sync.OnceFunc(func() { close(gate) })
	var started sync.WaitGroup
	for range e.Procs() {
		started.Add(1)
		if err := e.Go(func(executor.Task) { started.Done(); <-gate }); err != nil {
			return open, err
		}
	}
	started.Wait()
	return open, nil
}

func TestMaxQueuedConfig(t *testing.T) {
	_, err := executor.New(executor.Config{MaxQueued: -1})
	require.ErrorIs(t, err, executor.ErrConfig)
	assert.Contains(t, err.Error(), "MaxQueued")
}

func TestOverloadBadInput(t *testing.T) {
	stop := overloadDeadline(t, "Close")
	defer stop()
	e, err := executor.New(executor.Config{Procs: 1, MaxQueued: 4})
	require.NoError(t, err)
	assert.PanicsWithValue(t, "executor: Executor.GoContext called with a nil context", func() {
		_ = e.GoContext(nil, func(executor.Task) {}) //nolint:staticcheck // the misuse under test
	})
	assert.PanicsWithValue(t, "executor: Executor.GoContext called with a nil func", func() {
		_ = e.GoContext(context.Background(), nil)
	})
	assert.PanicsWithValue(t, "executor: Executor.TryGo called with a nil func", func() { _ = e.TryGo(nil) })

	var ran atomic.Int64
	f := func(executor.Task) { ran.Add(1) }
	err = e.GoBatch([]func(executor.Task){f, f, f, f, f})
	require.ErrorIs(t, err, executor.ErrBatchTooLarge, "a batch over the bound can never fit")
	assert.NotErrorIs(t, err, executor.ErrFull)
	assert.Contains(t, err.Error(), "5 funcs, Config.MaxQueued is 4")
	require.NoError(t, e.GoBatch([]func(executor.Task){f, f, f, f}), "a batch of exactly the bound fits")
	require.NoError(t, e.GoBatch(nil))

	require.NoError(t, e.Close())
	assert.Equal(t, int64(4), ran.Load(), "the refused batch ran nothing")
	assert.Zero(t, e.Stats().Queued)
	assert.ErrorIs(t, e.TryGo(f), executor.ErrClosed)
	assert.ErrorIs(t, e.GoContext(context.Background(), f), executor.ErrClosed)
}

// TestTryGoFull: with the Ps held, TryGo is refused at the bound with an
// error that wraps ErrFull and names the bound; Stats.Queued counts the
// queued outside tasks; once they start their room is free again.
func TestTryGoFull(t *testing.T) {
	stop := overloadDeadline(t, "the queued tasks and Close")
	defer stop()
	e, err := executor.New(executor.Config{Procs: 1, MaxQueued: 3, Slice: time.Minute})
	require.NoError(t, err)
	open := gated(t, e)
	var ran atomic.Int64
	f := func(executor.Task) { ran.Add(1) }
	for range 3 {
		require.NoError(t, e.TryGo(f))
	}
	assert.Equal(t, 3, e.Stats().Queued)
	err = e.TryGo(f)
	require.ErrorIs(t, err, executor.ErrFull)
	assert.Equal(t, "executor: queue full: 3 outside tasks queued (Config.MaxQueued)", err.Error())
	open()
	waitUntil(func() bool { return ran.Load() == 3 })
	assert.Zero(t, e.Stats().Queued, "started tasks free their room")
	require.NoError(t, e.TryGo(f))
	require.NoError(t, e.Close())
	assert.Equal(t, int64(4), ran.Load())
}

// TestUnboundedTryGo: without a bound nothing is refused and nothing counted.
func TestUnboundedTryGo(t *testing.T) {
	stop := overloadDeadline(t, "Close")
	defer stop()
	e, err := executor.New(executor.Config{Procs: 1, Slice: time.Minute})
	require.NoError(t, err)
	open := gated(t, e)
	var ran atomic.Int64
	for range 1000 {
		require.NoError(t, e.TryGo(func(executor.Task) { ran.Add(1) }))
	}
	assert.Zero(t, e.Stats().Queued)
	open()
	require.NoError(t, e.Close())
	assert.Equal(t, int64(1000), ran.Load())
}

// TestGoContextEnded: an ended context is refused at once, bound or not,
// and a context that ends while GoContext waits for room ends the wait;
// neither accepts anything.
func TestGoContextEnded(t *testing.T) {
	for _, max := range []int{0, 2} {
		t.Run(fmt.Sprintf("MaxQueued=%d", max), func(t *testing.T) {
			stop := overloadDeadline(t, "GoContext and Close")
			defer stop()
			e, err := executor.New(executor.Config{Procs: 1, MaxQueued: max, Slice: time.Minute})
			require.NoError(t, err)
			var ran atomic.Int64
			f := func(executor.Task) { ran.Add(1) }
			cancelled, cancel := context.WithCancel(context.Background())
			cancel()
			assert.ErrorIs(t, e.GoContext(cancelled, f), context.Canceled)
			if max != 0 {
				open := gated(t, e)
				require.NoError(t, e.Go(f))
				require.NoError(t, e.Go(f))
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
				defer cancel()
				assert.ErrorIs(t, e.GoContext(ctx, f), context.DeadlineExceeded)
				assert.Zero(t, e.RoomWaiters(), "a waiter whose context ended left the list")
				open()
			}
			require.NoError(t, e.Close())
			assert.Equal(t, int64(min(max, 2)), ran.Load(), "a refused GoContext ran")
		})
	}
}

// TestCloseWakesBlockedSubmitters: Go, GoContext, GoBatch and an outside
// group's Go waiting for room all return ErrClosed (the group fails with
// it) as soon as Close or Shutdown begins, while the tasks holding the Ps
// still run, and nothing they offered runs.
func TestCloseWakesBlockedSubmitters(t *testing.T) {
	for _, how := range []string{"Close", "Shutdown"} {
		t.Run(how, func(t *testing.T) {
			stop := overloadDeadline(t, "blocked submitters woken by "+how)
			defer stop()
			e, err := executor.New(executor.Config{Procs: 2, MaxQueued: 2, Slice: time.Minute})
			require.NoError(t, err)
			open := gated(t, e)
			var ran atomic.Int64
			f := func(executor.Task) { ran.Add(1) }
			require.NoError(t, e.Go(f))
			require.NoError(t, e.Go(f))
			g, _ := e.NewGroup(context.Background())
			errs := make(chan error, 4)
			go func() { errs <- e.Go(f) }()
			go func() { errs <- e.GoContext(context.Background(), f) }()
			go func() { errs <- e.GoBatch([]func(executor.Task){f, f}) }()
			go func() { g.Go(func(executor.Task) error { ran.Add(1); return nil }); errs <- g.Wait() }()
			waitUntil(func() bool { return e.RoomWaiters() == 4 })

			closed := make(chan error, 1)
			go func() {
				if how == "Close" {
					closed <- e.Close()
					return
				}
				_, err := e.Shutdown(context.Background())
				closed <- err
			}()
			for range 4 {
				assert.ErrorIs(t, <-errs, executor.ErrClosed)
			}
			open()
			require.NoError(t, <-closed)
			assert.Equal(t, int64(2), ran.Load(), "only the two accepted tasks ran")
			assert.Zero(t, e.Stats().Queued)
		})
	}
}

// TestGoFromTaskWaitsWithoutItsP: tasks on every P submit from outside's
// path (Executor.Go) into a full queue; each hands its P to another M while
// it waits, so the queued tasks run and make room, instead of every P
// waiting on room that only a P can make.
func TestGoFromTaskWaitsWithoutItsP(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("Procs=%d", procs), func(t *testing.T) {
			stop := overloadDeadline(t, "tasks submitting into a full queue, and Close")
			defer stop()
			// A minute's slice: sysmon's retake cannot stand in for the handoff.
			e, err := executor.New(executor.Config{Procs: procs, MaxQueued: 1, Slice: time.Minute})
			require.NoError(t, err)
			var ran atomic.Int64
			const each = 50
			var submitted sync.WaitGroup
			submitted.Add(procs)
			for range procs {
				require.NoError(t, e.Go(func(executor.Task) {
					defer submitted.Done()
					for range each {
						if err := e.Go(func(executor.Task) { ran.Add(1) }); err != nil {
							panic(err)
						}
					}
				}))
			}
			submitted.Wait() // Close would refuse their submits
			require.NoError(t, e.Close())
			assert.Equal(t, int64(procs*each), ran.Load())
			assert.Zero(t, e.Stats().Queued)
		})
	}
}

// overloadHeld makes an executor of procs Ps bounded at max, with a
// minute's slice, holds every P (holdEveryP) and checks that the holders,
// started, count nothing queued (holders names them in the error). done
// opens the gate and closes the executor, on every path.
func overloadHeld(procs, max int, holders string) (e *executor.Executor, open, done func(), err error) {
	e, err = executor.New(executor.Config{Procs: procs, MaxQueued: max, Slice: time.Minute})
	if err != nil {
		return nil, nil, func() {}, err
	}
	open, err = holdEveryP(e)
	done = func() { open(); _ = e.Close() }
	if err == nil {
		if q := e.Stats().Queued; q != 0 {
			err = fmt.Errorf("%d outside tasks counted queued after %s started", q, holders)
		}
	}
	return e, open, done, err
}

// overloadWaiterWoken (synctest): with the only P held and the bound of 2
// reached, TryGo is refused, a GoContext whose context ends gives up, and
// a Go waits; once the P is free the queued tasks start, their room is
// freed and the waiting Go must be woken and accepted. Kills
// BoundNotReleased (the room never frees) and FullWakesNobody (nothing
// wakes the Go).
func overloadWaiterWoken(t *testing.T) error {
	e, open, done, err := overloadHeld(1, 2, "the only one")
	defer done()
	if err != nil {
		return err
	}
	var ran atomic.Int64
	f := func(executor.Task) { ran.Add(1) }
	if err := errors.Join(e.TryGo(f), e.TryGo(f)); err != nil {
		return fmt.Errorf("TryGo below the bound: %w", err)
	}
	if err := e.TryGo(f); !errors.Is(err, executor.ErrFull) {
		return fmt.Errorf("TryGo at the bound: %v, want ErrFull", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := e.GoContext(ctx, f); !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("GoContext at the bound: %v, want DeadlineExceeded", err)
	}
	res := make(chan error, 1)
	go func() { res <- e.Go(f) }()
	synctest.Wait()
	if n := e.RoomWaiters(); n != 1 {
		return fmt.Errorf("%d submitters wait for room, want the Go", n)
	}
	open()
	select {
	case err := <-res:
		if err != nil {
			return fmt.Errorf("the waiting Go: %v", err)
		}
	case <-time.After(time.Hour):
		return errors.New("a Go waiting for room was not accepted in an hour after the queued tasks could start")
	}
	if err := e.Close(); err != nil {
		return err
	}
	if ran.Load() != 3 || e.Stats().Queued != 0 {
		return fmt.Errorf("ran %d tasks, want 3; %d still counted queued", ran.Load(), e.Stats().Queued)
	}
	return nil
}

// overloadBatchAndGroupWoken (synctest): both Ps held, a batch fills the
// bound of 4; a GoBatch of 3 and an outside group's Go wait for room; once
// the Ps are free both must be accepted and run, and the count of queued
// tasks must come back to 0. Kills BoundNotReleased and FullWakesNobody by
// other paths than overloadWaiterWoken (a batch's room, a group's Go).
func overloadBatchAndGroupWoken(t *testing.T) error {
	e, open, done, err := overloadHeld(2, 4, "both")
	defer done()
	if err != nil {
		return err
	}
	var ran atomic.Int64
	f := func(executor.Task) { ran.Add(1) }
	if err := e.GoBatch([]func(executor.Task){f, f, f, f}); err != nil {
		return err
	}
	batch := make(chan error, 1)
	go func() { batch <- e.GoBatch([]func(executor.Task){f, f, f}) }()
	g, _ := e.NewGroup(context.Background())
	group := make(chan error, 1)
	go func() { g.Go(func(executor.Task) error { ran.Add(1); return nil }); group <- g.Wait() }()
	synctest.Wait()
	if n, q := e.RoomWaiters(), e.Stats().Queued; n != 2 || q != 4 {
		return fmt.Errorf("%d submitters wait with %d queued, want 2 with 4", n, q)
	}
	open()
	for _, c := range []struct {
		what string
		ch   chan error
	}{{"the waiting GoBatch", batch}, {"the outside group's Go and Wait", group}} {
		select {
		case err := <-c.ch:
			if err != nil {
				return fmt.Errorf("%s: %v", c.what, err)
			}
		case <-time.After(time.Hour):
			return fmt.Errorf("%s waited for room an hour after the queued tasks could start", c.what)
		}
	}
	if err := e.Close(); err != nil {
		return err
	}
	if ran.Load() != 8 || e.Stats().Queued != 0 {
		return fmt.Errorf("ran %d tasks, want 8; %d still counted queued", ran.Load(), e.Stats().Queued)
	}
	return nil
}

func TestOverloadWaiterWoken(t *testing.T) {
	require.NoError(t, inBubble(t, overloadWaiterWoken))
}

func TestOverloadBatchAndGroupWoken(t *testing.T) {
	require.NoError(t, inBubble(t, overloadBatchAndGroupWoken))
}

// TestOverloadFlood: 8 producers flood a slow executor (each task computes
// for a while and holds a payload) through every kind of outside submit.
// With MaxQueued 64 the queued count, sampled throughout, never passes the
// bound (Stats.Queued, and the tasks offered but not started, which may
// exceed it only by the producers' submits in progress); every accepted
// task runs exactly once; and the heap grows far less than in the same
// flood unbounded, where the producers outrun the Ms and every payload
// waits in the queue.
func TestOverloadFlood(t *testing.T) {
	perProducer, payload := 1500, 8192
	if testing.Short() {
		perProducer = 800
	}
	unbounded := floodRun(t, 0, perProducer, payload)
	bounded := floodRun(t, 64, perProducer, payload)
	t.Logf("peak HeapInuse growth: unbounded %d KiB, MaxQueued 64 %d KiB", unbounded>>10, bounded>>10)
	// The unbounded run holds up to every payload at once (8 x perProducer
	// x payload bytes); the bounded one, by estimate, about 100 of them
	// (64 queued, the batches being submitted, one running per P), plus
	// garbage the collector has not taken yet.
	assert.Less(t, bounded, unbounded/4, "the bound does not bound the heap")
}

// floodRun is one flood of TestOverloadFlood with the given bound; it
// returns the peak growth of HeapInuse seen while the flood ran.
func floodRun(t *testing.T, bound, perProducer, payload int) uint64 {
	const producers, batch = 8, 4
	stop := overloadDeadline(t, fmt.Sprintf("a flood with MaxQueued %d", bound))
	defer stop()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse

	e, err := executor.New(executor.Config{Procs: 2, MaxQueued: bound})
	require.NoError(t, err)
	total := producers * perProducer
	runs := make([]atomic.Int32, total)
	var offered, started atomic.Int64 // offered: accepted or being submitted
	task := func(id int) func(executor.Task) {
		buf := make([]byte, payload)
		buf[0] = byte(id)
		return func(executor.Task) {
			started.Add(1)
			x := int(buf[0])
			for i := range 20000 {
				x += i * int(buf[i%len(buf)])
			}
			sink.Add(int64(x))
			runs[id].Add(1)
		}
	}
	var peakOver, peakHeap atomic.Int64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			if q := e.Stats().Queued; bound != 0 && q > bound {
				peakOver.Store(int64(q))
			}
			if n := offered.Load() - started.Load(); bound != 0 && n > int64(bound+producers*batch) {
				peakOver.Store(n)
			}
			if i%16 == 0 {
				// Collected first, so that HeapInuse is about the live heap:
				// the garbage of tasks that ran must not hide the queue's.
				runtime.GC()
				runtime.ReadMemStats(&ms)
				if h := int64(ms.HeapInuse) - int64(base); h > peakHeap.Load() {
					peakHeap.Store(h)
				}
			}
			time.Sleep(100 * time.Microsecond)
		}
	}()
	var wg sync.WaitGroup
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			for i := 0; i < perProducer; {
				id := p*perProducer + i
				var err error
				switch {
				case i%10 == 0 && i+batch <= perProducer: // a batch
					fs := make([]func(executor.Task), batch)
					for j := range fs {
						fs[j] = task(id + j)
					}
					offered.Add(batch)
					if err = e.GoBatch(fs); err != nil {
						offered.Add(-batch)
					} else {
						i += batch
					}
				default:
					f := task(id)
					offered.Add(1)
					switch i % 3 {
					case 0:
						err = e.Go(f)
					case 1:
						err = e.GoContext(ctx, f)
					default:
						for err = e.TryGo(f); errors.Is(err, executor.ErrFull); err = e.TryGo(f) {
							runtime.Gosched()
						}
					}
					if err != nil {
						offered.Add(-1)
					} else {
						i++
					}
				}
				if err != nil {
					t.Errorf("producer %d: %v", p, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, e.Close())
	close(done)
	<-sampled
	assert.Zero(t, peakOver.Load(), "queued outside tasks over the bound %d", bound)
	assert.Zero(t, e.Stats().Queued)
	bad := 0
	for id := range runs {
		if n := runs[id].Load(); n != 1 {
			if bad++; bad <= 5 {
				t.Errorf("task %d ran %d times", id, n)
			}
		}
	}
	assert.Zero(t, bad, "tasks not run exactly once")
	assert.Equal(t, int64(total), started.Load())
	return uint64(max(peakHeap.Load(), 0))
}

// BenchmarkSubmitOnly is Executor.Go's own cost: the only P is held by a
// task, so nothing runs while the clock does (every 64k submits the queue
// is drained off the clock). Unbounded, the bound costs submit one
// predictable branch; with a bound never reached, a CAS on the count (and
// the M one add when it takes the task).
func BenchmarkSubmitOnly(b *testing.B) {
	for _, bound := range []int{0, 1 << 20} {
		b.Run(fmt.Sprintf("MaxQueued=%d", bound), func(b *testing.B) {
			e, err := executor.New(executor.Config{Procs: 1, MaxQueued: bound, Slice: time.Minute})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			var ran atomic.Int64
			f := func(executor.Task) { ran.Add(1) }
			hold := func() (open func()) {
				gate, started := make(chan struct{}), make(chan struct{})
				_ = e.Go(func(executor.Task) { close(started); <-gate })
				<-started
				return func() { close(gate) }
			}
			open := hold()
			submitted := int64(0)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%65536 == 65535 {
					b.StopTimer()
					open()
					for ran.Load() != submitted {
						runtime.Gosched()
					}
					open = hold()
					b.StartTimer()
				}
				_ = e.Go(f)
				submitted++
			}
			b.StopTimer()
			open()
		})
	}
}
