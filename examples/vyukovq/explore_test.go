package vyukovq

import (
	"testing"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/exampletest"
)

type queue interface {
	Enqueue(v uint64) bool
	Dequeue() (uint64, bool)
}

// producersAndConsumer: T0 and T1 enqueue 1 and 2 into a queue of two
// slots that has already gone round once, while T2 dequeues once. Each
// value must come out once, and never a value nobody enqueued.
func producersAndConsumer(newQueue func() queue) func() explore.Run {
	return exampletest.ProducersAndConsumer(newQueue, func(q queue, v uint64) { q.Enqueue(v) }, queue.Dequeue, 0)
}

// lapped returns a queue of two slots whose positions have gone round once.
func lapped() *Queue {
	q := New(2)
	for range 2 {
		q.Enqueue(7)
		q.Dequeue()
	}
	return q
}

func TestQueueHandsEachValueOver(t *testing.T) {
	build := producersAndConsumer(func() queue { return lapped() })
	explore.Check(t, explore.Options{Name: "vyukovq"}, build)
	explore.Check(t, explore.Options{Name: "vyukovq-dpor", Mode: explore.DPOR}, build)
}

// TestPublishBeforeValueReadsStale: a producer that sets the sequence before
// it stores the value lets the consumer claim the slot and read what the
// last lap left there.
func TestPublishBeforeValueReadsStale(t *testing.T) {
	explore.CheckFails(t, explore.Options{Name: "vyukovq-publish-first"}, producersAndConsumer(func() queue { return &publishFirst{lapped()} }))
}

// publishFirst is Queue with the producer's two stores swapped.
type publishFirst struct{ *Queue }

func (q *publishFirst) Enqueue(v uint64) bool {
	pos := q.enqueuer.Load()
	for {
		s := &q.slots[pos&q.mask]
		switch seq := s.seq.Load(); {
		case seq == pos:
			if q.enqueuer.CompareAndSwap(pos, pos+1) {
				s.seq.Store(pos + 1) // the bug: published before the value is there
				s.value.Store(v)
				return true
			}
			pos = q.enqueuer.Load()
		case seq < pos:
			return false
		default:
			pos = q.enqueuer.Load()
		}
	}
}
