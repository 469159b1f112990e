//go:build schedcheck

package atomicx

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// Hook sees every access to a cell, and every operation of Mutex, Note and
// the clock, in a schedcheck build.
//
// Before runs ahead of a cell access or of a non-blocking operation (Unlock,
// Wakeup, Clear); the explorer parks the calling thread there until it is
// scheduled. After reports the value read or written (for a CAS, 1 if it
// succeeded; for Lock 1, for Note.Sleep and SleepFor 1 if woken, for Nanotime
// and Sleep the time).
//
// Wait takes the place of Before for an operation that may block or reads the
// clock: Mutex.Lock, Note.Sleep, Note.SleepFor, Nanotime and Sleep. The
// operation may proceed once ready reports true (a nil ready: at once), or,
// when timeout >= 0, once the clock has advanced timeout past the call; a nil
// ready with a timeout >= 0 waits for time alone. ready reads state without
// side effects and may be called any number of times from another goroutine
// while the caller is parked. Wait returns the clock's value and ok = true
// when the hook controls the calling goroutine; ok = false tells the caller
// to do the real thing (block for real, read real time). After follows Wait
// as it follows Before.
type Hook interface {
	Before(op Op, addr uintptr)
	After(op Op, addr uintptr, val uint64)
	Wait(op Op, addr uintptr, ready func() bool, timeout time.Duration) (now int64, ok bool)
}

type hookBox struct{ h Hook }

var hook atomic.Pointer[hookBox]

// SetHook installs h for every cell and returns a function that restores the
// previous hook. With no hook installed a cell behaves as in a normal build.
func SetHook(h Hook) (restore func()) {
	old := hook.Swap(&hookBox{h})
	return func() { hook.Store(old) }
}

func before(op Op, p unsafe.Pointer) {
	if b := hook.Load(); b != nil && b.h != nil {
		b.h.Before(op, uintptr(p))
	}
}

func after(op Op, p unsafe.Pointer, v uint64) {
	if b := hook.Load(); b != nil && b.h != nil {
		b.h.After(op, uintptr(p), v)
	}
}

func wait(op Op, p unsafe.Pointer, ready func() bool, timeout time.Duration) (int64, bool) {
	if b := hook.Load(); b != nil && b.h != nil {
		return b.h.Wait(op, uintptr(p), ready, timeout)
	}
	return 0, false
}

// Uint32 is an atomic uint32. The zero value is 0.
type Uint32 struct{ v atomic.Uint32 }

// Load atomically loads the value.
func (x *Uint32) Load() uint32 { return loaded(x, pre(OpLoad, x).v.Load()) }

// Store atomically stores v.
func (x *Uint32) Store(v uint32) {
	pre(OpStore, x).v.Store(v)
	stored(x, v)
}

// Add atomically adds d and returns the new value.
func (x *Uint32) Add(d uint32) uint32 { return added(x, d, pre(OpAdd, x).v.Add(d)) }

// Swap atomically stores v and returns the old value.
func (x *Uint32) Swap(v uint32) uint32 { return swapped(x, v, pre(OpSwap, x).v.Swap(v)) }

// CompareAndSwap atomically replaces old with new and reports whether it did.
func (x *Uint32) CompareAndSwap(old, new uint32) bool {
	return cased(&x.v, old, new, pre(OpCAS, &x.v).CompareAndSwap(old, new), (*atomic.Uint32).Load)
}

// Uint64 is an atomic uint64. The zero value is 0.
type Uint64 struct{ v atomic.Uint64 }

// Load atomically loads the value.
func (x *Uint64) Load() uint64 { return loaded(x, pre(OpLoad, x).v.Load()) }

// Store atomically stores v.
func (x *Uint64) Store(v uint64) {
	pre(OpStore, x).v.Store(v)
	stored(x, v)
}

// Add atomically adds d and returns the new value.
func (x *Uint64) Add(d uint64) uint64 { return added(x, d, pre(OpAdd, x).v.Add(d)) }

// Swap atomically stores v and returns the old value.
func (x *Uint64) Swap(v uint64) uint64 { return swapped(x, v, pre(OpSwap, x).v.Swap(v)) }

