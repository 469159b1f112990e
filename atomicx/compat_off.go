//go:build !schedcheck

package atomicx

import (
	"sync"
	"unsafe"
)

// hookBefore, hookAfter, hookRMW and hookActive are word.go's view of
// the hook: nothing in a normal build, where they inline away.
func hookBefore(Op, unsafe.Pointer)                    {}
func hookAfter(Op, unsafe.Pointer, uint64)             {}
func hookRMW(Op, unsafe.Pointer, uint64, uint64, bool) {}
func hookActive() bool                                 { return false }

// TryLock tries to lock m and reports whether it did, as sync.Mutex.TryLock.
func (m *Mutex) TryLock() bool { return m.mu.TryLock() }

// RWMutex is a reader/writer mutual exclusion lock, a sync.RWMutex in a
// normal build. The zero value is unlocked. Under the explorer Lock and
// RLock are scheduling points, and a thread whose lock would block is not
// scheduled until it can have it; a waiting writer keeps new readers out,
// as sync.RWMutex does.
type RWMutex struct{ mu sync.RWMutex }

// Lock locks rw for writing, waiting until no one holds it.
func (rw *RWMutex) Lock() { rw.mu.Lock() }

// Unlock unlocks rw for writing.
func (rw *RWMutex) Unlock() { rw.mu.Unlock() }

// RLock locks rw for reading, waiting while a writer holds it or waits.
func (rw *RWMutex) RLock() { rw.mu.RLock() }

// RUnlock undoes one RLock.
func (rw *RWMutex) RUnlock() { rw.mu.RUnlock() }

// TryLock tries to lock rw for writing and reports whether it did.
func (rw *RWMutex) TryLock() bool { return rw.mu.TryLock() }

// TryRLock tries to lock rw for reading and reports whether it did.
func (rw *RWMutex) TryRLock() bool { return rw.mu.TryRLock() }

// WaitGroup waits for a collection of goroutines to finish, a sync.WaitGroup
// in a normal build. Under the explorer Add is a scheduling point and a
// thread in Wait is not scheduled until the counter is zero.
type WaitGroup struct{ wg sync.WaitGroup }

// Add adds delta, which may be negative, to the counter; it panics if the
// counter goes negative.
func (wg *WaitGroup) Add(delta int) { wg.wg.Add(delta) }

// Done decrements the counter by one.
func (wg *WaitGroup) Done() { wg.wg.Done() }

// Wait blocks until the counter is zero.
func (wg *WaitGroup) Wait() { wg.wg.Wait() }
