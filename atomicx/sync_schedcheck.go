//go:build schedcheck

package atomicx

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Mutex is a mutual exclusion lock. The zero value is unlocked. Lock is a
// scheduling point of the explorer, and a thread whose Lock would block is
// not scheduled until the holder unlocks.
type Mutex struct {
	mu     sync.Mutex
	locked atomic.Bool // mirrors mu for the explorer's ready check; not a cell
}

// Lock locks m, waiting until it is free.
func (m *Mutex) Lock() {
	wait(OpLock, unsafe.Pointer(m), m.unlocked, -1)
	m.mu.Lock() // under the explorer m is free here: we were scheduled only then
	m.locked.Store(true)
	after(OpLock, unsafe.Pointer(m), 1)
}

func (m *Mutex) unlocked() bool { return !m.locked.Load() }

// Unlock unlocks m. It panics with "atomicx: Mutex.Unlock of an unlocked
// Mutex" if m is not locked, so the explorer can report it (a normal build
// stops the program, as sync.Mutex does).
func (m *Mutex) Unlock() {
	before(OpUnlock, unsafe.Pointer(m))
	if !m.locked.Swap(false) {
		panic("atomicx: Mutex.Unlock of an unlocked Mutex")
	}
	m.mu.Unlock()
	after(OpUnlock, unsafe.Pointer(m), 0)
}

// Note is a one-shot event for parking an M, after the runtime's note:
// Sleep waits until Wakeup has been called, Clear makes the note ready for the
// next round. The zero value is a cleared note.
//
// Call Wakeup at most once between Clears (a second call panics with
// "atomicx: Note.Wakeup called twice"). Under the explorer a sleeping thread
// is not scheduled until the note is woken (or, for SleepFor, the virtual
// clock passes the deadline).
type Note struct{ n note }

// Sleep blocks until Wakeup has been called since the last Clear; it returns
// at once if it already was. It mirrors notesleep.
func (x *Note) Sleep() {
	if _, ok := wait(OpNoteSleep, unsafe.Pointer(x), x.n.isWoken, -1); !ok {
		x.n.sleep()
	}
	after(OpNoteSleep, unsafe.Pointer(x), 1)
}

// SleepFor blocks until Wakeup has been called or d has passed, and reports
// whether the note was woken. A d <= 0 only polls. It mirrors notetsleep.
func (x *Note) SleepFor(d time.Duration) bool {
	var woken bool
	if _, ok := wait(OpNoteSleepFor, unsafe.Pointer(x), x.n.isWoken, max(d, 0)); ok {
		woken = x.n.isWoken()
	} else {
		woken = x.n.sleepFor(d)
	}
	after(OpNoteSleepFor, unsafe.Pointer(x), b2u(woken))
	return woken
}

// Wakeup wakes the sleeper, or lets the next Sleep return at once. It panics
// if the note was already woken and not cleared since. It mirrors notewakeup.
func (x *Note) Wakeup() {
	before(OpNoteWakeup, unsafe.Pointer(x))
	x.n.wakeup()
	after(OpNoteWakeup, unsafe.Pointer(x), 1)
}

// Clear resets the note so that the next Sleep waits again. It mirrors
// noteclear; call it only when no thread sleeps on the note.
func (x *Note) Clear() {
	before(OpNoteClear, unsafe.Pointer(x))
	x.n.clear()
	after(OpNoteClear, unsafe.Pointer(x), 0)
}

// Nanotime returns monotonic nanoseconds since an arbitrary fixed instant,
// as the runtime's nanotime. Under the explorer it reads the virtual clock,
// and the read is a scheduling point.
func Nanotime() int64 {
	now, ok := wait(OpNanotime, nil, nil, -1)
	if !ok {
		now = int64(time.Since(epoch))
	}
	after(OpNanotime, nil, uint64(now))
	return now
}

// Sleep pauses the caller for at least d. Under the explorer it waits on the
// virtual clock, which moves only when every live thread is blocked; a d <= 0
// is a yield: the explorer runs another thread first if one can run.
func Sleep(d time.Duration) {
	now, ok := wait(OpSleep, nil, nil, max(d, 0))
	if !ok {
		time.Sleep(d)
		now = int64(time.Since(epoch))
	}
	after(OpSleep, nil, uint64(now))
}
