package future

import (
	"errors"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/explore"
)

// Bar item 5: the future's own protocol (get's fast path, wait's check and
// publication under the lock, set's store and take of the queue, ready's
// channel) under every interleaving within the preemption bound, with
// waiters that are the explorer's threads: a test waker stands for
// executor.Waker (Ready wakes a note the waiter's park sleeps on; a second
// Ready panics, as the executor's does), so a lost wakeup shows as a
// deadlock (a thread asleep for ever) and a double wake as a panic. The
// executor's own park/ready is checked by its explorer scenarios and
// proofs/tla/ParkReady.tla. Without -tags schedcheck these skip.

// xWaiter is one waiting thread: its note, the readies of its Waker, and
// what its park saw.
type xWaiter struct {
	note    atomicx.Note
	readies atomicx.Int32
	made    bool // mk ran: it published a waker
	early   bool // readied before its park
	v       int
	err     error
}

type xWaker struct{ x *xWaiter }

func (k xWaker) Ready(executor.Task) {
	if k.x.readies.Add(1) != 1 {
		panic("a waiter readied twice")
	}
	k.x.note.Wakeup()
}

// wait is Future.Wait's body on c for thread x.
func (x *xWaiter) wait(c *cell[int, xWaker]) {
	x.v, x.err = c.get(func() xWaker { x.made = true; return xWaker{x} }, func(k xWaker) {
		x.early = k.x.readies.Load() != 0
		k.x.note.Sleep()
	})
}

// label names the path the waiter took.
func (x *xWaiter) label() string {
	switch {
	case !x.made:
		return "no park"
	case x.early:
		return "ready before park"
	}
	return "parked"
}

// xScenario is one exploration: a setter thread against waiters threads,
// the last of which also takes the Ready channel first if readyChan.
type xScenario struct {
	name      string
	waiters   int
	readyChan bool
	mustReach []string
}

var xScenarios = []xScenario{
	{name: "complete-vs-wait", waiters: 1, mustReach: []string{"no park", "ready before park", "parked"}},
	{name: "complete-vs-two-waiters", waiters: 2, readyChan: true,
		mustReach: []string{"parked/parked", "no park/parked", "ready before park/parked"}},
}

func (s xScenario) build() explore.Run {
	c := new(cell[int, xWaker])
	explore.Name(&c.mu, "mu")
	explore.Name(&c.done, "done")
	xs := make([]*xWaiter, s.waiters)
	var ch chan struct{}
	threads := []func(){func() { c.set(executor.Task{}, 42, nil) }}
	for i := range xs {
		x := new(xWaiter)
		xs[i] = x
		explore.Name(&x.note, fmt.Sprintf("note%d", i))
		explore.Name(&x.readies, fmt.Sprintf("readies%d", i))
		last := i == len(xs)-1
		threads = append(threads, func() {
			if last && s.readyChan {
				ch = c.ready()
			}
			x.wait(c)
		})
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			for i, x := range xs {
				if x.v != 42 || x.err != nil {
					return fmt.Errorf("waiter %d got %d, %v; want 42", i, x.v, x.err)
				}
				if want := int32(0); x.made {
					want = 1
					if n := x.readies.Load(); n != want {
						return fmt.Errorf("waiter %d published a waker readied %d times", i, n)
					}
				}
			}
			if ch != nil {
				select {
				case <-ch:
				default:
					return errors.New("the Ready channel is open after the result")
				}
			}
			return nil
		},
		Outcome: func() string {
			l := xs[0].label()
			for _, x := range xs[1:] {
				l += "/" + x.label()
			}
			return l
		},
	}
}

func (s xScenario) options() explore.Options {
	return explore.Options{Name: s.name, MustReach: s.mustReach}
}

func TestExplore(t *testing.T) {
	for _, s := range xScenarios {
		t.Run(s.name, func(t *testing.T) {
			explore.Check(t, s.options(), s.build)
		})
	}
}

// exploreScenario runs the scenario named for the kill matrix: every
// interleaving at the default bound, its failure or an unreached label an
// error; applicable is false without -tags schedcheck.
func exploreScenario(name string) (applicable bool, err error) {
	for _, s := range xScenarios {
		if s.name != name {
			continue
		}
		r, err := explore.Explore(s.options(), s.build)
		switch {
		case errors.Is(err, explore.ErrNoSchedcheck):
			return false, nil
		case err != nil:
			return true, err
		case r.Failure != nil:
			return true, fmt.Errorf("%s: %v", name, r.Failure.Err)
		case len(r.Unreached) != 0:
			return true, fmt.Errorf("%s: %v", name, r.UnreachedError())
		}
		return true, nil
	}
	return true, fmt.Errorf("no scenario %q", name)
}
