//go:build schedcheck

package explore_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// initOnce: two threads run a one-time initialisation guarded by a flag.
// The racy version checks a plain bool and then sets it (check-then-set);
// the fixed one claims the flag with a CAS. Check counts the inits only
// when strict.
func initOnce(fixed, strict bool) func() explore.Run {
	return func() explore.Run {
		var flag atomicx.Plain[bool]
		var claim atomicx.Bool
		var inits atomicx.Int64
		explore.Name(&flag, "flag")
		init := func() {
			if fixed {
				if claim.CompareAndSwap(false, true) {
					inits.Add(1)
				}
				return
			}
			if !flag.Load() {
				flag.Store(true)
				inits.Add(1)
			}
		}
		return explore.Run{Threads: []func(){init, init}, Check: func() error {
			if n := inits.Load(); strict && n != 1 {
				return fmt.Errorf("initialised %d times", n)
			}
			return nil
		}}
	}
}

// publish: a producer fills plain slots and publishes how many through an
// index; a consumer reads the index and then the slots it covers. racyIndex
// makes the index a plain cell; early publishes an atomic index before the
// slot is written (a tail published before the slot, the seeded mutant of
// the runqueues); otherwise the slot is written, then the atomic index.
func publish(racyIndex, early bool) func() explore.Run {
	return func() explore.Run {
		buf := atomicx.MakePlainSlice[int](2)
		var plainIdx atomicx.Plain[int]
		var idx atomicx.Int64
		explore.Name(&buf, "buf")
		explore.Name(&plainIdx, "idx")
		explore.Name(&idx, "idx")
		sum := 0
		producer := func() {
			for i := range 2 {
				switch {
				case racyIndex:
					buf.Store(i, 10+i)
					plainIdx.Store(i + 1)
				case early:
					idx.Store(int64(i + 1))
					buf.Store(i, 10+i)
				default:
					buf.Store(i, 10+i)
					idx.Store(int64(i + 1))
				}
			}
		}
		consumer := func() {
			n := int(idx.Load())
			if racyIndex {
				n = plainIdx.Load()
			}
			for i := range n {
				sum += buf.Load(i)
			}
		}
		return explore.Run{Threads: []func(){producer, consumer}, Check: func() error {
			if sum != 0 && sum != 10 && sum != 21 {
				return fmt.Errorf("consumer read %d: a slot before it was written", sum)
			}
			return nil
		}}
	}
}

func raceOf(t *testing.T, f *explore.Failure) *explore.DataRaceError {
	t.Helper()
	require.NotNil(t, f)
	var dr *explore.DataRaceError
	require.True(t, errors.As(f.Err, &dr), "a data race, not %v", f.Err)
	return dr
}

func TestPlainCheckThenSetIsARace(t *testing.T) {
	for m, f := range mustFind(t, "init-once-plain", initOnce(false, false)) {
		dr := raceOf(t, f)
		assert.Equal(t, "flag", dr.Cell, m)
		assert.NotEqual(t, dr.First.Thread, dr.Second.Thread, m)
		assert.True(t, dr.First.Write || dr.Second.Write, m)
		assert.Less(t, dr.First.Step, dr.Second.Step, m)
		for _, a := range []explore.RaceAccess{dr.First, dr.Second} {
			assert.Contains(t, a.Pos, "race_test.go:", m)
			line := f.Trace[a.Step-1]
			assert.Equal(t, a.Thread, line.Thread, m)
			assert.Equal(t, map[bool]atomicx.Op{true: atomicx.OpWrite, false: atomicx.OpRead}[a.Write], line.Op, m)
		}
	}
	mustPass(t, "init-once-cas", initOnce(true, true))
}

func TestPlainBufferPublishedByARacyIndex(t *testing.T) {
	dr := raceOf(t, mustFind(t, "publish-plain-index", publish(true, false))["dfs"])
	assert.Equal(t, "idx", dr.Cell)
	dr = raceOf(t, mustFind(t, "publish-index-before-slot", publish(false, true))["dfs"])
	assert.True(t, strings.HasPrefix(dr.Cell, "buf["), dr.Cell)
	mustPass(t, "publish-slot-then-index", publish(false, false))
}

// The plain accesses are scheduling points: with races not reported, the
// explorer still reaches the double initialisation between the check and
// the set.
func TestPlainAccessesAreSchedulingPoints(t *testing.T) {
	defer explore.SetRaceFault("race-never")()
	res, err := explore.Explore(explore.Options{Name: "init-once-unreported"}, initOnce(false, true))
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	assert.Contains(t, res.Failure.Err.Error(), "initialised 2 times")
	t.Log(res.Failure)
}

// mutexCounter: two threads increment a plain counter under a Mutex.
func mutexCounter() explore.Run {
	var mu atomicx.Mutex
	var n atomicx.Plain[int]
	explore.Name(&n, "n")
	explore.Name(&mu, "mu")
	inc := func() {
		mu.Lock()
		n.Store(n.Load() + 1)
		mu.Unlock()
	}
	return explore.Run{Threads: []func(){inc, inc}, Check: func() error {
		if n.Load() != 2 {
			return fmt.Errorf("n = %d", n.Load())
		}
		return nil
	}}
}

