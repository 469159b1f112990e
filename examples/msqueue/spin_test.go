package msqueue

import (
	"testing"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/exampletest"
)

// spinningConsumer: T0 and T1 enqueue 1 and 2 while T2 dequeues until it gets
// a value, yielding (atomicx.Sleep(0)) whenever it finds the queue empty;
// the check drains the rest. (Spinning for both values costs 11,349 DPOR
// executions, 4 s: one is enough for the spin.)
func spinningConsumer(newQueue func() queue) func() explore.Run {
	return exampletest.ProducersAndConsumer(newQueue, queue.Enqueue, queue.Dequeue, 1)
}

// TestSpinningConsumerGetsEveryValue: the consumer's spin on an empty queue
// always ends, and no value is lost, in DFS and DPOR.
func TestSpinningConsumerGetsEveryValue(t *testing.T) {
	build := spinningConsumer(func() queue { return New() })
	explore.Check(t, explore.Options{Name: "msqueue-spin", Bound: 1}, build)
	explore.Check(t, explore.Options{Name: "msqueue-spin-dpor", Mode: explore.DPOR}, build)
}

// TestSpinningConsumerOnLinkByStoreIsCaught: the store-linking enqueue loses
// a value, in DFS and DPOR.
func TestSpinningConsumerOnLinkByStoreIsCaught(t *testing.T) {
	build := spinningConsumer(func() queue { return &storeLink{New()} })
	explore.CheckFails(t, explore.Options{Name: "msqueue-spin-link-by-store", Bound: 1}, build)
	explore.CheckFails(t, explore.Options{Name: "msqueue-spin-link-by-store-dpor", Mode: explore.DPOR}, build)
}
