//go:build !schedcheck

package atomicx

import (
	"sync"
	"time"
)

// Mutex is a mutual exclusion lock, a sync.Mutex in a normal build. The zero
// value is unlocked. Under the explorer Lock is a scheduling point, and a
// thread whose Lock would block is not scheduled until the holder unlocks.
type Mutex struct{ mu sync.Mutex }

// Lock locks m, waiting until it is free.
func (m *Mutex) Lock() { m.mu.Lock() }

// Unlock unlocks m. Unlocking an unlocked Mutex is a fatal error, as for
// sync.Mutex (a schedcheck build panics instead, so the explorer reports it).
func (m *Mutex) Unlock() { m.mu.Unlock() }

// Note is a one-shot event for parking an M, after the runtime's note:
// Sleep waits until Wakeup has been called, Clear makes the note ready for the
// next round. The zero value is a cleared note.
//
// Call Wakeup at most once between Clears (a second call panics with
// "atomicx: Note.Wakeup called twice"). Nothing spins: a sleeper waits on a
// channel made on demand, and SleepFor uses one timer.
type Note struct{ n note }

// Sleep blocks until Wakeup has been called since the last Clear; it returns
// at once if it already was. It mirrors notesleep.
func (x *Note) Sleep() { x.n.sleep() }

// SleepFor blocks until Wakeup has been called or d has passed, and reports
// whether the note was woken. A d <= 0 only polls. It mirrors notetsleep.
func (x *Note) SleepFor(d time.Duration) bool { return x.n.sleepFor(d) }

// Wakeup wakes the sleeper, or lets the next Sleep return at once. It panics
// if the note was already woken and not cleared since. It mirrors notewakeup.
func (x *Note) Wakeup() { x.n.wakeup() }

// Clear resets the note so that the next Sleep waits again. It mirrors
// noteclear; call it only when no thread sleeps on the note.
func (x *Note) Clear() { x.n.clear() }

// Nanotime returns monotonic nanoseconds since an arbitrary fixed instant,
// as the runtime's nanotime. Under the explorer it reads the virtual clock.
func Nanotime() int64 { return int64(time.Since(epoch)) }

// Sleep pauses the caller for at least d. Under the explorer it waits on the
// virtual clock, which moves only when every live thread is blocked.
func Sleep(d time.Duration) { time.Sleep(d) }
