//go:build !schedcheck

package atomicx

// Plain is a plain (non-atomic) memory cell holding a T, loom's UnsafeCell:
// the field of a structure that its synchronisation (atomics, a Mutex) is
// meant to protect. In a normal build Load and Store inline to a plain read
// and write of the field (BenchmarkPlain compares it with a bare field).
// Under the explorer each access is a scheduling point, and two accesses of
// two threads, at least one a Store, with no happens-before edge between
// them through atomicx's operations are reported as a data race (see
// package explore). The zero value holds T's zero value.
type Plain[T any] struct{ v T }

// Load reads the cell: a plain read.
func (x *Plain[T]) Load() T { return x.v }

// Store writes v to the cell: a plain write.
func (x *Plain[T]) Store(v T) { x.v = v }
