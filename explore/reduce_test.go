//go:build schedcheck

package explore_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// A random program: each thread a short list of operations on two cells and
// one mutex; every value a thread reads goes into its log.
type progOp struct {
	kind string
	cell int
	a, b uint32
}

func genProgram(t *rapid.T) [][]progOp {
	n := rapid.IntRange(2, 3).Draw(t, "threads")
	maxOps := 4
	if n == 3 {
		maxOps = 2
	}
	kinds := []string{"load", "store", "add", "cas", "swap", "locked"}
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

// outcomes explores prog and returns every distinct observable outcome: what
// each thread read, and the cells' final values.
func outcomes(t *rapid.T, prog [][]progOp, opts explore.Options) (map[string]bool, explore.Result) {
	seen := make(map[string]bool)
	res, err := explore.Explore(opts, func() explore.Run {
		var cells [2]atomicx.Uint32
		var mu atomicx.Mutex
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
					}
					logs[i] = append(logs[i], v)
				}
			}
		}
		return explore.Run{Threads: threads, Check: func() error {
			seen[fmt.Sprint(logs, cells[0].Load(), cells[1].Load())] = true
			return nil
		}}
	})
	require.NoError(t, err)
	require.Nil(t, res.Failure)
	return seen, res
}

// TestReductionKeepsEveryOutcome: on random programs, DFS with sleep sets
// reaches exactly the outcomes of the full unbounded DFS, and a bounded DFS
// reaches a subset of them.
func TestReductionKeepsEveryOutcome(t *testing.T) {
	var full, reduced, schedules int
	rapid.Check(t, func(rt *rapid.T) {
		prog := genProgram(rt)
		all, resAll := outcomes(rt, prog, explore.Options{Name: "prog-full", Bound: explore.Unbounded})
		red, resRed := outcomes(rt, prog, explore.Options{Name: "prog-reduced", Bound: explore.Unbounded, Reduce: true})
		bounded, _ := outcomes(rt, prog, explore.Options{Name: "prog-bound1", Bound: 1})
		full += resAll.Executions
		schedules += resAll.Schedules
		reduced += resRed.Executions
		assert.Equal(rt, slices.Sorted(maps.Keys(all)), slices.Sorted(maps.Keys(red)), "reduction lost an outcome")
		assert.LessOrEqual(rt, resRed.Schedules, resAll.Schedules)
		for o := range bounded {
			assert.True(rt, all[o], "bounded DFS reached an outcome the full one did not: %s", o)
		}
	})
	t.Logf("explore random-programs: %d executions, %d schedules, bound -1 (full DFS of every program; %d executions with reduction)", full, schedules, reduced)
}
