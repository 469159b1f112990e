package atomicx_test

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
)

// TestFunctionFormsActOnPlainWords: each function form of sync/atomic that
// schedkit explore maps here does what sync/atomic's does to a plain word.
func TestFunctionFormsActOnPlainWords(t *testing.T) {
	var i32 int32 = 5
	assert.Equal(t, int32(7), atomicx.AddInt32(&i32, 2))
	assert.Equal(t, int32(7), atomicx.AndInt32(&i32, 3))
	assert.Equal(t, int32(3), atomicx.OrInt32(&i32, 8))
	assert.Equal(t, int32(11), atomicx.LoadInt32(&i32))
	assert.False(t, atomicx.CompareAndSwapInt32(&i32, 3, 4))
	assert.True(t, atomicx.CompareAndSwapInt32(&i32, 11, -1))
	assert.Equal(t, int32(-1), atomicx.SwapInt32(&i32, 9))
	atomicx.StoreInt32(&i32, 1)
	assert.Equal(t, int32(1), i32)

	var i64 int64 = -5
	assert.Equal(t, int64(-3), atomicx.AddInt64(&i64, 2))
	assert.Equal(t, int64(-3), atomicx.AndInt64(&i64, 0xff))
	assert.Equal(t, int64(0xfd), atomicx.OrInt64(&i64, 2))
	assert.Equal(t, int64(0xff), atomicx.LoadInt64(&i64))
	assert.True(t, atomicx.CompareAndSwapInt64(&i64, 0xff, 1<<40))
	assert.Equal(t, int64(1<<40), atomicx.SwapInt64(&i64, 2))
	atomicx.StoreInt64(&i64, 3)
	assert.Equal(t, int64(3), i64)

	var u32 uint32
	assert.Equal(t, uint32(0), atomicx.SwapUint32(&u32, 6))
	assert.Equal(t, uint32(5), atomicx.AddUint32(&u32, ^uint32(0)))
	assert.Equal(t, uint32(5), atomicx.AndUint32(&u32, 4))
	assert.Equal(t, uint32(4), atomicx.OrUint32(&u32, 1))
	assert.True(t, atomicx.CompareAndSwapUint32(&u32, 5, 8))
	atomicx.StoreUint32(&u32, 2)
	assert.Equal(t, uint32(2), atomicx.LoadUint32(&u32))

	var u64 uint64 = 1 << 63
	assert.Equal(t, uint64(1<<63+1), atomicx.AddUint64(&u64, 1))
	assert.Equal(t, uint64(1<<63+1), atomicx.AndUint64(&u64, 1))
	assert.Equal(t, uint64(1), atomicx.OrUint64(&u64, 6))
	assert.True(t, atomicx.CompareAndSwapUint64(&u64, 7, 9))
	assert.Equal(t, uint64(9), atomicx.SwapUint64(&u64, 10))
	atomicx.StoreUint64(&u64, 11)
	assert.Equal(t, uint64(11), atomicx.LoadUint64(&u64))

	var up uintptr
	assert.Equal(t, uintptr(3), atomicx.AddUintptr(&up, 3))
	assert.Equal(t, uintptr(3), atomicx.AndUintptr(&up, 1))
	assert.Equal(t, uintptr(1), atomicx.OrUintptr(&up, 4))
	assert.True(t, atomicx.CompareAndSwapUintptr(&up, 5, 6))
	assert.Equal(t, uintptr(6), atomicx.SwapUintptr(&up, 7))
	atomicx.StoreUintptr(&up, 8)
	assert.Equal(t, uintptr(8), atomicx.LoadUintptr(&up))

	a, b := new(int), new(int)
	var p unsafe.Pointer
	atomicx.StorePointer(&p, unsafe.Pointer(a))
	assert.Equal(t, unsafe.Pointer(a), atomicx.LoadPointer(&p))
	assert.False(t, atomicx.CompareAndSwapPointer(&p, unsafe.Pointer(b), nil))
	assert.True(t, atomicx.CompareAndSwapPointer(&p, unsafe.Pointer(a), unsafe.Pointer(b)))
	assert.Equal(t, unsafe.Pointer(b), atomicx.SwapPointer(&p, nil))
	assert.Nil(t, p)
}

