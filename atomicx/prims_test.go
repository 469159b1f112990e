package atomicx_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
)

// These run in both builds: in a normal one on Go's channels and
// sync.Cond, in a schedcheck one (no explorer) on atomicx's models, which
// then block for real.

func TestCompareExchangeReturnsWhatItSaw(t *testing.T) {
	var u32 atomicx.Uint32
	prev, ok := u32.CompareExchange(0, 5)
	assert.True(t, ok)
	assert.Equal(t, uint32(0), prev)
	prev, ok = u32.CompareExchange(0, 7)
	assert.False(t, ok)
	assert.Equal(t, uint32(5), prev)
	assert.Equal(t, uint32(5), u32.Load())

	var u64 atomicx.Uint64
	_, ok = u64.CompareExchange(0, 1)
	assert.True(t, ok)
	var i32 atomicx.Int32
	prev32, ok := i32.CompareExchange(1, 2)
	assert.False(t, ok)
	assert.Equal(t, int32(0), prev32)
	var i64 atomicx.Int64
	i64.Store(-3)
	prev64, ok := i64.CompareExchange(-3, 4)
	assert.True(t, ok)
	assert.Equal(t, int64(-3), prev64)
	var b atomicx.Bool
	pb, ok := b.CompareExchange(true, false)
	assert.False(t, ok)
	assert.False(t, pb)
	var p atomicx.Pointer[int]
	x := new(int)
	pp, ok := p.CompareExchange(nil, x)
	assert.True(t, ok)
	assert.Nil(t, pp)
	pp, ok = p.CompareExchange(nil, nil)
	assert.False(t, ok)
	assert.Same(t, x, pp)
}

func TestCompareExchangeCountsUnderContention(t *testing.T) {
	var n atomicx.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				cur := n.Load()
				for {
					prev, ok := n.CompareExchange(cur, cur+1)
					if ok {
						break
					}
					cur = prev // the value seen: no reload needed
				}
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(4000), n.Load())
}

func TestPlainCells(t *testing.T) {
	var f atomicx.Plain[bool]
	assert.False(t, f.Load())
	f.Store(true)
	assert.True(t, f.Load())
	s := atomicx.MakePlainSlice[int](3)
	s.Store(2, 7)
	s[0].Store(1)
	assert.Equal(t, []int{1, 0, 7}, []int{s.Load(0), s.Load(1), s[2].Load()})
}

func TestChanBufferedFIFOAndClose(t *testing.T) {
	c := atomicx.NewChan[int](2)
	assert.True(t, c.TrySend(1))
	c.Send(2)
	assert.False(t, c.TrySend(3), "full")
	assert.Equal(t, 2, c.Len())
	v, ok := c.Recv()
	assert.Equal(t, 1, v)
	assert.True(t, ok)
	c.Close()
	v, ok, ready := c.TryRecv()
	assert.Equal(t, []any{2, true, true}, []any{v, ok, ready}, "a closed channel drains first")
	v, ok = c.Recv()
	assert.Equal(t, []any{0, false}, []any{v, ok})
	assert.PanicsWithValue(t, "atomicx: close of closed channel", c.Close)
	assert.Panics(t, func() { c.Send(1) }, "send on closed channel")
	_, _, ready = atomicx.NewChan[int](0).TryRecv()
	assert.False(t, ready)
}

func TestChanUnbufferedHandsOver(t *testing.T) {
	c := atomicx.NewChan[string](0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Send("a")
		c.Send("b")
		c.Close()
	}()
	var got []string
	for {
		v, ok := c.Recv()
		if !ok {
			break
		}
		got = append(got, v)
	}
	<-done
	assert.Equal(t, []string{"a", "b"}, got)
}

func TestSelect(t *testing.T) {
	a, b := atomicx.NewChan[int](1), atomicx.NewChan[int](0)
	var v int
	var ok bool
	assert.Equal(t, -1, atomicx.TrySelect(a.RecvCase(&v, &ok), b.RecvCase(nil, nil)))
	assert.Equal(t, 0, atomicx.TrySelect(a.SendCase(4), b.SendCase(5)), "room in a; nobody on b")
	assert.Equal(t, 1, atomicx.Select(b.SendCase(1), a.RecvCase(&v, &ok)), "nobody receives on b")
	assert.Equal(t, []any{4, true}, []any{v, ok})
	// A blocked Select completed by another goroutine's send on b.
	go b.Send(9)
	i := atomicx.Select(a.RecvCase(nil, nil), b.RecvCase(&v, &ok))
	assert.Equal(t, []any{1, 9, true}, []any{i, v, ok})
	// and by a receive on its send case.
	got := make(chan int, 1)
	go func() { x, _ := b.Recv(); got <- x }()
	assert.Equal(t, 1, atomicx.Select(a.RecvCase(nil, nil), b.SendCase(6)))
	assert.Equal(t, 6, <-got)
}

func TestCondWaitSignalBroadcast(t *testing.T) {
	var mu atomicx.Mutex
	c := atomicx.NewCond(&mu)
	ready := 0
	var wg sync.WaitGroup
	woke := make(chan int, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			for ready == 0 {
				c.Wait()
			}
			mu.Unlock()
			woke <- i
		}()
	}
	mu.Lock()
	ready = 1
	c.Broadcast()
	c.Signal() // no waiter left, or one: either is fine
	mu.Unlock()
	wg.Wait()
	assert.Len(t, woke, 3)
	lit := atomicx.Cond{L: &mu} // the field form, as sync.Cond's
	lit.Signal()
}

func TestCancel(t *testing.T) {
	c := atomicx.NewCancel()
	require.NoError(t, c.Err())
	assert.Equal(t, -1, atomicx.TrySelect(c.DoneCase()))
	go c.Cancel()
	_, ok := c.Done().Recv()
	assert.False(t, ok)
	c.Cancel() // a second call does nothing
	assert.ErrorIs(t, c.Err(), context.Canceled)
	assert.Equal(t, 0, atomicx.Select(c.DoneCase()))
}
