package vyukovq

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/exampletest"
)

// TestPublishBeforeValueIsADataRace: the slot's value is plain memory, so
// the producer that publishes the sequence before it stores the value is
// a data race between its store and the consumer's load, reported by the
// explorer with both steps, before any stale value need be read. The
// correct queue (TestQueueHandsEachValueOver) runs race-free.
func TestPublishBeforeValueIsADataRace(t *testing.T) {
	_, dr := exampletest.DataRace(t, explore.Options{Name: "vyukovq-publish-first-race", Mode: explore.DPOR},
		producersAndConsumer(func() queue {
			q := &publishFirst{lapped()}
			explore.Name(&q.slots, "slots")
			return q
		}))
	require.Regexp(t, `^slots\[[01]\]\.value$`, dr.Cell)
}