// CompareAndSwap atomically replaces old with new and reports whether it did.
func (x *Uint64) CompareAndSwap(old, new uint64) bool {
	return cased(&x.v, old, new, pre(OpCAS, &x.v).CompareAndSwap(old, new), (*atomic.Uint64).Load)
}

// Int32 is an atomic int32. The zero value is 0.
type Int32 struct{ v atomic.Int32 }

// Load atomically loads the value.
func (x *Int32) Load() int32 { return loaded(x, pre(OpLoad, x).v.Load()) }

// Store atomically stores v.
func (x *Int32) Store(v int32) {
	pre(OpStore, x).v.Store(v)
	stored(x, v)
}

// Add atomically adds d and returns the new value.
func (x *Int32) Add(d int32) int32 { return added(x, d, pre(OpAdd, x).v.Add(d)) }

// Swap atomically stores v and returns the old value.
func (x *Int32) Swap(v int32) int32 { return swapped(x, v, pre(OpSwap, x).v.Swap(v)) }

// CompareAndSwap atomically replaces old with new and reports whether it did.
func (x *Int32) CompareAndSwap(old, new int32) bool {
	return cased(&x.v, old, new, pre(OpCAS, &x.v).CompareAndSwap(old, new), (*atomic.Int32).Load)
}

// Int64 is an atomic int64. The zero value is 0.
type Int64 struct{ v atomic.Int64 }

// Load atomically loads the value.
func (x *Int64) Load() int64 { return loaded(x, pre(OpLoad, x).v.Load()) }

// Store atomically stores v.
func (x *Int64) Store(v int64) {
	pre(OpStore, x).v.Store(v)
	stored(x, v)
}

// Add atomically adds d and returns the new value.
func (x *Int64) Add(d int64) int64 { return added(x, d, pre(OpAdd, x).v.Add(d)) }

// Swap atomically stores v and returns the old value.
func (x *Int64) Swap(v int64) int64 { return swapped(x, v, pre(OpSwap, x).v.Swap(v)) }

// CompareAndSwap atomically replaces old with new and reports whether it did.
func (x *Int64) CompareAndSwap(old, new int64) bool {
	return cased(&x.v, old, new, pre(OpCAS, &x.v).CompareAndSwap(old, new), (*atomic.Int64).Load)
}

// Bool is an atomic bool. The zero value is false.
type Bool struct{ v atomic.Bool }

// Load atomically loads the value.
func (x *Bool) Load() bool { return loadedW(x, pre(OpLoad, x).v.Load(), b2u) }

// Store atomically stores v.
func (x *Bool) Store(v bool) {
	pre(OpStore, x).v.Store(v)
	storedW(x, v, b2u)
}

// Swap atomically stores v and returns the old value.
func (x *Bool) Swap(v bool) bool { return swappedW(x, v, pre(OpSwap, x).v.Swap(v), b2u) }

// CompareAndSwap atomically replaces old with new and reports whether it did.
func (x *Bool) CompareAndSwap(old, new bool) bool {
	return casedW(&x.v, old, new, pre(OpCAS, &x.v).CompareAndSwap(old, new), (*atomic.Bool).Load, b2u)
}

// Pointer is an atomic *T. The zero value is nil.
type Pointer[T any] struct{ v atomic.Pointer[T] }

// Load atomically loads the pointer.
func (x *Pointer[T]) Load() *T { return loadedW(x, pre(OpLoad, x).v.Load(), ptrWord) }

// Store atomically stores p.
func (x *Pointer[T]) Store(p *T) {
	pre(OpStore, x).v.Store(p)
	storedW(x, p, ptrWord)
}

// Swap atomically stores p and returns the old pointer.
func (x *Pointer[T]) Swap(p *T) *T { return swappedW(x, p, pre(OpSwap, x).v.Swap(p), ptrWord) }

// CompareAndSwap atomically replaces old with new and reports whether it did.
func (x *Pointer[T]) CompareAndSwap(old, new *T) bool {
	return casedW(&x.v, old, new, pre(OpCAS, &x.v).CompareAndSwap(old, new), (*atomic.Pointer[T]).Load, ptrWord)
}
