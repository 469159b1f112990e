package atomicx

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// This file holds what the rewrite of `schedkit explore` needs beyond the
// cells: the rest of sync/atomic (the function forms on plain words, Uintptr,
// Value, the And and Or methods) and the sync types the rewrite maps here
// (Once, OnceFunc, OnceValue, OnceValues; RWMutex, WaitGroup and
// Mutex.TryLock live in compat_off.go and compat_schedcheck.go). In a
// normal build each is the sync/atomic or sync call it replaces; under
// schedcheck each access is a scheduling point of the explorer, keyed by the
// word's address, so a plain int64 that the code reaches only through
// AddInt64 and LoadInt64 is a cell like any other.
//
// Read-modify-writes report both values (RMWHook's old -> new), as the
// cells do; And and Or are reported as a swap from the old value to the
// one they leave (no Op of their own). A Value's values are reported as
// the stored interfaces' data words.

// The function forms of sync/atomic on plain words. Each mirrors the
// sync/atomic function of the same name.

// AddInt32 atomically adds delta to *addr and returns the new value.
func AddInt32(addr *int32, delta int32) (new int32) {
	return added(addr, delta, atomic.AddInt32(pre(OpAdd, addr), delta))
}

// AddInt64 atomically adds delta to *addr and returns the new value.
func AddInt64(addr *int64, delta int64) (new int64) {
	return added(addr, delta, atomic.AddInt64(pre(OpAdd, addr), delta))
}

// AddUint32 atomically adds delta to *addr and returns the new value.
func AddUint32(addr *uint32, delta uint32) (new uint32) {
	return added(addr, delta, atomic.AddUint32(pre(OpAdd, addr), delta))
}

// AddUint64 atomically adds delta to *addr and returns the new value.
func AddUint64(addr *uint64, delta uint64) (new uint64) {
	return added(addr, delta, atomic.AddUint64(pre(OpAdd, addr), delta))
}

// AddUintptr atomically adds delta to *addr and returns the new value.
func AddUintptr(addr *uintptr, delta uintptr) (new uintptr) {
	return added(addr, delta, atomic.AddUintptr(pre(OpAdd, addr), delta))
}

// AndInt32 atomically ands *addr with mask and returns the old value.
func AndInt32(addr *int32, mask int32) (old int32) {
	return anded(addr, mask, atomic.AndInt32(pre(OpSwap, addr), mask))
}

// AndInt64 atomically ands *addr with mask and returns the old value.
func AndInt64(addr *int64, mask int64) (old int64) {
	return anded(addr, mask, atomic.AndInt64(pre(OpSwap, addr), mask))
}

// AndUint32 atomically ands *addr with mask and returns the old value.
func AndUint32(addr *uint32, mask uint32) (old uint32) {
	return anded(addr, mask, atomic.AndUint32(pre(OpSwap, addr), mask))
}

// AndUint64 atomically ands *addr with mask and returns the old value.
func AndUint64(addr *uint64, mask uint64) (old uint64) {
	return anded(addr, mask, atomic.AndUint64(pre(OpSwap, addr), mask))
}

// AndUintptr atomically ands *addr with mask and returns the old value.
func AndUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	return anded(addr, mask, atomic.AndUintptr(pre(OpSwap, addr), mask))
}

// OrInt32 atomically ors *addr with mask and returns the old value.
func OrInt32(addr *int32, mask int32) (old int32) {
	return ored(addr, mask, atomic.OrInt32(pre(OpSwap, addr), mask))
}

// OrInt64 atomically ors *addr with mask and returns the old value.
func OrInt64(addr *int64, mask int64) (old int64) {
	return ored(addr, mask, atomic.OrInt64(pre(OpSwap, addr), mask))
}

// OrUint32 atomically ors *addr with mask and returns the old value.
func OrUint32(addr *uint32, mask uint32) (old uint32) {
	return ored(addr, mask, atomic.OrUint32(pre(OpSwap, addr), mask))
}

// OrUint64 atomically ors *addr with mask and returns the old value.
func OrUint64(addr *uint64, mask uint64) (old uint64) {
	return ored(addr, mask, atomic.OrUint64(pre(OpSwap, addr), mask))
}

