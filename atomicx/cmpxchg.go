package atomicx

import "sync/atomic"

// CompareExchange is compare_exchange (C++, Rust): it replaces old with new
// if the cell holds old, and returns the value it held (old when it
// swapped). sync/atomic has no such instruction, so it is a CompareAndSwap
// and, when that fails, a Load that reads something else (a Load that reads
// old again retries): linearizable at the successful CAS or at that Load.
// Under the explorer it is one scheduling point, traced as a cas with the
// value it found ("cas n failed, saw 3").

// CompareExchange replaces old with new if x holds old and returns what x
// held, and whether it swapped.
func (x *Uint32) CompareExchange(old, new uint32) (prev uint32, swapped bool) {
	prev, swapped = cmpxchg(pre(OpCAS, &x.v), old, new, (*atomic.Uint32).CompareAndSwap, (*atomic.Uint32).Load)
	return prev, exchanged(x, uint64(prev), uint64(new), swapped)
}

// CompareExchange replaces old with new if x holds old and returns what x
// held, and whether it swapped.
func (x *Uint64) CompareExchange(old, new uint64) (prev uint64, swapped bool) {
	prev, swapped = cmpxchg(pre(OpCAS, &x.v), old, new, (*atomic.Uint64).CompareAndSwap, (*atomic.Uint64).Load)
	return prev, exchanged(x, prev, new, swapped)
}

// CompareExchange replaces old with new if x holds old and returns what x
// held, and whether it swapped.
func (x *Int32) CompareExchange(old, new int32) (prev int32, swapped bool) {
	prev, swapped = cmpxchg(pre(OpCAS, &x.v), old, new, (*atomic.Int32).CompareAndSwap, (*atomic.Int32).Load)
	return prev, exchanged(x, uint64(prev), uint64(new), swapped)
}

// CompareExchange replaces old with new if x holds old and returns what x
// held, and whether it swapped.
func (x *Int64) CompareExchange(old, new int64) (prev int64, swapped bool) {
	prev, swapped = cmpxchg(pre(OpCAS, &x.v), old, new, (*atomic.Int64).CompareAndSwap, (*atomic.Int64).Load)
	return prev, exchanged(x, uint64(prev), uint64(new), swapped)
}

// CompareExchange replaces old with new if x holds old and returns what x
// held, and whether it swapped.
func (x *Bool) CompareExchange(old, new bool) (prev bool, swapped bool) {
	prev, swapped = cmpxchg(pre(OpCAS, &x.v), old, new, (*atomic.Bool).CompareAndSwap, (*atomic.Bool).Load)
	return prev, exchanged(x, b2u(prev), b2u(new), swapped)
}

// CompareExchange replaces old with new if x holds old and returns what x
// held, and whether it swapped.
func (x *Pointer[T]) CompareExchange(old, new *T) (prev *T, swapped bool) {
	prev, swapped = cmpxchg(pre(OpCAS, &x.v), old, new, (*atomic.Pointer[T]).CompareAndSwap, (*atomic.Pointer[T]).Load)
	return prev, exchanged(x, ptrWord(prev), ptrWord(new), swapped)
}
