//go:build schedcheck

package explore_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// The dependence DPOR uses, read back from a trace: steps on the clock or
// with a timeout depend on everything; others on the same cell unless both
// are loads. Every cell of these scenarios is named, so names are stable.
func stepGlobal(s explore.Step) bool {
	switch s.Op {
	case atomicx.OpNanotime, atomicx.OpSleep, atomicx.OpNoteSleepFor:
		return true
	}
	return s.Op >= atomicx.OpSend && s.Op <= atomicx.OpTryRecvEmpty && s.Op != atomicx.OpCondWait &&
		s.Op != atomicx.OpCondSleep && s.Op != atomicx.OpCondSignal && s.Op != atomicx.OpCondBroadcast // channels, selects
}

func stepDep(a, b explore.Step) bool {
	if stepGlobal(a) || stepGlobal(b) {
		return true
	}
	return a.Cell == b.Cell && !(stepReads(a) && stepReads(b))
}

// stepReads reports a load or a plain read.
func stepReads(s explore.Step) bool { return s.Op == atomicx.OpLoad || s.Op == atomicx.OpRead }

// canonical names a trace's Mazurkiewicz class: the lexicographically least
// order of its steps (by thread) that keeps each thread's order and the
// order of every dependent pair. Two traces are equivalent exactly when
// their canonical forms are equal.
func canonical(trace []explore.Step) string {
	n := len(trace)
	preds := make([][]int, n)
	for j := range trace {
		for i := range j {
			if trace[i].Thread == trace[j].Thread || stepDep(trace[i], trace[j]) {
				preds[j] = append(preds[j], i)
			}
		}
	}
	placed := make([]bool, n)
	var b strings.Builder
	for range n {
		best := -1 // the ready step of the smallest thread
		for k := range n {
			if placed[k] {
				continue
			}
			ready := true
			for _, p := range preds[k] {
				if !placed[p] {
					ready = false
					break
				}
			}
			if ready && (best < 0 || trace[k].Thread < trace[best].Thread) {
				best = k
			}
		}
		placed[best] = true
		s := trace[best]
		fmt.Fprintf(&b, "%d:%s:%s;", s.Thread, s.Op, s.Cell)
	}
	return b.String()
}

// tb is what both *testing.T and *rapid.T offer.
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	FailNow()
}

// search explores build with opts past failures, and returns its outcomes
// (failures included, as "failure: ...") and the classes of its complete
// executions with how many executions fell in each.
func search(t tb, opts explore.Options, build func() explore.Run) (map[string]int, map[string]int, explore.Result) {
	t.Helper()
	classes := make(map[string]int)
	var mu sync.Mutex
	restore := explore.ObserveTraces(func(name string, trace []explore.Step) {
		if name == opts.Name {
			mu.Lock()
			classes[canonical(trace)]++
			mu.Unlock()
		}
	})
	defer restore()
	res, err := explore.ExploreKeepGoing(opts, build)
	require.NoError(t, err)
	require.Nil(t, res.Failure)
	require.True(t, res.Complete, "%s did not finish", res.Summary())
	return res.Outcomes, classes, res
}

// compareWithDFS checks DPOR against unbounded DFS on one scenario: the same
// outcomes and failures, the same classes of executions, and exactly one
// complete DPOR execution per class. It returns the number of classes and
// DPOR's result.
func compareWithDFS(t tb, name string, build func() explore.Run) (int, explore.Result, explore.Result) {
	t.Helper()
	dfsOut, dfsClasses, dfs := search(t, explore.Options{Name: name + "-dfs", Bound: explore.Unbounded}, build)
	dporOut, dporClasses, dpor := search(t, explore.Options{Name: name + "-dpor", Mode: explore.DPOR}, build)
	assert.Equal(t, slices.Sorted(maps.Keys(dfsOut)), slices.Sorted(maps.Keys(dporOut)), "%s: DPOR reached other outcomes or failures than unbounded DFS", name)
	assert.Equal(t, slices.Sorted(maps.Keys(dfsClasses)), slices.Sorted(maps.Keys(dporClasses)), "%s: DPOR explored other classes than unbounded DFS", name)
	for c, k := range dporClasses {
		assert.Equal(t, 1, k, "%s: DPOR ran %d equivalent complete executions of class %s", name, k, c)
	}
	assert.Equal(t, len(dfsClasses), dpor.Executions-dpor.Pruned, "%s: complete DPOR executions against Mazurkiewicz traces", name)
	assert.Equal(t, [2]uint64{uint64(dfs.States), dfs.StateHash}, [2]uint64{uint64(dpor.States), dpor.StateHash}, "%s: DPOR reached other end states than unbounded DFS", name)
	return len(dfsClasses), dfs, dpor
}

