//go:build schedcheck

package explore_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// lockstep: T0 stores 1, 2, 3 into a cell and T1 loads it three times. The
// "bug" is T1 reading exactly 1, 2, 3: the threads must alternate at every
// step, four preemptions, so DFS within the default bound of 2 cannot reach
// it, while bytes reach it with no bound at all.
func lockstep() explore.Run {
	var c atomicx.Uint32
	explore.Name(&c, "c")
	var seen [3]uint32
	return explore.Run{
		Threads: []func(){
			func() {
				for i := range uint32(3) {
					c.Store(i + 1)
				}
			},
			func() {
				for i := range seen {
					seen[i] = c.Load()
				}
			},
		},
		Check: func() error {
			if seen == [3]uint32{1, 2, 3} {
				return fmt.Errorf("lockstep: T1 saw every store, %v", seen)
			}
			return nil
		},
	}
}

func bytesOpts(name string, data []byte) explore.Options {
	return explore.Options{Name: name, Mode: explore.Bytes, Decisions: data}
}

// TestBytesReachPastTheBound: DFS within bound 2 explores lockstep
// completely and finds nothing; the decisions 0,1,1,1,1 (run T0, then
// switch at every choice) reach the failure, which replays like any other.
func TestBytesReachPastTheBound(t *testing.T) {
	res := explore.Check(t, explore.Options{Name: "lockstep-dfs"}, lockstep)
	require.True(t, res.Complete)

	got, err := explore.Explore(bytesOpts("lockstep-bytes", []byte{0, 1, 1, 1, 1}), lockstep)
	require.NoError(t, err)
	t.Log(got.Summary())
	assert.Equal(t, 1, got.Executions)
	assert.Equal(t, -1, got.Bound)
	assert.Contains(t, got.Summary(), "mode bytes")
	require.NotNil(t, got.Failure, "the bytes did not reach the lockstep schedule")
	f := got.Failure
	assert.Equal(t, "0.1.0.1.0.1", f.Schedule)
	assert.Contains(t, f.String(), "replay: SCHEDKIT_REPLAY='lockstep-bytes:0.1.0.1.0.1'")

	again, err := explore.Explore(explore.Options{Name: "lockstep-bytes", Replay: f.Schedule}, lockstep)
	require.NoError(t, err)
	require.NotNil(t, again.Failure)
	assert.Equal(t, f.Trace, again.Failure.Trace)
}

// TestBytesSearchFindsTheBug: random byte strings, as a fuzzer's first
// mutations are, reach the classic bugs within a few hundred tries (a fixed
// generator, so the counts are the same on every run), and never fail the
// fixed versions.
func TestBytesSearchFindsTheBug(t *testing.T) {
	for _, c := range []struct {
		name         string
		buggy, fixed func() explore.Run
	}{
		{"lostupdate", lostUpdate(false), lostUpdate(true)},
		{"checkthenact", checkThenAct(false), checkThenAct(true)},
		{"lostwakeup", lostWakeup(false), lostWakeup(true)},
	} {
		rng := rand.New(rand.NewPCG(1, 2))
		found := 0
		for try := 1; try <= 500; try++ {
			data := make([]byte, rng.IntN(8))
			for i := range data {
				data[i] = byte(rng.UintN(256))
			}
			res, err := explore.Explore(bytesOpts(c.name+"-search", data), c.buggy)
			require.NoError(t, err)
			if res.Failure != nil && found == 0 {
				found = try
				t.Logf("%s: try %d, bytes %x: %v, schedule %s", c.name, try, data, res.Failure.Err, res.Failure.Schedule)
			}
			fixed, err := explore.Explore(bytesOpts(c.name+"-fixed", data), c.fixed)
			require.NoError(t, err)
			require.Nil(t, fixed.Failure, "%s fixed, bytes %x", c.name, data)
		}
		assert.NotZero(t, found, "%s: 500 random byte strings never reached the bug", c.name)
	}
}

// TestBytesAreDeterministic: the same bytes give the same schedule, every
// time; other bytes give other schedules.
func TestBytesAreDeterministic(t *testing.T) {
	build := independent(3, 4)
	run := func(data []byte) string {
		var got []string
		opts := bytesOpts("bytes-determinism", data)
		opts.Visit = func(s string) { got = append(got, s) }
		res, err := explore.Explore(opts, build)
		require.NoError(t, err)
		require.Nil(t, res.Failure)
		require.Len(t, got, 1)
		return got[0]
	}
	seen := map[string]bool{}
	for _, data := range [][]byte{nil, {1}, {2}, {1, 1, 1}, {0x09, 0x02}, {0xff, 0x13, 0x42, 0x07}} {
		first := run(data)
		assert.Equal(t, first, run(data), "bytes %x", data)
		seen[first] = true
	}
	assert.Len(t, seen, 6, "six byte strings, six schedules: %v", seen)
}

// TestBytesDecoding pins the decoding the package documentation states: no
// bytes means the default choice (run on, then the next thread); the low
// three bits pick among the runnable threads in order, the prior thread
// first; the high five bits continue that thread for more choices; a point
// with one runnable thread consumes nothing.
func TestBytesDecoding(t *testing.T) {
	build := independent(2, 3) // T0 and T1 each store three times
	for _, c := range []struct {
		data []byte
		want string
	}{
		{nil, "0x3.1x3"},                 // run to completion, in thread order
		{[]byte{1}, "1x3.0x3"},           // switch to T1 at the first choice; then defaults
		{[]byte{0, 1}, "0.1x3.0x2"},      // T0 once, then T1, which the default runs to its end
		{[]byte{0, 1, 1}, "0.1.0x2.1x2"}, // ... and back
		{[]byte{1 | 1<<3, 1}, "1x2.0x3.1"},
		{[]byte{2}, "0x3.1x3"}, // 2 % 2 == 0: stay with T0
	} {
		var got string
		opts := bytesOpts("bytes-decoding", c.data)
		opts.Visit = func(s string) { got = s }
		res, err := explore.Explore(opts, build)
		require.NoError(t, err)
		require.Nil(t, res.Failure)
		assert.Equal(t, c.want, got, "bytes %x", c.data)
	}
}

// TestBytesFailureNamesTheSchedule: a failure found from bytes (here a
// panic) carries its schedule and replays to the same failure.
func TestBytesFailureNamesTheSchedule(t *testing.T) {
	res, err := explore.Explore(bytesOpts("bytes-panic", []byte{0, 1, 1}), panicsOnRace)
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	assert.Equal(t, "0.1.0", res.Failure.Schedule)
	again, err := explore.Explore(explore.Options{Name: "bytes-panic", Replay: res.Failure.Schedule}, panicsOnRace)
	require.NoError(t, err)
	require.NotNil(t, again.Failure)
	assert.Equal(t, res.Failure.Err.Error(), again.Failure.Err.Error())
}
