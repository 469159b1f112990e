package stealing

import (
	"fmt"

	"github.com/schedkit/schedkit/atomicx"
)

// IdleMask has one bit per P, set while the P is idle: no M holds it, so
// its run queue is empty and stays empty, and a thief need not look at it.
// It is the runtime's idlepMask (a pMask): pidleput sets a P's bit,
// pidleget clears it, and stealWork reads it for every victim.
//
// Any goroutine may call any method at any time; each bit is read and
// written atomically. A nil *IdleMask reads as "no P is idle".
type IdleMask struct {
	words []atomicx.Uint32
	n     int
}

// NewIdleMask returns a mask for n Ps, none of them idle. It returns an
// error if n is not in 1..MaxProcs.
func NewIdleMask(n int) (*IdleMask, error) {
	if n < 1 || n > MaxProcs {
		return nil, fmt.Errorf("stealing: NewIdleMask called with %d Ps, want 1..%d: %w", n, MaxProcs, ErrProcCount)
	}
	return &IdleMask{words: make([]atomicx.Uint32, (n+31)/32), n: n}, nil
}

// Len returns the number of Ps the mask has bits for (0 for nil).
func (m *IdleMask) Len() int {
	if m == nil {
		return 0
	}
	return m.n
}

// word returns the cell and the bit of P p for Set and Clear, panicking
// with the name of the call if p is out of range.
func (m *IdleMask) word(p int, call string) (*atomicx.Uint32, uint32) {
	if uint(p) >= uint(m.n) {
		m.outOfRange(p, call)
	}
	return &m.words[uint(p)/32], 1 << (uint(p) % 32)
}

// read is Read for a P known to be in range, on a non-nil mask: what a
// pass calls for every victim, small enough to inline.
func (m *IdleMask) read(p uint32) bool { return m.words[p/32].Load()&(1<<(p%32)) != 0 }

//go:noinline
func (m *IdleMask) outOfRange(p int, call string) {
	panic(fmt.Sprintf("stealing: IdleMask.%s called with P %d of %d", call, p, m.n))
}

// Read reports whether P p is idle. It returns false on a nil mask and
// panics if p is out of range. It mirrors pMask.read; in Steal.tla it is
// the read of idle[v] in the step Visit.
func (m *IdleMask) Read(p int) bool {
	if m == nil {
		return false
	}
	if uint(p) >= uint(m.n) {
		m.outOfRange(p, "Read")
	}
	return m.words[uint(p)/32].Load()>>(uint(p)%32)&1 != 0
}

// Set marks P p idle. Call it only for a P whose run queue is empty and
// that no M will put work into until Clear (the runtime's pidleput). It
// panics if p is out of range or m is nil. It mirrors pMask.set and
// Steal.tla's action Set.
func (m *IdleMask) Set(p int) {
	if m == nil {
		panic("stealing: IdleMask.Set called on a nil mask")
	}
	w, bit := m.word(p, "Set")
	for {
		old := w.Load()
		if mutant == idleMaskNoCAS {
			w.Store(old | bit)
			return
		}
		if old&bit != 0 || w.CompareAndSwap(old, old|bit) {
			return
		}
	}
}

// Clear marks P p busy again (the runtime's pidleget). It panics if p is
// out of range or m is nil. It mirrors pMask.clear and Steal.tla's action
// Clear.
func (m *IdleMask) Clear(p int) {
	if m == nil {
		panic("stealing: IdleMask.Clear called on a nil mask")
	}
	w, bit := m.word(p, "Clear")
	for {
		old := w.Load()
		if mutant == idleMaskNoCAS {
			w.Store(old &^ bit)
			return
		}
		if old&bit == 0 || w.CompareAndSwap(old, old&^bit) {
			return
		}
	}
}
