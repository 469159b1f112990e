package proptest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/internal/proptest"
)

func TestExpectFailureRecordsAFailingProperty(t *testing.T) {
	rec := proptest.ExpectFailure(t, func(t *rapid.T) {
		if n := rapid.IntRange(0, 100).Draw(t, "n"); n > 50 {
			t.Fatalf("n = %d is over 50\nsecond line", n)
		}
	})
	assert.True(t, rec.Failed())
	assert.Contains(t, rec.FirstError(), "is over 50")
	assert.NotContains(t, rec.FirstError(), "second line")
}

func TestExpectFailureReportsAPassingPropertyAsNotFailed(t *testing.T) {
	rec := proptest.ExpectFailure(t, func(t *rapid.T) { rapid.IntRange(0, 10).Draw(t, "n") })
	assert.False(t, rec.Failed())
	assert.Empty(t, rec.Errors())
}
