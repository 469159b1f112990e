package taskchan_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/taskchan"
)

// Bar item 5: the real channel under every interleaving, within the
// preemption bound, of three small scenarios. The scheduling points are
// the channel's atomicx operations: each channel's Lock and Unlock, a
// select's done word's CAS, and the Note a blocked goroutine sleeps on.
// The threads are outside goroutines (the zero Task), so a wait is the
// Note and a wake its Wakeup: the channel's whole protocol runs, and a
// lost wakeup shows as a deadlock, a double wake as a panic. The same
// channel in real tasks, parking and readied by the executor's Ms run as
// the explorer's threads (executor.NewExploring), is explore_tasks_test.go.
// These run only with -tags schedcheck; without it explore.Check skips
// them.

// xScenario is one scenario: build makes a fresh execution.
type xScenario struct {
	name      string
	mustReach []string
	build     func() explore.Run
}

// counting counts the waits started during one execution, and those of
// selects (the hooks of export_test.go), for the outcome labels.
func counting() (waits, selects *int, restore func()) {
	n, sn := new(int), new(int)
	return n, sn, taskchan.SetHooks(func(sel bool) {
		*n++
		if sel {
			*sn++
		}
	}, func() {})
}

var xScenarios = []xScenario{
	{
		// A close against a receiver and a select parked (or about to):
		// both get the zero value and false, and no waiter is left.
		name:      "close-vs-parked-recv",
		mustReach: []string{"waits 2", "waits 0"},
		build: func() explore.Run {
			c, d := taskchan.Make[int](0), taskchan.Make[int](0)
			explore.Name(c, "c")
			explore.Name(d, "d")
			waits, _, unhook := counting()
			var v1, v2 int
			var ok1, ok2 bool
			var chosen int
			return explore.Run{
				Threads: []func(){
					func() { v1, ok1 = c.Recv(executor.Task{}) },
					func() { chosen, ok2 = taskchan.Select(executor.Task{}, c.RecvCase(&v2), d.RecvCase(&v2)) },
					func() { c.Close() },
				},
				Check: func() error {
					unhook()
					if v1 != 0 || ok1 {
						return fmt.Errorf("Recv on the closed channel gave (%d, %v)", v1, ok1)
					}
					if chosen != 0 || v2 != 0 || ok2 {
						return fmt.Errorf("the select gave case %d (%d, %v), want case 0 (0, false)", chosen, v2, ok2)
					}
					return noWaiters(map[string]waiting{"c": c, "d": d})
				},
				Outcome: func() string { return fmt.Sprint("waits ", *waits) },
			}
		},
	},
	{
		// A close against a sender and a select's send case parked (or
		// about to): both panic with the runtime's message, no waiter is
		// left.
		name:      "close-vs-parked-send",
		mustReach: []string{"waits 2", "waits 0"},
		build: func() explore.Run {
			c, d := taskchan.Make[int](0), taskchan.Make[int](0)
			explore.Name(c, "c")
			explore.Name(d, "d")
			waits, _, unhook := counting()
			var p1, p2 string
			return explore.Run{
				Threads: []func(){
					func() { p1 = goPanic(func() { c.Send(executor.Task{}, 1) }) },
					func() {
						p2 = goPanic(func() { taskchan.Select(executor.Task{}, c.SendCase(2), d.RecvCase(nil)) })
					},
					func() { c.Close() },
				},
				Check: func() error {
					unhook()
					if p1 != "send on closed channel" || p2 != "send on closed channel" {
						return fmt.Errorf("the send panicked with %q, the select with %q; want the send-on-closed panic", p1, p2)
					}
					return noWaiters(map[string]waiting{"c": c, "d": d})
				},
				Outcome: func() string { return fmt.Sprint("waits ", *waits) },
			}
		},
	},
	{
		// Two senders on two unbuffered channels against a select that
		// takes one, then a select that takes the other: one send fires
		// the first select and the other must skip its waiter (the done
		// word's CAS), each value arrives once, no waiter is left.
		name:      "select-vs-two-senders",
		mustReach: []string{"skipped"},
		build: func() explore.Run {
			a, b := taskchan.Make[int](0), taskchan.Make[int](0)
			explore.Name(a, "a")
			explore.Name(b, "b")
			var got [2]int
			var oks [2]bool
			return explore.Run{
				Threads: []func(){
					func() { a.Send(executor.Task{}, 1) },
					func() { b.Send(executor.Task{}, 2) },
					func() {
						for k := range got {
							var v int
							_, oks[k] = taskchan.Select(executor.Task{}, a.RecvCase(&v), b.RecvCase(&v))
							got[k] = v
						}
					},
				},
				Check: func() error {
					if !oks[0] || !oks[1] || got[0]+got[1] != 3 || got[0]*got[1] != 2 {
						return fmt.Errorf("the two selects got %v (ok %v), want 1 and 2", got, oks)
					}
					return noWaiters(map[string]waiting{"a": a, "b": b})
				},
				Outcome: func() string { return skippedLabel(a.Skipped() + b.Skipped()) },
			}
		},
	},
	{
		// FIFO waiters: a select with two receive cases on one channel
		// queues two waiters on it, case 0's first (lock order is stable);
		// a sender must serve case 0, whether it meets the select parked or
		// the select meets it. A plain receiver beside them takes the
		// other value.
		name:      "fifo-select-same-channel",
		mustReach: []string{"select parked", "select polled"},
		build: func() explore.Run {
			c := taskchan.Make[int](0)
			explore.Name(c, "c")
			_, selects, unhook := counting()
			var x, r int
			var chosen int
			return explore.Run{
				Threads: []func(){
					func() { chosen, _ = taskchan.Select(executor.Task{}, c.RecvCase(&x), c.RecvCase(&x)) },
					func() { r, _ = c.Recv(executor.Task{}) },
					func() { c.Send(executor.Task{}, 1); c.Send(executor.Task{}, 2) },
				},
				Check: func() error {
					unhook()
					if chosen != 0 {
						return fmt.Errorf("the select's case %d fired, want case 0, whose waiter was queued first", chosen)
					}
					if x+r != 3 || x*r != 2 {
						return fmt.Errorf("the select got %d and the receiver %d, want 1 and 2", x, r)
					}
					return noWaiters(map[string]waiting{"c": c})
				},
				Outcome: func() string {
					if *selects > 0 {
						return "select parked"
					}
					return "select polled"
				},
			}
		},
	},
	{
		// A receiver against a sender that fills a buffer of one and parks
		// with its second value: a receive from the full buffer takes the
		// head and moves the parked sender's value in (recv), so a sender
		// never waits beside room (checked under the lock after each
		// receive) and the values come out in order.
		name:      "recv-vs-full-buffer",
		mustReach: []string{"sender parked"},
		build: func() explore.Run {
			c := taskchan.Make[int](1)
			explore.Name(c, "c")
			waits, _, unhook := counting()
			var got [2]int
			var broken error
			return explore.Run{
				Threads: []func(){
					func() { c.Send(executor.Task{}, 1); c.Send(executor.Task{}, 2) },
					func() {
						for k := range got {
							got[k], _ = c.Recv(executor.Task{})
							if err := c.CheckInvariants(); err != nil && broken == nil {
								broken = fmt.Errorf("after receive %d: %w", k, err)
							}
						}
					},
				},
				Check: func() error {
					unhook()
					if broken != nil {
						return broken
					}
					if got != [2]int{1, 2} {
						return fmt.Errorf("received %v, want [1 2]", got)
					}
					return noWaiters(map[string]waiting{"c": c})
				},
				Outcome: func() string {
					if *waits > 0 {
						return "sender parked"
					}
					return "no wait"
				},
			}
		},
	},
	{
		// Two selects over the same two channels in opposite case orders
		// (one receiving from both, one sending on both): both lock in the
		// channels' order, so neither can hold one lock while waiting for
		// the other's; one fires the other.
		name:      "two-selects-opposite-order",
		mustReach: []string{"select parked"},
		build: func() explore.Run {
			a, b := taskchan.Make[int](0), taskchan.Make[int](0)
			explore.Name(a, "a")
			explore.Name(b, "b")
			_, selects, unhook := counting()
			var v, chosenX, chosenY int
			return explore.Run{
				Threads: []func(){
					func() { chosenX, _ = taskchan.Select(executor.Task{}, a.RecvCase(&v), b.RecvCase(&v)) },
					func() { chosenY, _ = taskchan.Select(executor.Task{}, b.SendCase(2), a.SendCase(1)) },
				},
				Check: func() error {
					unhook()
					// Y's case 0 sends 2 on b (X's case 1), its case 1 sends 1 on a (X's case 0).
					if chosenX != 1-chosenY || v != 2-chosenY {
						return fmt.Errorf("receiving select chose %d and got %d, sending select chose %d", chosenX, v, chosenY)
					}
					return noWaiters(map[string]waiting{"a": a, "b": b})
				},
				Outcome: func() string {
					if *selects > 0 {
						return "select parked"
					}
					return "no wait"
				},
			}
		},
	},
	{
		// A send into a buffered channel against a select's wake by a
		// send on another channel and its dequeue: the send either meets
		// the select parked (and fires it), or its fired waiter (skips it
		// and buffers), or nothing; the select's party then receives the
		// other value; each arrives once, no waiter is left.
		name:      "send-vs-select-wake",
		mustReach: []string{"skipped", "fired by b", "fired by a"},
		build: func() explore.Run {
			a, b := taskchan.Make[int](0), taskchan.Make[int](1)
			explore.Name(a, "a")
			explore.Name(b, "b")
			var first, second int
			var chosen int
			var ok bool
			return explore.Run{
				Threads: []func(){
					func() { a.Send(executor.Task{}, 1) },
					func() { b.Send(executor.Task{}, 2) },
					func() {
						chosen, ok = taskchan.Select(executor.Task{}, a.RecvCase(&first), b.RecvCase(&first))
						if chosen == 0 {
							second, _ = b.Recv(executor.Task{})
						} else {
							second, _ = a.Recv(executor.Task{})
						}
					},
				},
				Check: func() error {
					if want := [2]int{1, 2}; !ok || [2]int{first, second} != want && [2]int{second, first} != want {
						return fmt.Errorf("select case %d (ok %v) got %d, then %d; want 1 and 2", chosen, ok, first, second)
					}
					if n := b.Len(); n != 0 {
						return fmt.Errorf("b still buffers %d", n)
					}
					return noWaiters(map[string]waiting{"a": a, "b": b})
				},
				Outcome: func() string {
					if n := a.Skipped() + b.Skipped(); n > 0 {
						return skippedLabel(n)
					}
					return [2]string{"fired by a", "fired by b"}[chosen]
				},
			}
		},
	},
}

