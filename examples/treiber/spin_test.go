package treiber

import (
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// spinningPopper: nodes 1 and 0 on the stack (0 on top). T1 pops both and
// pushes its first back; T0 pops until it gets a node, yielding while the
// stack is empty (after T1's two pops). Each node must end in one place:
// held by T0, held by T1, or on the stack.
func spinningPopper(newPool func(n int) pool) func() explore.Run {
	return func() explore.Run {
		s := newPool(2)
		s.name()
		s.Push(1)
		s.Push(0)
		var held0, held1 []int
		return explore.Run{
			Threads: []func(){
				func() {
					for {
						if i, ok := s.Pop(); ok {
							held0 = append(held0, i)
							return
						}
						atomicx.Sleep(0) // empty: wait for T1's push
					}
				},
				func() {
					a, okA := s.Pop()
					b, okB := s.Pop() // fails if T0 got a node first
					if okA {
						s.Push(a)
					}
					if okB {
						held1 = append(held1, b)
					}
				},
			},
			Check: eachNodeOnce(s, &held0, &held1, 0, 1),
		}
	}
}

// TestSpinningPopperKeepsEachNode: T0's spin on the empty stack always ends,
// and the versioned head keeps each node in one place, in DFS and DPOR.
func TestSpinningPopperKeepsEachNode(t *testing.T) {
	build := spinningPopper(func(n int) pool { return New(n) })
	explore.Check(t, explore.Options{Name: "treiber-spin"}, build)
	explore.Check(t, explore.Options{Name: "treiber-spin-dpor", Mode: explore.DPOR}, build)
}

// TestSpinningPopperOnNaiveStackFallsToABA: without the version, T0's stale
// CAS (head 0, next 1, read before T1's pops) lands after T1 pushed 0 back
// and puts node 1, which T1 holds, on the stack.
func TestSpinningPopperOnNaiveStackFallsToABA(t *testing.T) {
	build := spinningPopper(func(n int) pool { return newNaive(n) })
	explore.CheckFails(t, explore.Options{Name: "treiber-spin-naive"}, build)
	explore.CheckFails(t, explore.Options{Name: "treiber-spin-naive-dpor", Mode: explore.DPOR}, build)
}
