package treiber

import (
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// pool is what the scenario needs of a stack.
type pool interface {
	Push(i int)
	Pop() (int, bool)
	name() // names the cells in traces
}

func (s *Stack) name() { explore.Name(&s.head, "head"); nameNext(s.next) }
func (s *naive) name() { explore.Name(&s.head, "head"); nameNext(s.next) }

func nameNext(next []atomicx.Uint32) {
	for i := range next {
		explore.Name(&next[i], fmt.Sprintf("next[%d]", i))
	}
}

// abaScenario: nodes 2, 1, 0 pushed (0 on top). T0 pops once; T1 pops twice
// and pushes its first node back, the moment a stale CAS of T0 could land.
// Afterwards every node must be in exactly one place: held by T0, held by
// T1, or on the stack.
func abaScenario(newPool func(n int) pool) func() explore.Run {
	return func() explore.Run {
		s := newPool(3)
		s.name()
		for i := 2; i >= 0; i-- {
			s.Push(i)
		}
		var held0, held1 []int
		return explore.Run{
			Threads: []func(){
				func() {
					if i, ok := s.Pop(); ok {
						held0 = append(held0, i)
					}
				},
				func() {
					a, _ := s.Pop()
					b, _ := s.Pop()
					s.Push(a) // node reuse: a returns to the top
					held1 = append(held1, b)
				},
			},
			Check: eachNodeOnce(s, &held0, &held1, 0, 1, 2),
		}
	}
}

// eachNodeOnce is a scenario's check that each of want is in one place:
// held by T0 (held0), by T1 (held1), or on the stack s (drained).
func eachNodeOnce(s pool, held0, held1 *[]int, want ...int) func() error {
	return func() error {
		all := slices.Concat(*held0, *held1)
		for i, ok := s.Pop(); ok; i, ok = s.Pop() {
			all = append(all, i)
		}
		slices.Sort(all)
		if !slices.Equal(all, want) {
			return fmt.Errorf("nodes held by T0 %v, by T1 %v, left on the stack and held: %v (want each of %v once)", *held0, *held1, all, want)
		}
		return nil
	}
}

// TestStackSurvivesABA: every interleaving within two preemptions, and every
// class of interleavings under DPOR, keeps each node in one place.
func TestStackSurvivesABA(t *testing.T) {
	build := abaScenario(func(n int) pool { return New(n) })
	explore.Check(t, explore.Options{Name: "treiber-aba"}, build)
	explore.Check(t, explore.Options{Name: "treiber-aba-dpor", Mode: explore.DPOR}, build)
}

// TestNaiveStackFallsToABA: without the version the explorer finds the ABA
// schedule: T0 reads head 0 and next 1, T1 pops 0 and 1 and pushes 0 back,
// T0's CAS succeeds and puts node 1, which T1 holds, back on the stack.
func TestNaiveStackFallsToABA(t *testing.T) {
	explore.CheckFails(t, explore.Options{Name: "treiber-naive"}, abaScenario(func(n int) pool { return newNaive(n) }))
}

// naive is Stack without the version: the head is the top node alone.
type naive struct {
	head atomicx.Uint32 // index plus one of the top node
	next []atomicx.Uint32
}

func newNaive(n int) *naive { return &naive{next: make([]atomicx.Uint32, n)} }

func (s *naive) Push(i int) {
	for {
		old := s.head.Load()
		s.next[i].Store(old)
		if s.head.CompareAndSwap(old, uint32(i)+1) {
			return
		}
	}
}

func (s *naive) Pop() (int, bool) {
	for {
		top := s.head.Load()
		if top == 0 {
			return 0, false
		}
		next := s.next[top-1].Load()
		// The bug: top may have been popped and pushed back since the load,
		// with another next; the CAS cannot tell.
		if s.head.CompareAndSwap(top, next) {
			return int(top - 1), true
		}
	}
}
