package executor_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// Task.Blocking gives the task's P away and takes one back before it
// returns (exitsyscall). A Blocking that returned without a P would let the
// task run beside Procs others and send its spawns to the global queue;
// these scenarios see both, in synctest bubbles.

// blockingRetakesP: on 1 P, a task calls Blocking and then spawns a child.
// Back on a P, the child goes to that P's runnext slot and runs from it:
// exactly one runnext hit, one handoff, and one EventReacquire for the one
// Blocking.
func blockingRetakesP(*testing.T) error {
	var reacquires atomic.Int64
	e, err := executor.New(executor.Config{Procs: 1, OnEvent: func(ev executor.Event) {
		if ev.Kind == executor.EventReacquire {
			reacquires.Add(1)
		}
	}})
	if err != nil {
		return err
	}
	ran := make(chan struct{})
	if err := e.Go(func(t executor.Task) {
		_ = t.Blocking(func() {})
		t.Go(func(executor.Task) { close(ran) })
	}); err != nil {
		return err
	}
	<-ran
	if err := e.Close(); err != nil {
		return err
	}
	s := e.Stats().Total
	if s.RunnextHits != 1 || s.Handoffs != 1 || reacquires.Load() != 1 {
		return fmt.Errorf("after one Blocking and a spawn: %d runnext hits, %d handoffs, %d reacquires, want 1 each (the task went on without a P?)",
			s.RunnextHits, s.Handoffs, reacquires.Load())
	}
	return nil
}

// blockingRespectsProcs: on procs Ps, a task calls Blocking and, inside it,
// submits procs tasks that each hold a P for 10ms of the bubble's clock.
// When its call returns, the task must wait for a P: it may not go on
// while procs other tasks run, only once one has ended (no P is idle, and
// the slice is far longer than 10ms, so sysmon takes none).
func blockingRespectsProcs(procs int) scenario { return respectsProcs(procs, false) }

// respectsProcs is blockingRespectsProcs, or with optimistic its Syscall
// twin (syscallRespectsProcs), where only sysmon's retake of the call's P
// lets the last of the procs tasks in.
func respectsProcs(procs int, optimistic bool) scenario {
	return func(*testing.T) error {
		e, err := executor.New(executor.Config{Procs: procs, Slice: time.Second})
		if err != nil {
			return err
		}
		call, name := executor.Task.Blocking, "Blocking"
		if optimistic {
			call, name = executor.Task.Syscall, "Syscall"
		}
		var running atomic.Int64
		seen := make(chan int64, 1)
		var all bool
		if err := e.Go(func(t executor.Task) {
			_ = call(t, func() {
				var in sync2
				in.n.Store(int64(procs))
				in.ch = make(chan struct{})
				for range procs {
					if err := e.Go(func(executor.Task) {
						running.Add(1)
						in.done()
						time.Sleep(10 * time.Millisecond) // holding its P
						running.Add(-1)
					}); err != nil {
						panic(err)
					}
				}
				select {
				case <-in.ch: // every one holds a P now
					all = true
				case <-time.After(syscallLimit):
				}
			})
			seen <- running.Load()
		}); err != nil {
			return err
		}
		n := <-seen
		if err := e.Close(); err != nil {
			return err
		}
		if !all {
			return fmt.Errorf("on %d Ps, %d tasks queued inside %s did not all get a P within %v: the call's P was not freed",
				procs, procs, name, syscallLimit)
		}
		if n >= int64(procs) {
			return fmt.Errorf("a task went on after %s while %d other tasks held the %d Ps", name, n, procs)
		}
		if s := e.Stats().Total; optimistic && s.Retakes == 0 {
			return fmt.Errorf("the call's P was freed with no retake (%d handoffs)", s.Handoffs)
		}
		return nil
	}
}

// sync2 closes ch when done has been called n times.
type sync2 struct {
	n  atomic.Int64
	ch chan struct{}
}

func (s *sync2) done() {
	if s.n.Add(-1) == 0 {
		close(s.ch)
	}
}

func TestBlockingRetakesP(t *testing.T) {
	require.NoError(t, inBubble(t, blockingRetakesP))
}

func TestBlockingRespectsProcs(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			require.NoError(t, inBubble(t, blockingRespectsProcs(procs)))
		})
	}
}