// The checker's seeded faults: each forgotten edge makes a false race on a
// correct scenario, and a checker that never reports misses the real one.
func TestRaceCheckerFaultsAreCaught(t *testing.T) {
	explore.Check(t, explore.Options{Name: "mutex-counter"}, mutexCounter)
	for _, c := range []struct {
		fault string
		build func() explore.Run
	}{
		{"race-no-unlock-release", mutexCounter},
		{"race-no-store-release", publish(false, false)},
	} {
		restore := explore.SetRaceFault(c.fault)
		res, err := explore.Explore(explore.Options{Name: c.fault}, c.build)
		restore()
		require.NoError(t, err)
		raceOf(t, res.Failure)
		t.Logf("%s: a false race on a correct scenario: %v", c.fault, res.Failure.Err)
	}
	restore := explore.SetRaceFault("race-never")
	res, err := explore.Explore(explore.Options{Name: "race-never"}, initOnce(false, false))
	restore()
	require.NoError(t, err)
	assert.Nil(t, res.Failure, "race-never reports nothing, so the racy flag passes")
}

// Every happens-before edge through atomicx orders a plain write in one
// thread and a plain read in another: no race is reported. Reading before
// the edge is a race.
func TestHappensBeforeEdges(t *testing.T) {
	type edge struct {
		name string
		// sync runs in the writer after its write, wait in the reader
		// before its read.
		make func() (sync, wait func())
	}
	edges := []edge{
		{"mutex", func() (func(), func()) {
			var mu atomicx.Mutex
			var ready atomicx.Plain[bool]
			mu.Lock()
			done := false
			return func() { ready.Store(true); mu.Unlock() }, func() {
				for !done {
					mu.Lock()
					done = ready.Load()
					if !done {
						mu.Unlock()
						atomicx.Sleep(0)
					}
				}
			}
		}},
		{"note", func() (func(), func()) {
			var n atomicx.Note
			return n.Wakeup, n.Sleep
		}},
		{"atomic-store-load", func() (func(), func()) {
			var f atomicx.Bool
			return func() { f.Store(true) }, func() {
				for !f.Load() {
					atomicx.Sleep(0)
				}
			}
		}},
		{"chan-buffered", func() (func(), func()) {
			c := atomicx.NewChan[int](1)
			return func() { c.Send(1) }, func() { c.Recv() }
		}},
		{"chan-unbuffered", func() (func(), func()) {
			c := atomicx.NewChan[int](0)
			return func() { c.Send(1) }, func() { c.Recv() }
		}},
		{"chan-close", func() (func(), func()) {
			c := atomicx.NewChan[int](0)
			return c.Close, func() { c.Recv() }
		}},
		{"select", func() (func(), func()) {
			a, b := atomicx.NewChan[int](0), atomicx.NewChan[int](0)
			return func() { b.Send(1) }, func() { atomicx.Select(a.RecvCase(nil, nil), b.RecvCase(nil, nil)) }
		}},
		{"cancel", func() (func(), func()) {
			c := atomicx.NewCancel()
			return c.Cancel, func() { atomicx.Select(c.DoneCase()) }
		}},
		{"cond", func() (func(), func()) {
			var mu atomicx.Mutex
			c := atomicx.NewCond(&mu)
			var ready atomicx.Bool
			return func() { mu.Lock(); ready.Store(true); c.Signal(); mu.Unlock() }, func() {
				mu.Lock()
				for !ready.Load() {
					c.Wait()
				}
				mu.Unlock()
			}
		}},
	}
	for _, e := range edges {
		for _, early := range []bool{false, true} {
			build := func() explore.Run {
				var x atomicx.Plain[int]
				explore.Name(&x, "x")
				sync, wait := e.make()
				got := 0
				return explore.Run{Threads: []func(){
					func() { x.Store(1); sync() },
					func() {
						if early {
							got = x.Load()
						}
						wait()
						got = x.Load()
					},
				}, Check: func() error {
					if got != 1 {
						return fmt.Errorf("read %d", got)
					}
					return nil
				}}
			}
			name := "hb-" + e.name
			if early {
				res, err := explore.Explore(explore.Options{Name: name + "-early", Mode: explore.DPOR}, build)
				require.NoError(t, err)
				dr := raceOf(t, res.Failure)
				assert.Equal(t, "x", dr.Cell, name)
				continue
			}
			explore.Check(t, explore.Options{Name: name, Mode: explore.DPOR}, build)
		}
	}
}

// A store observes nothing: T0 writes plain x then stores to an atomic
// flag; T1, after a sleep that lets T0 finish first in every execution (the
// virtual clock orders nothing), stores to the flag and reads x. Nothing
// orders T0's write before T1's read: a race, which a store that acquired
// would hide.
func TestStoreDoesNotAcquire(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "store-does-not-acquire", Mode: explore.DPOR}, func() explore.Run {
		var x atomicx.Plain[int]
		var flag atomicx.Int64
		explore.Name(&x, "x")
		return explore.Run{Threads: []func(){
			func() { x.Store(1); flag.Store(1) },
			func() { atomicx.Sleep(time.Second); flag.Store(2); _ = x.Load() },
		}}
	})
	require.NoError(t, err)
	dr := raceOf(t, res.Failure)
	assert.Equal(t, "x", dr.Cell)
}
