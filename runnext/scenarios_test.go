package runnext_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/runnext"
)

// Fixed scenarios, each aimed at the shape of one seeded mutant and each
// with its own oracle, returning an error instead of failing a test so that
// the kill matrix can run them as its "scenarios" checker. Every one is
// deterministic: the timing ones run in a testing/synctest bubble, where
// the fake clock moves only when every goroutine waits; the races are pinned
// with an interposer (scenarios_hook_test.go, -tags schedcheck) that runs
// one side at an exact access of the other.

// xscenario is one fixed scenario.
type xscenario struct {
	name   string
	mutant string // the seeded mutant it is aimed at
	run    func(t *testing.T) error
}

// errNeedsHook marks a scenario that pins a race and so needs the
// schedcheck build's atomicx hook.
var errNeedsHook = errors.New("needs -tags schedcheck")

// fixedScenarios are the synctest ones and, in a schedcheck build, the
// pinned races of hookScenarios.
func fixedScenarios() []xscenario {
	return append(slices.Clone(timingScenarios), hookScenarios...)
}

// stealAfter runs a last-pass StealHalf from victim on its own goroutine,
// inside the caller's bubble, and returns a channel for its result and how
// long it took on the fake clock.
func stealAfter(victim *runnext.Queue[int]) <-chan stealResult {
	ch := make(chan stealResult, 1)
	go func() {
		var thief runnext.Queue[int]
		start := atomicx.Nanotime()
		t := victim.StealHalf(&thief, true)
		ch <- stealResult{t, time.Duration(atomicx.Nanotime() - start)}
	}()
	return ch
}

type stealResult struct {
	t    *int
	took time.Duration
}

// inBubble runs f in a synctest bubble of t and returns its error.
func inBubble(t *testing.T, f func() error) error {
	var err error
	synctest.Test(t, func(*testing.T) { err = f() })
	return err
}

var timingScenarios = []xscenario{
	{"a fresh task costs a thief the whole delay", "ThiefIgnoresDelay", func(t *testing.T) error {
		return inBubble(t, func() error {
			var q runnext.Queue[int]
			a := item(1)
			q.PutNext(a, nil)
			r := <-stealAfter(&q)
			if r.t != a || r.took != runnext.StealDelay {
				return fmt.Errorf("stole task %d after %v, want task 1 after %v", id(r.t), r.took, runnext.StealDelay)
			}
			return nil
		})
	}},
	{"a task replaced during the wait costs a new wait", "ThiefNoRecheck", func(t *testing.T) error {
		return inBubble(t, func() error {
			var q runnext.Queue[int]
			a, b := item(1), item(2)
			q.PutNext(a, nil)
			ch := stealAfter(&q)
			time.Sleep(time.Microsecond)
			q.Get()
			q.PutNext(b, nil) // 1µs into the thief's wait
			r := <-ch
			if r.t != b || r.took != 2*runnext.StealDelay {
				return fmt.Errorf("stole task %d after %v, want task 2 after %v (seen when the thief woke)", id(r.t), r.took, 2*runnext.StealDelay)
			}
			return nil
		})
	}},
	{"the same pointer put back costs a new wait", "ThiefComparesPointer", func(t *testing.T) error {
		return inBubble(t, func() error {
			var q runnext.Queue[int]
			a := item(1)
			q.PutNext(a, nil)
			ch := stealAfter(&q)
			time.Sleep(time.Microsecond)
			if got, _ := q.Get(); got != a {
				return fmt.Errorf("the owner's Get returned task %d, want task 1", id(got))
			}
			q.PutNext(a, nil) // the same task, spawned again: a new occupancy
			r := <-ch
			if r.t != a || r.took != 2*runnext.StealDelay {
				return fmt.Errorf("stole task %d after %v, want task 1 after %v (its new occupancy seen when the thief woke)", id(r.t), r.took, 2*runnext.StealDelay)
			}
			return nil
		})
	}},
	{"a displaced task goes to the ring's tail", "DisplacedDropped", func(*testing.T) error {
		var q runnext.Queue[int]
		q.Put(item(0), nil)
		q.PutNext(item(1), nil)
		q.PutNext(item(2), nil)
		if got := vals(q.Drain(nil)); !slices.Equal(got, []int{2, 0, 1}) {
			return fmt.Errorf("Drain after Put 0, PutNext 1, PutNext 2 = %v, want [2 0 1]", got)
		}
		return nil
	}},
	{"Get finds the ring's one task", "GetTreatsOneAsEmpty", func(*testing.T) error {
		var q runnext.Queue[int]
		q.Put(item(7), nil)
		if got, inherit := q.Get(); id(got) != 7 || inherit {
			return fmt.Errorf("Get of a queue holding task 7 in its ring = task %d (inheritTime %v), want task 7", id(got), inherit)
		}
		return nil
	}},
}

// TestFixedScenarios runs every fixed scenario against the real queue.
func TestFixedScenarios(t *testing.T) {
	for _, s := range fixedScenarios() {
		t.Run(s.name, func(t *testing.T) {
			if err := s.run(t); errors.Is(err, errNeedsHook) {
				t.Skip(err)
			} else if err != nil {
				t.Fatalf("%s (the shape of %s): %v", s.name, s.mutant, err)
			}
		})
	}
}

// runScenarios runs them all for the kill matrix: the first failure, or nil.
func runScenarios(t *testing.T) error {
	for _, s := range fixedScenarios() {
		if err := s.run(t); err != nil && !errors.Is(err, errNeedsHook) {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}
