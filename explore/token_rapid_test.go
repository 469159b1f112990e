package explore_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/explore"
)

// TestTokenRoundTripRapid: every schedule (threads 0 to MaxThreads-1, runs
// from one step to tens of thousands, long enough for deflate's window and
// its long matches) reads back from its compact token step for step, and
// from its long form too.
func TestTokenRoundTripRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		runs := rapid.SliceOfN(rapid.Custom(func(rt *rapid.T) [2]int {
			return [2]int{rapid.IntRange(0, explore.MaxThreads-1).Draw(rt, "thread"),
				rapid.OneOf(rapid.IntRange(1, 3), rapid.IntRange(1, 200), rapid.IntRange(1000, 40000)).Draw(rt, "count")}
		}), 0, 60).Draw(rt, "runs")
		var s []uint8
		for _, r := range runs {
			for range r[1] {
				s = append(s, uint8(r[0]))
			}
		}
		tok := explore.EncodeToken(s)
		back, err := explore.ParseSchedule(tok)
		require.NoError(rt, err)
		if s == nil {
			s = []uint8{}
		}
		require.Equal(rt, s, back, "token %s", tok)
		back, err = explore.ParseSchedule(explore.EncodeSchedule(s))
		require.NoError(rt, err)
		require.Equal(rt, s, back)
	})
}

// TestTokenOfTheTaskchanFlake: the token of the one unexplained failure
// (taskchan's select-vs-two-senders-task, step limit at PCT execution 279)
// decodes to a schedule whose token is itself: the token was not mangled.
func TestTokenOfTheTaskchanFlake(t *testing.T) {
	const tok = "zADIxMDQNM5UBiAPBB7AChQGpBrAC8QaFAUGdAYsBwcsE"
	s, err := explore.ParseSchedule(tok)
	require.NoError(t, err)
	require.Equal(t, tok, explore.EncodeToken(s))
	t.Logf("%d steps: %s", len(s), explore.EncodeSchedule(s))
}
