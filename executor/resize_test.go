package executor_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/exactlyonce"
	"github.com/schedkit/schedkit/internal/watchdog"
)

// SetProcs (resize.go): the runtime's procresize without stopping the
// world. Bad counts are refused and change nothing; a P taken away hands
// its runnext and ring to the global queue before SetProcs returns (no
// sysmon round at all); a P added is woken for queued work; Close never
// judges the executor quiescent while SetProcs holds a P's tasks; under a
// flood of submits and spawns, a thousand resizes lose and duplicate
// nothing; with Config.Procs 0 sysmon follows GOMAXPROCS.

func TestResizeRejectsBadCounts(t *testing.T) {
	e, err := executor.New(executor.Config{Procs: 2})
	require.NoError(t, err)
	for _, n := range []int{0, -1, executor.MaxProcs + 1} {
		err := e.SetProcs(n)
		require.ErrorIs(t, err, executor.ErrProcs, "SetProcs(%d)", n)
		assert.Contains(t, err.Error(), fmt.Sprintf("SetProcs(%d), want 1..%d", n, executor.MaxProcs))
		assert.Equal(t, 2, e.Procs())
	}
	require.NoError(t, e.SetProcs(2)) // no change
	require.NoError(t, e.SetProcs(3))
	assert.Equal(t, 3, e.Procs())
	assert.Equal(t, 3, e.StealerLen(), "the victim order follows the Ps in service")
	require.NoError(t, e.SetProcs(1))
	assert.Equal(t, 1, e.Procs())
	assert.Equal(t, 1, e.StealerLen())
	s := e.Stats()
	assert.Equal(t, 1, s.InService)
	assert.Len(t, s.Procs, 3, "Stats keeps every P made")
	assert.Equal(t, uint64(2), s.Retired)
	require.NoError(t, e.Close())
	require.ErrorIs(t, e.SetProcs(2), executor.ErrClosed)
	assert.Equal(t, 1, e.Procs())
}

// resizeHolders: on 2 Ps, two tasks hold both Ps (blocking without
// telling the executor), each having spawned k children into its own P
// (runnext and ring: no P is idle, so nobody steals them). SetProcs(1)
// retakes P 1 and must have moved its k children to the global queue
// when it returns, with P 1's queue empty; then the holders are released
// and every task runs once.
func resizeHolders(k int) scenario {
	return func(*testing.T) error {
		e, err := executor.New(executor.Config{Procs: 2, Slice: executor.MaxSlice})
		if err != nil {
			return err
		}
		var ran atomic.Int64
		spawn := make(chan struct{})
		hold := make(chan struct{})
		for range 2 {
			if err := e.Go(func(t executor.Task) {
				<-spawn
				for range k {
					t.Go(func(executor.Task) { ran.Add(1) })
				}
				<-hold
				ran.Add(1)
			}); err != nil {
				return err
			}
		}
		synctest.Wait()
		close(spawn)
		synctest.Wait()
		if q := e.Stats().Procs[1].QueueLen; q != k {
			return fmt.Errorf("P 1 holds %d tasks before the resize, want %d", q, k)
		}
		if err := e.SetProcs(1); err != nil {
			return err
		}
		s := e.Stats()
		var errs []error
		if s.Procs[1].QueueLen != 0 || s.Moved != uint64(k) || s.Retired != 1 || e.Procs() != 1 {
			errs = append(errs, fmt.Errorf("after SetProcs(1): P 1 holds %d tasks, %d moved, %d Ps retired, Procs %d; want 0, %d, 1, 1",
				s.Procs[1].QueueLen, s.Moved, s.Retired, e.Procs(), k))
		}
		close(hold)
		errs = append(errs, e.Close())
		if n := ran.Load(); n != int64(2*k+2) {
			errs = append(errs, fmt.Errorf("%d of %d tasks ran", n, 2*k+2))
		}
		return errors.Join(errs...)
	}
}

func TestResizeMovesTheQueue(t *testing.T) {
	for _, k := range []int{1, 5} { // runnext alone; runnext and a ring
		t.Run(fmt.Sprintf("children=%d", k), func(t *testing.T) {
			require.NoError(t, inBubble(t, resizeHolders(k)))
		})
	}
}

