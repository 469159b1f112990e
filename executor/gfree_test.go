package executor_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/exactlyonce"
	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/internal/watchdog"
)

// Records reused through the global free list (gfree.go, the runtime's
// sched.gFree): outside submits allocate nothing once warm, a reused
// record never carries its last task's fields, and no record is handed
// out twice.

// outsideAllocs: once the free lists hold records, an outside submit (Go,
// TryGo, GoContext, a GoBatch of 64) of a func that needs no closure, and
// its run, allocate nothing, on 1 and 2 Ps.
func outsideAllocs(*testing.T) error {
	if schedcheckBuild {
		// The explorer's build hooks every lock a submit takes, and the
		// hooks allocate: the kill matrix (schedcheck,schedmutant) reads
		// this column n/a; the race step counts the plain build's.
		return killmatrix.ErrNotApplicable
	}
	for _, procs := range []int{1, 2} {
		e, err := executor.New(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		// The runs wait on done with no timer of their own (a timer would
		// allocate): the watchdog ends the binary naming the wait.
		stop := watchdog.Start(fmt.Sprintf("outsideAllocs, Procs %d: each submit waits for its tasks to run", procs), time.Minute, nil)
		done := make(chan struct{}, 64)
		f := func(executor.Task) { done <- struct{}{} }
		fs := make([]func(executor.Task), 64)
		for i := range fs {
			fs[i] = f
		}
		ctx := context.Background()
		submits := []struct {
			name string
			n    int
			do   func() error
		}{
			{"Go", 1, func() error { return e.Go(f) }},
			{"TryGo", 1, func() error { return e.TryGo(f) }},
			{"GoContext", 1, func() error { return e.GoContext(ctx, f) }},
			{"GoBatch(64)", len(fs), func() error { return e.GoBatch(fs) }},
		}
		var failed error
		for _, s := range submits {
			run := func() {
				if err := s.do(); err != nil {
					failed = err
					return
				}
				for range s.n {
					<-done
				}
			}
			for range 20 * executor.MaxGFree { // warm: the Ps' lists fill and spill
				run()
			}
			a := testing.AllocsPerRun(200, run)
			if failed == nil && a != 0 {
				failed = fmt.Errorf("Procs %d: %.2f allocations per %s and its run once warm, want 0", procs, a, s.name)
			}
		}
		err = errors.Join(failed, e.Close())
		stop()
		if err != nil {
			return err
		}
	}
	return nil
}

func TestOutsideSubmitAllocatesNothing(t *testing.T) {
	err := outsideAllocs(t)
	if errors.Is(err, killmatrix.ErrNotApplicable) {
		t.Skip("the schedcheck build's hooks allocate: counted in the plain build")
	}
	require.NoError(t, err)
}

// recordsReused: group children spawned locally (shared records, claimed
// and released twice), then outside submits whose tasks spawn a child
// each, then another group, each phase run to its end before the next, so
// that the records one kind of task freed reach the next kind through the
// Ps' spills and the global list. Every task runs exactly once. A record
// reused with its last task's fields (a group child's claim taken, its
// group) drops or misroutes a task; a record handed out twice loses one
// task and runs another twice.
func recordsReused(procs int) scenario {
	return func(*testing.T) error {
		e, err := executor.New(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		kids := executor.MaxGFree + 300 // past a P's list: the phase's records spill
		outside := kids
		counts := make([]atomic.Int32, 2*kids+2*outside)
		var left atomic.Int64
		var done chan struct{}
		count := func(id int) {
			counts[id].Add(1)
			if left.Add(-1) == 0 {
				close(done)
			}
		}
		phase := func(name string, n int, start func() error) error {
			left.Store(int64(n))
			done = make(chan struct{})
			if err := start(); err != nil {
				return err
			}
			select {
			case <-done:
				return nil
			case <-time.After(10 * time.Second): // the bubble's clock: every goroutine idle
				return fmt.Errorf("%s: %d of %d tasks did not run within 10s of the bubble's clock", name, left.Load(), n)
			}
		}
		group := func(base int) func() error {
			return func() error {
				return e.Go(func(t executor.Task) {
					g, _ := t.NewGroup(context.Background())
					for i := range kids {
						g.Go(func(executor.Task) error { count(base + i); return nil })
					}
					_ = g.Wait()
				})
			}
		}
		err = phase("a group's children", kids, group(0))
		if err == nil {
			err = phase("outside tasks and their children", 2*outside, func() error {
				for i := range outside {
					if err := e.Go(func(t executor.Task) {
						count(kids + 2*i)
						t.Go(func(executor.Task) { count(kids + 2*i + 1) })
					}); err != nil {
						return err
					}
				}
				return nil
			})
		}
		if err == nil {
			err = phase("a second group's children", kids, group(kids+2*outside))
		}
		if err := errors.Join(err, e.Close()); err != nil {
			return fmt.Errorf("Procs %d: %w", procs, err)
		}
		if err := exactlyonce.Check(counts); err != nil {
			_, taken, added, dropped := e.GlobalFree()
			return fmt.Errorf("Procs %d, global free list: %d taken, %d added, %d dropped: %w", procs, taken, added, dropped, err)
		}
		return nil
	}
}

func TestRecordsReusedExactlyOnce(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			require.NoError(t, inBubble(t, recordsReused(procs)))
		})
	}
}

