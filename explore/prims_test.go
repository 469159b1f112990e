//go:build schedcheck

package explore_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// cmpxchgCounter: two threads add 2 each with a compare_exchange loop that
// retries from the value seen, or (buggy) gives an add up when it fails.
func cmpxchgCounter(fixed bool) func() explore.Run {
	return func() explore.Run {
		var n atomicx.Int64
		explore.Name(&n, "n")
		add := func() {
			cur := n.Load()
			for range 2 {
				for {
					prev, ok := n.CompareExchange(cur, cur+1)
					if ok {
						cur++
						break
					}
					cur = prev
					if !fixed {
						break // "someone else added": an add lost
					}
				}
			}
		}
		return explore.Run{Threads: []func(){add, add}, Check: func() error {
			if v := n.Load(); v != 4 {
				return fmt.Errorf("n = %d", v)
			}
			return nil
		}}
	}
}

func TestCompareExchangeUnderTheExplorer(t *testing.T) {
	mustPass(t, "cmpxchg-counter", cmpxchgCounter(true))
	f := mustFind(t, "cmpxchg-guess", cmpxchgCounter(false))["dfs"]
	assert.Contains(t, f.Err.Error(), "n = ")
	assert.Contains(t, f.String(), "failed, saw", "the lost add is a compare_exchange that saw another value")
}

// twoSenders: two threads send 1 and 2 on a channel of size size; a third
// receives both. Every order is reached; the values arrive intact.
func twoSenders(size int) func() explore.Run {
	return func() explore.Run {
		c := atomicx.NewChan[int](size)
		explore.Name(c, "ch")
		var got []int
		return explore.Run{
			Threads: []func(){func() { c.Send(1) }, func() { c.Send(2) }, func() {
				for range 2 {
					v, ok := c.Recv()
					if !ok {
						panic("closed")
					}
					got = append(got, v)
				}
			}},
			Check: func() error {
				if len(got) != 2 || got[0]+got[1] != 3 {
					return fmt.Errorf("got %v", got)
				}
				return nil
			},
			Outcome: func() string { return fmt.Sprint(got) },
		}
	}
}

func TestChanUnderTheExplorer(t *testing.T) {
	for _, size := range []int{0, 1, 2} {
		for _, m := range modes[:4] {
			opts := m.opts
			opts.Name = fmt.Sprintf("two-senders-size-%d/%s", size, m.name)
			opts.MustReach = []string{"[1 2]", "[2 1]"}
			explore.Check(t, opts, twoSenders(size))
		}
	}
}

func TestChanBlockingIsModelled(t *testing.T) {
	// Each waits to receive from the other first: a deadlock, reported.
	res, err := explore.Explore(explore.Options{Name: "recv-recv"}, func() explore.Run {
		a, b := atomicx.NewChan[int](0), atomicx.NewChan[int](0)
		explore.Name(a, "a")
		explore.Name(b, "b")
		return explore.Run{Threads: []func(){
			func() { a.Recv(); b.Send(1) },
			func() { b.Recv(); a.Send(1) },
		}}
	})
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	var dl *explore.DeadlockError
	require.True(t, errors.As(res.Failure.Err, &dl), "%v", res.Failure.Err)
	assert.Equal(t, []string{"T0 recv a", "T1 recv b"}, dl.Blocked)

	// Close wakes a blocked receiver with false; a send on a closed
	// channel panics; TryRecv sees every state.
	explore.Check(t, explore.Options{
		Name:      "close-wakes-receiver",
		Bound:     explore.Unbounded,
		MustReach: []string{"recv closed", "tryrecv empty", "tryrecv closed", "send panicked"},
	}, func() explore.Run {
		c := atomicx.NewChan[int](0)
		var labels []string
		return explore.Run{Threads: []func(){
			func() {
				if _, ok := c.Recv(); !ok {
					explore.Reached("recv closed")
				}
			},
			func() {
				_, ok, ready := c.TryRecv()
				switch {
				case !ready:
					explore.Reached("tryrecv empty")
				case !ok:
					explore.Reached("tryrecv closed")
				}
			},
			func() {
				c.Close()
				defer func() {
					if recover() != nil {
						explore.Reached("send panicked")
					}
				}()
				c.Send(1)
			},
		}, Check: func() error { _ = labels; return nil }}
	})
}

