package executor_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/watchdog"
)

// joinDeadline bounds every test here that waits, on the real clock.
const joinDeadline = time.Minute

// inTask runs body as one task of a new executor of cfg, waits for it
// under a watchdog naming what, closes the executor and returns body's
// error, Close's and the executor.
func inTask(t *testing.T, cfg executor.Config, what string, body func(executor.Task) error) (*executor.Executor, error) {
	t.Helper()
	stop := watchdog.Start(t.Name()+": "+what, joinDeadline, nil)
	defer stop()
	e, err := runInTask(cfg, body, nil)
	return e, err
}

// joinTree joins a binary tree of depth d and counts its leaves.
func joinTree(t executor.Task, d int, leaves *atomic.Int64) {
	if d == 0 {
		leaves.Add(1)
		return
	}
	if err := t.Join(func(t executor.Task) { joinTree(t, d-1, leaves) },
		func(t executor.Task) { joinTree(t, d-1, leaves) }); err != nil {
		panic(err)
	}
}

func TestJoinRunsBothOnce(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprint("procs=", procs), func(t *testing.T) {
			var a, b atomic.Int64
			_, err := inTask(t, executor.Config{Procs: procs}, "one Join", func(tk executor.Task) error {
				return tk.Join(func(executor.Task) { a.Add(1) }, func(executor.Task) { b.Add(1) })
			})
			require.NoError(t, err)
			assert.EqualValues(t, 1, a.Load())
			assert.EqualValues(t, 1, b.Load())
		})
	}
}

// TestJoinTree: a deep tree of Joins on 1, 2 and 4 Ps runs every leaf
// once, and with more than one P and a wide enough tree thieves take part.
func TestJoinTree(t *testing.T) {
	depth := 16
	if testing.Short() {
		depth = 12
	}
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprint("procs=", procs), func(t *testing.T) {
			var leaves atomic.Int64
			e, err := inTask(t, executor.Config{Procs: procs}, "a tree of Joins", func(tk executor.Task) error {
				joinTree(tk, depth, &leaves)
				return nil
			})
			require.NoError(t, err)
			assert.EqualValues(t, 1<<depth, leaves.Load())
			require.NoError(t, e.CheckFreeLists())
		})
	}
}

// joinKids[d] joins two nodes of depth d-1 (made once: a closure per
// call would be the test's allocation, not the executor's).
var (
	joinKids   [10]func(executor.Task)
	joinLeaves atomic.Int64
)

func init() {
	joinKids[0] = func(executor.Task) { joinLeaves.Add(1) }
	for d := 1; d < len(joinKids); d++ {
		joinKids[d] = func(t executor.Task) {
			if err := t.Join(joinKids[d-1], joinKids[d-1]); err != nil {
				panic(err)
			}
		}
	}
}

// TestJoinAllocatesNothing: once warm, a tree of Joins on 1 P allocates
// nothing (records reused by the P, join states by the M).
func TestJoinAllocatesNothing(t *testing.T) {
	if schedcheckBuild {
		t.Skip("the schedcheck build allocates in atomicx's hooks")
	}
	var allocs float64
	_, err := inTask(t, executor.Config{Procs: 1}, "Joins counted by AllocsPerRun", func(tk executor.Task) error {
		joinKids[9](tk) // warm
		allocs = testing.AllocsPerRun(20, func() { joinKids[9](tk) })
		return nil
	})
	require.NoError(t, err)
	assert.Zero(t, allocs, "allocations per tree of 511 Joins")
}

func TestJoinBadInput(t *testing.T) {
	f := func(executor.Task) {}
	var stale executor.Task
	_, err := inTask(t, executor.Config{Procs: 1}, "Join's bad input", func(tk executor.Task) error {
		assert.PanicsWithValue(t, "executor: Task.Join called with a nil func", func() { _ = tk.Join(nil, f) })
		assert.PanicsWithValue(t, "executor: Task.Join called with a nil func", func() { _ = tk.Join(f, nil) })
		stale = tk
		return nil
	})
	require.NoError(t, err)
	assert.PanicsWithValue(t, "executor: Task.Join called on the zero Task", func() { _ = executor.Task{}.Join(f, f) })
	assert.PanicsWithValue(t,
		"executor: Task.Join called on a Task whose func has returned (or is waiting in a group's Wait)",
		func() { _ = stale.Join(f, f) })
}

