// Package treiber is a Treiber stack (R. K. Treiber, 1986) of node indices,
// as a lock-free free list uses it: a node popped by one thread is pushed
// back later, so the same node returns to the top. A pop that compares the
// head by node alone then falls to the ABA problem: between its load of the
// head and its CAS, other threads pop that node, pop the next, push the first
// back; the CAS succeeds and installs a next that is no longer on the stack.
// Here the head carries a version, bumped by every successful CAS, so such a
// CAS fails and the pop retries.
package treiber

import "github.com/schedkit/schedkit/atomicx"

// Stack is a lock-free LIFO stack of the node indices 0 to n-1, each on the
// stack at most once. The zero value is not usable: call New.
type Stack struct {
	// head packs a version (high 32 bits) and the top node's index plus
	// one (low 32 bits; 0: empty). The version makes a head value that
	// comes back after a pop and a push differ from the one read before.
	head atomicx.Uint64
	// next[i] is the index plus one of the node under node i. It is a cell
	// because a pop reads it while another thread may be pushing node i.
	next []atomicx.Uint32
}

// New returns an empty stack for the nodes 0 to n-1.
func New(n int) *Stack { return &Stack{next: make([]atomicx.Uint32, n)} }

// Push puts node i on top. i must not be on the stack.
func (s *Stack) Push(i int) {
	for {
		old := s.head.Load()
		// Written before the CAS publishes the node: a pop that sees i on
		// top must see its next (the CAS orders the two for it).
		s.next[i].Store(uint32(old))
		if s.head.CompareAndSwap(old, pack(old>>32+1, uint32(i)+1)) {
			return
		}
	}
}

// Pop takes the top node, or reports false if the stack is empty.
func (s *Stack) Pop() (int, bool) {
	for {
		old := s.head.Load()
		top := uint32(old)
		if top == 0 {
			return 0, false
		}
		next := s.next[top-1].Load() // may be stale if top was popped meanwhile...
		// ...but then the version moved on and this CAS fails.
		if s.head.CompareAndSwap(old, pack(old>>32+1, next)) {
			return int(top - 1), true
		}
	}
}

func pack(version uint64, top uint32) uint64 { return version<<32 | uint64(top) }
