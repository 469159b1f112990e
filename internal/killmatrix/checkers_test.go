package killmatrix_test

import (
	"errors"
	"fmt"
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

// TestModelCatchWantsTheReason: a catch for the expected reason gives its
// first line; no failure, or a failure for another reason, is an error.
func TestModelCatchWantsTheReason(t *testing.T) {
	over50 := func(t *rapid.T) {
		if n := rapid.IntRange(0, 100).Draw(t, "n"); n > 50 {
			t.Fatalf("n = %d is over 50\nsecond line", n)
		}
	}
	first, err := killmatrix.ModelCatch(t, over50, "second line")
	assert.NoError(t, err)
	assert.Contains(t, first, "is over 50")
	assert.NotContains(t, first, "second line")

	_, err = killmatrix.ModelCatch(t, over50, "under 10")
	assert.ErrorContains(t, err, `not for the expected reason "under 10"`)
	assert.ErrorContains(t, err, "is over 50", "the error shows what it failed for")

	_, err = killmatrix.ModelCatch(t, func(t *rapid.T) { rapid.IntRange(0, 10).Draw(t, "n") }, "over 50")
	assert.Error(t, err)
	assert.Regexp(t, `^rapid did not catch it in [1-9][0-9]* cases$`, err.Error(), "counts the cases rapid tried (1000, a fifth under -short)")
}

// TestLadderMarksEachRung: the columns come in the table's order, each run
// by the body given for its rung, only the explorer, the model and the
// scenarios deterministic; a rung not given has no column.
func TestLadderMarksEachRung(t *testing.T) {
	body := func(name string) func(*testing.T) error {
		return func(*testing.T) error { return errors.New(name) }
	}
	cs := killmatrix.Ladder{
		Explorer: body("explorer"), Model: body("model"), Scenarios: body("scenarios"),
		Stress: body("stress"), Linearize: body("linearize"),
	}.Checkers()
	var got []string
	for _, c := range cs {
		assert.EqualError(t, c.Run(t), c.Name, "column %s runs another rung's body", c.Name)
		got = append(got, fmt.Sprintf("%s %v", c.Name, c.Deterministic))
	}
	assert.Equal(t, []string{"explorer true", "model true", "scenarios true", "stress false", "linearize false"}, got)

	cs = killmatrix.Ladder{Explorer: body("explorer"), Stress: body("stress")}.Checkers()
	assert.Len(t, cs, 2)
	assert.Equal(t, "stress", cs[1].Name)
	assert.False(t, cs[1].Deterministic)
}
