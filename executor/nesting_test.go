package executor_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// treeNode returns a node of a binary fork-join tree: at depth 0 it counts
// a leaf in leaves; above, it makes a group, starts its two children of
// depth d-1 in it and waits.
func treeNode(leaves *atomic.Int64) func(t executor.Task, d int) error {
	var node func(t executor.Task, d int) error
	node = func(t executor.Task, d int) error {
		if d == 0 {
			leaves.Add(1)
			return nil
		}
		g, _ := t.NewGroup(context.Background())
		g.Go(func(t executor.Task) error { return node(t, d-1) })
		g.Go(func(t executor.Task) error { return node(t, d-1) })
		return g.Wait()
	}
	return node
}

// waitNesting runs a binary tree of groups of the given depth (every node
// waits on its two children) and fails if the Waits nested on one M ran
// deeper than slack levels past the tree's depth. A Wait runs its own
// children first, so on one P the nesting is the depth itself; on more Ps
// a Wait whose child was stolen helps with other work, which may be an
// ancestor's subtree. The depth is counted by a hook, not from stack bytes.
// Running another task first (the order before issue 9) nests an
// ancestor's other child under every leaf: far past the depth.
func waitNesting(procs, depth, slack int) scenario {
	return func(t *testing.T) error {
		var deepest atomic.Int64
		restore := executor.SetNestHook(func(d int) {
			for {
				m := deepest.Load()
				if int64(d) <= m || deepest.CompareAndSwap(m, int64(d)) {
					return
				}
			}
		})
		defer restore()
		e, err := executor.New(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		var leaves atomic.Int64
		node := treeNode(&leaves)
		g, _ := e.NewGroup(context.Background())
		g.Go(func(t executor.Task) error { return node(t, depth) })
		err = joinErr(g.Wait(), e.Close())
		if err != nil {
			return err
		}
		if n := leaves.Load(); n != 1<<depth {
			return fmt.Errorf("%d leaves ran, want %d", n, 1<<depth)
		}
		if testing.Verbose() {
			t.Logf("deepest nesting %d (depth %d, %d Ps)", deepest.Load(), depth, procs)
		}
		if d := deepest.Load(); d > int64(depth+slack) {
			return fmt.Errorf("Waits nested %d deep on one M in a tree of depth %d on %d Ps (want at most %d): a Wait ran other tasks before its own children", d, depth, procs, depth+slack)
		}
		if deepest.Load() == 0 {
			return fmt.Errorf("no Wait ran a task inline: the hook saw nothing")
		}
		return nil
	}
}

// nestSlack is how far past the tree's depth the Waits of n Ps may nest:
// on 1 P not at all (a Wait always has its own child to run, or is done);
// on more, a Wait whose child was stolen helps with other work only while
// the nesting is under HelpNestCap.
var nestSlack = map[int]int{1: 0, 2: executor.HelpNestCap, 4: executor.HelpNestCap}

func TestWaitNestingBounded(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			require.NoError(t, inBubble(t, waitNesting(procs, 12, nestSlack[procs])))
		})
	}
}

