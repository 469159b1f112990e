//go:build schedcheck

package executor

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/schedkit/schedkit/atomicx"
)

// Pinned races on the global free list (kill matrix: freezero, freezero2),
// with atomicx's hook, which only a schedcheck build has. The explorer
// cannot see this race: the list's lock orders every take after a put's
// unlock, and the plain writes a put makes to its record after the unlock
// are no scheduling point. The hook runs a taker right after the put's
// unlock, on the same goroutine, so what the put writes after it lands
// on a record that is the taker's.

// afterUnlock runs body with f run once, right after the first Unlock of
// m in it, and fails if no Unlock came.
func afterUnlock(m *atomicx.Mutex, f, body func()) error {
	h := &unlockHook{addr: uintptr(unsafe.Pointer(m)), f: f}
	h.armed.Store(true)
	restore := atomicx.SetHook(h)
	body()
	restore()
	if h.armed.Load() {
		return errors.New("the pinned unlock never came: the scenario no longer fits the code")
	}
	return nil
}

type unlockHook struct {
	addr  uintptr
	f     func()
	armed atomic.Bool
}

func (h *unlockHook) Before(atomicx.Op, uintptr) {}

func (h *unlockHook) After(op atomicx.Op, addr uintptr, _ uint64) {
	if op == atomicx.OpUnlock && addr == h.addr && h.armed.CompareAndSwap(true, false) {
		h.f()
	}
}

func (h *unlockHook) Wait(atomicx.Op, uintptr, func() bool, time.Duration) (int64, bool) {
	return 0, false
}

// takeAndFill takes a record from l and fills it as a submit would.
func takeAndFill(l *gfreeList, fn func(Task)) *task {
	t := l.get()
	if t != nil {
		t.fn, t.bound = fn, true
	}
	return t
}

// wiped reports a record that its taker filled and a put then zeroed.
func wiped(freed, taken *task) error {
	if taken != freed {
		return fmt.Errorf("the taker got record %p, want the one just freed (%p)", taken, freed)
	}
	if taken.fn == nil || !taken.bound {
		return errors.New("a record taken from the global free list as soon as it went on was wiped under its taker: the put zeroed it after putting it")
	}
	return nil
}

// FreeZeroPinned runs the pinned race: on the list alone (gfreeList.put
// against a get), or through Executor.TryGo refused at a bound of 1 (its
// record goes back: unrecord) against an outside submit's record.
func FreeZeroPinned(viaTryGo bool) (applicable bool, err error) {
	mine := func(Task) {}
	if !viaTryGo {
		var l gfreeList
		freed := &task{fn: func(Task) {}, bound: true}
		var taken *task
		if err := afterUnlock(&l.mu, func() { taken = takeAndFill(&l, mine) }, func() { l.put(freed) }); err != nil {
			return true, err
		}
		return true, wiped(freed, taken)
	}
	// No M runs: the first task stays queued, so the bound stays full.
	e, err := build(Config{Procs: 1, MaxQueued: 1}, func(func()) {}, false)
	if err != nil {
		return true, err
	}
	if err := e.Go(func(Task) {}); err != nil {
		return true, err
	}
	var taken *task
	if err := afterUnlock(&e.gfree.mu, func() { taken = takeAndFill(&e.gfree, mine) }, func() {
		if err := e.TryGo(func(Task) {}); !errors.Is(err, ErrFull) {
			panic(fmt.Sprintf("TryGo at a full bound returned %v, want ErrFull", err))
		}
	}); err != nil {
		return true, err
	}
	if taken == nil {
		return true, errors.New("the refused TryGo put no record on the global free list")
	}
	if taken.fn == nil || !taken.bound {
		return true, errors.New("a refused TryGo's record, taken from the global free list as soon as it went on, was wiped under its taker: the put zeroed it after putting it")
	}
	return true, nil
}

// TestFreeListZeroesBeforePut: a record freed to the global list is zero
// before another submitter can take it (the broken variant, FreeZeroAfterPut,
// fails both).
func TestFreeListZeroesBeforePut(t *testing.T) {
	for _, viaTryGo := range []bool{false, true} {
		if _, err := FreeZeroPinned(viaTryGo); err != nil {
			t.Errorf("via TryGo %v: %v", viaTryGo, err)
		}
	}
}
