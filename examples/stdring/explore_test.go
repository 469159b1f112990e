package stdring

import (
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/schedkit/schedkit/explore"
)

// rewritten reports that this build runs through schedkit explore's
// rewrite: there sync/atomic is atomicx, and every operation of the ring a
// scheduling point. Under a plain go test the explorer would see none.
func rewritten() bool { return reflect.TypeFor[atomic.Uint64]().PkgPath() != "sync/atomic" }

// named names r's cells in traces and returns r.
func named(r *Ring[int]) *Ring[int] {
	explore.Name(&r.mu, "mu")
	explore.Name(&r.head, "head")
	explore.Name(&r.tail, "tail")
	explore.Name(&r.refused, "refused")
	for i := range r.slots {
		explore.Name(&r.slots[i], fmt.Sprintf("slots[%d]", i))
	}
	return r
}

// TestExploreRing: two producers and the consumer on a ring of two slots.
// P0 pushes 1 then 2, P1 pushes 3, the consumer pops twice; Check drains
// the rest. Every accepted item must come out exactly once, each producer's
// in its order, and every refused one must be counted. The seeded bug
// (-tags stdringbug: the tail published before the slot is written) fails
// it: the consumer dereferences a slot not yet written.
func TestExploreRing(t *testing.T) {
	if !rewritten() {
		t.Skip("run through the rewrite: go run ./cmd/schedkit explore ./examples/stdring")
	}
	explore.Check(t, explore.Options{Name: "stdring"}, func() explore.Run {
		r := named(New[int](2))
		var pushed [2][]int
		var popped []int
		push := func(p int, vs ...int) func() {
			return func() {
				for _, v := range vs {
					if r.Push(v) {
						pushed[p] = append(pushed[p], v)
					}
				}
			}
		}
		return explore.Run{
			Threads: []func(){
				push(0, 1, 2),
				push(1, 3),
				func() {
					for range 2 {
						if v, ok := r.Pop(); ok {
							popped = append(popped, v)
						}
					}
				},
			},
			Check: func() error {
				for v, ok := r.Pop(); ok; v, ok = r.Pop() {
					popped = append(popped, v)
				}
				if got, want := len(popped), len(pushed[0])+len(pushed[1]); got != want {
					return fmt.Errorf("popped %v, pushed %v: %d items out, %d in", popped, pushed, got, want)
				}
				if refused := 3 - len(popped); r.Refused() != uint64(refused) {
					return fmt.Errorf("Refused() = %d, and %d pushes were refused", r.Refused(), refused)
				}
				for p := range pushed {
					var mine []int
					for _, v := range popped {
						if slices.Contains(pushed[p], v) {
							mine = append(mine, v)
						}
					}
					if !slices.Equal(mine, pushed[p]) {
						return fmt.Errorf("producer %d pushed %v, popped in the order %v", p, pushed[p], mine)
					}
				}
				return nil
			},
		}
	})
}
