//go:build schedcheck

package atomicx_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/schedkit/schedkit/atomicx"
)

type event struct {
	op     atomicx.Op
	before bool
	val    uint64
}

type recorder struct{ events []event }

func (r *recorder) Before(op atomicx.Op, _ uintptr) { r.events = append(r.events, event{op, true, 0}) }
func (r *recorder) After(op atomicx.Op, _ uintptr, v uint64) {
	r.events = append(r.events, event{op, false, v})
}

// Wait records the scheduling point and declines control: the caller then
// does the real thing, as for a goroutine the explorer does not run.
func (r *recorder) Wait(op atomicx.Op, _ uintptr, _ func() bool, _ time.Duration) (int64, bool) {
	r.events = append(r.events, event{op, true, 0})
	return 0, false
}

func TestHookSeesEveryAccessInOrder(t *testing.T) {
	rec := &recorder{}
	restore := atomicx.SetHook(rec)
	var x atomicx.Uint32
	x.Store(3)
	x.Load()
	x.CompareAndSwap(3, 4)
	x.CompareAndSwap(3, 5)
	restore()
	x.Load() // not seen: the hook is gone

	assert.Equal(t, []event{
		{atomicx.OpStore, true, 0}, {atomicx.OpStore, false, 3},
		{atomicx.OpLoad, true, 0}, {atomicx.OpLoad, false, 3},
		{atomicx.OpCAS, true, 0}, {atomicx.OpCAS, false, 1},
		{atomicx.OpCAS, true, 0}, {atomicx.OpCAS, false, 0},
	}, rec.events)
}

func TestHookSeesMutexNoteAndClock(t *testing.T) {
	rec := &recorder{}
	restore := atomicx.SetHook(rec)
	var mu atomicx.Mutex
	var n atomicx.Note
	mu.Lock()
	mu.Unlock()
	n.Wakeup()
	n.Sleep()
	woken := n.SleepFor(time.Hour)
	n.Clear()
	timedOut := !n.SleepFor(0)
	atomicx.Sleep(0)
	atomicx.Nanotime()
	restore()

	assert.True(t, woken)
	assert.True(t, timedOut)
	var ops []atomicx.Op
	for _, e := range rec.events {
		if e.before {
			ops = append(ops, e.op)
		}
	}
	assert.Equal(t, []atomicx.Op{
		atomicx.OpLock, atomicx.OpUnlock, atomicx.OpNoteWakeup, atomicx.OpNoteSleep,
		atomicx.OpNoteSleepFor, atomicx.OpNoteClear, atomicx.OpNoteSleepFor, atomicx.OpSleep, atomicx.OpNanotime,
	}, ops)
	assert.Len(t, rec.events, 2*len(ops), "every operation is reported before and after")
}

// decliner controls no goroutine, as the explorer for code outside its scenario.
type decliner struct{}

func (decliner) Before(atomicx.Op, uintptr)        {}
func (decliner) After(atomicx.Op, uintptr, uint64) {}
func (decliner) Wait(atomicx.Op, uintptr, func() bool, time.Duration) (int64, bool) {
	return 0, false
}

// A goroutine the hook declines runs the real primitives: this one waits for
// real on a note another goroutine wakes.
func TestHookDeclinedRunsTheRealThing(t *testing.T) {
	restore := atomicx.SetHook(decliner{})
	defer restore()
	var n atomicx.Note
	done := make(chan struct{})
	go func() { n.Sleep(); close(done) }()
	n.Wakeup()
	<-done
}

func TestSchedcheckMutexUnlockOfUnlockedPanics(t *testing.T) {
	var mu atomicx.Mutex
	assert.PanicsWithValue(t, "atomicx: Mutex.Unlock of an unlocked Mutex", mu.Unlock)
	mu.Lock()
	mu.Unlock()
}
