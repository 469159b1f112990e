package once

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/exampletest"
)

// plainCallers: f initialises a plain value (what a Once usually guards),
// and each caller reads it after Do. Do's done store and the callers'
// loads of it must order the write before the reads.
func plainCallers(o doer) explore.Run {
	var value atomicx.Plain[int]
	explore.Name(&value, "value")
	f := func() { value.Store(42) }
	caller := func() { o.Do(f); _ = value.Load() }
	return explore.Run{Threads: []func(){caller, caller}}
}

// TestPlainValueAfterDoIsRaceFree: Once publishes f's plain writes to
// every caller, in every interleaving (no data race reported).
func TestPlainValueAfterDoIsRaceFree(t *testing.T) {
	explore.Check(t, explore.Options{Name: "once-plain"}, func() explore.Run { return plainCallers(new(Once)) })
	explore.Check(t, explore.Options{Name: "once-plain-dpor", Mode: explore.DPOR}, func() explore.Run { return plainCallers(new(Once)) })
}

// TestPlainValueAfterDoneFirstIsADataRace: the single-CAS Once lets a
// caller read the value with nothing ordering f's write before it.
func TestPlainValueAfterDoneFirstIsADataRace(t *testing.T) {
	_, dr := exampletest.DataRace(t, explore.Options{Name: "once-plain-done-first", Mode: explore.DPOR},
		func() explore.Run { return plainCallers(new(doneFirst)) })
	require.Equal(t, "value", dr.Cell)
}
