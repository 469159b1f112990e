package atomicx_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/schedkit/schedkit/atomicx"
)

func TestUint32(t *testing.T) {
	var x atomicx.Uint32
	assert.Zero(t, x.Load())
	x.Store(5)
	assert.Equal(t, uint32(7), x.Add(2))
	assert.Equal(t, uint32(7), x.Swap(9))
	assert.False(t, x.CompareAndSwap(7, 1))
	assert.True(t, x.CompareAndSwap(9, 1))
	assert.Equal(t, uint32(1), x.Load())
	x.Store(^uint32(0))
	assert.Equal(t, uint32(0), x.Add(1), "wraps like uint32 arithmetic")
}

func TestUint64(t *testing.T) {
	var x atomicx.Uint64
	x.Store(5)
	assert.Equal(t, uint64(7), x.Add(2))
	assert.Equal(t, uint64(7), x.Swap(9))
	assert.False(t, x.CompareAndSwap(7, 1))
	assert.True(t, x.CompareAndSwap(9, 1))
	assert.Equal(t, uint64(1), x.Load())
}

func TestInt32(t *testing.T) {
	var x atomicx.Int32
	x.Store(-5)
	assert.Equal(t, int32(-7), x.Add(-2))
	assert.Equal(t, int32(-7), x.Swap(9))
	assert.False(t, x.CompareAndSwap(7, 1))
	assert.True(t, x.CompareAndSwap(9, 1))
	assert.Equal(t, int32(1), x.Load())
}

func TestInt64(t *testing.T) {
	var x atomicx.Int64
	x.Store(-5)
	assert.Equal(t, int64(-7), x.Add(-2))
	assert.Equal(t, int64(-7), x.Swap(9))
	assert.False(t, x.CompareAndSwap(7, 1))
	assert.True(t, x.CompareAndSwap(9, 1))
	assert.Equal(t, int64(1), x.Load())
}

func TestBool(t *testing.T) {
	var x atomicx.Bool
	assert.False(t, x.Load())
	x.Store(true)
	assert.True(t, x.Swap(false))
	assert.False(t, x.CompareAndSwap(true, true))
	assert.True(t, x.CompareAndSwap(false, true))
	assert.True(t, x.Load())
}

func TestPointer(t *testing.T) {
	var x atomicx.Pointer[int]
	a, b := 1, 2
	assert.Nil(t, x.Load())
	x.Store(&a)
	assert.Same(t, &a, x.Swap(&b))
	assert.False(t, x.CompareAndSwap(&a, nil))
	assert.True(t, x.CompareAndSwap(&b, nil))
	assert.Nil(t, x.Load())
}

// TestConcurrentAddCountsEveryIncrement runs under -race in CI: the cells
// must be atomic, not merely typed.
func TestConcurrentAddCountsEveryIncrement(t *testing.T) {
	var n atomicx.Uint64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 10000 {
				n.Add(1)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, uint64(40000), n.Load())
}