// resizeTimers: on 2 Ps, two tasks hold both Ps (blocking without
// telling the executor, a slice sysmon never ends), each having armed k
// timers (Task.AfterFunc) on its own P's heap. SetProcs(1) must have moved
// P 1's timers to P 0 (the only P left, held) when it returns ((*p).destroy's timers.take), P 1's
// heap empty; one moved timer is stopped (Stop finds it on P 0), and once
// the bubble's clock passes the timers every other one has fired exactly
// once, before and after Close.
func resizeTimers(k int) scenario {
	return func(*testing.T) error {
		e, err := executor.New(executor.Config{Procs: 2, Slice: executor.MaxSlice})
		if err != nil {
			return err
		}
		fired := make([]atomic.Int64, 2*k)
		tms := make([]*executor.Timer, 2*k)
		var onP1 atomic.Int64
		hold := make(chan struct{})
		var holders atomic.Int64
		for range 2 {
			if err := e.Go(func(t executor.Task) {
				h := int(holders.Add(1)) - 1
				if executor.TaskP(t) == 1 {
					onP1.Store(int64(h))
				}
				for i := range k {
					j := h*k + i
					tms[j] = t.AfterFunc(time.Second, func(executor.Task) { fired[j].Add(1) })
				}
				<-hold
			}); err != nil {
				return err
			}
		}
		synctest.Wait()
		if a, b := e.TimersOn(0), e.TimersOn(1); a != k || b != k {
			return fmt.Errorf("before the resize P 0 and P 1 hold %d and %d timers, want %d each", a, b, k)
		}
		if err := e.SetProcs(1); err != nil {
			return err
		}
		var errs []error
		if a, b := e.TimersOn(0), e.TimersOn(1); a != 2*k || b != 0 {
			errs = append(errs, fmt.Errorf("after SetProcs(1) P 0 and P 1 hold %d and %d timers, want %d and 0", a, b, 2*k))
		}
		stopped := int(onP1.Load()) * k // a timer armed on P 1, moved
		if !tms[stopped].Stop() {
			errs = append(errs, errors.New("Stop of a moved timer did not stop it"))
		}
		check := func(when string) {
			for j := range fired {
				if want := int64(1); j == stopped && fired[j].Load() != 0 || j != stopped && fired[j].Load() != want {
					errs = append(errs, fmt.Errorf("%s: timer %d fired %d times (stopped: %v)", when, j, fired[j].Load(), j == stopped))
				}
			}
		}
		// The bubble's clock, past the timers and past a Slice (MaxSlice, a
		// minute) after them: sysmon runs P 0's timers when they are due,
		// since a task holds it, and the funcs they ready wait in its queue
		// until sysmon retakes the P from the holder at the slice's end.
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		check("past the timers")
		close(hold)
		errs = append(errs, e.Close())
		check("after Close")
		return errors.Join(errs...)
	}
}

func TestResizeMovesTimers(t *testing.T) {
	for _, k := range []int{1, 3} {
		t.Run(fmt.Sprintf("timers=%d", k), func(t *testing.T) {
			require.NoError(t, inBubble(t, resizeTimers(k)))
		})
	}
}

// resizeGrowWakes: on 1 P held by a task that blocks without telling the
// executor (and a slice sysmon never ends), an outside task waits in the
// global queue; SetProcs(2) must wake an M for it on the new P, so it runs
// while the holder still blocks.
func resizeGrowWakes(*testing.T) error {
	e, err := executor.New(executor.Config{Procs: 1, Slice: executor.MaxSlice})
	if err != nil {
		return err
	}
	hold := make(chan struct{})
	var ran atomic.Int64
	if err := e.Go(func(executor.Task) { <-hold }); err != nil {
		return err
	}
	synctest.Wait()
	if err := e.Go(func(executor.Task) { ran.Add(1) }); err != nil {
		return err
	}
	synctest.Wait()
	before := ran.Load()
	if err := e.SetProcs(2); err != nil {
		return err
	}
	synctest.Wait()
	after := ran.Load()
	close(hold)
	err = e.Close()
	if before != 0 || after != 1 {
		return errors.Join(err, fmt.Errorf("the queued task ran %d times before SetProcs(2) and %d after it, with the only old P held: want 0 and 1 (the new P was not woken for it)", before, after))
	}
	return err
}

func TestResizeGrowWakes(t *testing.T) { require.NoError(t, inBubble(t, resizeGrowWakes)) }

// resizeCloseBetween: Close begins while SetProcs holds the tasks of the
// P it takes away (the hook, between its gets and its put to the global
// queue), with every M parked: the two tasks that held the Ps have ended
// meanwhile. Close must not find the executor quiescent then (SetProcs is
// in flight): every task runs once, and Close returns only after. With
// shutdown set, Shutdown (without a deadline) is the one that begins.
func resizeCloseBetween(shutdown bool) scenario {
	return func(*testing.T) error { return closeBetween(shutdown) }
}

