//go:build schedcheck

package atomicx

import (
	"math"
	"reflect"
	"unsafe"
)

// Plain is a plain (non-atomic) memory cell holding a T, loom's UnsafeCell
// (see the normal build's). Under the explorer each access is a scheduling
// point (OpRead, OpWrite), and explore checks it for data races.
type Plain[T any] struct{ v T }

// Load reads the cell: a plain read.
func (x *Plain[T]) Load() T {
	before(OpRead, unsafe.Pointer(x))
	v := x.v
	after(OpRead, unsafe.Pointer(x), bits(v))
	return v
}

// Store writes v to the cell: a plain write.
func (x *Plain[T]) Store(v T) {
	before(OpWrite, unsafe.Pointer(x))
	x.v = v
	after(OpWrite, unsafe.Pointer(x), bits(v))
}

// bits is what a trace shows of a value: integers, bools, floats' bits and
// pointers as themselves, a string as its length; anything else as 0.
func bits(v any) uint64 {
	switch v := v.(type) {
	case bool:
		return b2u(v)
	case int:
		return uint64(v)
	case int8:
		return uint64(v)
	case int16:
		return uint64(v)
	case int32:
		return uint64(v)
	case int64:
		return uint64(v)
	case uint:
		return uint64(v)
	case uint8:
		return uint64(v)
	case uint16:
		return uint64(v)
	case uint32:
		return uint64(v)
	case uint64:
		return v
	case uintptr:
		return uint64(v)
	case float64:
		return math.Float64bits(v)
	case string:
		return uint64(len(v))
	case nil:
		return 0
	}
	if r := reflect.ValueOf(v); r.Kind() == reflect.Pointer || r.Kind() == reflect.UnsafePointer {
		return uint64(r.Pointer())
	}
	return 0
}