// Synthetic scenarios, each with every cell named and an outcome label.
var dporScenarios = []struct {
	name  string
	build func() explore.Run
}{
	{"two-writers-one-cell", func() explore.Run {
		var x, y atomicx.Uint32
		explore.Name(&x, "x")
		explore.Name(&y, "y")
		w := func(v uint32) func() { return func() { x.Store(v); y.Store(v) } }
		return explore.Run{Threads: []func(){w(1), w(2)},
			Outcome: func() string { return fmt.Sprint(x.Load(), y.Load()) }}
	}},
	{"reader-writer", func() explore.Run {
		var x, y atomicx.Uint32
		explore.Name(&x, "x")
		explore.Name(&y, "y")
		var r1, r2 uint32
		return explore.Run{Threads: []func(){
			func() { x.Store(1); y.Store(1) },
			func() { r1 = y.Load(); r2 = x.Load() },
			func() { _ = x.Load(); _ = y.Load() },
		}, Outcome: func() string { return fmt.Sprint(r1, r2) }}
	}},
	{"locked-counter", func() explore.Run {
		var c, other atomicx.Uint32
		var mu atomicx.Mutex
		explore.Name(&c, "c")
		explore.Name(&other, "other")
		explore.Name(&mu, "mu")
		inc := func(k uint32) func() {
			return func() {
				other.Store(k)
				mu.Lock()
				c.Store(c.Load() + 1)
				mu.Unlock()
			}
		}
		return explore.Run{Threads: []func(){inc(1), inc(2), inc(3)},
			Check: func() error {
				if c.Load() != 3 {
					return fmt.Errorf("counter %d", c.Load())
				}
				return nil
			},
			Outcome: func() string { return fmt.Sprint(other.Load()) }}
	}},
	{"cas-loop", func() explore.Run {
		var c atomicx.Uint32
		explore.Name(&c, "c")
		var got [3]uint32
		inc := func(i int) func() {
			return func() {
				for {
					v := c.Load()
					if c.CompareAndSwap(v, v+1) {
						got[i] = v
						return
					}
				}
			}
		}
		return explore.Run{Threads: []func(){inc(0), inc(1), inc(2)},
			Outcome: func() string { return fmt.Sprint(got) }}
	}},
	{"lost-update", func() explore.Run {
		var c atomicx.Uint32
		explore.Name(&c, "c")
		inc := func() { c.Store(c.Load() + 1) }
		return explore.Run{Threads: []func(){inc, inc}, Check: func() error {
			if c.Load() != 2 {
				return fmt.Errorf("lost update: %d", c.Load())
			}
			return nil
		}}
	}},
	{"notify-wait", func() explore.Run {
		var d, x atomicx.Uint32
		var n atomicx.Note
		explore.Name(&d, "d")
		explore.Name(&x, "x")
		explore.Name(&n, "n")
		var r uint32
		return explore.Run{Threads: []func(){
			func() { d.Store(1); n.Wakeup() },
			func() { n.Sleep(); r = d.Load() },
			func() { x.Store(1); d.Store(2) },
		}, Outcome: func() string { return fmt.Sprint(r, d.Load()) }}
	}},
	{"wakeup-clear-sleep", func() explore.Run {
		var s atomicx.Uint32
		var n atomicx.Note
		explore.Name(&s, "s")
		explore.Name(&n, "n")
		return explore.Run{Threads: []func(){
			func() { n.Wakeup() },
			func() { n.Clear(); s.Store(2) },
			func() { s.Store(1); n.Sleep() }, // deadlocks when the Clear comes between
		}, Outcome: func() string { return fmt.Sprint(s.Load()) }}
	}},
	{"abba", func() explore.Run {
		var a, b atomicx.Mutex
		explore.Name(&a, "a")
		explore.Name(&b, "b")
		return explore.Run{Threads: []func(){
			func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() },
			func() { b.Lock(); a.Lock(); a.Unlock(); b.Unlock() },
		}}
	}},
	{"timed-wait", func() explore.Run {
		var n atomicx.Note
		var x atomicx.Uint32
		explore.Name(&n, "n")
		explore.Name(&x, "x")
		var woken bool
		var at int64
		return explore.Run{Threads: []func(){
			func() { woken = n.SleepFor(time.Millisecond) }, // times out or is woken at 1ms
			func() { atomicx.Sleep(time.Millisecond); x.Store(1); n.Wakeup() },
			func() { atomicx.Sleep(time.Millisecond); at = atomicx.Nanotime(); x.Store(2) },
		}, Outcome: func() string { return fmt.Sprint(woken, at, x.Load()) }}
	}},
	{"yield-spin", func() explore.Run {
		var f, x atomicx.Uint32
		explore.Name(&f, "f")
		explore.Name(&x, "x")
		var r uint32
		return explore.Run{Threads: []func(){
			func() {
				for f.Load() == 0 {
					atomicx.Sleep(0)
				}
				r = x.Load()
			},
			func() { x.Store(1); f.Store(1); x.Store(2) },
		}, Outcome: func() string { return fmt.Sprint(r) }}
	}},
}

