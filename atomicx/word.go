package atomicx

import "unsafe"

// The hooks around one access, written once: schedcheck.go's cells (Uint32
// ... Pointer), compat.go's function forms of sync/atomic, its And and Or
// methods and Value, and every CompareExchange (cmpxchg.go) run through
// these. An access reads
//
//	return added(addr, delta, atomic.AddInt32(pre(OpAdd, addr), delta))
//
// pre tells the hook of the access before it (the explorer parks the thread
// there): it is evaluated inside the argument list of the sync/atomic call,
// so it runs first; the helper around that call (loaded, stored, swapped,
// cased, added, anded, ored) runs after it and reports the values: After for
// a Load or Store, RMWHook's old -> new for the rest. The helpers take the
// cell's address as a typed pointer (for a cell type, x or &x.v: the same
// address, v being its first field). In a normal build the hooks are empty
// and no function value is called: each integer function form, And and Or
// inlines to the sync/atomic instruction, as before. CompareExchange (whose
// loop, cmpxchg, takes the cell's methods as method expressions), Value's
// methods, StorePointer and SwapPointer cost more than the inliner's budget
// now: each is one call whose body is the sync/atomic code (go build
// -gcflags=-m, -S).
//
// The helpers without a W take an integer (word) and report it as
// uint64(v), sign-extended; those with a W (Bool, Pointer, unsafe.Pointer,
// Value) take w, which turns a value into the word the hook sees.

// word is a sync/atomic integer type.
type word interface {
	~int32 | ~int64 | ~uint32 | ~uint64 | ~uintptr
}

// pre tells the hook that an op on the cell at p is about to run and
// returns p.
func pre[P any](op Op, p *P) *P {
	hookBefore(op, unsafe.Pointer(p))
	return p
}

// loaded reports the Load of v from the cell at p.
func loaded[P any, T word](p *P, v T) T {
	hookAfter(OpLoad, unsafe.Pointer(p), uint64(v))
	return v
}

// stored reports the Store of v into the cell at p.
func stored[P any, T word](p *P, v T) {
	hookAfter(OpStore, unsafe.Pointer(p), uint64(v))
}

// swapped reports the Swap of v into the cell at p, which held old.
func swapped[P any, T word](p *P, v, old T) T {
	hookRMW(OpSwap, unsafe.Pointer(p), uint64(old), uint64(v), true)
	return old
}

// added reports the Add of d to the cell at p, which left v.
func added[P any, T word](p *P, d, v T) T {
	hookRMW(OpAdd, unsafe.Pointer(p), uint64(v-d), uint64(v), true)
	return v
}

// anded reports the And of mask into the cell at p, which held old: a swap
// from old to old&mask (And has no Op of its own).
func anded[P any, T word](p *P, mask, old T) T {
	hookRMW(OpSwap, unsafe.Pointer(p), uint64(old), uint64(old&mask), true)
	return old
}

// ored reports the Or of mask into the cell at p, which held old: a swap
// from old to old|mask.
func ored[P any, T word](p *P, mask, old T) T {
	hookRMW(OpSwap, unsafe.Pointer(p), uint64(old), uint64(old|mask), true)
	return old
}

// cased reports the CompareAndSwap of the cell at p from old to new, which
// did or did not happen (ok). Under a hook a failed CAS reads the cell with
// ld for the value that made it fail: no other explored thread runs in
// between.
func cased[P any, T word](p *P, old, new T, ok bool, ld func(*P) T) bool {
	seen := old
	if !ok && hookActive() {
		seen = ld(p)
	}
	hookRMW(OpCAS, unsafe.Pointer(p), uint64(seen), uint64(new), ok)
	return ok
}

// loadedW is loaded for a value that w turns into a word.
func loadedW[P, T any](p *P, v T, w func(T) uint64) T {
	hookAfter(OpLoad, unsafe.Pointer(p), w(v))
	return v
}

// storedW is stored for a value that w turns into a word.
func storedW[P, T any](p *P, v T, w func(T) uint64) {
	hookAfter(OpStore, unsafe.Pointer(p), w(v))
}

// swappedW is swapped for a value that w turns into a word.
func swappedW[P, T any](p *P, v, old T, w func(T) uint64) T {
	hookRMW(OpSwap, unsafe.Pointer(p), w(old), w(v), true)
	return old
}

// casedW is cased for a value that w turns into a word.
func casedW[P, T any](p *P, old, new T, ok bool, ld func(*P) T, w func(T) uint64) bool {
	seen := old
	if !ok && hookActive() {
		seen = ld(p)
	}
	hookRMW(OpCAS, unsafe.Pointer(p), w(seen), w(new), ok)
	return ok
}

// cmpxchg is compare_exchange's loop on the cell at p (see cmpxchg.go):
// cas and ld are the cell's own CompareAndSwap and Load, not hooked; the
// caller reports the whole loop as one CAS (pre before it, exchanged after).
func cmpxchg[P any, T comparable](p *P, old, new T, cas func(*P, T, T) bool, ld func(*P) T) (prev T, swapped bool) {
	for !cas(p, old, new) {
		if cur := ld(p); cur != old {
			return cur, false
		}
	}
	return old, true
}

// exchanged reports a CompareExchange of the cell at p that found prev and
// wrote new or not (ok): a CAS with the value it found.
func exchanged[P any](p *P, prev, new uint64, ok bool) bool {
	hookRMW(OpCAS, unsafe.Pointer(p), prev, new, ok)
	return ok
}

// ptrWord is a pointer's word: its address.
func ptrWord[T any](p *T) uint64 { return uint64(uintptr(unsafe.Pointer(p))) }

// uptrWord is an unsafe.Pointer's word: its address.
func uptrWord(p unsafe.Pointer) uint64 { return uint64(uintptr(p)) }

// b2u is a bool's word: 1 for true.
func b2u(ok bool) uint64 {
	if ok {
		return 1
	}
	return 0
}