// OrUintptr atomically ors *addr with mask and returns the old value.
func OrUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	return ored(addr, mask, atomic.OrUintptr(pre(OpSwap, addr), mask))
}

// CompareAndSwapInt32 atomically replaces *addr's old with new and reports
// whether it did.
func CompareAndSwapInt32(addr *int32, old, new int32) (swapped bool) {
	return cased(addr, old, new, atomic.CompareAndSwapInt32(pre(OpCAS, addr), old, new), atomic.LoadInt32)
}

// CompareAndSwapInt64 atomically replaces *addr's old with new and reports
// whether it did.
func CompareAndSwapInt64(addr *int64, old, new int64) (swapped bool) {
	return cased(addr, old, new, atomic.CompareAndSwapInt64(pre(OpCAS, addr), old, new), atomic.LoadInt64)
}

// CompareAndSwapUint32 atomically replaces *addr's old with new and reports
// whether it did.
func CompareAndSwapUint32(addr *uint32, old, new uint32) (swapped bool) {
	return cased(addr, old, new, atomic.CompareAndSwapUint32(pre(OpCAS, addr), old, new), atomic.LoadUint32)
}

// CompareAndSwapUint64 atomically replaces *addr's old with new and reports
// whether it did.
func CompareAndSwapUint64(addr *uint64, old, new uint64) (swapped bool) {
	return cased(addr, old, new, atomic.CompareAndSwapUint64(pre(OpCAS, addr), old, new), atomic.LoadUint64)
}

// CompareAndSwapUintptr atomically replaces *addr's old with new and reports
// whether it did.
func CompareAndSwapUintptr(addr *uintptr, old, new uintptr) (swapped bool) {
	return cased(addr, old, new, atomic.CompareAndSwapUintptr(pre(OpCAS, addr), old, new), atomic.LoadUintptr)
}

// CompareAndSwapPointer atomically replaces *addr's old with new and
// reports whether it did.
func CompareAndSwapPointer(addr *unsafe.Pointer, old, new unsafe.Pointer) (swapped bool) {
	return casedW(addr, old, new, atomic.CompareAndSwapPointer(pre(OpCAS, addr), old, new), atomic.LoadPointer, uptrWord)
}

// LoadInt32 atomically loads *addr.
func LoadInt32(addr *int32) (val int32) { return loaded(addr, atomic.LoadInt32(pre(OpLoad, addr))) }

// LoadInt64 atomically loads *addr.
func LoadInt64(addr *int64) (val int64) { return loaded(addr, atomic.LoadInt64(pre(OpLoad, addr))) }

// LoadUint32 atomically loads *addr.
func LoadUint32(addr *uint32) (val uint32) { return loaded(addr, atomic.LoadUint32(pre(OpLoad, addr))) }

// LoadUint64 atomically loads *addr.
func LoadUint64(addr *uint64) (val uint64) { return loaded(addr, atomic.LoadUint64(pre(OpLoad, addr))) }

// LoadUintptr atomically loads *addr.
func LoadUintptr(addr *uintptr) (val uintptr) {
	return loaded(addr, atomic.LoadUintptr(pre(OpLoad, addr)))
}

// LoadPointer atomically loads *addr.
func LoadPointer(addr *unsafe.Pointer) (val unsafe.Pointer) {
	return loadedW(addr, atomic.LoadPointer(pre(OpLoad, addr)), uptrWord)
}

// StoreInt32 atomically stores val into *addr.
func StoreInt32(addr *int32, val int32) {
	atomic.StoreInt32(pre(OpStore, addr), val)
	stored(addr, val)
}

// StoreInt64 atomically stores val into *addr.
func StoreInt64(addr *int64, val int64) {
	atomic.StoreInt64(pre(OpStore, addr), val)
	stored(addr, val)
}

// StoreUint32 atomically stores val into *addr.
func StoreUint32(addr *uint32, val uint32) {
	atomic.StoreUint32(pre(OpStore, addr), val)
	stored(addr, val)
}

// StoreUint64 atomically stores val into *addr.
func StoreUint64(addr *uint64, val uint64) {
	atomic.StoreUint64(pre(OpStore, addr), val)
	stored(addr, val)
}

// StoreUintptr atomically stores val into *addr.
func StoreUintptr(addr *uintptr, val uintptr) {
	atomic.StoreUintptr(pre(OpStore, addr), val)
	stored(addr, val)
}

