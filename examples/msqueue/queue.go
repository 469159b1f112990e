// Package msqueue is the Michael-Scott lock-free FIFO queue (M. M. Michael
// and M. L. Scott, PODC 1996): a linked list with a dummy node, a head that
// dequeuers advance and a tail that may lag one node behind the last, so
// that every thread helps a half-done enqueue finish instead of waiting.
// Nodes are garbage collected, so the ABA problem of the paper's free list
// does not arise here.
package msqueue

import "github.com/schedkit/schedkit/atomicx"

type node struct {
	value atomicx.Plain[int] // plain memory: written before the CAS that publishes the node
	next  atomicx.Pointer[node]
}

// Queue is an unbounded lock-free FIFO queue of ints. The zero value is not
// usable: call New.
type Queue struct {
	head atomicx.Pointer[node] // the dummy: its successor holds the first value
	tail atomicx.Pointer[node] // the last node, or the one before it
}

// New returns an empty queue.
func New() *Queue {
	q := new(Queue)
	dummy := new(node)
	q.head.Store(dummy)
	q.tail.Store(dummy)
	return q
}

// Enqueue appends v.
func (q *Queue) Enqueue(v int) {
	n := new(node)
	n.value.Store(v) // before the CAS that publishes n: a dequeuer that loads n from a next sees it
	for {
		tail := q.tail.Load()
		next := tail.next.Load()
		if tail != q.tail.Load() {
			continue // tail moved on between the two loads: read again
		}
		if next != nil {
			// Another enqueue linked its node but has not swung the tail
			// yet: help it, or we could spin behind it forever.
			q.tail.CompareAndSwap(tail, next)
			continue
		}
		// The link is a CAS from nil: of two enqueuers that both saw the
		// end, exactly one links there and the other retries.
		if tail.next.CompareAndSwap(nil, n) {
			q.tail.CompareAndSwap(tail, n) // may fail: someone helped
			return
		}
	}
}

// Dequeue removes the first value, or reports false if the queue is empty.
func (q *Queue) Dequeue() (int, bool) {
	for {
		head := q.head.Load()
		tail := q.tail.Load()
		next := head.next.Load()
		if head != q.head.Load() {
			continue
		}
		if head == tail {
			if next == nil {
				return 0, false
			}
			// The tail lags behind a linked node: help before the head
			// passes it.
			q.tail.CompareAndSwap(tail, next)
			continue
		}
		v := next.value.Load() // read before the CAS: after it, next is the dummy
		if q.head.CompareAndSwap(head, next) {
			return v, true
		}
	}
}
