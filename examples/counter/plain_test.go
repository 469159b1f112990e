package counter

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/exampletest"
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
	res, dr := exampletest.DataRace(t, explore.Options{Name: "counter-plain"}, plainCounter(false))
	require.Equal(t, "counter", dr.Cell)
	require.Equal(t, 1, res.Failure.Execution)
}