// TestJoinPanics: a panic in either side comes back from Join as a
// *PanicError once both have run (a's when both panic).
func TestJoinPanics(t *testing.T) {
	boom := errors.New("boom")
	for _, c := range []struct {
		name         string
		panicA, panB bool
		want         any
	}{
		{"a", true, false, "a"}, {"b", false, true, "b"}, {"both", true, true, "a"},
	} {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/procs=%d", c.name, procs), func(t *testing.T) {
				var ran atomic.Int64
				side := func(name string, p bool) func(executor.Task) {
					return func(executor.Task) {
						ran.Add(1)
						if p {
							panic(fmt.Errorf("%s: %w", name, boom))
						}
					}
				}
				_, err := inTask(t, executor.Config{Procs: procs}, "a Join that panics", func(tk executor.Task) error {
					return tk.Join(side("a", c.panicA), side("b", c.panB))
				})
				var pe *executor.PanicError
				require.ErrorAs(t, err, &pe)
				assert.ErrorIs(t, err, boom)
				assert.Contains(t, pe.Error(), c.want.(string)+": boom")
				assert.EqualValues(t, 2, ran.Load(), "both sides run")
			})
		}
	}
}

// TestJoinGoexit: runtime.Goexit in a side ends the calling task (as in
// any call it makes), after the other side ran; the M goes on.
func TestJoinGoexit(t *testing.T) {
	for _, inA := range []bool{true, false} {
		t.Run(fmt.Sprint("inA=", inA), func(t *testing.T) {
			stop := watchdog.Start(t.Name()+": a Join whose side calls Goexit", joinDeadline, nil)
			defer stop()
			var mu sync.Mutex
			var got []*executor.PanicError
			e, err := executor.New(executor.Config{Procs: 1, PanicHandler: func(p *executor.PanicError) {
				mu.Lock()
				got = append(got, p)
				mu.Unlock()
			}})
			require.NoError(t, err)
			var ran, after atomic.Int64
			exit := func(executor.Task) { ran.Add(1); runtime.Goexit() }
			plain := func(executor.Task) { ran.Add(1) }
			require.NoError(t, e.Go(func(tk executor.Task) {
				if inA {
					_ = tk.Join(exit, plain)
				} else {
					_ = tk.Join(plain, exit)
				}
				after.Add(1)
			}))
			done := make(chan struct{})
			require.NoError(t, e.Go(func(executor.Task) { close(done) }))
			<-done
			require.NoError(t, e.Close())
			assert.EqualValues(t, 2, ran.Load(), "both sides run")
			assert.Zero(t, after.Load(), "the task went on after a Goexit")
			require.Len(t, got, 1)
			assert.True(t, got[0].Goexit)
		})
	}
}

