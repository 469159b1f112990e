package vyukovq

import (
	"testing"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/exampletest"
)

// spinningConsumer: on a lapped queue of two slots, T0 and T1 enqueue 1 and
// 2 while T2 dequeues until it has two values, yielding whenever Dequeue
// finds no published slot.
func spinningConsumer(newQueue func() queue) func() explore.Run {
	return exampletest.ProducersAndConsumer(newQueue, func(q queue, v uint64) { q.Enqueue(v) }, queue.Dequeue, 2)
}

// TestSpinningConsumerGetsEveryValue: the consumer's spin always ends with
// both values, in DFS and DPOR.
func TestSpinningConsumerGetsEveryValue(t *testing.T) {
	build := spinningConsumer(func() queue { return lapped() })
	explore.Check(t, explore.Options{Name: "vyukovq-spin"}, build)
	explore.Check(t, explore.Options{Name: "vyukovq-spin-dpor", Mode: explore.DPOR}, build)
}

// TestSpinningConsumerReadsStale: with the sequence published before the
// value, the spinning consumer reads the slot's plain value while the
// producer's store to it is unordered with its read: a data race, reported
// in the first execution (without the race check it would take the 7 the
// last lap left).
func TestSpinningConsumerReadsStale(t *testing.T) {
	build := spinningConsumer(func() queue { return &publishFirst{lapped()} })
	explore.CheckFails(t, explore.Options{Name: "vyukovq-spin-publish-first"}, build)
	explore.CheckFails(t, explore.Options{Name: "vyukovq-spin-publish-first-dpor", Mode: explore.DPOR}, build)
}
