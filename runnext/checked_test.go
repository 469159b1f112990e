//go:build schedkit_checked

package runnext_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/runnext"
)

// The schedkit_checked build: every owner method raises its queue's (or
// slot's) owner flag for its whole run, and StealHalf raises its
// destination's, so two goroutines inside owner methods of one queue at
// once panic, naming the call. Run with -tags schedkit_checked,schedcheck:
// the explorer finds the overlapping interleavings.

const ownersClash = "owner methods called by two goroutines at once"

// twoAtOnce explores threads a and b on one fresh queue (made by setup) and
// returns the panic of the first interleaving that panicked.
func twoAtOnce(t *testing.T, name string, setup func() (a, b func())) string {
	t.Helper()
	res, err := explore.Explore(explore.Options{Name: name}, func() explore.Run {
		a, b := setup()
		return explore.Run{Threads: []func(){a, b}}
	})
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Summary())
	var pe *explore.PanicError
	if res.Failure == nil || !errors.As(res.Failure.Err, &pe) {
		t.Fatalf("no interleaving of the two panicked (%d executions)", res.Executions)
	}
	return fmt.Sprint(pe.Value)
}

func TestCheckedBuildCatchesTwoOwners(t *testing.T) {
	if !runnext.Checked {
		t.Fatal("runnext.Checked is false under -tags schedkit_checked")
	}
	cases := []struct {
		name string
		a, b func(q *runnext.Queue[int])
		call string
	}{
		{"PutNext and Get", func(q *runnext.Queue[int]) { q.PutNext(item(1), nil) }, func(q *runnext.Queue[int]) { q.Get() }, "Queue."},
		{"Put and Put", func(q *runnext.Queue[int]) { q.Put(item(1), nil) }, func(q *runnext.Queue[int]) { q.Put(item(2), nil) }, "Queue.Put"},
		{"Drain and PutBatch", func(q *runnext.Queue[int]) { q.Drain(nil) }, func(q *runnext.Queue[int]) { q.PutBatch(items(5, 2)) }, "Queue."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := twoAtOnce(t, "checked-"+c.name, func() (func(), func()) {
				q := new(runnext.Queue[int])
				q.PutNext(item(0), nil)
				explore.Name(q, "q")
				return func() { c.a(q) }, func() { c.b(q) }
			})
			if !strings.Contains(msg, ownersClash) || !strings.Contains(msg, c.call) {
				t.Fatalf("panicked with %q, want the owner check naming %s", msg, c.call)
			}
			t.Logf("caught: %s", msg)
		})
	}
}

func TestCheckedBuildCatchesTwoSlotOwners(t *testing.T) {
	msg := twoAtOnce(t, "checked-slot", func() (func(), func()) {
		s := new(runnext.Slot[int])
		explore.Name(s, "s")
		return func() { s.Put(item(1)) }, func() { s.Take() }
	})
	if !strings.Contains(msg, ownersClash) || !strings.Contains(msg, "Slot.") {
		t.Fatalf("panicked with %q, want the owner check naming a Slot method", msg)
	}
}

// TestCheckedBuildCatchesTwoThievesIntoOneDestination: a steal publishes
// into its destination as that queue's owner, so two thieves stealing into
// one queue at once are two owners.
func TestCheckedBuildCatchesTwoThievesIntoOneDestination(t *testing.T) {
	msg := twoAtOnce(t, "checked-two-thieves-one-dst", func() (func(), func()) {
		v1, v2, dst := new(runnext.Queue[int]), new(runnext.Queue[int]), new(runnext.Queue[int])
		v1.PutBatch(items(0, 4))
		v2.PutBatch(items(10, 4))
		explore.Name(dst, "dst")
		return func() { v1.StealHalf(dst, false) }, func() { v2.StealHalf(dst, false) }
	})
	if !strings.Contains(msg, ownersClash) || !strings.Contains(msg, "StealHalf") {
		t.Fatalf("panicked with %q, want the owner check naming StealHalf", msg)
	}
}

// TestCheckedBuildAllowsOneOwnerAndThieves: the check has no false alarm:
// an owner and a thief (stealing into a queue of its own) never trip it, in
// any interleaving, and a refused call (a nil task) leaves no flag raised.
func TestCheckedBuildAllowsOneOwnerAndThieves(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "checked-owner-and-thief"}, func() explore.Run {
		q, own := new(runnext.Queue[int]), new(runnext.Queue[int])
		q.SetStealDelay(0)
		q.PutBatch(items(0, 2))
		explore.Name(q, "q")
		return explore.Run{Threads: []func(){
			func() { q.PutNext(item(5), nil); q.Get(); q.Put(item(6), nil) },
			func() { q.StealHalf(own, true); own.Get(); q.Empty() },
		}}
	})
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("a correct use tripped the check: %v", res.Failure)
	}
	t.Log(res.Summary())
	var q runnext.Queue[int]
	func() {
		defer func() { _ = recover() }()
		q.PutNext(nil, nil)
	}()
	q.PutNext(item(1), nil) // would panic if the refused call had left the flag raised
}
