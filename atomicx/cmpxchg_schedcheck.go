//go:build schedcheck

package atomicx

import "unsafe"

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
	before(OpCAS, unsafe.Pointer(x))
	prev, swapped = x.cmpxchg(old, new)
	afterRMW(OpCAS, unsafe.Pointer(x), uint64(prev), uint64(new), swapped)
	return prev, swapped
}

func (x *Uint32) cmpxchg(old, new uint32) (uint32, bool) {
	for {
		if x.v.CompareAndSwap(old, new) {
			return old, true
		}
		if cur := x.v.Load(); cur != old {
			return cur, false
		}
	}
}

// CompareExchange replaces old with new if x holds old and returns what x
// held, and whether it swapped.
func (x *Uint64) CompareExchange(old, new uint64) (prev uint64, swapped bool) {
	before(OpCAS, unsafe.Pointer(x))
	prev, swapped = x.cmpxchg(old, new)
	afterRMW(OpCAS, unsafe.Pointer(x), prev, new, swapped)
	return prev, swapped
}

func (x *Uint64) cmpxchg(old, new uint64) (uint64, bool) {
	for {
		if x.v.CompareAndSwap(old, new) {
			return old, true
		}
		if cur := x.v.Load(); cur != old {
			return cur, false
		}
	}
}

// CompareExchange replaces old with new if x holds old and returns what x
// held, and whether it swapped.
func (x *Int32) CompareExchange(old, new int32) (prev int32, swapped bool) {
	before(OpCAS, unsafe.Pointer(x))
	prev, swapped = x.cmpxchg(old, new)
	afterRMW(OpCAS, unsafe.Pointer(x), uint64(prev), uint64(new), swapped)
	return prev, swapped
}

func (x *Int32) cmpxchg(old, new int32) (int32, bool) {
	for {
		if x.v.CompareAndSwap(old, new) {
			return old, true
		}
		if cur := x.v.Load(); cur != old {
			return cur, false
		}
	}
}

// CompareExchange replaces old with new if x holds old and returns what x
// held, and whether it swapped.
func (x *Int64) CompareExchange(old, new int64) (prev int64, swapped bool) {
	before(OpCAS, unsafe.Pointer(x))
	prev, swapped = x.cmpxchg(old, new)
	afterRMW(OpCAS, unsafe.Pointer(x), uint64(prev), uint64(new), swapped)
	return prev, swapped
}

func (x *Int64) cmpxchg(old, new int64) (int64, bool) {
	for {
		if x.v.CompareAndSwap(old, new) {
			return old, true
		}
		if cur := x.v.Load(); cur != old {
			return cur, false
		}
	}
}

// CompareExchange replaces old with new if x holds old and returns what x
// held, and whether it swapped.
func (x *Bool) CompareExchange(old, new bool) (prev bool, swapped bool) {
	before(OpCAS, unsafe.Pointer(x))
	prev, swapped = x.cmpxchg(old, new)
	afterRMW(OpCAS, unsafe.Pointer(x), b2u(prev), b2u(new), swapped)
	return prev, swapped
}

func (x *Bool) cmpxchg(old, new bool) (bool, bool) {
	for {
		if x.v.CompareAndSwap(old, new) {
			return old, true
		}
		if cur := x.v.Load(); cur != old {
			return cur, false
		}
	}
}

// CompareExchange replaces old with new if x holds old and returns what x
// held, and whether it swapped.
func (x *Pointer[T]) CompareExchange(old, new *T) (prev *T, swapped bool) {
	before(OpCAS, unsafe.Pointer(x))
	prev, swapped = x.cmpxchg(old, new)
	afterRMW(OpCAS, unsafe.Pointer(x), uint64(uintptr(unsafe.Pointer(prev))), uint64(uintptr(unsafe.Pointer(new))), swapped)
	return prev, swapped
}

func (x *Pointer[T]) cmpxchg(old, new *T) (*T, bool) {
	for {
		if x.v.CompareAndSwap(old, new) {
			return old, true
		}
		if cur := x.v.Load(); cur != old {
			return cur, false
		}
	}
}