// TestJoinModel is a rapid property test against a sequential model: a
// random tree of Joins (each side a leaf adding its value, a Task.Go,
// or another Join; some leaves panic) gives every leaf exactly once and
// Join the panic of its first panicking side, as a plain recursion would.
func TestJoinModel(t *testing.T) {
	type node struct {
		leaf     bool
		val      int64
		panics   bool
		spawn    bool // a leaf that runs through Task.Go
		kid      [2]*node
		firstErr string
	}
	var gen func(d int) *rapid.Generator[*node]
	gen = func(d int) *rapid.Generator[*node] {
		return rapid.Custom(func(t *rapid.T) *node {
			if d == 0 || rapid.IntRange(0, 2).Draw(t, "kind") == 0 {
				return &node{leaf: true, val: rapid.Int64Range(1, 100).Draw(t, "val"),
					panics: rapid.IntRange(0, 5).Draw(t, "panic") == 0, spawn: rapid.Bool().Draw(t, "spawn")}
			}
			return &node{kid: [2]*node{gen(d-1).Draw(t, "a"), gen(d-1).Draw(t, "b")}}
		})
	}
	// model: the sum every leaf adds, and what a Join returns.
	var model func(n *node) (sum int64, panicked bool)
	model = func(n *node) (int64, bool) {
		if n.leaf {
			return n.val, n.panics
		}
		sa, _ := model(n.kid[0])
		sb, _ := model(n.kid[1])
		return sa + sb, false // a Join returns the panic; it does not panic itself
	}
	procs := []int{1, 2, 4}
	rapid.Check(t, func(rt *rapid.T) {
		root := gen(4).Draw(rt, "tree")
		p := procs[rapid.IntRange(0, 2).Draw(rt, "procs")]
		var sum atomic.Int64
		var mismatch atomic.Pointer[string]
		var run func(tk executor.Task, n *node)
		run = func(tk executor.Task, n *node) {
			if n.leaf {
				if n.spawn {
					tk.Go(func(executor.Task) { sum.Add(n.val) })
				} else {
					sum.Add(n.val)
				}
				if n.panics {
					panic(fmt.Sprintf("leaf %d", n.val))
				}
				return
			}
			err := tk.Join(func(t executor.Task) { run(t, n.kid[0]) }, func(t executor.Task) { run(t, n.kid[1]) })
			want := ""
			for _, k := range n.kid {
				if k.leaf && k.panics {
					want = fmt.Sprintf("leaf %d", k.val)
					break
				}
			}
			got := ""
			var pe *executor.PanicError
			if errors.As(err, &pe) {
				got = fmt.Sprint(pe.Value)
			} else if err != nil {
				got = err.Error()
			}
			if got != want {
				s := fmt.Sprintf("a Join returned %q, want %q", got, want)
				mismatch.Store(&s)
			}
		}
		stop := watchdog.Start("TestJoinModel: a random tree of Joins", joinDeadline, nil)
		defer stop()
		e, err := executor.New(executor.Config{Procs: p})
		if err != nil {
			rt.Fatal(err)
		}
		done := make(chan struct{})
		if err := e.Go(func(tk executor.Task) {
			defer close(done)
			if root.leaf {
				root = &node{kid: [2]*node{root, {leaf: true, val: 1}}}
			}
			run(tk, root)
		}); err != nil {
			rt.Fatal(err)
		}
		<-done
		if err := e.Close(); err != nil {
			rt.Fatal(err)
		}
		want, _ := model(root)
		if got := sum.Load(); got != want {
			rt.Fatalf("leaves added %d, the model %d", got, want)
		}
		if m := mismatch.Load(); m != nil {
			rt.Fatal(*m)
		}
	})
}

// TestJoinStress: under -race, several outside roots each join a tree
// on 4 Ps while an outside stream keeps thieves busy: every leaf runs
// exactly once (a slot each), every Join returns after both sides, and
// some sides are stolen.
func TestJoinStress(t *testing.T) {
	roots, depth := 8, 12
	if testing.Short() {
		roots, depth = 4, 10
	}
	stop := watchdog.Start(t.Name()+": roots of Join trees", joinDeadline, nil)
	defer stop()
	e, err := executor.New(executor.Config{Procs: 4})
	require.NoError(t, err)
	slots := make([][]atomic.Int32, roots)
	var stolen, early atomic.Int64
	var tree func(tk executor.Task, s []atomic.Int32)
	tree = func(tk executor.Task, s []atomic.Int32) {
		if len(s) == 1 {
			s[0].Add(1)
			return
		}
		h := len(s) / 2
		var doneB atomic.Int32
		err := tk.Join(func(executor.Task) { tree(tk, s[:h]) }, func(bt executor.Task) {
			if bt != tk {
				stolen.Add(1)
			}
			tree(bt, s[h:])
			doneB.Store(1)
		})
		if err != nil {
			panic(err)
		}
		if doneB.Load() == 0 {
			early.Add(1)
		}
	}
	var wg sync.WaitGroup
	for i := range slots {
		slots[i] = make([]atomic.Int32, 1<<depth)
		wg.Add(1)
		require.NoError(t, e.Go(func(tk executor.Task) { defer wg.Done(); tree(tk, slots[i]) }))
	}
	wg.Wait()
	require.NoError(t, e.Close())
	for i := range slots {
		for j := range slots[i] {
			if n := slots[i][j].Load(); n != 1 {
				t.Fatalf("root %d leaf %d ran %d times", i, j, n)
			}
		}
	}
	assert.Zero(t, early.Load(), "Joins returned before their b finished")
	require.NoError(t, e.CheckFreeLists())
	t.Logf("%d of %d b sides stolen", stolen.Load(), roots*(1<<depth-1))
}

