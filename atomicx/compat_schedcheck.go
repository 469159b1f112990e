//go:build schedcheck

package atomicx

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

func hookBefore(op Op, p unsafe.Pointer)          { before(op, p) }
func hookAfter(op Op, p unsafe.Pointer, v uint64) { after(op, p, v) }
func hookActive() bool                            { return hooked() }

func hookRMW(op Op, p unsafe.Pointer, old, new uint64, ok bool) { afterRMW(op, p, old, new, ok) }

// TryLock tries to lock m and reports whether it did, as sync.Mutex.TryLock.
// Under the explorer it is a scheduling point that never blocks, traced as a
// CAS on the mutex.
func (m *Mutex) TryLock() bool {
	before(OpCAS, unsafe.Pointer(m))
	ok := m.mu.TryLock()
	if ok {
		m.locked.Store(true)
	}
	after(OpCAS, unsafe.Pointer(m), b2u(ok))
	return ok
}

// RWMutex is a reader/writer mutual exclusion lock. The zero value is
// unlocked. Lock and RLock are scheduling points of the explorer, and a
// thread whose lock would block is not scheduled until it can have it; a
// waiting writer keeps new readers out, as sync.RWMutex does (its Lock first
// announces the writer, a step of its own, then waits for the readers).
type RWMutex struct {
	mu sync.RWMutex
	// The lock's state for the explorer's ready checks; not cells.
	writer  atomic.Bool  // a writer holds rw
	readers atomic.Int32 // readers holding rw
	waiting atomic.Int32 // writers that announced themselves and wait
}

// Lock locks rw for writing, waiting until no one holds it.
func (rw *RWMutex) Lock() {
	before(OpAdd, unsafe.Pointer(rw))
	w := rw.waiting.Add(1)
	after(OpAdd, unsafe.Pointer(rw), uint64(w))
	wait(OpLock, unsafe.Pointer(rw), rw.free, -1)
	rw.mu.Lock()
	rw.waiting.Add(-1)
	rw.writer.Store(true)
	after(OpLock, unsafe.Pointer(rw), 1)
}

func (rw *RWMutex) free() bool     { return !rw.writer.Load() && rw.readers.Load() == 0 }
func (rw *RWMutex) readable() bool { return !rw.writer.Load() && rw.waiting.Load() == 0 }

// Unlock unlocks rw for writing. It panics with "atomicx: RWMutex.Unlock of
// an unlocked RWMutex" if no writer holds rw.
func (rw *RWMutex) Unlock() {
	before(OpUnlock, unsafe.Pointer(rw))
	if !rw.writer.Swap(false) {
		panic("atomicx: RWMutex.Unlock of an unlocked RWMutex")
	}
	rw.mu.Unlock()
	after(OpUnlock, unsafe.Pointer(rw), 0)
}

// RLock locks rw for reading, waiting while a writer holds it or waits.
func (rw *RWMutex) RLock() {
	wait(OpLock, unsafe.Pointer(rw), rw.readable, -1)
	rw.mu.RLock()
	rw.readers.Add(1)
	after(OpLock, unsafe.Pointer(rw), 1)
}

// RUnlock undoes one RLock. It panics with "atomicx: RWMutex.RUnlock of an
// unlocked RWMutex" if no reader holds rw.
func (rw *RWMutex) RUnlock() {
	before(OpUnlock, unsafe.Pointer(rw))
	if rw.readers.Add(-1) < 0 {
		rw.readers.Add(1)
		panic("atomicx: RWMutex.RUnlock of an unlocked RWMutex")
	}
	rw.mu.RUnlock()
	after(OpUnlock, unsafe.Pointer(rw), 0)
}

// TryLock tries to lock rw for writing and reports whether it did.
func (rw *RWMutex) TryLock() bool {
	before(OpCAS, unsafe.Pointer(rw))
	ok := rw.mu.TryLock()
	if ok {
		rw.writer.Store(true)
	}
	after(OpCAS, unsafe.Pointer(rw), b2u(ok))
	return ok
}

// TryRLock tries to lock rw for reading and reports whether it did.
func (rw *RWMutex) TryRLock() bool {
	before(OpCAS, unsafe.Pointer(rw))
	ok := rw.readable() && rw.mu.TryRLock()
	if ok {
		rw.readers.Add(1)
	}
	after(OpCAS, unsafe.Pointer(rw), b2u(ok))
	return ok
}

// WaitGroup waits for a collection of goroutines to finish. Add is a
// scheduling point of the explorer and a thread in Wait is not scheduled
// until the counter is zero.
type WaitGroup struct {
	wg sync.WaitGroup
	n  atomic.Int64 // the counter, for the explorer's ready check; not a cell
}

// Add adds delta, which may be negative, to the counter; it panics with
// "sync: negative WaitGroup counter" if the counter goes negative.
func (wg *WaitGroup) Add(delta int) {
	before(OpAdd, unsafe.Pointer(wg))
	n := wg.n.Add(int64(delta))
	if n < 0 {
		wg.n.Add(-int64(delta))
		panic("sync: negative WaitGroup counter")
	}
	wg.wg.Add(delta)
	after(OpAdd, unsafe.Pointer(wg), uint64(n))
}

// Done decrements the counter by one.
func (wg *WaitGroup) Done() { wg.Add(-1) }

// Wait blocks until the counter is zero.
func (wg *WaitGroup) Wait() {
	wait(OpLock, unsafe.Pointer(wg), wg.zero, -1)
	wg.wg.Wait() // under the explorer the counter is zero here
	after(OpLock, unsafe.Pointer(wg), 1)
}

func (wg *WaitGroup) zero() bool { return wg.n.Load() == 0 }
