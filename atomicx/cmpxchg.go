//go:build !schedcheck

package atomicx

// CompareExchange is compare_exchange (C++, Rust): it replaces old with new
// if the cell holds old, and returns the value it held (old when it
// swapped). sync/atomic has no such instruction, so it is a CompareAndSwap
// and, when that fails, a Load that reads something else (a Load that reads
// old again retries): linearizable at the successful CAS or at that Load.

// CompareExchange replaces old with new if x holds old and returns what x
// held, and whether it swapped.
func (x *Uint32) CompareExchange(old, new uint32) (prev uint32, swapped bool) {
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
	for {
		if x.v.CompareAndSwap(old, new) {
			return old, true
		}
		if cur := x.v.Load(); cur != old {
			return cur, false
		}
	}
}
