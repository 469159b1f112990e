package runnext_test

import (
	"fmt"

	"github.com/schedkit/schedkit/runnext"
)

func Example() {
	type task struct{ id int }
	var mine, theirs runnext.Queue[task] // each owned by one worker
	mine.Put(&task{1}, nil)
	mine.PutNext(&task{2}, nil) // spawned: runs next
	mine.PutNext(&task{3}, nil) // spawned: runs next; task 2 goes to the ring's tail

	t, inherit := mine.Get()
	fmt.Println(t.id, inherit) // the runnext task, in the current time slice

	stolen := mine.StealHalf(&theirs, false) // the other worker steals from the ring
	fmt.Println(stolen.id, mine.Len(), mine.Empty())
	// Output:
	// 3 true
	// 1 1 false
}
