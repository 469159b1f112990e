//go:build schedcheck

package explore_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// timeout: a sleeper waits on a note for at most wait; a waker sleeps for
// delay, then wakes it. The clock is virtual: it moves only when both are
// blocked, so the outcome depends on wait and delay alone, never on how fast
// the machine is, and nothing sleeps for real.
func timeout(wait, delay time.Duration, check func(woken bool, waited time.Duration) error) func() explore.Run {
	return func() explore.Run {
		var n atomicx.Note
		explore.Name(&n, "note")
		var woken bool
		var waited time.Duration
		return explore.Run{
			Threads: []func(){
				func() {
					start := atomicx.Nanotime()
					woken = n.SleepFor(wait)
					waited = time.Duration(atomicx.Nanotime() - start)
				},
				func() {
					atomicx.Sleep(delay)
					n.Wakeup()
				},
			},
			Check: func() error { return check(woken, waited) },
		}
	}
}

// TestTimeoutWokenInTime: the waker's sleep ends first; one execution, since
// a thread blocked on the clock cannot run until every other one blocks too.
func TestTimeoutWokenInTime(t *testing.T) {
	res := explore.Check(t, explore.Options{Name: "timeout-woken", Bound: explore.Unbounded}, timeout(10*time.Millisecond, 5*time.Millisecond,
		func(woken bool, waited time.Duration) error {
			if !woken || waited != 5*time.Millisecond {
				return fmt.Errorf("woken=%v after %v, want woken after 5ms", woken, waited)
			}
			return nil
		}))
	assert.Equal(t, 1, res.Executions)
}

func TestTimeoutExpires(t *testing.T) {
	explore.Check(t, explore.Options{Name: "timeout-expires", Bound: explore.Unbounded}, timeout(10*time.Millisecond, time.Hour,
		func(woken bool, waited time.Duration) error {
			if woken || waited != 10*time.Millisecond {
				return fmt.Errorf("woken=%v after %v, want a timeout after 10ms", woken, waited)
			}
			return nil
		}))
}

// TestTimeoutRaceAtTheDeadline: when the wakeup and the deadline fall at the
// same instant, both orders are explored: the sleeper sometimes times out.
func TestTimeoutRaceAtTheDeadline(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "timeout-tie"}, timeout(10*time.Millisecond, 10*time.Millisecond,
		func(woken bool, waited time.Duration) error {
			if !woken {
				return fmt.Errorf("timed out after %v", waited)
			}
			return nil
		}))
	require.NoError(t, err)
	t.Log(res.Summary())
	require.NotNil(t, res.Failure)
	assert.EqualError(t, res.Failure.Err, "timed out after 10ms")
	t.Log(res.Failure)
}

// TestVirtualSleepIsInstant: an hour of sleeps, in two threads, takes no
// real time; the threads see the clock in order, and Check (on the
// exploring goroutine) reads the same clock.
func TestVirtualSleepIsInstant(t *testing.T) {
	res := explore.Check(t, explore.Options{Name: "virtual-hour", Bound: explore.Unbounded}, func() explore.Run {
		var times [2][]int64
		start := atomicx.Nanotime()
		sleeper := func(i int, d time.Duration) func() {
			return func() {
				for range 3 {
					atomicx.Sleep(d)
					times[i] = append(times[i], atomicx.Nanotime()-start)
				}
			}
		}
		return explore.Run{
			Threads: []func(){sleeper(0, 20*time.Minute), sleeper(1, 30*time.Minute)},
			Check: func() error {
				want := [2][]int64{
					{int64(20 * time.Minute), int64(40 * time.Minute), int64(time.Hour)},
					{int64(30 * time.Minute), int64(time.Hour), int64(90 * time.Minute)},
				}
				if fmt.Sprint(times) != fmt.Sprint(want) {
					return fmt.Errorf("times %v, want %v", times, want)
				}
				if now := atomicx.Nanotime() - start; now != int64(90*time.Minute) {
					return fmt.Errorf("clock at the end %v", time.Duration(now))
				}
				return nil
			},
		}
	})
	assert.Greater(t, res.Executions, 1, "at 60 minutes both wake: both orders")
}

// TestClockStartsNonZeroAndOnlyMovesWhenAllBlock: a running thread keeps the
// clock still however many steps it takes.
func TestClockStartsNonZeroAndOnlyMovesWhenAllBlock(t *testing.T) {
	explore.Check(t, explore.Options{Name: "clock-still", Bound: explore.Unbounded}, func() explore.Run {
		var busy atomicx.Uint32
		var t0, t1 int64
		return explore.Run{
			Threads: []func(){
				func() {
					t0 = atomicx.Nanotime()
					for range 5 {
						busy.Add(1)
					}
					t1 = atomicx.Nanotime()
				},
				func() { atomicx.Sleep(time.Second) },
			},
			Check: func() error {
				if t0 <= 0 || t1 != t0 {
					return fmt.Errorf("clock moved while a thread ran: %d then %d", t0, t1)
				}
				return nil
			},
		}
	})
}

// TestSleepForIsNotADeadlock: a sleeper whose only way out is its timeout is
// not deadlocked; one without a timeout is.
func TestSleepForIsNotADeadlock(t *testing.T) {
	explore.Check(t, explore.Options{Name: "sleepfor-alone"}, func() explore.Run {
		var n atomicx.Note
		var mu atomicx.Mutex
		return explore.Run{Threads: []func(){
			func() {
				if n.SleepFor(time.Millisecond) {
					panic("nobody woke it")
				}
			},
			func() { mu.Lock(); mu.Unlock() },
		}}
	})
	res, err := explore.Explore(explore.Options{Name: "sleep-alone"}, func() explore.Run {
		var n atomicx.Note
		explore.Name(&n, "n")
		return explore.Run{Threads: []func(){n.Sleep, func() { atomicx.Sleep(time.Second) }}}
	})
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	var dl *explore.DeadlockError
	require.ErrorAs(t, res.Failure.Err, &dl)
	assert.Equal(t, []string{"T0 notesleep n"}, dl.Blocked)
}

// TestSleepInBuildMovesTheVirtualClock: build and Check read and move the
// execution's virtual clock too.
func TestSleepInBuildMovesTheVirtualClock(t *testing.T) {
	explore.Check(t, explore.Options{Name: "build-clock"}, func() explore.Run {
		start := atomicx.Nanotime()
		atomicx.Sleep(time.Minute)
		built := atomicx.Nanotime()
		var seen int64
		return explore.Run{
			Threads: []func(){func() { seen = atomicx.Nanotime() }},
			Check: func() error {
				if built-start != int64(time.Minute) || seen != built {
					return errors.New("build does not share the virtual clock")
				}
				return nil
			},
		}
	})
}
