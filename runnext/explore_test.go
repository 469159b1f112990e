package runnext_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/atomicx"
	"github.com/schedkit/schedkit/internal/explore"
	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/runnext"
)

// Bar item 5: the real queue under every interleaving, within the
// preemption bound, of small scenarios. Every scheduling point is an
// operation of internal/atomicx (the slot, seq, the ring, the clock), so
// these run only with -tags schedcheck; without it explore.Check skips them.
//
// The steal delay runs on the explorer's virtual clock, which moves only
// when every thread is blocked: a thief that finds the runnext task too
// fresh sleeps until the others are done or blocked, and wakes exactly when
// the task has sat for the delay.
//
// After each execution two oracles judge it: conservation (every task made
// came out exactly once: from Get, Drain, an overflow batch, a steal, or
// what the queue holds at the end) and linearizability of the victim's
// history against linModel (linearize_test.go), with the delay: a thief may
// return the runnext task only once it has sat for the delay.

// xop is one operation of a scenario thread. Thread 0 is the victim's
// owner; the others are thieves, each with its own queue.
type xop uint8

const (
	xPutNext   xop = iota // owner: PutNext a new task
	xPut                  // owner: Put a new task
	xGet                  // owner: Get
	xDrain                // owner: Drain
	xSteal                // thief: StealHalf, not the last pass (stealNext false)
	xStealNext            // thief: StealHalf on the last pass (stealNext true)
	xEmpty                // anyone: Empty
)

// xScenario is a victim queue that starts holding pre tasks in its ring
// and, if next, a runnext task (put in build; aged: build then sleeps the
// steal delay, so that a thief may take it at once), and the operations
// each thread runs on it.
type xScenario struct {
	name    string
	pre     int
	next    bool
	aged    bool
	delay   time.Duration // -1: the default, StealDelay
	threads [][]xop
	opts    explore.Options
	long    bool // too slow for -short and the kill matrix
}

// xScenarios are the scenarios for runnext.
var xScenarios = []xScenario{
	// The owner's Get and a thief's last-pass steal race for one old
	// runnext task: exactly one gets it (TakeWithoutCAS gives it to both).
	{name: "take-vs-steal", next: true, aged: true, delay: -1, threads: [][]xop{{xGet}, {xStealNext}}},
	{name: "take-vs-two-thieves", next: true, aged: true, delay: -1, threads: [][]xop{{xGet}, {xStealNext}, {xStealNext}}},
	// PutNext displaces the old task into the ring while a thief steals:
	// the displaced task is never lost, never taken twice.
	{name: "displace-vs-steal", next: true, aged: true, delay: -1, threads: [][]xop{{xPutNext, xGet}, {xStealNext}}},
	// The owner puts into the ring and takes while a thief makes its last
	// pass, and while one makes two earlier passes (it must not take the
	// runnext task).
	{name: "put-take-vs-last-pass", next: true, aged: true, delay: -1, threads: [][]xop{{xPut, xGet, xGet}, {xStealNext}}},
	{name: "put-take-vs-first-passes", next: true, aged: true, delay: -1, threads: [][]xop{{xPut, xGet}, {xSteal, xSteal}}},
	// A fresh runnext task: the thief must wait the delay on the virtual
	// clock, and steals it exactly when it has sat that long.
	{name: "thief-waits-delay", next: true, delay: -1, threads: [][]xop{{xEmpty}, {xStealNext}}},
	// The owner runs its task within the delay and puts a new one; the
	// thief, woken, waits out the new task's delay in its turn.
	{name: "owner-takes-within-delay", next: true, delay: -1, threads: [][]xop{{xGet, xPutNext}, {xStealNext}}},
	// Empty while the owner kicks the runnext task into the ring and takes
	// the new one: never "empty" (EmptyMissesRunnext says so).
	{name: "empty-vs-putnext-get", next: true, delay: -1, threads: [][]xop{{xPutNext, xGet}, {xEmpty}}},
	{name: "empty-vs-drain", pre: 1, next: true, delay: -1, threads: [][]xop{{xDrain, xPut}, {xEmpty}}},
	// A last-pass thief that finds the ring empty and then the slot empty
	// may call the queue empty only if the owner added nothing meanwhile.
	{name: "steal-nothing-vs-putnext-get", next: true, delay: -1, threads: [][]xop{{xPutNext, xGet}, {xStealNext}}},
	{name: "drain-vs-steal", pre: 1, next: true, aged: true, delay: -1, threads: [][]xop{{xDrain}, {xStealNext}}},
	// No delay: a thief may take the new runnext task while the displaced
	// one is on its way to the ring; seq keeps it, and Empty, away.
	{name: "no-delay-displace-vs-steal-and-empty", next: true, delay: 0,
		threads: [][]xop{{xPutNext, xGet}, {xStealNext}, {xEmpty}}},
}

