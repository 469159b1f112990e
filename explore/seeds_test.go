//go:build schedcheck

package explore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// lastWriter: two threads store to x; the label is who stored last.
func lastWriter() explore.Run {
	var x atomicx.Int32
	explore.Name(&x, "x")
	return explore.Run{
		Threads: []func(){func() { x.Store(1) }, func() { x.Store(2) }},
		Outcome: func() string {
			if x.Load() == 1 {
				return "T0 last"
			}
			return "T1 last"
		},
	}
}

// TestSeedsUntilReached: with one execution a seed, one seed reaches one of
// the two last-writer labels; Options.Seeds goes on from the next seeds
// until both are reached (and no further), where Seed alone leaves one
// unreached; a search whose first seed reaches every label runs one seed.
func TestSeedsUntilReached(t *testing.T) {
	both := []string{"T0 last", "T1 last"}
	for _, mode := range []explore.Mode{explore.PCT, explore.Random} {
		one, err := explore.Explore(explore.Options{Name: "seeds", Mode: mode, Seed: 1, MaxExecutions: 1, MustReach: both}, lastWriter)
		require.NoError(t, err)
		assert.Len(t, one.Unreached, 1, "one execution from one seed reaches one label")
		assert.Equal(t, 1, one.SeedsUsed)

		res, err := explore.Explore(explore.Options{Name: "seeds", Mode: mode, Seed: 1, MaxExecutions: 1, MustReach: both, Seeds: 20}, lastWriter)
		require.NoError(t, err)
		assert.Empty(t, res.Unreached, "mode %v: %v", mode, res.Outcomes)
		assert.Greater(t, res.SeedsUsed, 1)
		assert.Less(t, res.SeedsUsed, 20, "it stops at the seed that reaches the last label")
		assert.Equal(t, res.SeedsUsed, res.Executions)

		first, err := explore.Explore(explore.Options{Name: "seeds", Mode: mode, Seed: 1, MaxExecutions: 50, MustReach: both, Seeds: 20}, lastWriter)
		require.NoError(t, err)
		assert.Empty(t, first.Unreached)
		assert.Equal(t, 1, first.SeedsUsed)
		assert.Equal(t, 50, first.Executions)
	}
}
