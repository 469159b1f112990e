package stealing_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/stealing"
)

// refGCD is the test's own Euclid, independent of the package's.
func refGCD(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// refCoprimes lists the strides in 1..n coprime with n, by definition.
func refCoprimes(n int) []uint32 {
	var out []uint32
	for s := 1; s <= n; s++ {
		if refGCD(s, n) == 1 {
			out = append(out, uint32(s))
		}
	}
	return out
}

// TestOrderIsAPermutationForEveryPCount proves the victim order: for every
// P count n in 1..256, the strides are exactly those coprime with n, every
// (start, stride) pair is what Start gives for exactly one r in
// 0..n*len(strides)-1, and every one of those enumerations visits each of
// the n Ps exactly once.
func TestOrderIsAPermutationForEveryPCount(t *testing.T) {
	const maxN = 256
	enums, steps := 0, 0
	for n := 1; n <= maxN; n++ {
		var o stealing.Order
		require.NoError(t, o.Reset(n))
		require.Equal(t, n, o.Count())
		strides := o.Coprimes()
		require.Equal(t, refCoprimes(n), strides, "n = %d", n)
		pairs := make([]bool, n*(n+1)) // [start*(n+1)+stride]
		for r := uint32(0); r < uint32(n*len(strides)); r++ {
			e := o.Start(r)
			start, stride := e.Position(), e.Stride()
			if start < 0 || start >= n || stride < 1 || stride > n {
				t.Fatalf("n = %d: r = %d gives start %d stride %d", n, r, start, stride)
			}
			if pairs[start*(n+1)+stride] {
				t.Fatalf("n = %d: r = %d repeats start %d stride %d", n, r, start, stride)
			}
			pairs[start*(n+1)+stride] = true
			if p, visits := firstRepeat(e, n); p >= 0 || visits != n {
				t.Fatalf("n = %d, start %d, stride %d: P %d visited twice, or %d visits", n, start, stride, p, visits)
			}
			enums++
			steps += n
		}
		// Every start and every coprime stride came up.
		for start := range n {
			for _, s := range strides {
				if !pairs[start*(n+1)+int(s)] {
					t.Fatalf("n = %d: no r gives start %d stride %d", n, start, s)
				}
			}
		}
	}
	t.Logf("order: %d enumerations (every start, every coprime stride, P counts 1..%d; %d visits) are permutations", enums, maxN, steps)
}

// firstRepeat runs e to its end over n <= 256 Ps and returns the first P
// it visits twice (-1 if none) and the number of visits. The visited set is
// four words in registers, not an array: this runs 3.4 million
// enumerations, and under the race detector every memory access counts.
func firstRepeat(e stealing.Enum, n int) (repeat, visits int) {
	var w0, w1, w2, w3 uint64
	for ; !e.Done(); e = e.Next() {
		p := e.Position()
		if p < 0 || p >= n {
			return p, visits
		}
		bit := uint64(1) << (p % 64)
		var had uint64
		switch p / 64 {
		case 0:
			had, w0 = w0&bit, w0|bit
		case 1:
			had, w1 = w1&bit, w1|bit
		case 2:
			had, w2 = w2&bit, w2|bit
		default:
			had, w3 = w3&bit, w3|bit
		}
		if had != 0 {
			return p, visits
		}
		visits++
	}
	return -1, visits
}

// TestOrderStartWrapsAroundTheStrides checks Start's choice for r beyond
// n*len(strides): the stride index wraps, the start stays r % n.
func TestOrderStartWrapsAroundTheStrides(t *testing.T) {
	var o stealing.Order
	require.NoError(t, o.Reset(10)) // strides 1, 3, 7, 9
	for _, r := range []uint32{0, 7, 39, 40, 41, 1<<32 - 1} {
		e := o.Start(r)
		assert.Equal(t, int(r%10), e.Position(), "r = %d", r)
		assert.Equal(t, int([]uint32{1, 3, 7, 9}[r/10%4]), e.Stride(), "r = %d", r)
	}
}

func TestOrderResetBadCounts(t *testing.T) {
	var o stealing.Order
	require.NoError(t, o.Reset(3))
	for _, n := range []int{0, -1, stealing.MaxProcs + 1} {
		err := o.Reset(n)
		require.Error(t, err, "n = %d", n)
		assert.True(t, errors.Is(err, stealing.ErrProcCount))
		assert.Contains(t, err.Error(), "Order.Reset")
		assert.Equal(t, 3, o.Count(), "a failed Reset leaves the order as it was")
	}
	require.NoError(t, o.Reset(stealing.MaxProcs))
	assert.Len(t, o.Coprimes(), stealing.MaxProcs/2) // a power of two: the odd strides
}

func TestOrderResetAgainShrinks(t *testing.T) {
	var o stealing.Order
	require.NoError(t, o.Reset(12))
	require.NoError(t, o.Reset(4))
	assert.Equal(t, []uint32{1, 3}, o.Coprimes())
	require.NoError(t, o.Reset(1))
	assert.Equal(t, []uint32{1}, o.Coprimes())
	e := o.Start(12345)
	assert.Equal(t, 0, e.Position())
	assert.False(t, e.Done())
	assert.True(t, e.Next().Done())
}

func TestOrderStartWithoutResetPanics(t *testing.T) {
	var o stealing.Order
	assert.PanicsWithValue(t, "stealing: Order.Start called on an Order that was never Reset", func() { o.Start(1) })
	assert.Equal(t, 0, o.Count())
	assert.Empty(t, o.Coprimes())
}

func TestOrderCoprimesIsACopy(t *testing.T) {
	var o stealing.Order
	require.NoError(t, o.Reset(5))
	c := o.Coprimes()
	c[0] = 99
	assert.Equal(t, []uint32{1, 2, 3, 4}, o.Coprimes())
}
