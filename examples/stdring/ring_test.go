package stdring

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRingFIFOAndFull(t *testing.T) {
	r := New[int](2)
	_, ok := r.Pop()
	assert.False(t, ok, "empty")
	require.True(t, r.Push(1))
	require.True(t, r.Push(2))
	assert.False(t, r.Push(3), "full")
	assert.Equal(t, uint64(1), r.Refused())
	for want := 1; want <= 2; want++ {
		v, ok := r.Pop()
		require.True(t, ok)
		assert.Equal(t, want, v)
	}
	require.True(t, r.Push(4), "room again after the pops")
	v, _ := r.Pop()
	assert.Equal(t, 4, v)
	assert.PanicsWithValue(t, "stdring: New with a capacity below 1", func() { New[int](0) })
}

// TestRingStress: producers push distinct items (retrying when full), the
// consumer pops until it has them all; each arrives once, and each
// producer's in its order. Run it with -race.
func TestRingStress(t *testing.T) {
	producers, per := 4, 20000
	if testing.Short() {
		per = 500
	}
	r := New[[2]int](8)
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range per {
				for !r.Push([2]int{p, i}) {
					runtime.Gosched() // full: let the consumer run
				}
			}
		})
	}
	next := make([]int, producers)
	for got := 0; got < producers*per; {
		v, ok := r.Pop()
		if !ok {
			runtime.Gosched()
			continue
		}
		require.Equal(t, next[v[0]], v[1], "producer %d's items out of order", v[0])
		next[v[0]]++
		got++
	}
	wg.Wait()
	for p := range producers {
		assert.Equal(t, per, next[p])
	}
}
