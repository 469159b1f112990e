package counter

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// TestBrokenCounterFails is the README's claim about Inc written as a load
// and a store: the same scenario fails (explore.CheckFails fails the test if
// it stops catching the lost update).
func TestBrokenCounterFails(t *testing.T) {
	f := explore.CheckFails(t, explore.Options{Mode: explore.DPOR}, func() explore.Run {
		var n atomicx.Int64
		explore.Name(&n, "counter")
		inc := func() { n.Store(n.Load() + 1) }
		return explore.Run{
			Threads: []func(){inc, inc},
			Check: func() error {
				if got := n.Load(); got != 2 {
					return fmt.Errorf("counter = %d", got)
				}
				return nil
			},
		}
	})
	if f != nil {
		t.Logf("caught: %v", f.Err)
	}
}
