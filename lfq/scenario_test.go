package lfq_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/lfq"
)

// Fixed scenarios: small deterministic runs of the real code, each aimed at
// one way the ring can break, on 4-slot rings. The concurrent ones fix one
// interleaving with an atomicx hook (injectAt: under -tags schedcheck, one
// goroutine, no explorer): "just before the thief's CAS, the owner takes
// the item". They are the kill matrix's "scenarios" column, a deterministic
// checker beside the explorer's exhaustive search: every seeded mutation is
// aimed at by at least one of them.

var errNoHook = fmt.Errorf("atomicx's hook %w", killmatrix.ErrNeedsExplorer)

type ring4 = lfq.Ring4[int]

// ids are items numbered first..first+n-1.
func ids(first, n int) []*int { return items(first, n) }

// fill4 is a 4-slot ring holding the given ids, in order.
func fill4(vs ...int) *ring4 {
	r := new(ring4)
	for _, v := range vs {
		if r.Put(&v, nil) != nil {
			panic("fill4: overflow")
		}
	}
	return r
}

func contents(r *ring4) []int { return vals(r.Contents()) }

// scenario is one fixed run; it returns an error when the ring misbehaves.
type scenario = killmatrix.Scenario

// runScenarios is the kill matrix's "scenarios" checker: the first failure.
func runScenarios() error { return killmatrix.RunScenarios(nil, scenarios) }

func TestScenarios(t *testing.T) { killmatrix.TestScenarios(t, scenarios) }

