package future_test

import (
	"context"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/future"
	"github.com/schedkit/schedkit/taskchan"
)

// Example: tasks that wait. A receive on an empty task channel, a Sleep and
// a future's Wait park the task: its P runs other tasks meanwhile and no M
// is held. A send readies the receiver into the sender's runnext.
func Example() {
	e, _ := executor.New(executor.Config{Procs: 2})
	c := taskchan.Make[int](0) // unbuffered: a send waits for a receive
	sum, _ := future.Submit(e, func(t executor.Task) (int, error) {
		n := 0
		for v, ok := c.Recv(t); ok; v, ok = c.Recv(t) { // parks while c is empty
			n += v
		}
		return n, nil
	})
	_ = e.Go(func(t executor.Task) {
		for i := range 10 {
			c.Send(t, i) // the receiver runs next on this P
		}
		_ = t.Sleep(time.Millisecond) // parks on this P's timer heap
		c.Close()
	})
	n, err := sum.WaitContext(context.Background()) // from outside: blocks this goroutine
	fmt.Println(n, err, e.Close())
	// Output: 45 <nil> <nil>
}