func closeBetween(shutdown bool) error {
	var closeErr error
	var e *executor.Executor
	hold := make(chan struct{})
	closed := make(chan struct{})
	restore := executor.SetResizeHook(func(string) {
		close(hold)
		synctest.Wait() // the holders end, every M parks
		go func() {
			if shutdown {
				_, closeErr = e.Shutdown(context.Background())
			} else {
				closeErr = e.Close()
			}
			close(closed)
		}()
		synctest.Wait() // Close waits for quiescence, or (wrongly) returned
	})
	defer restore()
	e, err := executor.New(executor.Config{Procs: 2, Slice: executor.MaxSlice})
	if err != nil {
		return err
	}
	var ran atomic.Int64
	spawn := make(chan struct{})
	for range 2 {
		if err := e.Go(func(t executor.Task) {
			<-spawn
			t.Go(func(executor.Task) { ran.Add(1) })
			<-hold
		}); err != nil {
			return err
		}
	}
	synctest.Wait()
	close(spawn)
	synctest.Wait()
	if err := e.SetProcs(1); err != nil {
		return err
	}
	early := false
	select {
	case <-closed:
		early = true
	default:
	}
	<-closed // a channel, not a second Close: a goroutine on a mutex stops the bubble's clock
	if n := ran.Load(); n != 2 || early {
		return errors.Join(closeErr, fmt.Errorf("%d of 2 children ran; Close returned while SetProcs held a P's tasks: %v", n, early))
	}
	return closeErr
}

func TestResizeCloseBetween(t *testing.T) {
	for _, shutdown := range []bool{false, true} {
		t.Run(fmt.Sprintf("shutdown=%v", shutdown), func(t *testing.T) {
			require.NoError(t, inBubble(t, resizeCloseBetween(shutdown)))
		})
	}
}

// resizeFollows: with Config.Procs 0 sysmon follows GOMAXPROCS (here the
// test's hook) at its next look, followEvery apart on the bubble's clock:
// a task holds a P so that sysmon keeps its rounds.
func resizeFollows(*testing.T) error {
	var gmp atomic.Int64
	gmp.Store(2)
	restore := executor.SetGOMAXPROCSForTest(func() int { return int(gmp.Load()) })
	defer restore()
	e, err := executor.New(executor.Config{})
	if err != nil {
		return err
	}
	hold := make(chan struct{})
	if err := e.Go(func(executor.Task) { <-hold }); err != nil {
		return err
	}
	var errs []error
	for _, n := range []int64{3, 1, 2} {
		gmp.Store(n)
		time.Sleep(executor.FollowEvery + executor.DefaultSlice) // the bubble's clock: a look, and a round after it
		synctest.Wait()
		if got := e.Procs(); got != int(n) {
			errs = append(errs, fmt.Errorf("GOMAXPROCS %d: Procs %d after a look", n, got))
		}
	}
	close(hold)
	return errors.Join(append(errs, e.Close())...)
}

func TestResizeFollowsGOMAXPROCS(t *testing.T) { require.NoError(t, inBubble(t, resizeFollows)) }

// TestResizeStress: SetProcs up and down (1 to 4 Ps) a thousand times while
// two goroutines flood outside submits whose tasks spawn children, at
// GOMAXPROCS 1 and 2: every task runs exactly once (counted per id), and
// the free lists hold no record twice. A watchdog names a hang.
func TestResizeStress(t *testing.T) {
	for _, gmp := range []int{1, 2} {
		t.Run(fmt.Sprintf("gomaxprocs=%d", gmp), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(gmp))
			resizes, perSubmitter := 1000, 5000
			const submitters, kids = 2, 2
			counts := make([]atomic.Int32, submitters*perSubmitter*(1+kids))
			e, err := executor.New(executor.Config{Procs: 2})
			require.NoError(t, err)
			stop := watchdog.Start(t.Name(), 5*time.Minute, func() string { return fmt.Sprintf("%+v", e.Stats()) })
			defer stop()
			var wg sync.WaitGroup
			for s := range submitters {
				wg.Go(func() {
					for i := range perSubmitter {
						id := (s*perSubmitter + i) * (1 + kids)
						if err := e.Go(func(t executor.Task) {
							counts[id].Add(1)
							for k := 1; k <= kids; k++ {
								t.Go(func(executor.Task) { counts[id+k].Add(1) })
							}
						}); err != nil {
							panic(err)
						}
					}
				})
			}
			var done atomic.Bool
			go func() { wg.Wait(); done.Store(true) }()
			rng := rand.New(rand.NewPCG(uint64(gmp), 25))
			n := 0
			for ; n < resizes || !done.Load(); n++ {
				require.NoError(t, e.SetProcs(1+rng.IntN(4)))
				runtime.Gosched() // let the submitters in at GOMAXPROCS 1
			}
			wg.Wait()
			require.NoError(t, e.Close())
			require.NoError(t, exactlyonce.Check(counts))
			require.NoError(t, e.CheckFreeLists())
			s := e.Stats()
			t.Logf("%d resizes: %d Ps retired, %d tasks moved, %d Ms", n, s.Retired, s.Moved, s.Ms)
			assert.Equal(t, e.Procs(), s.InService)
		})
	}
}
