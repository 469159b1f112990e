package stealing_test

import (
	"fmt"

	"github.com/schedkit/schedkit/runnext"
	"github.com/schedkit/schedkit/stealing"
)

func Example() {
	type task struct{ id int }
	ps := make([]*runnext.Queue[task], 4) // one run queue per P
	for i := range ps {
		ps[i] = new(runnext.Queue[task])
	}
	idle, _ := stealing.NewIdleMask(len(ps))
	s, err := stealing.New(ps, idle)
	if err != nil {
		panic(err)
	}
	for i := range 8 {
		ps[2].Put(&task{i}, nil) // P 2 is busy
	}
	ps[3].PutNext(&task{100}, nil) // P 3 has only the task it runs next
	idle.Set(1)                    // P 1 is idle

	r := uint32(0)
	rand := func() uint32 { r += 5; return r } // any random source will do
	t := s.Steal(0, rand)                      // P 0's queue is empty: steal
	fmt.Println("P 0 runs", t.id, "and holds", ps[0].Len(), "more; P 2 keeps", ps[2].Len())

	for ps[2].Len() > 0 { // P 2 runs its tasks, P 0 too
		ps[2].Get()
	}
	for ps[0].Len() > 0 {
		ps[0].Get()
	}
	t = s.Steal(0, rand) // only P 3's runnext task is left: taken on the last pass
	fmt.Println("P 0 runs", t.id)
	fmt.Println(s.Steal(0, rand) == nil) // nothing left anywhere
	// Output:
	// P 0 runs 3 and holds 3 more; P 2 keeps 4
	// P 0 runs 100
	// true
}
