package atomicx_test

import (
	"testing"

	"github.com/schedkit/schedkit/atomicx"
)

// BenchmarkPlain pairs a Plain cell with the bare field it stands for, in
// one run (benchstat -col /impl): a store and a load of one slot of an
// 8-slot buffer per iteration. In a normal build Load and Store inline to
// the field access, so the two should cost the same; the one-operation
// functions below show the instructions (go tool objdump).
func BenchmarkPlain(b *testing.B) {
	b.Run("SlotStoreLoad/impl=field", func(b *testing.B) {
		var buf [8]int
		s, i := 0, 0
		for b.Loop() {
			buf[i&7] = i
			s += buf[(i+3)&7]
			i++
		}
		sinkInt = s
	})
	b.Run("SlotStoreLoad/impl=plain", func(b *testing.B) {
		var buf [8]atomicx.Plain[int]
		s, i := 0, 0
		for b.Loop() {
			buf[i&7].Store(i)
			s += buf[(i+3)&7].Load()
			i++
		}
		sinkInt = s
	})
}

var sinkInt int

//go:noinline
func plainLoadX(x *atomicx.Plain[int]) int { return x.Load() }

//go:noinline
func plainLoadRaw(x *int) int { return *x }

//go:noinline
func plainStoreX(x *atomicx.Plain[int], v int) { x.Store(v) }

//go:noinline
func plainStoreRaw(x *int, v int) { *x = v }

// TestPlainOneOpFunctions keeps the functions above in the binary, and
// checks they do what they say.
func TestPlainOneOpFunctions(t *testing.T) {
	var x atomicx.Plain[int]
	var r int
	plainStoreX(&x, 3)
	plainStoreRaw(&r, 3)
	if plainLoadX(&x) != 3 || plainLoadRaw(&r) != 3 {
		t.Fatal("a one-operation function does not do its operation")
	}
}
