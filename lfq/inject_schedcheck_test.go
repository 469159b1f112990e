//go:build schedcheck

package lfq_test

import (
	"time"

	"github.com/schedkit/schedkit/atomicx"
)

// injector is an atomicx hook that runs f once, on the goroutine about to
// make the nth access to the cell at addr, before that access: a fixed
// interleaving of two "threads" on one goroutine, with no explorer.
type injector struct {
	addr       uintptr
	n, seen    int
	f          func()
	busy, done bool
}

func (h *injector) Before(_ atomicx.Op, addr uintptr) {
	if h.busy || h.done || addr != h.addr {
		return
	}
	if h.seen++; h.seen == h.n {
		h.busy = true // f's own accesses do not count
		h.f()
		h.busy, h.done = false, true
	}
}

func (h *injector) After(atomicx.Op, uintptr, uint64) {}

func (h *injector) Wait(atomicx.Op, uintptr, func() bool, time.Duration) (int64, bool) {
	return 0, false
}

// injectAt runs body and, just before body's nth access to the cell at
// addr, f. It reports whether f ran; errNoHook without -tags schedcheck.
func injectAt(addr uintptr, n int, f, body func()) (bool, error) {
	h := &injector{addr: addr, n: n, f: f}
	restore := atomicx.SetHook(h)
	defer restore()
	body()
	return h.done, nil
}

// counter is an atomicx hook that counts the accesses op makes to the cell
// at addr.
type counter struct {
	addr uintptr
	op   atomicx.Op
	n    int
}

func (h *counter) Before(op atomicx.Op, addr uintptr) {
	if op == h.op && addr == h.addr {
		h.n++
	}
}

func (h *counter) After(atomicx.Op, uintptr, uint64) {}

func (h *counter) Wait(atomicx.Op, uintptr, func() bool, time.Duration) (int64, bool) {
	return 0, false
}

// countAccesses runs body and returns how many op accesses it made to the
// cell at addr; errNoHook without -tags schedcheck.
func countAccesses(addr uintptr, op atomicx.Op, body func()) (int, error) {
	h := &counter{addr: addr, op: op}
	restore := atomicx.SetHook(h)
	defer restore()
	body()
	return h.n, nil
}
