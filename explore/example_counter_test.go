//go:build schedcheck

package explore_test

import (
	"fmt"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// Model-check your own lock-free code: shared state goes through atomicx,
// and the explorer runs every interleaving of the threads (DPOR: one per
// class of equivalent ones). In a test, explore.Check(t, opts, build) does
// the same and fails t with the schedule, a trace and a replay line.
func Example_counter() {
	res, _ := explore.Explore(explore.Options{Name: "counter", Mode: explore.DPOR}, func() explore.Run {
		var n atomicx.Int64 // your shared state: atomicx, not sync/atomic
		inc := func() { n.Add(1) }
		return explore.Run{Threads: []func(){inc, inc}, Check: func() error {
			if got := n.Load(); got != 2 { // Store(Load()+1) fails here: 1
				return fmt.Errorf("counter = %d", got)
			}
			return nil
		}}
	})
	fmt.Println(res.Summary(), "| failure:", res.Failure)
	// Output: explore counter: 2 executions, 2 schedules, bound -1, mode dpor | failure: <nil>
}
