package explore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/schedkit/schedkit/explore"
)

// TestLongFollowsShortAndTheEnvironment: long mode is go test without
// -short, as the stress tests read it, unless SCHEDKIT_LONG says 1 or 0.
func TestLongFollowsShortAndTheEnvironment(t *testing.T) {
	t.Setenv(explore.LongEnv, "")
	assert.Equal(t, !testing.Short(), explore.Long())
	t.Setenv(explore.LongEnv, "1")
	assert.True(t, explore.Long())
	t.Setenv(explore.LongEnv, "0")
	assert.False(t, explore.Long())
}