func TestSelectUnderTheExplorer(t *testing.T) {
	// A selector takes whichever of two sends comes first, then the other:
	// both orders are reached, and a blocked select is completed by the
	// send that comes later.
	for _, m := range modes[:4] {
		opts := m.opts
		opts.Name = "select-two-senders/" + m.name
		opts.MustReach = []string{"a first", "b first", "select blocked"}
		explore.Check(t, opts, func() explore.Run {
			a, b := atomicx.NewChan[int](0), atomicx.NewChan[int](0)
			var va, vb int
			return explore.Run{Threads: []func(){
				func() { a.Send(1) },
				func() { b.Send(2) },
				func() {
					var n int
					for i := range 2 {
						blocked := atomicx.TrySelect(a.RecvCase(&va, nil), b.RecvCase(&vb, nil))
						k := blocked
						if blocked < 0 {
							explore.Reached("select blocked")
							k = atomicx.Select(a.RecvCase(&va, nil), b.RecvCase(&vb, nil))
						}
						if i == 0 {
							explore.Reached(map[int]string{0: "a first", 1: "b first"}[k])
						}
						n += k
					}
					if n != 1 {
						panic("the same case twice")
					}
				},
			}, Check: func() error {
				if va != 1 || vb != 2 {
					return fmt.Errorf("received a=%d b=%d", va, vb)
				}
				return nil
			}}
		})
	}
	// A select's send case, completed by a receiver that comes later.
	explore.Check(t, explore.Options{Name: "select-send-case", Mode: explore.DPOR}, func() explore.Run {
		a, b := atomicx.NewChan[int](0), atomicx.NewChan[int](0)
		got := 0
		return explore.Run{Threads: []func(){
			func() {
				if atomicx.Select(a.SendCase(5), b.RecvCase(nil, nil)) != 0 {
					panic("no one sends on b")
				}
			},
			func() { got, _ = a.Recv() },
		}, Check: func() error {
			if got != 5 {
				return fmt.Errorf("got %d", got)
			}
			return nil
		}}
	})
}

// handoff: a consumer waits on a Cond for a flag a producer sets. The
// correct version checks and waits under the lock, and the producer sets
// and signals under it; the buggy one checks before taking the lock and
// the producer signals without it: a lost wakeup, a deadlock.
func handoff(fixed bool) func() explore.Run {
	return func() explore.Run {
		var mu atomicx.Mutex
		c := atomicx.NewCond(&mu)
		explore.Name(c, "cond")
		var ready atomicx.Bool
		explore.Name(&ready, "ready")
		return explore.Run{Threads: []func(){
			func() {
				if fixed {
					mu.Lock()
					ready.Store(true)
					c.Signal()
					mu.Unlock()
					return
				}
				ready.Store(true)
				c.Signal()
			},
			func() {
				if fixed {
					mu.Lock()
					for !ready.Load() {
						c.Wait()
					}
					mu.Unlock()
					return
				}
				if !ready.Load() {
					mu.Lock()
					c.Wait()
					mu.Unlock()
				}
			},
		}}
	}
}

func TestCondUnderTheExplorer(t *testing.T) {
	mustPass(t, "cond-handoff", handoff(true))
	for m, f := range mustFind(t, "cond-lost-wakeup", handoff(false)) {
		var dl *explore.DeadlockError
		require.True(t, errors.As(f.Err, &dl), "%s: %v", m, f.Err)
		assert.Equal(t, []string{"T1 condsleep cond"}, dl.Blocked, m)
	}
	// Broadcast wakes every waiter; Signal one.
	explore.Check(t, explore.Options{Name: "cond-broadcast", Mode: explore.DPOR}, func() explore.Run {
		var mu atomicx.Mutex
		c := atomicx.Cond{L: &mu}
		go1 := false
		wait := func() {
			mu.Lock()
			for !go1 {
				c.Wait()
			}
			mu.Unlock()
		}
		return explore.Run{Threads: []func(){wait, wait, func() {
			mu.Lock()
			go1 = true
			c.Broadcast()
			mu.Unlock()
		}}}
	})
}

// worker: a worker takes jobs until cancelled, with a Select over the jobs
// and the cancellation; the other thread sends one job, then cancels.
func TestCancelUnderTheExplorer(t *testing.T) {
	for _, m := range modes[:4] {
		opts := m.opts
		opts.Name = "cancel-worker/" + m.name
		opts.MustReach = []string{"done 0 jobs", "done 1 jobs"}
		explore.Check(t, opts, func() explore.Run {
			jobs := atomicx.NewChan[int](1)
			cancel := atomicx.NewCancel()
			explore.Name(jobs, "jobs")
			done := 0
			return explore.Run{Threads: []func(){
				func() {
					for {
						if atomicx.Select(cancel.DoneCase(), jobs.RecvCase(nil, nil)) == 0 {
							explore.Reached(fmt.Sprintf("done %d jobs", done))
							return
						}
						done++
					}
				},
				func() {
					jobs.Send(1)
					cancel.Cancel()
					cancel.Cancel()
				},
			}, Check: func() error {
				if cancel.Err() == nil {
					return errors.New("not cancelled")
				}
				return nil
			}}
		})
	}
}

