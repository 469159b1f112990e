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

// TestExpectPanicFails proves ExpectPanic can fail: no panic, and a panic
// whose message lacks the call, are each a failure naming the step.
func TestExpectPanicFails(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func()
		want string // in the failure; "" for none
	}{
		{"names the call", func() { panic("q: Ring.Put called with a nil item") }, ""},
		{"no panic", func() {}, "step: did not panic"},
		{"another message", func() { panic("index out of range") }, `step: panicked with "index out of range"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := proptest.ExpectFailure(t, func(t *rapid.T) {
				proptest.ExpectPanic(t, "step", "Ring.Put called", c.f)
			})
			if c.want == "" {
				assert.False(t, rec.Failed(), rec.Errors())
				return
			}
			assert.True(t, rec.Failed())
			assert.Contains(t, rec.FirstError(), c.want)
		})
	}
	assert.Equal(t, "x", proptest.Panicked(func() { panic("x") }))
	assert.Nil(t, proptest.Panicked(func() {}))
}
