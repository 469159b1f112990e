//go:build schedcheck

package explore_test

import (
	"fmt"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// A counter incremented by load-then-store loses an update when the two
// threads interleave; the explorer finds the schedule and the trace.
func Example() {
	res, _ := explore.Explore(explore.Options{Name: "lostupdate"}, func() explore.Run {
		var c atomicx.Int64
		explore.Name(&c, "counter")
		inc := func() { c.Store(c.Load() + 1) }
		return explore.Run{
			Threads: []func(){inc, inc},
			Check: func() error {
				if n := c.Load(); n != 2 {
					return fmt.Errorf("lost update: counter = %d", n)
				}
				return nil
			},
		}
	})
	fmt.Println(res.Summary())
	fmt.Println(res.Failure)
	// Output:
	// explore lostupdate: 2 executions, 2 schedules, bound 2, mode dfs, failed
	// explore lostupdate: execution 2 failed: lost update: counter = 1
	// schedule: 0.1x2.0 (4 steps)
	// trace:
	//      1  T0 load counter = 0
	//      2  T1 load counter = 0
	//      3  T1 store counter ← 1
	//      4  T0 store counter ← 1
	// replay: SCHEDKIT_REPLAY='lostupdate:0.1x2.0'
}
