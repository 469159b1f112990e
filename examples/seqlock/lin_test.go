package seqlock

import (
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore/lincheck"
)

// writers serializes Write, which the seqlock allows one caller at a time,
// so that generated scenarios may write from any thread.
type writers[P pair] struct {
	p  P
	mu atomicx.Mutex
}

// pairModel is the latest pair written.
var pairModel = lincheck.Model[[2]uint64]{Init: func() [2]uint64 { return [2]uint64{} }}

func pairOps[P pair]() []lincheck.Op[*writers[P], [2]uint64] {
	return []lincheck.Op[*writers[P], [2]uint64]{
		{Name: "write", Arg: true,
			Run: func(w *writers[P], v int) any {
				w.mu.Lock()
				w.p.Write(uint64(v), uint64(v))
				w.mu.Unlock()
				return nil
			},
			Step: func(_ [2]uint64, v int) ([2]uint64, any) { return [2]uint64{uint64(v), uint64(v)}, nil }},
		{Name: "read",
			Run:  func(w *writers[P], _ int) any { a, b := w.p.Read(); return [2]uint64{a, b} },
			Step: func(s [2]uint64, _ int) ([2]uint64, any) { return s, s }},
	}
}

var linOpts = lincheck.Options{Threads: 2, OpsPerThread: 2, Seeds: 6}

// TestPairIsLinearizable: a read returns the latest pair written, whole.
func TestPairIsLinearizable(t *testing.T) {
	lincheck.Check(t, linOpts, pairModel, func() *writers[*Pair] { return &writers[*Pair]{p: new(Pair)} }, pairOps[*Pair]()...)
}

// TestOddBlindReaderIsNotLinearizable: the reader that accepts an odd
// sequence returns half of one pair and half of another.
func TestOddBlindReaderIsNotLinearizable(t *testing.T) {
	lincheck.CheckFails(t, linOpts, pairModel, func() *writers[*oddBlind] { return &writers[*oddBlind]{p: new(oddBlind)} }, pairOps[*oddBlind]()...)
}
