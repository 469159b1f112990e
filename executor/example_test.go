package executor_test

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/schedkit/schedkit/executor"
)

// The executor in ten lines: a submit from outside, a local spawn, a group
// whose Wait runs its tasks while it waits, and Close.
func Example() {
	e, _ := executor.New(executor.Config{Procs: 4})
	var n atomic.Int64
	_ = e.Go(func(t executor.Task) { // from any goroutine: the global queue
		t.Go(func(executor.Task) { n.Add(100) }) // local spawn: this P's runnext
		g, _ := t.NewGroup(context.Background())
		for i := range 10 {
			g.Go(func(executor.Task) error { n.Add(int64(i)); return nil })
		}
		_ = g.Wait() // runs queued tasks while it waits
	})
	fmt.Println(e.Close(), n.Load()) // Close runs every accepted task, then stops
	// Output: <nil> 145
}
