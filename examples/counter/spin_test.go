package counter

import (
	"errors"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// spinUntilTwo: T0 and T1 increment while T2 waits for both by spinning,
// with a yield, until the counter reads 2. The yield is fair (explore/doc.go,
// "Fair scheduling"): the spinner cannot keep the incrementers from running.
func spinUntilTwo(inc func(n *atomicx.Int64)) func() explore.Run {
	return func() explore.Run {
		var c Counter
		explore.Name(&c.n, "counter")
		var saw int64
		return explore.Run{
			Threads: []func(){
				func() { inc(&c.n) },
				func() { inc(&c.n) },
				func() {
					for saw = c.Load(); saw < 2; saw = c.Load() {
						atomicx.Sleep(0)
					}
				},
			},
			Check: func() error {
				if saw != 2 {
					return fmt.Errorf("the waiter left its spin at %d", saw)
				}
				return nil
			},
		}
	}
}

// TestSpinWaiterSeesBothIncrements: the waiter always gets out, in DFS and
// DPOR (DPOR's await parks it until an increment writes the counter).
func TestSpinWaiterSeesBothIncrements(t *testing.T) {
	build := spinUntilTwo(func(n *atomicx.Int64) { n.Add(1) })
	explore.Check(t, explore.Options{Name: "counter-spin"}, build)
	explore.Check(t, explore.Options{Name: "counter-spin-dpor", Mode: explore.DPOR}, build)
}

// TestSpinWaiterOnLostUpdateIsALivelock: with Inc as a load and a store an
// increment is lost, the counter stays at 1, and the waiter spins alone for
// ever: a livelock, reported as one in both modes.
func TestSpinWaiterOnLostUpdateIsALivelock(t *testing.T) {
	build := spinUntilTwo(func(n *atomicx.Int64) { n.Store(n.Load() + 1) })
	for _, opts := range []explore.Options{{Name: "counter-spin-lost"}, {Name: "counter-spin-lost-dpor", Mode: explore.DPOR}} {
		if f := explore.CheckFails(t, opts, build); f != nil {
			requireLivelock(t, f)
		}
	}
}

func requireLivelock(t *testing.T, f *explore.Failure) {
	t.Helper()
	if !errors.Is(f.Err, explore.ErrLivelock) {
		t.Fatalf("want a livelock, got %v", f.Err)
	}
}
