package globalq_test

import (
	"fmt"

	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/lfq"
)

func Example() {
	type task struct{ id int }
	var global globalq.Queue[task]
	var busy, idle lfq.Ring[task] // the rings of two Ps
	// P busy spawns 300 tasks.
	for i := range 300 {
		busy.PutOverflow(&task{i}, &global) // its full ring overflows: one lock for 129 tasks
	}
	fmt.Println(busy.Len(), global.Len())

	// P idle has nothing to run: it takes a batch for itself (2 Ps share the
	// queue, so at most 129/2+1 = 65), runs the first, queues the rest.
	buf := make([]*task, 0, lfq.Size/2)
	run, buf := global.GetBatch(lfq.Size/2, 2, buf[:0])
	idle.PutBatch(buf)
	fmt.Println(run.id, idle.Len(), global.Len(), globalq.FairnessTick(61))
	// Output:
	// 171 129
	// 0 64 64 true
}