// The trace lines of the new operations, in one failing execution.
func TestPrimitiveTraceLines(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "trace", Replay: "0x2.1x4.0x3.1x2"}, func() explore.Run {
		c := atomicx.NewChan[int](0)
		explore.Name(c, "ch")
		var x atomicx.Plain[int]
		explore.Name(&x, "x")
		cancel := atomicx.NewCancel()
		return explore.Run{Threads: []func(){
			func() {
				x.Store(7)
				c.Send(1)
				c.TrySend(2)
				cancel.Cancel()
			},
			func() {
				c.Recv()
				_ = x.Load()
				c.TryRecv()
				atomicx.TrySelect(c.RecvCase(nil, nil))
				atomicx.Select(cancel.DoneCase())
			},
		}, Check: func() error { return errors.New("show the trace") }}
	})
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	s := res.Failure.String()
	t.Log(s)
	for _, want := range []string{
		"T0 write x ← 7", "T0 send ch ← 1 blocks", "T1 recv ch = 1", "T0 send ch woken",
		"T1 read x = 7", "T0 trysend ch ← 2 full", "T1 tryrecv ch empty", "T1 tryselect ch default",
		"T0 cancel", "T1 select", "case 0",
	} {
		assert.True(t, strings.Contains(s, want), "the trace has %q", want)
	}
}

// DPOR against unbounded DFS on scenarios of the new operations, every
// object named: the same outcomes, classes and end states, one DPOR
// execution per class (compareWithDFS), so the dependence DPOR gives them
// (a select depends on everything, a channel's steps on its own, a plain
// read commutes with reads, the waits are blocking) loses nothing.
func TestDPORMatchesDFSOnPrimitives(t *testing.T) {
	defer explore.SetAwait(false)()
	scenarios := []struct {
		name  string
		build func() explore.Run
	}{
		{"two-senders-unbuffered", twoSenders(0)},
		{"two-senders-buffered", twoSenders(1)},
		{"select-vs-two-senders", func() explore.Run {
			a, b := atomicx.NewChan[int](0), atomicx.NewChan[int](1)
			explore.Name(a, "a")
			explore.Name(b, "b")
			var got []int
			return explore.Run{Threads: []func(){
				func() { a.Send(1) },
				func() { b.TrySend(2); b.Close() },
				func() {
					for range 2 {
						var v int
						var ok bool
						atomicx.Select(a.RecvCase(&v, &ok), b.RecvCase(&v, &ok))
						got = append(got, v)
					}
				},
			}, Outcome: func() string { return fmt.Sprint(got) }}
		}},
		{"cond-handoff", func() explore.Run {
			var mu atomicx.Mutex
			c := atomicx.NewCond(&mu)
			var ready atomicx.Plain[bool]
			explore.Name(&mu, "mu")
			explore.Name(c, "cond")
			explore.Name(&ready, "ready")
			waits := 0
			return explore.Run{Threads: []func(){
				func() { mu.Lock(); ready.Store(true); c.Signal(); mu.Unlock() },
				func() {
					mu.Lock()
					for !ready.Load() {
						waits++
						c.Wait()
					}
					mu.Unlock()
				},
			}, Outcome: func() string { return fmt.Sprint("waits ", waits) }}
		}},
		{"cancel-vs-worker", func() explore.Run {
			jobs := atomicx.NewChan[int](1)
			cancel := atomicx.NewCancel()
			explore.Name(jobs, "jobs")
			explore.Name(cancel.Done(), "done")
			done := 0
			return explore.Run{Threads: []func(){
				func() {
					for atomicx.Select(cancel.DoneCase(), jobs.RecvCase(nil, nil)) != 0 {
						done++
					}
				},
				func() { jobs.Send(1); cancel.Cancel() },
			}, Outcome: func() string { return fmt.Sprint("jobs ", done) }}
		}},
		{"plain-publish", publish(false, false)},
		{"plain-under-mutex", mutexCounter},
	}
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			traces, dfs, dpor := compareWithDFS(t, s.name, s.build)
			t.Logf("%s: DFS %d executions, DPOR %d for %d traces", s.name, dfs.Executions, dpor.Executions, traces)
		})
	}
}
