//go:build schedcheck

package explore_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// statesOf explores build under opts and returns the result.
func statesOf(t *testing.T, opts explore.Options, build func() explore.Run) explore.Result {
	t.Helper()
	res, err := explore.Explore(opts, build)
	require.NoError(t, err)
	require.Nil(t, res.Failure)
	require.True(t, res.Complete)
	return res
}

// TestEndStatesAreFinalValues: two writers of one cell end in two states
// (the last store wins), whatever the order of their other, independent
// steps; a thread that only reads adds none; an unnamed cell counts as a
// named one does.
func TestEndStatesAreFinalValues(t *testing.T) {
	build := func(named bool) func() explore.Run {
		return func() explore.Run {
			var x atomicx.Uint32
			var own [2]atomicx.Uint32
			if named {
				explore.Name(&x, "x")
			}
			w := func(v uint32) func() { return func() { own[v-1].Store(v); x.Store(v); own[v-1].Store(v + 2) } }
			return explore.Run{Threads: []func(){w(1), w(2), func() { _ = own[0].Load() }}}
		}
	}
	for _, named := range []bool{true, false} {
		dfs := statesOf(t, explore.Options{Name: "writers", Bound: explore.Unbounded}, build(named))
		dpor := statesOf(t, explore.Options{Name: "writers", Mode: explore.DPOR}, build(named))
		// own[0] ends at 3 always; the reader saw 0, 1 or 3 but left nothing.
		assert.Equal(t, 2, dfs.States, "named %v", named)
		assert.Equal(t, dfs.StateHash, dpor.StateHash, "named %v", named)
	}
}

// TestEndStatesSeeCASAndLabels: a successful CAS's new value counts
// (through the thread and step that wrote it), as do outcome labels and
// pointers to named objects.
func TestEndStatesSeeCASAndLabels(t *testing.T) {
	res := statesOf(t, explore.Options{Name: "cas", Bound: explore.Unbounded}, func() explore.Run {
		var c atomicx.Uint32
		cas := func(v uint32) func() { return func() { c.CompareAndSwap(0, v) } }
		return explore.Run{Threads: []func(){cas(1), cas(2)}}
	})
	assert.Equal(t, 2, res.States, "the first CAS wins: 1 or 2")
	res = statesOf(t, explore.Options{Name: "ptr", Bound: explore.Unbounded}, func() explore.Run {
		var p atomicx.Pointer[int]
		a, b := new(int), new(int)
		explore.Name(a, "a")
		explore.Name(b, "b")
		return explore.Run{Threads: []func(){func() { p.Store(a) }, func() { p.Store(b) }}}
	})
	assert.Equal(t, 2, res.States, "a pointer to a named object reads as its name, not its address")
	res = statesOf(t, explore.Options{Name: "label", Bound: explore.Unbounded}, func() explore.Run {
		var c atomicx.Uint32
		var r uint32
		return explore.Run{Threads: []func(){func() { r = c.Load() }, func() { c.Store(1) }},
			Outcome: func() string { return fmt.Sprint("read ", r) }}
	})
	assert.Equal(t, 2, res.States, "c ends at 1 either way; the label tells the reads apart")
}

// BenchmarkEndStates prices the fingerprints: one exploration of two
// threads over 64 cells each, with and without them (compare the two in
// one run).
func BenchmarkEndStates(b *testing.B) {
	explore.SkipWithoutSchedcheck(b)
	build := func() explore.Run {
		var cells [2][64]atomicx.Uint64
		var shared atomicx.Uint64
		explore.Name(&cells, "cells")
		th := func(k int) func() {
			return func() {
				for i := range cells[k] {
					cells[k][i].Store(uint64(i))
				}
				shared.Add(1)
			}
		}
		return explore.Run{Threads: []func(){th(0), th(1)}}
	}
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("fingerprint=%v", on), func(b *testing.B) {
			defer explore.SetEndStates(on)()
			execs := 0
			for b.Loop() {
				res, err := explore.Explore(explore.Options{Name: "cells", Bound: 1}, build)
				if err != nil || res.Failure != nil {
					b.Fatal(err, res.Failure)
				}
				execs = res.Executions
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*execs), "ns/execution")
		})
	}
}

// TestCheckFailsWantsAFailure: CheckFails returns the failure a buggy
// scenario reaches, and fails the test when every execution passes.
func TestCheckFailsWantsAFailure(t *testing.T) {
	lost := func() explore.Run {
		var c atomicx.Uint32
		inc := func() { c.Store(c.Load() + 1) }
		return explore.Run{Threads: []func(){inc, inc}, Check: func() error {
			if c.Load() != 2 {
				return fmt.Errorf("lost update: %d", c.Load())
			}
			return nil
		}}
	}
	f := explore.CheckFails(t, explore.Options{Name: "lost"}, lost)
	assert.ErrorContains(t, f.Err, "lost update: 1")

	rec := &recordingTB{TB: t}
	func() {
		defer func() { _ = recover() }() // rec.Fatalf panics
		explore.CheckFails(rec, explore.Options{Name: "fine"}, func() explore.Run {
			var c atomicx.Uint32
			return explore.Run{Threads: []func(){func() { c.Add(1) }, func() { c.Add(1) }}}
		})
	}()
	require.Len(t, rec.fatal, 1)
	assert.Contains(t, rec.fatal[0], "explore fine: 2 executions")
	assert.Contains(t, rec.fatal[0], "this scenario must fail: it no longer catches the bug")
}
