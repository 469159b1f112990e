package exactlyonce_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/schedkit/schedkit/internal/exactlyonce"
)

func tally(cs ...int32) []atomic.Int32 {
	out := make([]atomic.Int32, len(cs))
	for i, c := range cs {
		out[i].Store(c)
	}
	return out
}

func TestCheckAcceptsAnExactTally(t *testing.T) {
	assert.NoError(t, exactlyonce.Check(tally(1, 1, 1)))
	assert.NoError(t, exactlyonce.Check(nil))
}

func TestCheckReportsLossAndDuplication(t *testing.T) {
	err := exactlyonce.Check(tally(1, 0, 2, 1))
	assert.ErrorContains(t, err, "1 items never consumed, first ids [1]")
	assert.ErrorContains(t, err, "1 items consumed more than once, first ids [2]")
	assert.NotContains(t, err.Error(), "consumptions of", "one lost and one doubled still total 4")
	assert.ErrorContains(t, exactlyonce.Check(tally(1, 3)), "4 consumptions of 2 items")
}
