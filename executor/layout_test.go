package executor

import (
	"testing"
	"unsafe"
)

// TestTaskRecordFillsOneLine: a task record is one cache line, and the
// allocator hands records out line-aligned (64 is a size class, and a
// span's objects of a class start at multiples of its size), so no two
// records share a line. At 72 bytes two Ps' chains wrote each other's
// lines on every task, and CPU per task rose by a quarter from 1 to 2 Ps
// (BenchmarkChain: 82 to 103 ns).
// A field added to task fails this test.
func TestTaskRecordFillsOneLine(t *testing.T) {
	if got := unsafe.Sizeof(task{}); got != cacheLine {
		t.Fatalf("a task record is %d bytes, want %d (one cache line): records would share lines", got, cacheLine)
	}
	keep := make([]*task, 256)
	for i := range keep {
		keep[i] = new(task)
		if a := uintptr(unsafe.Pointer(keep[i])); a%cacheLine != 0 {
			t.Fatalf("record %d at %#x is not line-aligned", i, a)
		}
	}
}
