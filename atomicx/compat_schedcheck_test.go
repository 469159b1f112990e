//go:build schedcheck

package atomicx_test

import (
	"errors"
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// addrRecorder records each reported operation with its address.
type addrRecorder struct {
	recorder
	addrs []uintptr
}

func (r *addrRecorder) Before(op atomicx.Op, a uintptr) {
	r.recorder.Before(op, a)
	r.addrs = append(r.addrs, a)
}

// TestFunctionFormsAreCellsAtTheWordsAddress: under schedcheck a function
// form reports its operation at the plain word's address, with the value a
// cell method would report, so the explorer treats the word as a cell.
func TestFunctionFormsAreCellsAtTheWordsAddress(t *testing.T) {
	rec := &addrRecorder{}
	restore := atomicx.SetHook(rec)
	var w int64
	var c atomicx.Int64
	atomicx.StoreInt64(&w, 4)
	atomicx.AddInt64(&w, 1)
	atomicx.CompareAndSwapInt64(&w, 5, 6)
	atomicx.OrInt64(&w, 8)
	c.Or(3)
	restore()
	wa, ca := uintptr(unsafe.Pointer(&w)), uintptr(unsafe.Pointer(&c))
	assert.Equal(t, []uintptr{wa, wa, wa, wa, ca}, rec.addrs)
	assert.Equal(t, []event{
		{atomicx.OpStore, true, 0}, {atomicx.OpStore, false, 4},
		{atomicx.OpAdd, true, 0}, {atomicx.OpAdd, false, 5},
		{atomicx.OpCAS, true, 0}, {atomicx.OpCAS, false, 1},
		{atomicx.OpSwap, true, 0}, {atomicx.OpSwap, false, 14}, // Or: a swap with the value it leaves
		{atomicx.OpSwap, true, 0}, {atomicx.OpSwap, false, 3},
	}, rec.events)
}

// TestExploreFunctionFormsLoseAnUpdate: a load then a store through the
// function forms on a plain int64 loses an increment in some interleaving,
// and AddInt64 never does: the explorer sees the word as a cell.
func TestExploreFunctionFormsLoseAnUpdate(t *testing.T) {
	scenario := func(inc func(*int64)) func() explore.Run {
		return func() explore.Run {
			var n int64
			return explore.Run{
				Threads: []func(){func() { inc(&n) }, func() { inc(&n) }},
				Check: func() error {
					if got := atomicx.LoadInt64(&n); got != 2 {
						return fmt.Errorf("n = %d after two increments", got)
					}
					return nil
				},
			}
		}
	}
	explore.Check(t, explore.Options{Name: "compat-add"}, scenario(func(p *int64) { atomicx.AddInt64(p, 1) }))
	explore.CheckFails(t, explore.Options{Name: "compat-loadstore"}, scenario(func(p *int64) {
		atomicx.StoreInt64(p, atomicx.LoadInt64(p)+1)
	}))
}

// TestExploreRWMutexWaitingWriterBlocksReaders: a reader that takes the read
// lock twice deadlocks once a writer waits between the two, as with
// sync.RWMutex; without the writer the scenario passes, and a WaitGroup's
// Wait returns only after both Dones.
func TestExploreRWMutexWaitingWriterBlocksReaders(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "compat-rwmutex"}, func() explore.Run {
		var rw atomicx.RWMutex
		return explore.Run{Threads: []func(){
			func() { rw.RLock(); rw.RLock(); rw.RUnlock(); rw.RUnlock() },
			func() { rw.Lock(); rw.Unlock() },
		}}
	})
	require.NoError(t, err)
	require.NotNil(t, res.Failure, "%s", res.Summary())
	var dl *explore.DeadlockError
	assert.True(t, errors.As(res.Failure.Err, &dl), "%v", res.Failure.Err)

	explore.Check(t, explore.Options{Name: "compat-waitgroup"}, func() explore.Run {
		var wg atomicx.WaitGroup
		var rw atomicx.RWMutex
		var done atomicx.Int32
		wg.Add(2)
		work := func() { rw.RLock(); done.Add(1); rw.RUnlock(); wg.Done() }
		return explore.Run{Threads: []func(){work, work, func() {
			wg.Wait()
			if done.Load() != 2 {
				panic("Wait returned before both Dones")
			}
			rw.Lock()
			rw.Unlock()
		}}}
	})
}

// rmw is one AfterRMW report.
type rmw struct {
	op       atomicx.Op
	old, new uint64
	ok       bool
}

// rmwRecorder is a Hook that sees both values of a read-modify-write.
type rmwRecorder struct {
	recorder
	rmws []rmw
}

func (r *rmwRecorder) AfterRMW(op atomicx.Op, _ uintptr, old, new uint64, ok bool) {
	r.rmws = append(r.rmws, rmw{op, old, new, ok})
}

// TestFunctionFormsReportOldAndNew: the function forms report old -> new to
// an RMWHook as the cells do, a failed CAS with the value that made it fail.
func TestFunctionFormsReportOldAndNew(t *testing.T) {
	rec := &rmwRecorder{}
	restore := atomicx.SetHook(rec)
	w := int64(4)
	var u uint32 = 1
	atomicx.AddInt64(&w, 1)
	atomicx.CompareAndSwapInt64(&w, 9, 1)
	atomicx.CompareAndSwapInt64(&w, 5, 7)
	atomicx.SwapInt64(&w, 2)
	atomicx.OrUint32(&u, 6)
	restore()
	assert.Equal(t, []rmw{
		{atomicx.OpAdd, 4, 5, true},
		{atomicx.OpCAS, 5, 1, false}, // saw 5
		{atomicx.OpCAS, 5, 7, true},
		{atomicx.OpSwap, 7, 2, true},
		{atomicx.OpSwap, 1, 7, true}, // Or: a swap from the old value to the one it leaves
	}, rec.rmws)
}
