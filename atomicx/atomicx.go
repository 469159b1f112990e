//go:build !schedcheck

package atomicx

import "sync/atomic"

// Uint32 is an atomic uint32. The zero value is 0.
type Uint32 struct{ v atomic.Uint32 }

// Load atomically loads the value.
func (x *Uint32) Load() uint32 { return x.v.Load() }

// Store atomically stores v.
func (x *Uint32) Store(v uint32) { x.v.Store(v) }

// Add atomically adds d and returns the new value.
func (x *Uint32) Add(d uint32) uint32 { return x.v.Add(d) }

// Swap atomically stores v and returns the old value.
func (x *Uint32) Swap(v uint32) uint32 { return x.v.Swap(v) }

// CompareAndSwap atomically replaces old with new and reports whether it did.
func (x *Uint32) CompareAndSwap(old, new uint32) bool { return x.v.CompareAndSwap(old, new) }

// Uint64 is an atomic uint64. The zero value is 0.
type Uint64 struct{ v atomic.Uint64 }

// Load atomically loads the value.
func (x *Uint64) Load() uint64 { return x.v.Load() }

// Store atomically stores v.
func (x *Uint64) Store(v uint64) { x.v.Store(v) }

// Add atomically adds d and returns the new value.
func (x *Uint64) Add(d uint64) uint64 { return x.v.Add(d) }

// Swap atomically stores v and returns the old value.
func (x *Uint64) Swap(v uint64) uint64 { return x.v.Swap(v) }

// CompareAndSwap atomically replaces old with new and reports whether it did.
func (x *Uint64) CompareAndSwap(old, new uint64) bool { return x.v.CompareAndSwap(old, new) }

// Int32 is an atomic int32. The zero value is 0.
type Int32 struct{ v atomic.Int32 }

// Load atomically loads the value.
func (x *Int32) Load() int32 { return x.v.Load() }

// Store atomically stores v.
func (x *Int32) Store(v int32) { x.v.Store(v) }

// Add atomically adds d and returns the new value.
func (x *Int32) Add(d int32) int32 { return x.v.Add(d) }

// Swap atomically stores v and returns the old value.
func (x *Int32) Swap(v int32) int32 { return x.v.Swap(v) }

// CompareAndSwap atomically replaces old with new and reports whether it did.
func (x *Int32) CompareAndSwap(old, new int32) bool { return x.v.CompareAndSwap(old, new) }

// Int64 is an atomic int64. The zero value is 0.
type Int64 struct{ v atomic.Int64 }

// Load atomically loads the value.
func (x *Int64) Load() int64 { return x.v.Load() }

// Store atomically stores v.
func (x *Int64) Store(v int64) { x.v.Store(v) }

// Add atomically adds d and returns the new value.
func (x *Int64) Add(d int64) int64 { return x.v.Add(d) }

// Swap atomically stores v and returns the old value.
func (x *Int64) Swap(v int64) int64 { return x.v.Swap(v) }

// CompareAndSwap atomically replaces old with new and reports whether it did.
func (x *Int64) CompareAndSwap(old, new int64) bool { return x.v.CompareAndSwap(old, new) }

// Bool is an atomic bool. The zero value is false.
type Bool struct{ v atomic.Bool }

// Load atomically loads the value.
func (x *Bool) Load() bool { return x.v.Load() }

// Store atomically stores v.
func (x *Bool) Store(v bool) { x.v.Store(v) }

// Swap atomically stores v and returns the old value.
func (x *Bool) Swap(v bool) bool { return x.v.Swap(v) }

// CompareAndSwap atomically replaces old with new and reports whether it did.
func (x *Bool) CompareAndSwap(old, new bool) bool { return x.v.CompareAndSwap(old, new) }

// Pointer is an atomic *T. The zero value is nil.
type Pointer[T any] struct{ v atomic.Pointer[T] }

// Load atomically loads the pointer.
func (x *Pointer[T]) Load() *T { return x.v.Load() }

// Store atomically stores p.
func (x *Pointer[T]) Store(p *T) { x.v.Store(p) }

// Swap atomically stores p and returns the old pointer.
func (x *Pointer[T]) Swap(p *T) *T { return x.v.Swap(p) }

// CompareAndSwap atomically replaces old with new and reports whether it did.
func (x *Pointer[T]) CompareAndSwap(old, new *T) bool { return x.v.CompareAndSwap(old, new) }
