package spinning_test

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/schedkit/schedkit/spinning"
)

// An executor in miniature: two Ms over one P and one queue. The Ms start
// parked; each Submit publishes a task and wakes a spinning M if none
// spins; an M that runs out of work drops spinning, re-checks the queue and
// parks. Shutdown lets the parked Ms exit.
func Example() {
	var (
		mu     sync.Mutex
		queue  []func()
		queued atomic.Int32
	)
	pop := func() func() {
		mu.Lock()
		defer mu.Unlock()
		if len(queue) == 0 {
			return nil
		}
		t := queue[0]
		queue = queue[1:]
		queued.Add(-1)
		return t
	}
	s, err := spinning.New(spinning.Config{Procs: 1, Work: func() bool { return queued.Load() > 0 }})
	if err != nil {
		panic(err)
	}
	var ms sync.WaitGroup
	for range 2 {
		m := s.NewM()
		ms.Go(func() { // the M's schedule loop
			if !m.StopM() {
				return
			}
			for {
				t := pop()
				if t == nil && m.BecomeSpinning() {
					t = pop() // a spinning M would steal from other Ps here
				}
				if t != nil {
					if m.Spinning() {
						m.ResetSpinning()
					}
					t()
					continue
				}
				if !m.ReleaseP() {
					continue // needspinning: spin instead of idling the P
				}
				if m.DropSpinning() {
					continue // work appeared while dropping
				}
				if !m.StopM() {
					return // Shutdown
				}
			}
		})
	}

	var ran sync.WaitGroup
	results := make([]int, 3)
	for i := range results {
		ran.Add(1)
		s.Submit(func() {
			mu.Lock()
			queue = append(queue, func() { results[i] = i * i; ran.Done() })
			queued.Add(1)
			mu.Unlock()
		})
	}
	ran.Wait()
	s.Shutdown()
	ms.Wait()
	fmt.Println(results, s.NMSpinning(), s.NPIdle())
	// Output: [0 1 4] 0 1
}