// TestAndOrMethodsAndUintptr: the And and Or methods Go 1.23 gave the
// sync/atomic types, and Uintptr, return the old value and leave the new.
func TestAndOrMethodsAndUintptr(t *testing.T) {
	var a atomicx.Int32
	a.Store(6)
	assert.Equal(t, int32(6), a.And(3))
	assert.Equal(t, int32(2), a.Or(8))
	assert.Equal(t, int32(10), a.Load())
	var b atomicx.Int64
	assert.Equal(t, int64(0), b.Or(1<<40))
	assert.Equal(t, int64(1<<40), b.And(1))
	assert.Equal(t, int64(0), b.Load())
	var c atomicx.Uint32
	assert.Equal(t, uint32(0), c.Or(5))
	assert.Equal(t, uint32(5), c.And(4))
	assert.Equal(t, uint32(4), c.Load())
	var d atomicx.Uint64
	assert.Equal(t, uint64(0), d.Or(1<<63))
	assert.Equal(t, uint64(1<<63), d.And(^uint64(0)))
	assert.Equal(t, uint64(1<<63), d.Load())

	var u atomicx.Uintptr
	assert.Equal(t, uintptr(2), u.Add(2))
	assert.Equal(t, uintptr(2), u.Swap(3))
	assert.True(t, u.CompareAndSwap(3, 12))
	assert.False(t, u.CompareAndSwap(3, 1))
	assert.Equal(t, uintptr(12), u.And(4))
	assert.Equal(t, uintptr(4), u.Or(1))
	u.Store(9)
	assert.Equal(t, uintptr(9), u.Load())
}

// TestValueKeepsSyncAtomicRules: Value loads what was stored, swaps and
// compares as sync/atomic.Value does, and panics where it panics.
func TestValueKeepsSyncAtomicRules(t *testing.T) {
	var v atomicx.Value
	assert.Nil(t, v.Load())
	v.Store("a")
	assert.Equal(t, "a", v.Load())
	assert.Equal(t, "a", v.Swap("b"))
	assert.False(t, v.CompareAndSwap("a", "c"))
	assert.True(t, v.CompareAndSwap("b", "c"))
	assert.Equal(t, "c", v.Load())
	assert.Panics(t, func() { v.Store(1) }, "a store of another type")
	assert.Panics(t, func() { v.Store(nil) }, "a store of nil")
}

// TestOnceRunsFOnce: many goroutines call Do; f runs once and every call
// returns after it. OnceFunc, OnceValue and OnceValues do the same, and a
// panic in f is repeated by every call.
func TestOnceRunsFOnce(t *testing.T) {
	var once atomicx.Once
	n := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			once.Do(func() { n++ })
			assert.Equal(t, 1, n)
		})
	}
	wg.Wait()
	once.Do(func() { n++ })
	assert.Equal(t, 1, n)

	calls := 0
	f := atomicx.OnceValue(func() int { calls++; return 42 })
	assert.Equal(t, 42, f())
	assert.Equal(t, 42, f())
	g := atomicx.OnceValues(func() (int, string) { calls++; return 1, "x" })
	i, s := g()
	i2, s2 := g()
	assert.Equal(t, []any{1, "x", 1, "x"}, []any{i, s, i2, s2})
	h := atomicx.OnceFunc(func() { calls++ })
	h()
	h()
	assert.Equal(t, 3, calls)

	boom := atomicx.OnceFunc(func() { calls++; panic("boom") })
	assert.PanicsWithValue(t, "boom", boom)
	assert.PanicsWithValue(t, "boom", boom, "the second call repeats the panic")
	assert.Equal(t, 4, calls)
}

// TestRWMutexAndWaitGroup: readers share an RWMutex, a writer excludes
// them, TryLock and TryRLock say no while it is held the other way; a
// WaitGroup's Wait returns once Done has been called for every Add, and Go
// adds its goroutine.
func TestRWMutexAndWaitGroup(t *testing.T) {
	var rw atomicx.RWMutex
	rw.RLock()
	require.True(t, rw.TryRLock())
	assert.False(t, rw.TryLock())
	rw.RUnlock()
	rw.RUnlock()
	require.True(t, rw.TryLock())
	assert.False(t, rw.TryRLock())
	rw.Unlock()

	var mu atomicx.Mutex
	require.True(t, mu.TryLock())
	assert.False(t, mu.TryLock())
	mu.Unlock()

	var wg atomicx.WaitGroup
	total := 0
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				rw.Lock()
				total++
				rw.Unlock()
				l := rw.RLocker()
				l.Lock()
				_ = total
				l.Unlock()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 4000, total)
	assert.PanicsWithValue(t, "sync: negative WaitGroup counter", func() { wg.Done() })
}
