package vyukovq

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/explore"
)

// TestPublishBeforeValueIsADataRace: the slot's value is plain memory, so
// the producer that publishes the sequence before it stores the value is
// a data race between its store and the consumer's load, reported by the
// explorer with both steps, before any stale value need be read. The
// correct queue (TestQueueHandsEachValueOver) runs race-free.
func TestPublishBeforeValueIsADataRace(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "vyukovq-publish-first-race", Mode: explore.DPOR},
		producersAndConsumer(func() queue {
			q := &publishFirst{lapped()}
			explore.Name(&q.slots, "slots")
			return q
		}))
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip("needs -tags schedcheck")
	}
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	var dr *explore.DataRaceError
	require.True(t, errors.As(res.Failure.Err, &dr), "%v", res.Failure.Err)
	require.Regexp(t, `^slots\[[01]\]\.value$`, dr.Cell)
	t.Log(res.Failure)
}