// freeListsClean: after outside submits, a group of 2*procs*MaxGFree+300 children
// (which spills the group's records to the global list last) and Close, every
// record on a free list is zero but for its link and on one list only,
// every list as long as its count, and the global list was used.
func freeListsClean(procs int) scenario {
	return func(*testing.T) error {
		e, err := executor.New(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		var errs []error
		n := 2*procs*executor.MaxGFree + 300 // past the Ps' lists: some go to the global one
		for range n {
			errs = append(errs, e.Go(func(t executor.Task) { t.Go(noop) }))
		}
		g, _ := e.NewGroup(context.Background())
		g.Go(func(t executor.Task) error {
			g, _ := t.NewGroup(context.Background())
			for range n {
				g.Go(func(executor.Task) error { return nil })
			}
			return g.Wait()
		})
		errs = append(errs, g.Wait(), e.Close())
		if err := errors.Join(errs...); err != nil {
			return err
		}
		if err := e.CheckFreeLists(); err != nil {
			return fmt.Errorf("Procs %d: %w", procs, err)
		}
		if _, taken, added, _ := e.GlobalFree(); taken == 0 || added == 0 {
			return fmt.Errorf("Procs %d: the global free list handed out %d records and took in %d: unused", procs, taken, added)
		}
		return nil
	}
}

func TestFreeListsZeroedAndDistinct(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			require.NoError(t, inBubble(t, freeListsClean(procs)))
		})
	}
}

// TestRefusedSubmitReturnsItsRecord: a submit refused (closed, full) gives
// its record back: nothing leaks and the lists stay clean.
func TestRefusedSubmitReturnsItsRecord(t *testing.T) {
	e, err := executor.New(executor.Config{Procs: 1, MaxQueued: 1})
	require.NoError(t, err)
	hold, held := make(chan struct{}), make(chan struct{})
	require.NoError(t, e.Go(func(executor.Task) { close(held); <-hold }))
	<-held
	require.NoError(t, e.TryGo(noop)) // queued: the bound is full
	_, _, added0, _ := e.GlobalFree()
	require.ErrorIs(t, e.TryGo(noop), executor.ErrFull)
	_, _, added1, _ := e.GlobalFree()
	require.Equal(t, added0+1, added1, "the refused TryGo's record is back on the global list")
	close(hold)
	require.NoError(t, e.Close())
	require.ErrorIs(t, e.Go(noop), executor.ErrClosed)
	require.ErrorIs(t, e.GoBatch([]func(executor.Task){noop}), executor.ErrClosed)
	_, _, added2, _ := e.GlobalFree()
	require.Equal(t, added1+2, added2, "the refused Go's and GoBatch's records are back on the global list")
	require.NoError(t, e.CheckFreeLists())
}

// TestStressRecordsReused: the stress harness (every kind of submit, local
// spawns, groups, Blocking, Yield, panics; exactly once, counted) with the
// free lists checked after Close and the global list seen in use. Run it
// with -race: a record reused while another goroutine still reads it is a
// race the detector reports.
func TestStressRecordsReused(t *testing.T) {
	items := 200_000
	if testing.Short() {
		items = 20_000
	}
	for _, c := range []stressCfg{
		{items: items, procs: 2, submitters: 2, seed: 11},
		{items: items, procs: 4, submitters: 3, seed: 12},
	} {
		t.Run(fmt.Sprintf("procs=%d", c.procs), func(t *testing.T) {
			r := runStress(t, c)
			require.NoError(t, r.e.CheckFreeLists())
			size, taken, added, dropped := r.e.GlobalFree()
			t.Logf("global free list: %d records left, %d handed out, %d taken in, %d dropped at the cap", size, taken, added, dropped)
			require.NotZero(t, taken, "no record went through the global list")
		})
	}
}

// TestGlobalFreeTrimmedAtGC: records a burst left on the global list that
// nothing takes are dropped within two collections, down to what trim
// keeps; records in use are kept.
func TestGlobalFreeTrimmedAtGC(t *testing.T) {
	e, err := executor.New(executor.Config{Procs: 2})
	require.NoError(t, err)
	defer func() { require.NoError(t, e.Close()) }()
	const burst = 20_000
	done := make(chan struct{}, burst)
	fs := make([]func(executor.Task), burst)
	for i := range fs {
		fs[i] = func(executor.Task) { done <- struct{}{} }
	}
	stop := watchdog.Start("TestGlobalFreeTrimmedAtGC: the burst's tasks", time.Minute, nil)
	defer stop()
	require.NoError(t, e.GoBatch(fs))
	for range burst {
		<-done
	}
	size0, _, _, _ := e.GlobalFree()
	require.Greater(t, size0, executor.GFreeKeep, "the burst's records are on the global list")
	// The first collection's trim sets the low mark, a later one drops
	// below it; cleanups run on a goroutine of their own, so collect until
	// it has (30 s: a stalled machine, not a verdict on the wall clock).
	gcs := 0
	for deadline := time.Now().Add(30 * time.Second); ; gcs++ {
		if size, _, _, _ := e.GlobalFree(); size == executor.GFreeKeep {
			break
		}
		require.True(t, time.Now().Before(deadline), "waited 30 s (%d collections) for the global free list to be trimmed to %d", gcs, executor.GFreeKeep)
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	_, _, _, dropped := e.GlobalFree()
	t.Logf("global free list after the burst %d, trimmed to %d after %d collections (%d dropped)", size0, executor.GFreeKeep, gcs, dropped)
	require.NoError(t, e.GoBatch(fs[:100]))
	for range 100 {
		<-done
	}
}
