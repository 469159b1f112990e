package killmatrix_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/internal/killmatrix"
)

// TestByExplorerRunsOnlyWithTheExplorer: with -tags schedcheck the
// explorations run and their verdict is the cell's; without it they are not
// called and the cell reads n/a, not a kill.
func TestByExplorerRunsOnlyWithTheExplorer(t *testing.T) {
	caught := errors.New("execution 3 failed")
	ran := false
	err := killmatrix.ByExplorer(func() error { ran = true; return caught })
	if !schedcheckBuild {
		assert.ErrorIs(t, err, killmatrix.ErrNotApplicable)
		assert.False(t, ran, "explorations ran in a build without the explorer")
		return
	}
	assert.ErrorIs(t, err, caught)
	assert.True(t, ran)
	assert.NoError(t, killmatrix.ByExplorer(func() error { return nil }), "a survivor is no kill")
}

// TestByModelCatchesAFailingProperty: a property rapid refutes is a kill
// whose reason is the first line of the first message; one it cannot is
// none.
func TestByModelCatchesAFailingProperty(t *testing.T) {
	err := killmatrix.ByModel(t, func(t *rapid.T) {
		if n := rapid.IntRange(0, 100).Draw(t, "n"); n > 50 {
			t.Fatalf("n = %d is over 50\nsecond line", n)
		}
	})
	assert.ErrorContains(t, err, "is over 50")
	assert.NotContains(t, err.Error(), "second line")
	assert.NoError(t, killmatrix.ByModel(t, func(t *rapid.T) { rapid.IntRange(0, 10).Draw(t, "n") }))
}
