//go:build !schedcheck

package explore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/explore"
)

// Without -tags schedcheck atomicx calls no hook: Explore says so and Check
// skips, so scenario tests need no build tag of their own.
func TestWithoutSchedcheckExploreRefusesAndCheckSkips(t *testing.T) {
	_, err := explore.Explore(explore.Options{}, func() explore.Run { return explore.Run{Threads: []func(){func() {}}} })
	require.ErrorIs(t, err, explore.ErrNoSchedcheck)
	assert.False(t, explore.Available())

	skipped := false
	t.Run("check", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		explore.Check(t, explore.Options{}, func() explore.Run { return explore.Run{Threads: []func(){func() {}}} })
	})
	assert.True(t, skipped)
}