// The kill matrix's Join scenarios (synctest bubbles, 2 Ps): the bubble's
// clock orders the steps, so each takes the same path every run. b is
// stolen from the ring, where the Join put it: while a sleeps
// (joinStolen), or with a's spawn in runnext (joinStolenRing). In
// joinReuse a Join (J2) runs in the help of another's (J1) wait, with J1's
// b finishing during J2, whose own b is taken back (inline) or stolen. In joinThiefRobbed (3 Ps)
// the thief of b1 is robbed of its own Join's b2 while both a sides run.

// joinSides is b's bookkeeping: runs, ends, and whether a thief ran it.
type joinSides struct{ runs, ends, thief atomic.Int64 }

func (s *joinSides) b(joiner *executor.Task, d time.Duration, then func(executor.Task)) func(executor.Task) {
	return func(bt executor.Task) {
		s.runs.Add(1)
		if bt != *joiner {
			s.thief.Add(1)
		}
		time.Sleep(d)
		if then != nil {
			then(bt)
		}
		s.ends.Add(1)
	}
}

// check is the verdict once Join returned err (early: whether b had ended
// by then).
func (s *joinSides) check(name string, err error, endedAtReturn int64) error {
	switch {
	case err != nil:
		return fmt.Errorf("%s: Join returned %v", name, err)
	case s.runs.Load() != 1:
		return fmt.Errorf("%s: b ran %d times, want once", name, s.runs.Load())
	case endedAtReturn != 1:
		return fmt.Errorf("%s: Join returned before its stolen b finished", name)
	case s.thief.Load() != 1:
		return fmt.Errorf("%s: b was not stolen (the scenario no longer tests a thief)", name)
	}
	return nil
}

// joinStolen: a sleeps 1ms holding the P; the other M steals b from
// the ring at once; b sleeps 2ms.
func joinStolen(*testing.T) error {
	var s joinSides
	_, err := runInTask(executor.Config{Procs: 2}, func(tk executor.Task) error {
		err := tk.Join(func(executor.Task) { time.Sleep(time.Millisecond) }, s.b(&tk, 2*time.Millisecond, nil))
		return s.check("joinStolen", err, s.ends.Load())
	}, nil)
	return err
}

// joinStolenRing: a spawns x (into runnext, b in the ring) and sleeps;
// the thief takes b; the Join's wait runs x.
func joinStolenRing(*testing.T) error {
	var s joinSides
	var x atomic.Int64
	_, err := runInTask(executor.Config{Procs: 2}, func(tk executor.Task) error {
		err := tk.Join(func(t executor.Task) {
			t.Go(func(executor.Task) { x.Add(1) })
			time.Sleep(time.Millisecond)
		}, s.b(&tk, 2*time.Millisecond, nil))
		return s.check("joinStolenRing", err, s.ends.Load())
	}, nil)
	if err == nil && x.Load() != 1 {
		err = fmt.Errorf("joinStolenRing: x ran %d times", x.Load())
	}
	return err
}

// joinReuse: the task first lets the other M steal z (busy until 500µs),
// then J1: a spawns y and sleeps to 1.1ms; at 500µs the thief steals b1
// from the ring (y sits in runnext), b1 ends at 1.5ms. J1's take-back
// fails and its wait's help runs y, whose J2 runs c (1ms, to 2.1ms) with
// d in the ring: J1's b ends during J2. With innerStolen the thief, free
// after b1, steals d; else b1 spawns w (2ms) onto the thief's P first, so
// J2 takes d back.
func joinReuse(innerStolen bool) scenario {
	return func(*testing.T) error {
		var s1, s2 joinSides
		var tk2 executor.Task
		var j2err error
		var j2ended int64
		_, err := runInTask(executor.Config{Procs: 2}, func(tk executor.Task) error {
			tk.Go(func(executor.Task) { time.Sleep(500 * time.Microsecond) })
			time.Sleep(100 * time.Microsecond) // z stolen meanwhile
			var then func(executor.Task)
			if !innerStolen {
				then = func(t executor.Task) { t.Go(func(executor.Task) { time.Sleep(2 * time.Millisecond) }) }
			}
			err := tk.Join(func(t executor.Task) {
				t.Go(func(yt executor.Task) {
					tk2 = yt
					j2err = yt.Join(func(executor.Task) { time.Sleep(time.Millisecond) }, s2.b(&tk2, 0, nil))
					j2ended = s2.ends.Load()
				})
				time.Sleep(time.Millisecond)
			}, s1.b(&tk, time.Millisecond, then))
			return s1.check("joinReuse J1", err, s1.ends.Load())
		}, nil)
		if err != nil {
			return err
		}
		if s2.runs.Load() != 1 || j2err != nil || j2ended != 1 {
			return fmt.Errorf("joinReuse J2: b ran %d times, ended %d at return, Join returned %v", s2.runs.Load(), j2ended, j2err)
		}
		if innerStolen != (s2.thief.Load() == 1) {
			return fmt.Errorf("joinReuse J2: d stolen %d times, want stolen %v (the scenario no longer tests it)", s2.thief.Load(), innerStolen)
		}
		return nil
	}
}