// xRun builds one execution of s: fresh queues, a recorder, the threads
// and the oracles.
func (s xScenario) xRun() explore.Run {
	victim := new(runnext.Queue[int])
	if s.delay >= 0 {
		victim.SetStealDelay(s.delay)
	}
	explore.Name(victim, "victim")
	made := 0
	newTask := func() *int {
		p := new(int)
		*p = made
		explore.Name(p, fmt.Sprintf("task%d", made)) // traces show &task3, not an address
		made++
		return p
	}
	init := linState{next: linNone}
	for range s.pre {
		p := newTask()
		victim.Put(p, nil)
		init.ring = append(init.ring, *p)
	}
	if s.next {
		p := newTask()
		init.nextAt = atomicx.Nanotime()
		victim.PutNext(p, nil)
		init.next = *p
	}
	if s.aged {
		atomicx.Sleep(victim.StealDelay())
	}
	// The owner's tasks are made here, so that its thread touches no shared
	// state to make them.
	owned := make([]*int, 0, 4)
	for range 4 {
		owned = append(owned, newTask())
	}

	rec := linearize.New(s.name)
	outs := make([][]int, len(s.threads)) // what each thread consumed
	threads := make([]func(), len(s.threads))
	for k, ops := range s.threads {
		c := rec.Client(k)
		var own *runnext.Queue[int]
		if k > 0 {
			own = new(runnext.Queue[int])
			explore.Name(own, fmt.Sprintf("thief%d", k))
		}
		threads[k] = func() {
			for _, op := range ops {
				outs[k] = xDo(op, c, victim, own, &owned, outs[k])
			}
		}
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			consumed := slices.Concat(outs...)
			consumed = append(consumed, linIDs(victim.Drain(nil))...)
			if want := made - len(owned); !xExactlyOnce(consumed, want) {
				return fmt.Errorf("conservation: tasks out %v, want each of 0..%d once", sorted(consumed), want-1)
			}
			res, err := rec.Check(linModel(init, victim.StealDelay()), 10*time.Second)
			if err != nil {
				return fmt.Errorf("linearizability: %w (%d operations)", err, res.Operations)
			}
			return nil
		},
	}
}

// xDo runs one operation, records it, and appends what it consumed to out.
func xDo(op xop, c *linearize.Client, victim, own *runnext.Queue[int], owned *[]*int, out []int) []int {
	take := func() *int { p := (*owned)[0]; *owned = (*owned)[1:]; return p }
	switch op {
	case xPutNext, xPut:
		p := take()
		kind, put := linPutNext, victim.PutNext
		if op == xPut {
			kind, put = linPut, victim.Put
		}
		at := atomicx.Nanotime() // the slot's stamp: the clock cannot move while this thread can run
		c.Begin(linInput{kind: kind, items: []int{*p}, at: at})
		spill := linIDs(put(p, nil))
		c.End(linOutput{items: spill})
		return append(out, spill...)
	case xGet:
		c.Begin(linInput{kind: linGet})
		p, inherit := victim.Get()
		if p == nil {
			c.End(linOutput{flag: inherit})
			return out
		}
		c.End(linOutput{items: []int{*p}, flag: inherit})
		return append(out, *p)
	case xDrain:
		c.Begin(linInput{kind: linDrain})
		got := linIDs(victim.Drain(nil))
		c.End(linOutput{items: got})
		return append(out, got...)
	case xSteal, xStealNext:
		stealNext := op == xStealNext
		c.Begin(linInput{kind: linStealHalf, stealNext: stealNext})
		p := victim.StealHalf(own, stealNext)
		at := atomicx.Nanotime()      // the time of the steal: the clock cannot move while this thread can run
		got := linIDs(own.Drain(nil)) // own is private: its contents are what the steal published
		if p != nil {
			got = append(got, *p)
		}
		c.End(linOutput{items: got, at: at})
		return append(out, got...)
	case xEmpty:
		c.Begin(linInput{kind: linEmpty})
		c.End(linOutput{flag: victim.Empty()})
		return out
	}
	panic(fmt.Sprintf("xDo: unknown op %d", op))
}

// xExactlyOnce reports whether ids holds each of 0..n-1 exactly once.
func xExactlyOnce(ids []int, n int) bool {
	if len(ids) != n {
		return false
	}
	for i, v := range sorted(ids) {
		if v != i {
			return false
		}
	}
	return true
}

func sorted(ids []int) []int { s := slices.Clone(ids); slices.Sort(s); return s }

// exploreRunnext runs every scenario and returns the first failure, for the
// kill matrix; t only receives logs.
func exploreRunnext(t testing.TB) error {
	for _, s := range xScenarios {
		if s.long {
			continue
		}
		opts := s.opts
		opts.Name = "runnext-" + s.name
		opts.MaxExecutions = 200000
		res, err := explore.Explore(opts, s.xRun)
		if err != nil {
			return err
		}
		if res.Failure != nil {
			return errors.New(res.Failure.String())
		}
		t.Log(res.Summary())
	}
	return nil
}

func TestExploreRunnext(t *testing.T) {
	for _, s := range xScenarios {
		t.Run(s.name, func(t *testing.T) {
			if s.long && testing.Short() {
				t.Skip("long mode only")
			}
			opts := s.opts
			opts.MaxExecutions = 200000
			opts.Name = "runnext-" + s.name
			res := explore.Check(t, opts, s.xRun)
			if !res.Complete && !res.Replayed {
				t.Errorf("exploration of %s was cut short at %d executions", s.name, res.Executions)
			}
		})
	}
}

// TestExploreTwoOwnersPanic: two goroutines calling PutNext on one empty
// queue at once (a misuse: PutNext is an owner method) is detected in some
// interleaving, where one finds the slot filled under it, and panics naming
// the call rather than losing a task.
func TestExploreTwoOwnersPanic(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "runnext-two-owners"}, func() explore.Run {
		q := new(runnext.Queue[int])
		explore.Name(q, "q")
		a, b := item(1), item(2)
		return explore.Run{Threads: []func(){
			func() { q.PutNext(a, nil) },
			func() { q.PutNext(b, nil) },
		}}
	})
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Summary())
	var pe *explore.PanicError
	if res.Failure == nil || !errors.As(res.Failure.Err, &pe) {
		t.Fatalf("no interleaving of two concurrent PutNexts panicked: %+v", res.Failure)
	}
	if msg := fmt.Sprint(pe.Value); msg != "runnext: Queue.PutNext: the slot filled up under the owner: owner methods called concurrently" {
		t.Fatalf("panicked with %q", msg)
	}
	t.Logf("schedule %s: %v", res.Failure.Schedule, pe.Value)
}
