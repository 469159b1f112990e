package msqueue

import (
	"testing"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/exampletest"
)

// valueAfterLink is Queue with the node's value stored after the CAS that
// links the node: a dequeuer that finds the node reads the value with
// nothing ordering the store before it.
type valueAfterLink struct{ *Queue }

func (q *valueAfterLink) Enqueue(v int) {
	n := new(node)
	for {
		tail := q.tail.Load()
		next := tail.next.Load()
		if tail != q.tail.Load() {
			continue
		}
		if next != nil {
			q.tail.CompareAndSwap(tail, next)
			continue
		}
		if tail.next.CompareAndSwap(nil, n) {
			n.value.Store(v) // the bug: the node is already published
			q.tail.CompareAndSwap(tail, n)
			return
		}
	}
}

// TestValueAfterLinkIsADataRace: the node's value is plain memory, so the
// explorer reports the late store against a dequeuer's read as a data race
// (the correct queue runs race-free in TestQueueKeepsEveryValue).
func TestValueAfterLinkIsADataRace(t *testing.T) {
	exampletest.DataRace(t, explore.Options{Name: "msqueue-value-after-link", Mode: explore.DPOR},
		twoEnqueuersOneDequeuer(func() queue { return &valueAfterLink{New()} }))
}
