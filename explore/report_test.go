//go:build schedcheck

package explore_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// traceLines is the trace of the first failing execution, as lines.
func traceLines(t *testing.T, res explore.Result) []string {
	t.Helper()
	require.NotNil(t, res.Failure)
	var lines []string
	for _, s := range res.Failure.Trace {
		lines = append(lines, s.String())
	}
	return lines
}

// TestReadModifyWritesSayOldAndNew: Add and Swap print the value found and
// the one left, a CAS that succeeds what it replaced and wrote, and one
// that fails the value that made it fail.
func TestReadModifyWritesSayOldAndNew(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "rmw", Bound: explore.NoPreemption}, func() explore.Run {
		var c atomicx.Uint64
		var b atomicx.Bool
		explore.Name(&c, "c")
		explore.Name(&b, "b")
		return explore.Run{Threads: []func(){func() {
			c.Add(5)
			c.Swap(7)
			c.CompareAndSwap(7, 9)
			c.CompareAndSwap(1, 2)
			b.Swap(true)
		}}, Check: func() error { return errors.New("show the trace") }}
	})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"T0 add c 0 → 5",
		"T0 swap c 5 → 7",
		"T0 cas c ok: 7 → 9",
		"T0 cas c failed, saw 9",
		"T0 swap b 0 → 1",
	}, traceLines(t, res))
}

// TestPointerCASNamesTheObjects: a CAS of a pointer between named objects
// reads as their names, "cas top ok: &a → &b", and a lost one as the name
// it saw.
func TestPointerCASNamesTheObjects(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "pcas"}, func() explore.Run {
		type node struct{ v int }
		a, b := new(node), new(node)
		explore.Name(a, "a")
		explore.Name(b, "b")
		var top atomicx.Pointer[node]
		explore.Name(&top, "top")
		return explore.Run{Threads: []func(){func() {
			top.Store(a)
			top.CompareAndSwap(a, b)
			top.CompareAndSwap(a, nil)
		}}, Check: func() error { return errors.New("show the trace") }}
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"T0 store top ← &a", "T0 cas top ok: &a → &b", "T0 cas top failed, saw &b"}, traceLines(t, res))
}

// TestFormatPrintsPackedWords: a cell given a Format function prints its
// values, loads and stores and both sides of a read-modify-write, with it.
func TestFormatPrintsPackedWords(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "format"}, func() explore.Run {
		var w atomicx.Uint64
		explore.Name(&w, "ht")
		explore.Format(&w, func(v uint64) string { return fmt.Sprintf("h=%d t=%d", v>>32, uint32(v)) })
		return explore.Run{Threads: []func(){func() {
			w.Store(1<<32 | 2)
			w.Load()
			w.CompareAndSwap(1<<32|2, 2<<32|2)
		}}, Check: func() error { return errors.New("show the trace") }}
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"T0 store ht ← h=1 t=2", "T0 load ht = h=1 t=2", "T0 cas ht ok: h=1 t=2 → h=2 t=2"}, traceLines(t, res))
	assert.Panics(t, func() { explore.Format(nil, func(uint64) string { return "" }) })
}

// TestCheckReportsFileLines: the failure Check reports names, on every
// step, the line of the scenario's code that made the call (found by one
// replay of the failure; the search itself does not look).
func TestCheckReportsFileLines(t *testing.T) {
	rec := &recordingTB{TB: t}
	func() {
		defer func() { _ = recover() }()
		explore.Check(rec, explore.Options{Name: "where"}, lostUpdate(false))
	}()
	msg := strings.Join(rec.fatal, "\n")
	assert.Contains(t, msg, "T0 load counter = 0")
	assert.Regexp(t, `T0 load counter = 0 +bugs_test.go:[0-9]+`, msg)
	assert.Regexp(t, `T1 store counter ← 1 +bugs_test.go:[0-9]+`, msg)
}

// twoBugs fails in two ways depending on which thread writes last, and in
// a third way when both see the other's write.
func twoBugs() explore.Run {
	var a, b atomicx.Int64
	var last atomicx.Int64
	return explore.Run{
		Threads: []func(){
			func() { a.Store(1); last.Store(1) },
			func() { b.Store(1); last.Store(2) },
		},
		Check: func() error {
			if last.Load() == 1 {
				return errors.New("T0 wrote last")
			}
			return errors.New("T1 wrote last")
		},
	}
}

// TestKeepGoingCollectsDistinctFailures: KeepGoing searches on after the
// first failure and keeps each distinct one once; without it the search
// stops at the first.
func TestKeepGoingCollectsDistinctFailures(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "two-bugs", KeepGoing: true}, twoBugs)
	require.NoError(t, err)
	require.Len(t, res.Failures, 2)
	assert.Same(t, res.Failure, res.Failures[0])
	assert.NotEqual(t, res.Failures[0].Err.Error(), res.Failures[1].Err.Error())
	assert.True(t, res.Complete, "the search ran to its end")
	assert.Contains(t, res.Summary(), "2 distinct failures")

	one, err := explore.Explore(explore.Options{Name: "two-bugs"}, twoBugs)
	require.NoError(t, err)
	assert.Len(t, one.Failures, 1)
	assert.Equal(t, 1, one.Executions)

	capped, err := explore.Explore(explore.Options{Name: "two-bugs", KeepGoing: true, MaxFailures: 1}, twoBugs)
	require.NoError(t, err)
	assert.Len(t, capped.Failures, 1)
}

