//go:build schedcheck

package explore_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// The classic bugs below are each explored by every mode: DFS with the
// default bound, DFS unbounded with and without reduction, Random and PCT.
// Each must find the bug; the fixed version must pass every mode.

type mode struct {
	name string
	opts explore.Options
}

var modes = []mode{
	{"dfs", explore.Options{}},
	{"dfs-unbounded", explore.Options{Bound: explore.Unbounded}},
	{"dfs-reduced", explore.Options{Bound: explore.Unbounded, Reduce: true}},
	{"dpor", explore.Options{Mode: explore.DPOR}},
	{"random", explore.Options{Mode: explore.Random, Seed: 1, MaxExecutions: 300}},
	{"pct", explore.Options{Mode: explore.PCT, Seed: 1, MaxExecutions: 300}},
}

// mustFind explores build in every mode and requires each to fail; it
// returns the failures by mode.
func mustFind(t *testing.T, name string, build func() explore.Run) map[string]*explore.Failure {
	t.Helper()
	found := make(map[string]*explore.Failure)
	for _, m := range modes {
		opts := m.opts
		opts.Name = name + "/" + m.name
		res, err := explore.Explore(opts, build)
		require.NoError(t, err)
		t.Log(res.Summary())
		require.NotNil(t, res.Failure, "%s: the bug was not found", opts.Name)
		t.Logf("%s found it:\n%s", m.name, res.Failure)
		found[m.name] = res.Failure
	}
	return found
}

// mustPass explores build in every mode and requires each to pass.
func mustPass(t *testing.T, name string, build func() explore.Run) {
	t.Helper()
	for _, m := range modes {
		opts := m.opts
		opts.Name = name + "/" + m.name
		res := explore.Check(t, opts, build)
		if m.opts.Mode == explore.DFS {
			assert.True(t, res.Complete, "%s explored everything", opts.Name)
		}
	}
}

// lostUpdate: two threads increment a counter by load then store (buggy) or
// by an atomic add (fixed).
func lostUpdate(fixed bool) func() explore.Run {
	return func() explore.Run {
		var c atomicx.Int64
		explore.Name(&c, "counter")
		inc := func() {
			if fixed {
				c.Add(1)
				return
			}
			v := c.Load()
			c.Store(v + 1)
		}
		return explore.Run{
			Threads: []func(){inc, inc},
			Check: func() error {
				if n := c.Load(); n != 2 {
					return fmt.Errorf("lost update: counter = %d after two increments", n)
				}
				return nil
			},
		}
	}
}

func TestLostUpdate(t *testing.T) {
	found := mustFind(t, "lostupdate", lostUpdate(false))
	assert.ErrorContains(t, found["dfs"].Err, "counter = 1")
	mustPass(t, "lostupdate-fixed", lostUpdate(true))
}

// checkThenAct: each thread claims a flag by reading it and then setting it
// (buggy: both may win) or by a CAS (fixed: exactly one wins).
func checkThenAct(fixed bool) func() explore.Run {
	return func() explore.Run {
		var flag atomicx.Bool
		var winners atomicx.Int32
		explore.Name(&flag, "flag")
		explore.Name(&winners, "winners")
		claim := func() {
			if fixed {
				if flag.CompareAndSwap(false, true) {
					winners.Add(1)
				}
				return
			}
			if !flag.Load() {
				flag.Store(true)
				winners.Add(1)
			}
		}
		return explore.Run{
			Threads: []func(){claim, claim, claim},
			Check: func() error {
				if n := winners.Load(); n != 1 {
					return fmt.Errorf("check-then-act: %d threads claimed the flag", n)
				}
				return nil
			},
		}
	}
}

func TestCheckThenAct(t *testing.T) {
	mustFind(t, "checkthenact", checkThenAct(false))
	mustPass(t, "checkthenact-fixed", checkThenAct(true))
}

// TestMutexCounter: a plain int guarded by a Mutex never loses an update, and
// a thread waiting for the lock is not run until it is free.
func TestMutexCounter(t *testing.T) {
	mustPass(t, "mutexcounter", func() explore.Run {
		var mu atomicx.Mutex
		explore.Name(&mu, "mu")
		n := 0
		inc := func() {
			for range 2 {
				mu.Lock()
				v := n
				n = v + 1
				mu.Unlock()
			}
		}
		return explore.Run{
			Threads: []func(){inc, inc, inc},
			Check: func() error {
				if n != 6 {
					return fmt.Errorf("mutex counter = %d, want 6", n)
				}
				return nil
			},
		}
	})
}

// abba locks two mutexes in opposite orders (buggy) or in one order (fixed).
func abba(fixed bool) func() explore.Run {
	return func() explore.Run {
		var a, b atomicx.Mutex
		explore.Name(&a, "a")
		explore.Name(&b, "b")
		both := func(first, second *atomicx.Mutex) func() {
			return func() {
				first.Lock()
				second.Lock()
				second.Unlock()
				first.Unlock()
			}
		}
		second := both(&b, &a)
		if fixed {
			second = both(&a, &b)
		}
		return explore.Run{Threads: []func(){both(&a, &b), second}}
	}
}

