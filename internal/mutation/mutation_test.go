package mutation_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/internal/mutation"
)

type fault uint8

func TestSelectSetsAndRestores(t *testing.T) {
	names := []string{"none", "A", "B"}
	var cur fault
	restore, err := mutation.Select("x", names, &cur, "B")
	require.NoError(t, err)
	assert.Equal(t, fault(2), cur)
	restore()
	assert.Equal(t, fault(0), cur)
}

func TestSelectRejectsUnknownNames(t *testing.T) {
	var cur fault = 1
	_, err := mutation.Select("x", []string{"none", "A"}, &cur, "Z")
	assert.EqualError(t, err, `x: no mutation named "Z" (have [A])`)
	assert.Equal(t, fault(1), cur, "unchanged")
}
