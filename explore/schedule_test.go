package explore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/explore"
)

func TestScheduleFormat(t *testing.T) {
	assert.Equal(t, "-", explore.EncodeSchedule(nil))
	assert.Equal(t, "0", explore.EncodeSchedule([]uint8{0}))
	assert.Equal(t, "0x3.1x2.0", explore.EncodeSchedule([]uint8{0, 0, 0, 1, 1, 0}))
	assert.Equal(t, "2.0.1x12", explore.EncodeSchedule([]uint8{2, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}))
	s, err := explore.ParseSchedule(" 0x2.3 ")
	require.NoError(t, err)
	assert.Equal(t, []uint8{0, 0, 3}, s)
	for _, bad := range []string{"", ".", "0..1", "x2", "0x", "0x0", "1x-1", "8", "-1", "0.a"} {
		_, err := explore.ParseSchedule(bad)
		assert.Error(t, err, bad)
	}
}

func TestScheduleRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.SliceOf(rapid.Uint8Range(0, explore.MaxThreads-1)).Draw(t, "schedule")
		got, err := explore.ParseSchedule(explore.EncodeSchedule(s))
		require.NoError(t, err)
		assert.Equal(t, len(s), len(got))
		assert.Equal(t, s, append(s[:0:0], got...))
	})
}
