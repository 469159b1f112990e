package linearize_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/schedkit/schedkit/internal/linearize"
)

func ptrs(vs ...int) []*int {
	out := make([]*int, len(vs))
	for i := range vs {
		out[i] = &vs[i]
	}
	return out
}

func TestItemsAreDistinctWithTheirIDs(t *testing.T) {
	ps := linearize.Items(5, 3)
	assert.Equal(t, []int{5, 6, 7}, linearize.IDs(ps))
	assert.Equal(t, linearize.Seq(5, 3), linearize.IDs(ps))
	assert.NotSame(t, ps[0], ps[1])
	assert.NotSame(t, ps[1], ps[2])
	assert.Equal(t, []int{-2, -1}, linearize.Seq(-2, 2))
	assert.Nil(t, linearize.Items(5, 0))
	assert.Nil(t, linearize.Seq(5, 0), "nil for none, as IDs: Seq(k, 0) equals IDs of nothing")
	assert.Equal(t, linearize.Seq(9, 0), linearize.IDs(linearize.Items(9, 0)))
}

func TestIDsInOrderNilForNone(t *testing.T) {
	assert.Equal(t, []int{3, 1, 2}, linearize.IDs(ptrs(3, 1, 2)))
	assert.Nil(t, linearize.IDs(nil))
	assert.Nil(t, linearize.IDs([]*int{}), "an empty list is nil too, as the zero output")
}

func TestDescribeIDsElidesTheMiddle(t *testing.T) {
	assert.Equal(t, "[]", linearize.DescribeIDs(nil))
	twelve := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	assert.Equal(t, "[0 1 2 3 4 5 6 7 8 9 10 11]", linearize.DescribeIDs(twelve))
	assert.Equal(t, "[0 1 2 3 4 5 ...1 more... 7 8 9 10 11 12]", linearize.DescribeIDs(append(twelve, 12)))
	long := make([]int, 256)
	for i := range long {
		long[i] = 1000 + i
	}
	assert.Equal(t, "[1000 1001 1002 1003 1004 1005 ...244 more... 1250 1251 1252 1253 1254 1255]", linearize.DescribeIDs(long))
}

func TestHashWordsEqualStatesHashAlike(t *testing.T) {
	base := linearize.HashWords([]uint64{7, 1 << 40}, []int{3, -1, 2})
	assert.Equal(t, base, linearize.HashWords([]uint64{7, 1 << 40}, []int{3, -1, 2}), "separately built equal states")
	assert.Equal(t, linearize.HashWords(nil, nil), linearize.HashWords([]uint64{}, []int{}), "nil and empty are one state")
	// Every word, every id and their order count (for these samples: a hash
	// may collide, but a hash that skipped a part would collide on all).
	for name, h := range map[string]uint64{
		"another first word":   linearize.HashWords([]uint64{8, 1 << 40}, []int{3, -1, 2}),
		"another second word":  linearize.HashWords([]uint64{7, 1 << 41}, []int{3, -1, 2}),
		"another id":           linearize.HashWords([]uint64{7, 1 << 40}, []int{3, -1, 4}),
		"ids in another order": linearize.HashWords([]uint64{7, 1 << 40}, []int{3, 2, -1}),
		"one id fewer":         linearize.HashWords([]uint64{7, 1 << 40}, []int{3, -1}),
	} {
		assert.NotEqual(t, base, h, name)
	}
}