// joinThiefRobbed: on 3 Ps a thief is itself a victim. J1's a sleeps
// 1.5ms holding P0; M1 steals b1 from P0's ring at once, and b1 joins
// (J2): its a sleeps 1ms while M2 steals b2 from P1's ring; b2 sleeps 2ms.
// J2's take-back fails and it waits for b2 (to 2ms), then b1 sleeps 1ms
// more; J1's take-back fails at 1.5ms and it waits for b1 (to 3ms). Each
// b runs once, on a thief, and each Join returns after its b ended.
func joinThiefRobbed(*testing.T) error {
	var s1, s2 joinSides
	var j2 error
	_, err := runInTask(executor.Config{Procs: 3}, func(tk executor.Task) error {
		var bt executor.Task
		b1 := s1.b(&tk, 0, func(t executor.Task) {
			bt = t
			err := t.Join(func(executor.Task) { time.Sleep(time.Millisecond) }, s2.b(&bt, 2*time.Millisecond, nil))
			j2 = s2.check("joinThiefRobbed J2", err, s2.ends.Load())
			time.Sleep(time.Millisecond)
		})
		err := tk.Join(func(executor.Task) { time.Sleep(1500 * time.Microsecond) }, b1)
		return s1.check("joinThiefRobbed J1", err, s1.ends.Load())
	}, nil)
	if err != nil {
		return err
	}
	return j2
}

func TestJoinScenarios(t *testing.T) {
	for name, s := range map[string]scenario{
		"stolen": joinStolen, "stolen-ring": joinStolenRing, "thief-robbed": joinThiefRobbed,
		"reuse-inline": joinReuse(false), "reuse-stolen": joinReuse(true),
	} {
		t.Run(name, func(t *testing.T) { require.NoError(t, inBubble(t, s)) })
	}
}

// TestJoinGoexitStolen: on 2 Ps with b stolen, runtime.Goexit in a (the
// Join waits for the thief while the Goexit unwinds) or in b (on the
// thief, which hands it to the Join, not the handler: the Join then calls
// Goexit) ends the calling task, reported once, after b.
func TestJoinGoexitStolen(t *testing.T) {
	for _, inA := range []bool{true, false} {
		t.Run(fmt.Sprint("inA=", inA), func(t *testing.T) {
			require.NoError(t, inBubble(t, func(*testing.T) error {
				var goexits atomic.Int64
				e, err := executor.New(executor.Config{Procs: 2, PanicHandler: func(p *executor.PanicError) {
					if p.Goexit {
						goexits.Add(1)
					}
				}})
				if err != nil {
					return err
				}
				var bEnded, after atomic.Int64
				var stolen atomic.Bool
				if err := e.Go(func(tk executor.Task) {
					_ = tk.Join(func(executor.Task) {
						time.Sleep(time.Millisecond)
						if inA {
							runtime.Goexit()
						}
					}, func(bt executor.Task) {
						stolen.Store(bt != tk)
						time.Sleep(2 * time.Millisecond)
						bEnded.Add(1)
						if !inA {
							runtime.Goexit()
						}
					})
					after.Add(1)
				}); err != nil {
					return err
				}
				time.Sleep(10 * time.Millisecond)
				if err := e.Close(); err != nil {
					return err
				}
				if !stolen.Load() || bEnded.Load() != 1 || after.Load() != 0 || goexits.Load() != 1 {
					return fmt.Errorf("stolen %v, b ended %d, the task went on %d, Goexits reported %d",
						stolen.Load(), bEnded.Load(), after.Load(), goexits.Load())
				}
				return nil
			}))
		})
	}
}
