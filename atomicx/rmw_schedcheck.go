//go:build schedcheck

package atomicx

import "unsafe"

// RMWHook is a Hook that also sees both values of a read-modify-write (Add,
// Swap, CompareAndSwap): the explorer implements it to print "old → new"
// on every such line of a trace, and "failed, saw v" on a CAS that lost.
// A Hook without it gets After as before (Add and Swap: the new value; a
// CAS: 1 if it succeeded).
type RMWHook interface {
	// AfterRMW takes After's place for op: old is the value the operation
	// found in the cell (for a failed CAS, the value that made it fail),
	// new the value it wrote (for a failed CAS, the one it would have
	// written), ok whether a CAS succeeded (true for Add and Swap).
	AfterRMW(op Op, addr uintptr, old, new uint64, ok bool)
}

// hooked reports that a hook is installed: a failed CAS then loads the
// value it saw, which sync/atomic's CompareAndSwap does not return.
func hooked() bool {
	b := hook.Load()
	return b != nil && b.h != nil
}

// afterRMW reports a read-modify-write to the hook.
func afterRMW(op Op, p unsafe.Pointer, old, new uint64, ok bool) {
	b := hook.Load()
	if b == nil || b.h == nil {
		return
	}
	if r, is := b.h.(RMWHook); is {
		r.AfterRMW(op, uintptr(p), old, new, ok)
		return
	}
	if op == OpCAS {
		new = b2u(ok)
	}
	b.h.After(op, uintptr(p), new)
}