// waitChain: on 1 P, k tasks each Wait on a group made outside any task,
// whose one child is queued behind every waiter, so no Wait has a child of
// its own to run and each helps with the next waiter, inline: without
// HelpNestCap the Waits nest k deep on one M. viaGlobal queues the waiters
// and children from outside while a gate task holds the P (the Waits help
// from global batches); else a root task spawns the waiters into its P's
// queue and the children go to the global queue. Every waiter and child
// must run once, and the nesting must reach the cap (the chain is long
// enough) and not pass it.
func waitChain(k int, viaGlobal bool) scenario {
	return func(*testing.T) error {
		var deepest atomic.Int64
		restore := executor.SetNestHook(func(d int) {
			if int64(d) > deepest.Load() {
				deepest.Store(int64(d)) // one P: one M runs tasks at a time
			}
		})
		defer restore()
		e, err := executor.New(executor.Config{Procs: 1})
		if err != nil {
			return err
		}
		groups := make([]*executor.Group, k)
		for i := range groups {
			groups[i], _ = e.NewGroup(context.Background())
		}
		var waits, kids atomic.Int64
		waiter := func(i int) func(executor.Task) {
			return func(executor.Task) {
				if groups[i].Wait() == nil {
					waits.Add(1)
				}
			}
		}
		kid := func(executor.Task) error { kids.Add(1); return nil }
		if viaGlobal {
			var open atomic.Bool
			err = e.Go(func(executor.Task) {
				for !open.Load() {
					runtime.Gosched() // holds the only P; no time passes in the bubble
				}
			})
			for i := 0; i < k && err == nil; i++ {
				err = e.Go(waiter(i))
			}
			for _, g := range groups {
				g.Go(kid)
			}
			open.Store(true)
		} else {
			spawned := make(chan struct{})
			err = e.Go(func(t executor.Task) {
				for i, g := range groups {
					t.Go(waiter(i))
					g.Go(kid)
				}
				close(spawned)
			})
			if err == nil {
				<-spawned // a group's Wait below must not return before its Go
			}
		}
		for _, g := range groups {
			err = joinErr(err, g.Wait())
		}
		if err = joinErr(err, e.Close()); err != nil {
			return err
		}
		if w, c := waits.Load(), kids.Load(); w != int64(k) || c != int64(k) {
			return fmt.Errorf("%d waiters and %d children ran, want %d each", w, c, k)
		}
		d := deepest.Load()
		if d > executor.HelpNestCap {
			return fmt.Errorf("Waits nested %d deep on one M helping other tasks' waiters (want at most HelpNestCap, %d): the cap on helping is not kept", d, executor.HelpNestCap)
		}
		if d < executor.HelpNestCap {
			return fmt.Errorf("Waits nested only %d deep in a chain of %d waiters: the scenario no longer reaches the cap (%d)", d, k, executor.HelpNestCap)
		}
		return nil
	}
}

func TestWaitHelpNestingCapped(t *testing.T) {
	for _, viaGlobal := range []bool{false, true} {
		t.Run(fmt.Sprintf("viaGlobal=%v", viaGlobal), func(t *testing.T) {
			require.NoError(t, inBubble(t, waitChain(3*executor.HelpNestCap, viaGlobal)))
		})
	}
}

// waitOwnFirst: on 1 P a task spawns two tasks of its own (F1 to the ring,
// F2 to runnext), then a group's two children (F2 and C1 go to the ring,
// C2 to runnext), and waits. The Wait must run C2 and C1 and return
// before F1 or F2 runs, though F1 is at the ring's head; C1's record stays
// queued, claimed, and must be dropped, not run again, when the M reaches
// it after the task.
func waitOwnFirst(*testing.T) error {
	e, err := executor.New(executor.Config{Procs: 1})
	if err != nil {
		return err
	}
	var waiting, inside, f1, f2, c1, c2 atomic.Int64
	foreign := func(n *atomic.Int64) func(executor.Task) {
		return func(executor.Task) {
			n.Add(1)
			if waiting.Load() != 0 {
				inside.Add(1)
			}
		}
	}
	res := make(chan error, 1)
	if err := e.Go(func(t executor.Task) {
		t.Go(foreign(&f1))
		t.Go(foreign(&f2))
		g, _ := t.NewGroup(context.Background())
		g.Go(func(executor.Task) error { c1.Add(1); return nil })
		g.Go(func(executor.Task) error { c2.Add(1); return nil })
		waiting.Store(1)
		res <- g.Wait()
		waiting.Store(0)
	}); err != nil {
		return err
	}
	err = joinErr(<-res, e.Close())
	if err != nil {
		return err
	}
	if n := inside.Load(); n != 0 {
		return fmt.Errorf("the Wait ran %d tasks of its own task's before its group's children", n)
	}
	for _, c := range []struct {
		name string
		n    *atomic.Int64
	}{{"F1", &f1}, {"F2", &f2}, {"C1", &c1}, {"C2", &c2}} {
		if got := c.n.Load(); got != 1 {
			return fmt.Errorf("%s ran %d times, want once", c.name, got)
		}
	}
	if s := e.Stats().Total; s.Tasks != 5 || s.Helped != 2 {
		return fmt.Errorf("stats: %d tasks (want 5), %d helped by the Wait (want 2)", s.Tasks, s.Helped)
	}
	return nil
}

func TestWaitRunsOwnChildrenFirst(t *testing.T) { require.NoError(t, inBubble(t, waitOwnFirst)) }
