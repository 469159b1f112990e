package atomicx_test

import (
	"sync/atomic"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
)

// Package-level sinks: every benchmark stores its accumulated result here
// after the loop, so the operations cannot be removed as dead code (b.Loop
// also keeps the loop body's results alive).
var (
	sinkU32 uint32
	sinkPtr *int
)

// BenchmarkWrapper pairs each atomicx operation with the raw sync/atomic
// operation it wraps, in one run: Uint32Load/impl=raw against
// Uint32Load/impl=atomicx and so on, so that benchstat -col /impl sets them
// side by side. In a normal build (no schedcheck tag) the two should cost
// the same, because each wrapper method inlines to the sync/atomic call.
// Single goroutine, so this is the uncontended cost of the instruction.
//
// A wrapper called from inside a generic function instantiated in another
// package (lfq.Ring[T] used from bench/) is a different case: see
// bench/RESULTS.md.
func BenchmarkWrapper(b *testing.B) {
	b.Run("Uint32Load/impl=raw", func(b *testing.B) {
		b.ReportAllocs()
		var x atomic.Uint32
		x.Store(1)
		var s uint32
		for b.Loop() {
			s += x.Load()
		}
		sinkU32 = s
	})
	b.Run("Uint32Load/impl=atomicx", func(b *testing.B) {
		b.ReportAllocs()
		var x atomicx.Uint32
		x.Store(1)
		var s uint32
		for b.Loop() {
			s += x.Load()
		}
		sinkU32 = s
	})

	b.Run("Uint32Store/impl=raw", func(b *testing.B) {
		b.ReportAllocs()
		var x atomic.Uint32
		var i uint32
		for b.Loop() {
			i++
			x.Store(i)
		}
		sinkU32 = x.Load()
	})
	b.Run("Uint32Store/impl=atomicx", func(b *testing.B) {
		b.ReportAllocs()
		var x atomicx.Uint32
		var i uint32
		for b.Loop() {
			i++
			x.Store(i)
		}
		sinkU32 = x.Load()
	})

	b.Run("Uint32Add/impl=raw", func(b *testing.B) {
		b.ReportAllocs()
		var x atomic.Uint32
		var s uint32
		for b.Loop() {
			s += x.Add(1)
		}
		sinkU32 = s
	})
	b.Run("Uint32Add/impl=atomicx", func(b *testing.B) {
		b.ReportAllocs()
		var x atomicx.Uint32
		var s uint32
		for b.Loop() {
			s += x.Add(1)
		}
		sinkU32 = s
	})

	// Each CAS succeeds: it expects the value the previous one stored.
	b.Run("Uint32CompareAndSwap/impl=raw", func(b *testing.B) {
		b.ReportAllocs()
		var x atomic.Uint32
		var v uint32
		for b.Loop() {
			if x.CompareAndSwap(v, v+1) {
				v++
			}
		}
		if x.Load() != v {
			b.Fatal("a CAS failed")
		}
		sinkU32 = v
	})
	b.Run("Uint32CompareAndSwap/impl=atomicx", func(b *testing.B) {
		b.ReportAllocs()
		var x atomicx.Uint32
		var v uint32
		for b.Loop() {
			if x.CompareAndSwap(v, v+1) {
				v++
			}
		}
		if x.Load() != v {
			b.Fatal("a CAS failed")
		}
		sinkU32 = v
	})

	vals := [2]int{1, 2}

	b.Run("PointerLoad/impl=raw", func(b *testing.B) {
		b.ReportAllocs()
		var x atomic.Pointer[int]
		x.Store(&vals[0])
		var p *int
		for b.Loop() {
			p = x.Load()
		}
		sinkPtr = p
	})
	b.Run("PointerLoad/impl=atomicx", func(b *testing.B) {
		b.ReportAllocs()
		var x atomicx.Pointer[int]
		x.Store(&vals[0])
		var p *int
		for b.Loop() {
			p = x.Load()
		}
		sinkPtr = p
	})

	// Stores alternate between two pointers; the write barrier is off
	// unless a GC cycle is running, as on most stores in a real program.
	b.Run("PointerStore/impl=raw", func(b *testing.B) {
		b.ReportAllocs()
		var x atomic.Pointer[int]
		var i uint32
		for b.Loop() {
			i++
			x.Store(&vals[i&1])
		}
		sinkPtr = x.Load()
	})
	b.Run("PointerStore/impl=atomicx", func(b *testing.B) {
		b.ReportAllocs()
		var x atomicx.Pointer[int]
		var i uint32
		for b.Loop() {
			i++
			x.Store(&vals[i&1])
		}
		sinkPtr = x.Load()
	})
}

// One operation each, not inlined, so that go tool objdump can show the
// instruction a call site compiles to (doc.go records them): the atomicx
// and sync/atomic versions of each must read the same.
//
//go:noinline
func loadX(x *atomicx.Uint64) uint64 { return x.Load() }

//go:noinline
func loadRaw(x *atomic.Uint64) uint64 { return x.Load() }

//go:noinline
func storeX(x *atomicx.Uint64, v uint64) { x.Store(v) }

//go:noinline
func storeRaw(x *atomic.Uint64, v uint64) { x.Store(v) }

//go:noinline
func addX(x *atomicx.Uint64, d uint64) uint64 { return x.Add(d) }

//go:noinline
func addRaw(x *atomic.Uint64, d uint64) uint64 { return x.Add(d) }

//go:noinline
func casX(x *atomicx.Uint64, old, new uint64) bool { return x.CompareAndSwap(old, new) }

//go:noinline
func casRaw(x *atomic.Uint64, old, new uint64) bool { return x.CompareAndSwap(old, new) }

// TestOneOpFunctions keeps the functions above in the binary, and checks
// they do what they say.
func TestOneOpFunctions(t *testing.T) {
	var x atomicx.Uint64
	var r atomic.Uint64
	storeX(&x, 1)
	storeRaw(&r, 1)
	if addX(&x, 2) != 3 || addRaw(&r, 2) != 3 || !casX(&x, 3, 4) || !casRaw(&r, 3, 4) || loadX(&x) != 4 || loadRaw(&r) != 4 {
		t.Fatal("a one-operation function does not do its operation")
	}
}