func skippedLabel(n int) string {
	if n > 0 {
		return "skipped"
	}
	return "no skip"
}

// waiting is a channel's queue lengths and invariants.
type waiting interface {
	Waiting() (senders, receivers int)
	CheckInvariants() error
}

// noWaiters reports a channel that still queues a sender or a receiver,
// or breaks an invariant.
func noWaiters(cs map[string]waiting) error {
	for name, c := range cs {
		if s, r := c.Waiting(); s+r != 0 {
			return fmt.Errorf("channel %s still queues %d sender(s) and %d receiver(s)", name, s, r)
		}
		if err := c.CheckInvariants(); err != nil {
			return fmt.Errorf("channel %s: %w", name, err)
		}
	}
	return nil
}

// opts is a scenario's exploration: DFS within the default bound, the
// poll order fixed (Select's shuffle would make the threads' choices
// differ between replays of one schedule).
func (s xScenario) opts() explore.Options {
	return explore.Options{Name: "taskchan-" + s.name, MaxExecutions: 200000, MustReach: s.mustReach, LongBound: explore.LongBound}
}

// fixedPoll makes Select poll its cases in the order given.
func fixedPoll() (restore func()) { return taskchan.SetPollRand(func(n int) int { return n - 1 }) }

// exploreChan is the kill matrix's explorer checker: every scenario, the
// first failure as the kill (an unreached label is the real code's test,
// TestExplore).
func exploreChan(t testing.TB) error {
	defer fixedPoll()()
	for _, s := range xScenarios {
		opts := s.opts()
		opts.MustReach = nil
		res, err := explore.Explore(opts, s.build)
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

func TestExplore(t *testing.T) {
	defer fixedPoll()()
	for _, s := range xScenarios {
		t.Run(s.name, func(t *testing.T) {
			res := explore.Check(t, s.opts(), s.build)
			if !res.Complete && !res.Replayed {
				t.Errorf("exploration of %s was cut short at %d executions", s.name, res.Executions)
			}
		})
	}
}