var scenarios = []scenario{
	{Name: "steal-claims-only-if-head-did-not-move", Targets: "StealNoCAS", Run: func() error {
		// The thief has loaded head and copied item 0; just before its CAS
		// the owner Gets item 0. The steal must fail and then find the
		// ring empty.
		victim, thief := fill4(0), new(ring4)
		var got, stolen *int
		fired, err := injectAt(victim.HeadAddr(), 2, func() { got = victim.Get() },
			func() { stolen = victim.StealHalf(thief) })
		if err := injected(fired, err); err != nil {
			return err
		}
		if got == nil || *got != 0 || stolen != nil || thief.Len() != 0 || victim.Len() != 0 {
			return fmt.Errorf("owner got %v, thief stole %v (ring %v), victim holds %v: want 0, nothing, [], []",
				itemID(got), itemID(stolen), contents(thief), contents(victim))
		}
		return nil
	}},
	{Name: "put-publishes-only-written-slots", Targets: "PublishBeforeWrite", Run: func() error {
		// A thief steals just before the owner's Put writes its slot:
		// the item must not be visible yet.
		victim, thief := new(ring4), new(ring4)
		var stolen *int
		v := 0
		fired, err := injectAt(victim.SlotAddr(0), 1, func() { stolen = victim.StealHalf(thief) },
			func() { victim.Put(&v, nil) })
		if err := injected(fired, err); err != nil {
			return err
		}
		if stolen != nil || thief.Len() != 0 || !slices.Equal(contents(victim), []int{0}) {
			return fmt.Errorf("the thief stole %v (ring %v) mid-Put, victim holds %v: want nothing, [], [0]",
				itemID(stolen), contents(thief), contents(victim))
		}
		return nil
	}},
	{Name: "get-retries-after-losing-to-a-thief", Targets: "GetNoRetry", Run: func() error {
		// Get has read item 0; just before its CAS a thief steals it. Get
		// must retry and return item 1, which was there all along.
		victim, thief := fill4(0, 1), new(ring4)
		var got, stolen *int
		fired, err := injectAt(victim.HeadAddr(), 2, func() { stolen = victim.StealHalf(thief) },
			func() { got = victim.Get() })
		if err := injected(fired, err); err != nil {
			return err
		}
		if itemID(stolen) != 0 || itemID(got) != 1 || victim.Len() != 0 {
			return fmt.Errorf("thief stole %v, owner got %v, victim holds %v: want 0, 1, []",
				itemID(stolen), itemID(got), contents(victim))
		}
		return nil
	}},
	{Name: "inconsistent-read-writes-nothing-past-the-free-half", Targets: "GrabPastFreeHalf StealAllNoCheck", Run: func() error {
		// The thief's ring holds 2 of 4; the victim is full. The thief
		// loads head 0; before it loads tail, the owner Gets 0 and 1 and
		// Puts 4 and 5, so it reads tail 6: 6 > 4 items, an inconsistent
		// read. It must retry, not copy 3 items into its 2 free slots,
		// then steal 2 and 3.
		victim, thief := fill4(0, 1, 2, 3), fill4(100, 101)
		var got []int
		var stolen *int
		owner := func() {
			got = append(got, itemID(victim.Get()), itemID(victim.Get()))
			for _, p := range ids(4, 2) {
				victim.Put(p, nil)
			}
		}
		fired, err := injectAt(victim.TailAddr(), 1, owner, func() { stolen = victim.StealHalf(thief) })
		if err := injected(fired, err); err != nil {
			return err
		}
		if h, tl := thief.Indices(); tl-h > 4 {
			return fmt.Errorf("thief's ring has head %d, tail %d: more than 4 items", h, tl)
		}
		if !slices.Equal(got, []int{0, 1}) || itemID(stolen) != 3 ||
			!slices.Equal(contents(thief), []int{100, 101, 2}) || !slices.Equal(contents(victim), []int{4, 5}) {
			return fmt.Errorf("owner got %v, thief stole %v, thief's ring %v, victim %v: want [0 1], 3, [100 101 2], [4 5]",
				got, itemID(stolen), contents(thief), contents(victim))
		}
		return nil
	}},
	{Name: "overflow-hands-back-the-older-half-and-the-new-item", Targets: "OverflowDropsNew", Run: func() error {
		r := fill4(0, 1, 2, 3)
		v := 4
		batch := vals(r.Put(&v, nil))
		if !slices.Equal(batch, []int{0, 1, 4}) || !slices.Equal(contents(r), []int{2, 3}) {
			return fmt.Errorf("overflow of [0 1 2 3] putting 4: batch %v, ring %v; want [0 1 4], [2 3]", batch, contents(r))
		}
		return nil
	}},
	{Name: "steal-takes-half-rounded-up", Targets: "StealRoundsDown StealAllNoCheck", Run: func() error {
		for n := 1; n <= 4; n++ {
			victim, thief := fill4(seq(0, n)...), new(ring4)
			stolen := victim.StealHalf(thief)
			k := n - n/2
			if itemID(stolen) != k-1 || !slices.Equal(contents(thief), seq(0, k-1)) || !slices.Equal(contents(victim), seq(k, n-k)) {
				return fmt.Errorf("steal from %d items: returned %v, thief %v, victim %v; want %d, %v, %v",
					n, itemID(stolen), contents(thief), contents(victim), k-1, seq(0, k-1), seq(k, n-k))
			}
		}
		return nil
	}},
	{Name: "get-takes-the-last-item", Targets: "GetSkipsLast", Run: func() error {
		r := fill4(0, 1)
		a, b, c := r.Get(), r.Get(), r.Get()
		if itemID(a) != 0 || itemID(b) != 1 || c != nil {
			return fmt.Errorf("Gets from [0 1]: %v %v %v, want 0 1 nil", itemID(a), itemID(b), itemID(c))
		}
		return nil
	}},
	{Name: "len-counts-every-item", Targets: "LenOneAsEmpty", Run: func() error {
		for n := range 5 {
			if got := fill4(seq(0, n)...).Len(); got != n {
				return fmt.Errorf("Len of a ring of %d items = %d", n, got)
			}
		}
		return nil
	}},
}

// injected turns injectAt's result into the scenario's verdict on itself.
func injected(fired bool, err error) error {
	if err != nil {
		return err
	}
	if !fired {
		return errors.New("the scenario never reached its interleaving point")
	}
	return nil
}
