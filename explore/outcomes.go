package explore

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
)

// Reached reports that the current execution reached the state called
// label: Result.Outcomes counts it, once per execution, and
// Options.MustReach can require that some execution does. Call it from a
// thread, build or Check, where the state is seen ("the CAS lost",
// "popped the reused node"); elsewhere it does nothing.
func Reached(label string) {
	switch r := lookup().(type) {
	case *thread:
		r.x.reach(label)
	case *execution:
		r.reach(label)
	}
}

func (x *execution) reach(label string) {
	if !slices.Contains(x.labels, label) {
		x.labels = append(x.labels, label)
	}
}

// count adds x's labels to the result.
func (e *explorer) count(x *execution) {
	if len(x.labels) == 0 {
		return
	}
	if e.res.Outcomes == nil {
		e.res.Outcomes = make(map[string]int)
	}
	for _, l := range x.labels {
		e.res.Outcomes[l]++
	}
}

// unreached fills Result.Unreached once the search is over.
func (e *explorer) unreached() {
	if e.res.Failure != nil {
		return
	}
	for _, l := range e.cfg.MustReach {
		if e.res.Outcomes[l] == 0 && !slices.Contains(e.res.Unreached, l) {
			e.res.Unreached = append(e.res.Unreached, l)
		}
	}
}

// OutcomeTable formats Outcomes, most frequent first, as Check logs it:
// "outcomes: 5 a=1 b=0, 2 a=1 b=1".
func (r Result) OutcomeTable() string {
	labels := slices.SortedFunc(maps.Keys(r.Outcomes), func(a, b string) int {
		return cmp.Or(cmp.Compare(r.Outcomes[b], r.Outcomes[a]), strings.Compare(a, b))
	})
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = fmt.Sprintf("%d %s", r.Outcomes[l], l)
	}
	return "outcomes: " + strings.Join(parts, ", ")
}

// UnreachedError says which labels of Options.MustReach no execution
// reported and what that means, or returns nil if there are none.
func (r Result) UnreachedError() error {
	if len(r.Unreached) == 0 {
		return nil
	}
	how := "every execution"
	if !r.Complete {
		how = "the executions run (the search was not complete: raise MaxExecutions, or use DFS or DPOR)"
	}
	return fmt.Errorf("explore %s: no execution reached %q in %d executions: %s missed the state, so the scenario no longer exercises it (check the scenario, or the label)",
		r.Name, r.Unreached, r.Executions, how)
}

// observer, if set (by tests), sees the trace of every execution that ran
// to its end.
var observer atomic.Pointer[func(name string, trace []Step)]
