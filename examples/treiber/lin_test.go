package treiber

import (
	"slices"
	"testing"

	"github.com/schedkit/schedkit/explore/lincheck"
)

// popResult is a pop's result.
type popResult struct {
	Node int
	OK   bool
}

// nodes is the stacks' size: one node per call of a scenario at most.
const nodes = 6

// lifo is the sequential model: the nodes on the stack, top last.
var lifo = lincheck.Model[[]int]{Init: func() []int { return nil }}

// lifoOps push node arg-1 (each call its own node) and pop.
func lifoOps[P pool]() []lincheck.Op[P, []int] {
	return []lincheck.Op[P, []int]{
		{Name: "push", Arg: true,
			Run:  func(p P, v int) any { p.Push(v - 1); return nil },
			Step: func(s []int, v int) ([]int, any) { return append(slices.Clip(s), v-1), nil }},
		{Name: "pop",
			Run: func(p P, _ int) any { i, ok := p.Pop(); return popResult{i, ok} },
			Step: func(s []int, _ int) ([]int, any) {
				if len(s) == 0 {
					return s, popResult{}
				}
				return s[:len(s)-1], popResult{s[len(s)-1], true}
			}},
	}
}

var linOpts = lincheck.Options{Threads: 2, OpsPerThread: 3, Seeds: 6}

// TestStackIsLinearizable: the versioned stack is a LIFO in every explored
// history. Each push brings a node of its own, so no node comes back: the
// naive stack's ABA needs a node popped and pushed again, which the
// hand-written scenario of TestNaiveStackFallsToABA arranges and these
// generated ones do not (the naive stack passes them too: checked once by
// hand, 580 executions, and left out to save the test command 0.3 s).
func TestStackIsLinearizable(t *testing.T) {
	lincheck.Check(t, linOpts, lifo, func() *Stack { return New(nodes) }, lifoOps[*Stack]()...)
}