// TestDPORMatchesDFS: on scenarios small enough to enumerate, DPOR reaches
// the outcomes and failures of unbounded DFS, explores the same
// Mazurkiewicz traces (counted by brute force: every DFS execution grouped
// by its canonical form), and runs one complete execution per trace.
func TestDPORMatchesDFS(t *testing.T) {
	// A class is of the steps as they ran: DPOR's await reduction of spin
	// loops skips iterations DFS runs, so the classes are compared without
	// it (TestAwaitMatchesDFSOnSpins compares outcomes and end states with it).
	defer explore.SetAwait(false)()
	for _, s := range dporScenarios {
		t.Run(s.name, func(t *testing.T) {
			traces, dfs, dpor := compareWithDFS(t, s.name, s.build)
			t.Logf("explore %s: %d executions, %d schedules, bound -1, mode dfs", s.name, dfs.Executions, dfs.Schedules)
			t.Logf("%s; %d Mazurkiewicz traces, executions/traces %.2f", dpor.Summary(), traces, float64(dpor.Executions)/float64(traces))
			assert.Less(t, dpor.Executions, dfs.Executions+1)
		})
	}
}

// A random program: each thread a few operations on two cells, a mutex and
// a note; what each thread reads is its outcome, with the cells' final
// values. reduce_test.go draws from the kinds without notes.
type progOp struct {
	kind string
	cell int
	a, b uint32
}

var (
	progKinds     = []string{"load", "store", "add", "cas", "swap", "locked"}
	progNoteKinds = append(slices.Clone(progKinds), "wake", "clear", "sleep", "sleepfor")
)

// genProgram draws 2 or 3 threads of up to maxOps operations (2 for three
// threads) of the given kinds.
func genProgram(t *rapid.T, kinds []string, maxOps int) [][]progOp {
	n := rapid.IntRange(2, 3).Draw(t, "threads")
	if n == 3 {
		maxOps = 2
	}
	prog := make([][]progOp, n)
	for i := range prog {
		for range rapid.IntRange(1, maxOps).Draw(t, "ops") {
			prog[i] = append(prog[i], progOp{
				kind: rapid.SampledFrom(kinds).Draw(t, "kind"),
				cell: rapid.IntRange(0, 1).Draw(t, "cell"),
				a:    rapid.Uint32Range(0, 2).Draw(t, "a"),
				b:    rapid.Uint32Range(0, 2).Draw(t, "b"),
			})
		}
	}
	return prog
}

func program(prog [][]progOp) func() explore.Run {
	return func() explore.Run {
		var cells [2]atomicx.Uint32
		var mu, nmu atomicx.Mutex
		var n atomicx.Note
		explore.Name(&cells, "c")
		explore.Name(&mu, "mu")
		explore.Name(&nmu, "nmu")
		explore.Name(&n, "n")
		woken := false // under nmu: Wakeup twice would panic
		logs := make([][]uint32, len(prog))
		threads := make([]func(), len(prog))
		for i, ops := range prog {
			threads[i] = func() {
				for _, op := range ops {
					c := &cells[op.cell]
					var v uint32
					switch op.kind {
					case "load":
						v = c.Load()
					case "store":
						c.Store(op.a)
					case "add":
						v = c.Add(op.a)
					case "cas":
						if c.CompareAndSwap(op.a, op.b) {
							v = 1
						}
					case "swap":
						v = c.Swap(op.a)
					case "locked":
						mu.Lock()
						v = c.Load()
						c.Store(v + op.a)
						mu.Unlock()
					case "wake", "clear":
						nmu.Lock()
						if op.kind == "wake" && !woken {
							woken = true
							n.Wakeup()
						} else if op.kind == "clear" && woken {
							woken = false
							n.Clear()
						}
						nmu.Unlock()
					case "sleep":
						n.Sleep()
					case "sleepfor":
						if n.SleepFor(time.Duration(op.a+1) * time.Millisecond) {
							v = 1
						}
					}
					logs[i] = append(logs[i], v)
				}
			}
		}
		return explore.Run{Threads: threads, Outcome: func() string {
			return fmt.Sprint(logs, cells[0].Load(), cells[1].Load())
		}}
	}
}

// TestDPORMatchesDFSOnRandomPrograms: the same three properties on random
// programs of loads, stores, adds, CASes, swaps, locked updates, note
// wakeups, clears and sleeps (deadlocks included, as failures).
func TestDPORMatchesDFSOnRandomPrograms(t *testing.T) {
	var execs, dporExecs, traces int
	rapid.Check(t, func(rt *rapid.T) {
		prog := genProgram(rt, progNoteKinds, 3)
		n, dfs, dpor := compareWithDFS(rt, "prog", program(prog))
		execs += dfs.Executions
		dporExecs += dpor.Executions
		traces += n
	})
	t.Logf("random programs: unbounded DFS %d executions, DPOR %d executions, %d Mazurkiewicz traces (DPOR executions/traces %.2f)",
		execs, dporExecs, traces, float64(dporExecs)/float64(max(traces, 1)))
}
