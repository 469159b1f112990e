package counter

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// plainCounter: two threads increment a plain counter (atomicx.Plain), under
// a Mutex or not.
func plainCounter(locked bool) func() explore.Run {
	return func() explore.Run {
		var mu atomicx.Mutex
		var n atomicx.Plain[int64]
		explore.Name(&n, "counter")
		inc := func() {
			if locked {
				mu.Lock()
				defer mu.Unlock()
			}
			n.Store(n.Load() + 1)
		}
		return explore.Run{Threads: []func(){inc, inc}}
	}
}

// TestPlainCounterUnderMutexIsRaceFree and TestPlainCounterIsADataRace: a
// plain counter is right under a Mutex (Unlock then Lock orders the two
// increments) and a data race without one, reported with both accesses in
// the first execution, whatever the interleaving does to the count.
func TestPlainCounterUnderMutexIsRaceFree(t *testing.T) {
	explore.Check(t, explore.Options{Mode: explore.DPOR}, plainCounter(true))
}

func TestPlainCounterIsADataRace(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "counter-plain"}, plainCounter(false))
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip("needs -tags schedcheck")
	}
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	var dr *explore.DataRaceError
	require.True(t, errors.As(res.Failure.Err, &dr), "%v", res.Failure.Err)
	require.Equal(t, "counter", dr.Cell)
	require.Equal(t, 1, res.Failure.Execution)
	t.Log(res.Failure)
}