func TestABBADeadlock(t *testing.T) {
	for m, f := range mustFind(t, "abba", abba(false)) {
		var dl *explore.DeadlockError
		require.ErrorAs(t, f.Err, &dl, m)
		assert.ElementsMatch(t, []string{"T0 lock b", "T1 lock a"}, dl.Blocked, m)
	}
	mustPass(t, "abba-fixed", abba(true))
}

// lostWakeup: a sleeper parks on a Note unless a flag says the work is there;
// the waker sets the flag and wakes the sleeper if it announced itself. The
// buggy sleeper checks the flag before announcing itself and does not check
// it again, so the waker can miss it (the sleep never ends: a deadlock). The
// fixed sleeper announces itself first and then re-checks the flag.
func lostWakeup(fixed bool) func() explore.Run {
	return func() explore.Run {
		var work, sleeping atomicx.Bool
		var note atomicx.Note
		explore.Name(&work, "work")
		explore.Name(&sleeping, "sleeping")
		explore.Name(&note, "note")
		got := false
		sleeper := func() {
			if fixed {
				sleeping.Store(true)
				if !work.Load() {
					note.Sleep()
				}
			} else if !work.Load() {
				sleeping.Store(true)
				note.Sleep()
			}
			got = work.Load()
		}
		waker := func() {
			work.Store(true)
			if sleeping.Load() {
				note.Wakeup()
			}
		}
		return explore.Run{
			Threads: []func(){sleeper, waker},
			Check: func() error {
				if !got {
					return errors.New("the sleeper woke without the work")
				}
				return nil
			},
		}
	}
}

func TestLostWakeup(t *testing.T) {
	for m, f := range mustFind(t, "lostwakeup", lostWakeup(false)) {
		var dl *explore.DeadlockError
		require.ErrorAs(t, f.Err, &dl, m)
		assert.Equal(t, []string{"T0 notesleep note"}, dl.Blocked, m)
	}
	mustPass(t, "lostwakeup-fixed", lostWakeup(true))
}

// TestDoubleWakeupIsAFailure: a Note woken twice panics in the thread, and the
// explorer reports the panic with its schedule.
func TestDoubleWakeupIsAFailure(t *testing.T) {
	build := func() explore.Run {
		var n atomicx.Note
		var once atomicx.Bool
		wake := func() {
			if !once.Load() { // check-then-act: both may wake
				once.Store(true)
				n.Wakeup()
			}
		}
		return explore.Run{Threads: []func(){wake, wake}}
	}
	res, err := explore.Explore(explore.Options{Name: "doublewakeup"}, build)
	require.NoError(t, err)
	t.Log(res.Summary())
	require.NotNil(t, res.Failure)
	var pe *explore.PanicError
	require.ErrorAs(t, res.Failure.Err, &pe)
	assert.Equal(t, "atomicx: Note.Wakeup called twice", pe.Value)
	last := res.Failure.Trace[len(res.Failure.Trace)-1]
	assert.Equal(t, atomicx.OpNoteWakeup, last.Op)
	assert.False(t, last.Done, "the wakeup that panicked did not finish")
}

// handshake: two rounds of request and response over two Notes. The fixed
// responder clears the request note before it answers; the buggy one clears
// it after, when the requester may already have woken it again (the second
// Wakeup panics, or the Clear erases it and both sleep forever).
func handshake(fixed bool) func() explore.Run {
	return func() explore.Run {
		var req, resp atomicx.Note
		explore.Name(&req, "req")
		explore.Name(&resp, "resp")
		return explore.Run{Threads: []func(){
			func() {
				for range 2 {
					req.Wakeup()
					resp.Sleep()
					resp.Clear()
				}
			},
			func() {
				for range 2 {
					req.Sleep()
					if fixed {
						req.Clear()
						resp.Wakeup()
					} else {
						resp.Wakeup()
						req.Clear()
					}
				}
			},
		}}
	}
}

func TestNoteHandshake(t *testing.T) {
	mustFind(t, "handshake", handshake(false))
	mustPass(t, "handshake-fixed", handshake(true))
}

// TestAbortRunsDeferredCalls: threads stopped by a failure (here a deadlock)
// run their deferred calls, even those that reach atomicx, and exit.
func TestAbortRunsDeferredCalls(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "abba-defer"}, func() explore.Run {
		var a, b atomicx.Mutex
		lock := func(first, second *atomicx.Mutex) func() {
			return func() {
				first.Lock()
				defer first.Unlock()
				second.Lock()
				defer second.Unlock()
			}
		}
		return explore.Run{Threads: []func(){lock(&a, &b), lock(&b, &a)}}
	})
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	var dl *explore.DeadlockError
	require.ErrorAs(t, res.Failure.Err, &dl)
}
