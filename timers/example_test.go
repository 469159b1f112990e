package timers_test

import (
	"fmt"

	"github.com/schedkit/schedkit/timers"
)

// Example shows what a P does with its heap: a task's Sleep arms a timer
// that readies it, a deadline is stopped before it fires, the schedule loop
// runs what has expired, an idle P runs another P's expired timers, and an
// M that parks sleeps until the earliest when of every heap.
func Example() {
	var p0, p1 timers.Heap // one per P
	wake := func(arg any, seq uint64, delay int64) {
		fmt.Printf("%v fires (arming %d, %d ns late)\n", arg, seq, delay)
	}
	sleep := timers.NewTimer(wake, "task 1's Sleep")
	deadline := timers.NewTimer(wake, "task 2's deadline")
	tick := timers.NewTimer(wake, "task 3's Sleep")

	p0.Add(sleep, 100)                                // on the P the task ran on
	p0.Add(deadline, 150)                             // a task submitted with a timeout
	p1.Add(tick, 120)                                 // on the other P
	p0.Reset(sleep, 110)                              // Sleep again, later
	fmt.Println("deadline stopped:", deadline.Stop()) // the task finished in time

	fmt.Println("p0 runs at 105:", p0.Run(105, 64)) // findRunnable at each schedule
	fmt.Println("p0 runs at 130:", p0.Run(130, 64))
	if w := p1.Next(); w != 0 && w <= 130 { // an idle P's steal pass, no lock taken
		fmt.Println("a thief runs p1's:", p1.Run(130, 64))
	}
	fmt.Println("an M may sleep until:", timers.Earliest([]*timers.Heap{&p0, &p1}))
	// Output:
	// deadline stopped: true
	// p0 runs at 105: 0
	// task 1's Sleep fires (arming 2, 20 ns late)
	// p0 runs at 130: 1
	// task 3's Sleep fires (arming 1, 10 ns late)
	// a thief runs p1's: 1
	// an M may sleep until: 0
}
