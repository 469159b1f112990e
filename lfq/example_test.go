package lfq_test

import (
	"fmt"

	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/lfq"
)

func Example() {
	type task struct{ id int }
	var global globalq.Queue[task]  // where a full ring's older half goes
	var mine, theirs lfq.Ring[task] // each owned by one worker
	for i := range 300 {
		mine.PutOverflow(&task{i}, &global) // the 257th put moves 129 tasks to global
	}
	run := mine.StealHalf(&theirs) // another worker takes half into its own ring
	fmt.Println(global.Len(), mine.Len(), theirs.Len(), run.id, mine.Get().id)
	// Output: 129 85 85 213 214
}

// Put with a reused buffer: allocation-free overflow, as the executor does.
// The result is nil unless the ring was full, and then it is the batch.
func ExampleRing_Put() {
	var r lfq.Ring[int]
	var global globalq.Queue[int]
	buf := make([]*int, 0, lfq.OverflowLen)
	for i := range 1000 {
		if over := r.Put(&i, buf[:0]); over != nil {
			global.PutBatch(over) // the caller must hand the batch on
			buf = over
		}
	}
	fmt.Println(r.Len(), global.Len())
	// Output: 226 774
}
