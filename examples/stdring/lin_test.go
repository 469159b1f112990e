package stdring

import (
	"slices"
	"testing"

	"github.com/schedkit/schedkit/explore/lincheck"
)

// popResult is a Pop's result.
type popResult struct {
	V  int
	OK bool
}

// linCapacity is the ring's size in the linearizability check: small, so
// that histories reach a full ring and wrap.
const linCapacity = 2

// fifo is the sequential model: a FIFO of at most linCapacity values.
var fifo = lincheck.Model[[]int]{Init: func() []int { return nil }}

// ringOps are Push (any thread) and Pop (the consumer, thread 0, alone)
// against the model: a push on a full FIFO is refused, a pop of an empty
// one reports false.
var ringOps = []lincheck.Op[*Ring[int], []int]{
	{Name: "push", Arg: true,
		Run: func(r *Ring[int], v int) any { return r.Push(v) },
		Step: func(s []int, v int) ([]int, any) {
			if len(s) == linCapacity {
				return s, false
			}
			return append(slices.Clip(s), v), true
		}},
	{Name: "pop", Owner: true,
		Run: func(r *Ring[int], _ int) any { v, ok := r.Pop(); return popResult{v, ok} },
		Step: func(s []int, _ int) ([]int, any) {
			if len(s) == 0 {
				return s, popResult{}
			}
			return s[1:], popResult{s[0], true}
		}},
}

// TestRingIsLinearizable: every explored history of generated scenarios
// (two threads, three calls each, six seeds; thread 0 is the consumer) is
// one a bounded FIFO can give, from the model above alone. The seeded bug
// (-tags stdringbug) fails it.
func TestRingIsLinearizable(t *testing.T) {
	if !rewritten() {
		t.Skip("run through the rewrite: go run ./cmd/schedkit explore ./examples/stdring")
	}
	lincheck.Check(t, lincheck.Options{Threads: 2, OpsPerThread: 3, Seeds: 6}, fifo,
		func() *Ring[int] { return named(New[int](linCapacity)) }, ringOps...)
}