// TestDrainRunsAsAnExploredThread: Run.Drain runs once the threads have
// returned, as one more thread whose blocking operations are modelled: a
// drain that takes a lock a thread released works, and one that sleeps on
// a note nobody wakes is a deadlock, not a hang.
func TestDrainRunsAsAnExploredThread(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "drain"}, func() explore.Run {
		var mu atomicx.Mutex
		var n atomicx.Int64
		explore.Name(&mu, "mu")
		got := int64(-1)
		inc := func() { mu.Lock(); n.Add(1); mu.Unlock() }
		return explore.Run{
			Threads: []func(){inc, inc},
			Drain:   func() { mu.Lock(); got = n.Load(); mu.Unlock() },
			Check: func() error {
				if got != 2 {
					return fmt.Errorf("drained %d", got)
				}
				return nil
			},
		}
	})
	require.NoError(t, err)
	assert.Nil(t, res.Failure)
	assert.True(t, res.Complete)

	res, err = explore.Explore(explore.Options{Name: "drain-blocks"}, func() explore.Run {
		var note atomicx.Note
		explore.Name(&note, "note")
		return explore.Run{Threads: []func(){func() {}}, Drain: func() { note.Sleep() }}
	})
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	var dl *explore.DeadlockError
	require.ErrorAs(t, res.Failure.Err, &dl)
	assert.Contains(t, dl.Error(), "T1 notesleep note")
}

// TestOptionsFromTheEnvironment: SCHEDKIT_EXPLORE_MAXSTEPS and the others
// set options over the code's; a bad value is an error.
func TestOptionsFromTheEnvironment(t *testing.T) {
	t.Setenv(explore.MaxStepsEnv, "120")
	res, err := explore.Explore(explore.Options{Name: "env-steps", MaxSteps: 5000}, spinsForever)
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	assert.ErrorIs(t, res.Failure.Err, explore.ErrStepLimit)
	assert.Len(t, res.Failure.Trace, 120)

	t.Setenv(explore.MaxStepsEnv, "")
	t.Setenv(explore.KeepGoingEnv, "1")
	res, err = explore.Explore(explore.Options{Name: "env-keepgoing"}, twoBugs)
	require.NoError(t, err)
	assert.Len(t, res.Failures, 2)

	for k, v := range map[string]string{explore.MaxStepsEnv: "-1", explore.DeadlineEnv: "soon", explore.SeedEnv: "x", explore.KeepGoingEnv: "yes", explore.MaxFailuresEnv: "0"} {
		t.Setenv(k, v)
		_, err := explore.Explore(explore.Options{Name: "env-bad"}, twoBugs)
		assert.ErrorContains(t, err, k)
		t.Setenv(k, "")
	}
}

// TestCompactReplayToken: a token holds any schedule and reads back the
// same; a long spin's schedule, kilobytes in the long form, is a few dozen
// characters; a replay key carries it, and it replays the failure.
func TestCompactReplayToken(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 40 {
		s := make([]uint8, r.IntN(300))
		for i := range s {
			s[i] = uint8(r.IntN(8))
			if i > 0 && r.IntN(3) > 0 {
				s[i] = s[i-1]
			}
		}
		back, err := explore.ParseSchedule(explore.EncodeToken(s))
		require.NoError(t, err)
		require.Equal(t, s, back)
	}
	spin := make([]uint8, 10000)
	for i := range spin {
		spin[i] = uint8(i % 2)
	}
	assert.Greater(t, len(explore.EncodeSchedule(spin)), 10000)
	assert.Less(t, len(explore.EncodeToken(spin)), 80, explore.EncodeToken(spin))
	long := &explore.Failure{Name: "spin", Schedule: explore.EncodeSchedule(spin)}
	assert.Less(t, len(long.String()), 200, "the report names a long schedule by its token")
	_, err := explore.ParseSchedule("z!!")
	assert.Error(t, err)

	opts := explore.Options{Name: "token", MaxSteps: 2000}
	res, err := explore.Explore(opts, spinsForever)
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	key := res.Failure.ReplayKey()
	sched := key[strings.LastIndexByte(key, ':')+1:]
	if len(res.Failure.Schedule) > 48 {
		assert.True(t, strings.HasPrefix(sched, "z"), key)
		assert.Less(t, len(sched), len(res.Failure.Schedule))
	}
	opts.Replay = sched
	again, err := explore.Explore(opts, spinsForever)
	require.NoError(t, err)
	require.NotNil(t, again.Failure)
	assert.Equal(t, res.Failure.Schedule, again.Failure.Schedule)
}