// StorePointer atomically stores val into *addr.
func StorePointer(addr *unsafe.Pointer, val unsafe.Pointer) {
	atomic.StorePointer(pre(OpStore, addr), val)
	stored(addr, uintptr(val)) // the address, as uptrWord(val)
}

// SwapInt32 atomically stores new into *addr and returns the old value.
func SwapInt32(addr *int32, new int32) (old int32) {
	return swapped(addr, new, atomic.SwapInt32(pre(OpSwap, addr), new))
}

// SwapInt64 atomically stores new into *addr and returns the old value.
func SwapInt64(addr *int64, new int64) (old int64) {
	return swapped(addr, new, atomic.SwapInt64(pre(OpSwap, addr), new))
}

// SwapUint32 atomically stores new into *addr and returns the old value.
func SwapUint32(addr *uint32, new uint32) (old uint32) {
	return swapped(addr, new, atomic.SwapUint32(pre(OpSwap, addr), new))
}

// SwapUint64 atomically stores new into *addr and returns the old value.
func SwapUint64(addr *uint64, new uint64) (old uint64) {
	return swapped(addr, new, atomic.SwapUint64(pre(OpSwap, addr), new))
}

// SwapUintptr atomically stores new into *addr and returns the old value.
func SwapUintptr(addr *uintptr, new uintptr) (old uintptr) {
	return swapped(addr, new, atomic.SwapUintptr(pre(OpSwap, addr), new))
}

// SwapPointer atomically stores new into *addr and returns the old value.
func SwapPointer(addr *unsafe.Pointer, new unsafe.Pointer) (old unsafe.Pointer) {
	return swappedW(addr, new, atomic.SwapPointer(pre(OpSwap, addr), new), uptrWord)
}

// And atomically ands x with mask and returns the old value.
func (x *Int32) And(mask int32) (old int32) { return anded(x, mask, pre(OpSwap, x).v.And(mask)) }

// Or atomically ors x with mask and returns the old value.
func (x *Int32) Or(mask int32) (old int32) { return ored(x, mask, pre(OpSwap, x).v.Or(mask)) }

// And atomically ands x with mask and returns the old value.
func (x *Int64) And(mask int64) (old int64) { return anded(x, mask, pre(OpSwap, x).v.And(mask)) }

// Or atomically ors x with mask and returns the old value.
func (x *Int64) Or(mask int64) (old int64) { return ored(x, mask, pre(OpSwap, x).v.Or(mask)) }

// And atomically ands x with mask and returns the old value.
func (x *Uint32) And(mask uint32) (old uint32) { return anded(x, mask, pre(OpSwap, x).v.And(mask)) }

// Or atomically ors x with mask and returns the old value.
func (x *Uint32) Or(mask uint32) (old uint32) { return ored(x, mask, pre(OpSwap, x).v.Or(mask)) }

// And atomically ands x with mask and returns the old value.
func (x *Uint64) And(mask uint64) (old uint64) { return anded(x, mask, pre(OpSwap, x).v.And(mask)) }

// Or atomically ors x with mask and returns the old value.
func (x *Uint64) Or(mask uint64) (old uint64) { return ored(x, mask, pre(OpSwap, x).v.Or(mask)) }

// Uintptr is an atomic uintptr, as sync/atomic's. The zero value is 0.
type Uintptr struct{ v uintptr }

// Load atomically loads the value.
func (x *Uintptr) Load() uintptr { return LoadUintptr(&x.v) }

// Store atomically stores v.
func (x *Uintptr) Store(v uintptr) { StoreUintptr(&x.v, v) }

// Add atomically adds d and returns the new value.
func (x *Uintptr) Add(d uintptr) uintptr { return AddUintptr(&x.v, d) }

// Swap atomically stores v and returns the old value.
func (x *Uintptr) Swap(v uintptr) uintptr { return SwapUintptr(&x.v, v) }

// CompareAndSwap atomically replaces old with new and reports whether it did.
func (x *Uintptr) CompareAndSwap(old, new uintptr) bool {
	return CompareAndSwapUintptr(&x.v, old, new)
}

