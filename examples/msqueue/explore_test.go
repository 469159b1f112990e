package msqueue

import (
	"testing"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/exampletest"
)

type queue interface {
	Enqueue(v int)
	Dequeue() (int, bool)
}

// twoEnqueuersOneDequeuer: T0 and T1 enqueue 1 and 2 while T2 dequeues
// once. Every value must come out exactly once: from T2 or from draining
// the queue afterwards.
func twoEnqueuersOneDequeuer(newQueue func() queue) func() explore.Run {
	return exampletest.ProducersAndConsumer(newQueue, queue.Enqueue, queue.Dequeue, 0)
}

func TestQueueKeepsEveryValue(t *testing.T) {
	build := twoEnqueuersOneDequeuer(func() queue { return New() })
	explore.Check(t, explore.Options{Name: "msqueue"}, build)
	explore.Check(t, explore.Options{Name: "msqueue-dpor", Mode: explore.DPOR}, build)
}

// TestLinkByStoreLosesAValue: linking with a store after seeing next == nil
// (check, then act) lets two enqueuers both link to the same last node; the
// second store overwrites the first, and its value is lost.
func TestLinkByStoreLosesAValue(t *testing.T) {
	explore.CheckFails(t, explore.Options{Name: "msqueue-link-by-store"}, twoEnqueuersOneDequeuer(func() queue { return &storeLink{New()} }))
}

// storeLink is Queue with the link done by a store instead of a CAS.
type storeLink struct{ *Queue }

func (q *storeLink) Enqueue(v int) {
	n := new(node)
	n.value.Store(v)
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
		tail.next.Store(n) // the bug: another enqueuer may have linked since the load
		q.tail.CompareAndSwap(tail, n)
		return
	}
}
