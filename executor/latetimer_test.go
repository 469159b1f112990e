package executor_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// timerBesideLongTasks: on procs Ps with an 8s Slice, every P is held for
// 3s without a schedule (tasks that block in a Go sleep the executor does
// not see, or with inCall P 0's task in a Task.Syscall with a threshold of
// a Slice, so a call in pSyscall keeps sysmon at a call's pace), and P 0's
// task armed a 1.3s timer (Task.AfterFunc) on its own P first. No holder
// reaches a schedule and no M spins, so sysmon must run the timer: within
// a sysmon round of its time (min(10ms, Slice/8)) and the shortest round
// the holder gets first (20µs), as timer.go promises. The bubble's clock
// makes the bound exact. The lateness is the timer's, read where it fires
// (Stats.TimerMaxLate); the task it readies runs only once a P is free,
// here when the holders end (3s), else at the Slice's retake, as a
// goroutine readied by a timer waits for a P's holder to be preempted.
// Mutant CallSleepUncapped (the sleep at a call's pace not ended by the
// timer) fires it 11.22ms late with inCall.
func timerBesideLongTasks(procs int, inCall bool) scenario {
	return func(t *testing.T) error {
		const slice = 8 * time.Second
		cfg := executor.Config{Procs: procs, Slice: slice}
		if inCall {
			cfg.SyscallThreshold = slice
		}
		e, err := executor.New(cfg)
		if err != nil {
			return err
		}
		const d, hold = 1300 * time.Millisecond, 3 * time.Second
		var ran atomic.Int64
		start := time.Now()
		for i := range procs {
			if err := e.Go(func(t executor.Task) {
				if i != 0 {
					time.Sleep(hold)
					return
				}
				t.AfterFunc(d, func(executor.Task) { ran.Store(int64(time.Since(start))) })
				if inCall {
					_ = t.Syscall(func() { time.Sleep(hold) })
				} else {
					time.Sleep(hold)
				}
			}); err != nil {
				return err
			}
		}
		if err := e.Close(); err != nil {
			return err
		}
		s := e.Stats()
		if s.TimersFired != 1 || ran.Load() == 0 {
			return fmt.Errorf("%d timers fired (its task ran: %v), want 1", s.TimersFired, ran.Load() != 0)
		}
		if bound := min(10*time.Millisecond, slice/8) + 20*time.Microsecond; s.TimerMaxLate > bound {
			return fmt.Errorf("a %v timer on a P held %v (%d Ps, call %v) fired %v late, want <= %v (its task ran at %v)",
				d, hold, procs, inCall, s.TimerMaxLate, bound, time.Duration(ran.Load()))
		}
		t.Logf("fired %v late (bound %v)", s.TimerMaxLate, min(10*time.Millisecond, slice/8)+20*time.Microsecond)
		return nil
	}
}

func TestTimerBesideLongTasks(t *testing.T) {
	for _, procs := range []int{1, 2} {
		for _, inCall := range []bool{false, true} {
			t.Run(fmt.Sprintf("procs=%d/call=%v", procs, inCall), func(t *testing.T) {
				require.NoError(t, inBubble(t, timerBesideLongTasks(procs, inCall)))
			})
		}
	}
}
