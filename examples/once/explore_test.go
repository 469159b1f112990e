package once

import (
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

type doer interface{ Do(f func()) }

// twoCallers: two threads call Do with an f that counts its calls and
// publishes a value; after Do each must see the value, and f must have run
// once. (Before yields were scheduled fairly a third caller was out of
// reach: the two waiters could yield to each other without end while f's
// thread never ran. spin_test.go's threeCallers has three.)
func twoCallers(o doer) explore.Run { return callers(o, 2) }

// callers: n threads call Do with an f that counts its calls and publishes
// a value; after Do each must see the value, and f must have run once.
func callers(o doer, n int) explore.Run {
	var calls, value atomicx.Uint32
	explore.Name(o, "once")
	explore.Name(&calls, "calls")
	explore.Name(&value, "value")
	f := func() { calls.Add(1); value.Store(42) }
	saw := make([]uint32, n)
	threads := make([]func(), n)
	for i := range threads {
		threads[i] = func() { o.Do(f); saw[i] = value.Load() }
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			if calls.Load() != 1 {
				return fmt.Errorf("f ran %d times", calls.Load())
			}
			if slices.ContainsFunc(saw, func(v uint32) bool { return v != 42 }) {
				return fmt.Errorf("after Do the callers saw %v: a Do returned before f had run", saw)
			}
			return nil
		},
	}
}

func TestDoneMeansFHasRun(t *testing.T) {
	explore.Check(t, explore.Options{Name: "once"}, func() explore.Run { return twoCallers(new(Once)) })
	explore.Check(t, explore.Options{Name: "once-dpor", Mode: explore.DPOR}, func() explore.Run { return twoCallers(new(Once)) })
}

// TestDoneBeforeFReturnsEarly: one CAS that marks the Once done before f
// runs lets another caller return while f has not run yet.
func TestDoneBeforeFReturnsEarly(t *testing.T) {
	explore.CheckFails(t, explore.Options{Name: "once-done-first"}, func() explore.Run { return twoCallers(new(doneFirst)) })
}

// doneFirst is the single-CAS Once.
type doneFirst struct{ done atomicx.Uint32 }

func (o *doneFirst) Do(f func()) {
	if o.done.CompareAndSwap(0, 1) { // the bug: done before f has run
		f()
	}
}