// And atomically ands x with mask and returns the old value.
func (x *Uintptr) And(mask uintptr) (old uintptr) { return AndUintptr(&x.v, mask) }

// Or atomically ors x with mask and returns the old value.
func (x *Uintptr) Or(mask uintptr) (old uintptr) { return OrUintptr(&x.v, mask) }

// Value holds any value, loaded and stored atomically, as sync/atomic's
// Value, whose rules it keeps (every Store of one type, no nil; the panics
// are sync/atomic's). The value reported to the hook is the stored
// interface's data word.
type Value struct{ v atomic.Value }

// Load returns the value last stored, or nil if none was.
func (x *Value) Load() (val any) { return loadedW(x, pre(OpLoad, x).v.Load(), anyWord) }

// Store sets the value to val.
func (x *Value) Store(val any) {
	pre(OpStore, x).v.Store(val)
	storedW(x, val, anyWord)
}

// Swap stores new and returns the previous value, or nil if none was stored.
func (x *Value) Swap(new any) (old any) { return swappedW(x, new, pre(OpSwap, x).v.Swap(new), anyWord) }

// CompareAndSwap stores new if the value is old and reports whether it did.
func (x *Value) CompareAndSwap(old, new any) (swapped bool) {
	return casedW(&x.v, old, new, pre(OpCAS, &x.v).CompareAndSwap(old, new), (*atomic.Value).Load, anyWord)
}

// anyWord is the data word of v: a number that tells stored values apart
// for the explorer's traces and end states.
func anyWord(v any) uint64 {
	return uint64((*[2]uintptr)(unsafe.Pointer(&v))[1])
}

// Once performs one action, as sync.Once, on a Uint32 and a Mutex: under
// schedcheck the explorer sees the flag's load and the lock, so a thread
// that finds the action running waits at the lock until it is done. It
// mirrors sync.Once.Do (sync/once.go): a fast-path load, then a locked
// re-check, the flag set after f returns.
type Once struct {
	done Uint32
	m    Mutex
}

// Do calls f if and only if Do is being called for the first time on o;
// every call returns once f has returned. A panic in f counts as returned.
func (o *Once) Do(f func()) {
	if o.done.Load() == 0 {
		o.doSlow(f)
	}
}

func (o *Once) doSlow(f func()) {
	o.m.Lock()
	defer o.m.Unlock()
	if o.done.Load() == 0 {
		defer o.done.Store(1)
		f()
	}
}

// OnceFunc returns a function that calls f only the first time it is called,
// as sync.OnceFunc: a panic in f is repeated by every call.
func OnceFunc(f func()) func() {
	var once Once
	var p any
	var ok bool
	call := func() {
		defer func() {
			if !ok {
				p = recover()
				panic(p)
			}
		}()
		f()
		f, ok = nil, true
	}
	return func() {
		once.Do(call)
		if !ok {
			panic(p)
		}
	}
}

// OnceValue returns a function that calls f only the first time and returns
// its result every time, as sync.OnceValue: a panic in f is repeated by every
// call.
func OnceValue[T any](f func() T) func() T {
	var r T
	g := OnceFunc(func() { r = f() })
	return func() T { g(); return r }
}

// OnceValues returns a function that calls f only the first time and returns
// its results every time, as sync.OnceValues: a panic in f is repeated by
// every call.
func OnceValues[T1, T2 any](f func() (T1, T2)) func() (T1, T2) {
	var r1 T1
	var r2 T2
	g := OnceFunc(func() { r1, r2 = f() })
	return func() (T1, T2) { g(); return r1, r2 }
}

// Go calls f in a new goroutine and adds that task to the WaitGroup, as
// sync.WaitGroup.Go. Under the explorer the goroutine is not one of the
// scenario's threads: its operations run as soon as it reaches them, and the
// explorer does not interleave them.
func (wg *WaitGroup) Go(f func()) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		f()
	}()
}

// RLocker returns a Locker whose Lock and Unlock call rw.RLock and
// rw.RUnlock, as sync.RWMutex.RLocker.
func (rw *RWMutex) RLocker() sync.Locker {
	return (*rlocker)(rw)
}

type rlocker RWMutex

func (r *rlocker) Lock()   { (*RWMutex)(r).RLock() }
func (r *rlocker) Unlock() { (*RWMutex)(r).RUnlock() }
