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

// twoSpinnersAndAReleaser is correct code that needs fairness: T0 and T1
// spin-wait (load, yield) on a flag that only T2 sets, after writing the
// data they then read. Without fairness two yielders hand the CPU back and
// forth for ever while T2 waits.
func twoSpinnersAndAReleaser() explore.Run {
	var flag, data atomicx.Uint32
	explore.Name(&flag, "flag")
	explore.Name(&data, "data")
	var got [2]uint32
	spin := func(i int) func() {
		return func() {
			for flag.Load() == 0 {
				atomicx.Sleep(0)
			}
			got[i] = data.Load()
		}
	}
	return explore.Run{
		Threads: []func(){spin(0), spin(1), func() { data.Store(7); flag.Store(1) }},
		Check: func() error {
			if got != [2]uint32{7, 7} {
				return fmt.Errorf("spinners read %v", got)
			}
			return nil
		},
	}
}

// spinLivelock is a real livelock: each thread waits, spinning, for the
// other to go first.
func spinLivelock() explore.Run {
	var a, b atomicx.Uint32
	explore.Name(&a, "a")
	explore.Name(&b, "b")
	return explore.Run{Threads: []func(){
		func() {
			for b.Load() == 0 {
				atomicx.Sleep(0)
			}
			a.Store(1)
		},
		func() {
			for a.Load() == 0 {
				atomicx.Sleep(-1)
			}
			b.Store(1)
		},
	}}
}

// fairModes are the searches the fairness tests run.
var fairModes = []explore.Options{
	{Name: "dfs"},
	{Name: "dfs-unbounded", Bound: explore.Unbounded},
	{Name: "dpor", Mode: explore.DPOR},
	{Name: "pct", Mode: explore.PCT, Seed: 1, MaxExecutions: 200},
	{Name: "random", Mode: explore.Random, Seed: 1, MaxExecutions: 200},
}

// TestFairSpinWaitersLetTheReleaserRun: two spin-waiters and the thread
// that releases them pass in every mode; before fair scheduling DFS and
// PCT failed at MaxSteps on this correct code.
func TestFairSpinWaitersLetTheReleaserRun(t *testing.T) {
	for _, opts := range fairModes {
		opts.Name = "fair-spinners-" + opts.Name
		opts.MaxSteps = 2000
		res, err := explore.Explore(opts, twoSpinnersAndAReleaser)
		require.NoError(t, err)
		if res.Failure != nil {
			t.Fatalf("%s: %v", opts.Name, res.Failure.Err)
		}
		t.Log(res.Summary())
	}
}

// TestSpinLivelockIsReported: two threads that each spin until the other
// goes first are a livelock in every mode, reported as one (not at
// MaxSteps), with the cycle once and its count.
func TestSpinLivelockIsReported(t *testing.T) {
	for _, opts := range fairModes {
		opts.Name = "spin-livelock-" + opts.Name
		res, err := explore.Explore(opts, spinLivelock)
		require.NoError(t, err)
		require.NotNil(t, res.Failure, opts.Name)
		f := res.Failure
		require.ErrorIs(t, f.Err, explore.ErrLivelock, opts.Name)
		assert.NotErrorIs(t, f.Err, explore.ErrStepLimit, opts.Name)
		msg := f.Err.Error()
		assert.Contains(t, msg, "T0: load b = 0; sleep", opts.Name)
		assert.Contains(t, msg, "T1: load a = 0; sleep", opts.Name)
		assert.Less(t, len(f.Trace), 40, "%s: the trace stops after one pass of the cycle:\n%s", opts.Name, f)
		replayed, err := explore.Explore(explore.Options{Name: opts.Name, Mode: opts.Mode, Replay: f.Schedule}, spinLivelock)
		require.NoError(t, err)
		require.NotNil(t, replayed.Failure, "%s: the replay passed", opts.Name)
		assert.Equal(t, f.Err.Error(), replayed.Failure.Err.Error(), "%s: the replay reaches the same livelock", opts.Name)
		t.Logf("%s\n%s", res.Summary(), f)
	}
}

// TestUnfairSchedulingStarvesTheReleaser is the broken variant: with fair
// scheduling off (a yielder is only not rerun at once), DFS and PCT run the
// two spinners against each other until MaxSteps on the same correct code.
func TestUnfairSchedulingStarvesTheReleaser(t *testing.T) {
	defer explore.SetFair(false)()
	for _, opts := range []explore.Options{
		{Name: "unfair-spinners-dfs"},
		{Name: "unfair-spinners-pct", Mode: explore.PCT, Seed: 1, MaxExecutions: 200},
	} {
		opts.MaxSteps = 150
		res, err := explore.Explore(opts, twoSpinnersAndAReleaser)
		require.NoError(t, err)
		require.NotNil(t, res.Failure, "%s: unfair scheduling passed: %s", opts.Name, res.Summary())
		assert.ErrorIs(t, res.Failure.Err, explore.ErrStepLimit, opts.Name)
		t.Logf("%s: execution %d: %v", opts.Name, res.Failure.Execution, res.Failure.Err)
	}
}

// slowRelease is correct code that spins a lot without being a livelock:
// T0 and T1 spin on x while T2 writes y three times and then x, the last
// thing it does. The spinners repeat the same fruitless iteration many
// times before the store, which ends the spin.
func slowRelease() explore.Run {
	var x, y atomicx.Uint32
	explore.Name(&x, "x")
	explore.Name(&y, "y")
	spin := func() {
		for x.Load() == 0 {
			atomicx.Sleep(0)
		}
	}
	return explore.Run{Threads: []func(){spin, spin, func() {
		y.Store(1)
		y.Store(2)
		y.Store(3)
		x.Store(1)
	}}}
}

// TestSlowReleaseIsNotALivelock: spinners whose wait a store ends are no
// livelock, in any mode, however long they spun before it; the broken
// variant streak-survives-writes (repeats counted across other threads'
// writes) reports one when the store comes last.
func TestSlowReleaseIsNotALivelock(t *testing.T) {
	for _, opts := range fairModes {
		opts.Name = "slow-release-" + opts.Name
		res, err := explore.Explore(opts, slowRelease)
		require.NoError(t, err)
		if res.Failure != nil {
			t.Fatalf("%s: %v", opts.Name, res.Failure.Err)
		}
		t.Log(res.Summary())
	}
	defer explore.SetLivelockMutant("streak-survives-writes")()
	res, err := explore.Explore(explore.Options{Name: "slow-release-mutant"}, slowRelease)
	require.NoError(t, err)
	require.NotNil(t, res.Failure, "the seeded fault went unnoticed: %s", res.Summary())
	assert.ErrorIs(t, res.Failure.Err, explore.ErrLivelock)
	t.Logf("with the fault: execution %d: %v", res.Failure.Execution, res.Failure.Err)
}
