package lfq_test

import (
	"fmt"

	"github.com/schedkit/schedkit/lfq"
)

func Example() {
	type task struct{ id int }
	var mine, theirs lfq.Ring[task] // each owned by one worker
	for i := range 300 {
		if spill := mine.Put(&task{i}, nil); spill != nil {
			fmt.Println("full: hand on a batch of", len(spill)) // to a global queue
		}
	}
	run := mine.StealHalf(&theirs) // the other worker steals half, runs one
	fmt.Println(mine.Len(), theirs.Len(), run.id, mine.Get().id)
	// Output:
	// full: hand on a batch of 129
	// 85 85 213 214
}
