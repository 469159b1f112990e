package netpoll_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/netpoll"
)

// Bar item 5: the real Desc, Table and Breaker under every interleaving,
// within the preemption bound, of five small scenarios, the races the
// executor's poller has: an event against a waiter's commit, Close against
// a Wait (from before its first check to after its park), a deadline's
// timer against a SetDeadline that moves it on, an event carrying a freed
// descriptor's tag against the Open that reuses its slot, and Break against
// a poller that blocks and drains. The scheduling points are the atomicx
// operations (the semaphores, the info word, the Desc's and the Table's
// locks, the tags and slots, the break flag) and the Note a parked waiter
// sleeps on, so these run only with -tags schedcheck; without it
// explore.Check skips them.
//
// The W is an atomicx.Note: Park sleeps on it and a ready wakes it, so a
// lost wakeup is the explorer's deadlock and a double resume the Note's
// "Wakeup called twice" panic. Each execution is judged by what the threads
// saw and what is left (netpoll.Sem, Err); MustReach lists the outcomes each
// race must show, so a scenario whose race stopped happening fails.

// xScenario is one explorer scenario.
type xScenario struct {
	name      string
	build     func() explore.Run
	mustReach []string
}

var xScenarios = []xScenario{
	{"event-vs-commit", eventVsCommit, []string{"consumed at once", "commit failed", "parked, readied"}},
	{"close-vs-wait", closeVsWait, []string{"not parked", "commit failed", "parked, readied"}},
	{"event-and-close-vs-wait", eventAndCloseVsWait, []string{"event", "closed", "event, readied by the event", "closed, readied by Close"}},
	{"expire-vs-reset", expireVsReset, []string{"expired, waiter failed", "expired, waiter got the event", "stale"}},
	{"stale-tag-vs-reused-slot", staleTagVsReuse, []string{"reached the old Desc", "dropped"}},
	{"break-vs-drain", breakVsDrain, []string{"one write", "two writes"}},
}

// noteParker parks an explorer thread on an atomicx.Note.
type noteParker struct{ parks, skips int }

func (p *noteParker) Waiter() *atomicx.Note { return new(atomicx.Note) }

func (p *noteParker) Park(w *atomicx.Note, committed bool) {
	if !committed {
		p.skips++
		return
	}
	p.parks++
	w.Sleep()
}

// label names how the waiter's one Wait went.
func (p *noteParker) label() string {
	switch {
	case p.parks > 0:
		return "parked, readied"
	case p.skips > 0:
		return "commit failed"
	}
	return "not parked"
}

// readier counts the Ws it readies.
type readier struct{ n int }

func (r *readier) ready(w *atomicx.Note) {
	r.n++
	w.Wakeup()
}

// waitDone checks a Wait's end: its error, one ready per park, nothing
// left parked or waiting.
func waitDone(d *netpoll.Desc[*atomicx.Note], err, want error, p *noteParker, readied int) error {
	if !errors.Is(err, want) {
		return fmt.Errorf("Wait returned %v, want %v", err, want)
	}
	if readied != p.parks {
		return fmt.Errorf("%d readies for %d parks", readied, p.parks)
	}
	if d.Waiting(netpoll.Read) {
		return fmt.Errorf("the semaphore says %s after Wait returned", netpoll.Sem(d, netpoll.Read))
	}
	return nil
}

// eventVsCommit: a reader waits while the poller delivers one event. The
// event is consumed exactly once, whether it came before the wait (the
// CAS Ready -> Nil), between Wait and the commit (the commit fails) or
// after the park (the poller readies the W).
func eventVsCommit() explore.Run {
	d := new(netpoll.Desc[*atomicx.Note])
	explore.Name(d, "d")
	p, r := &noteParker{}, &readier{}
	var err error
	return explore.Run{
		Threads: []func(){
			func() { err = d.Wait(netpoll.Read, p) },
			func() { d.Ready(netpoll.Read, false, r.ready) },
		},
		Check: func() error {
			if err := waitDone(d, err, nil, p, r.n); err != nil {
				return err
			}
			if s := netpoll.Sem(d, netpoll.Read); s != "nil" {
				return fmt.Errorf("the event was consumed, but the semaphore says %s", s)
			}
			return nil
		},
		Outcome: func() string {
			if p.label() == "not parked" {
				return "consumed at once"
			}
			return p.label()
		},
	}
}

// closeVsWait: a reader waits while the descriptor is closed. Wait
// returns ErrClosing whenever Close came: before its first check, between
// that check and Wait's publication (the recheck sees closing: the shape
// ParkSkipsErrRecheck breaks), between Wait and the commit (the commit
// fails: CloseWakesBeforePublish's), or after the park (Close readies it).
func closeVsWait() explore.Run {
	d := new(netpoll.Desc[*atomicx.Note])
	explore.Name(d, "d")
	p, r := &noteParker{}, &readier{}
	var err error
	return explore.Run{
		Threads: []func(){
			func() { err = d.Wait(netpoll.Read, p) },
			func() { d.Close(r.ready) },
		},
		Check: func() error {
			if err := waitDone(d, err, netpoll.ErrClosing, p, r.n); err != nil {
				return err
			}
			if err := d.Err(netpoll.Write); !errors.Is(err, netpoll.ErrClosing) {
				return fmt.Errorf("Err(Write) after Close: %v", err)
			}
			return nil
		},
		Outcome: p.label,
	}
}

// eventAndCloseVsWait: a reader waits while the poller delivers an event
// and the owner closes the descriptor. The reader returns nil (it consumed
// the event) or ErrClosing, and its park, if any, is readied once, by the
// event or by Close: never both.
func eventAndCloseVsWait() explore.Run {
	d := new(netpoll.Desc[*atomicx.Note])
	explore.Name(d, "d")
	p, byEvent, byClose := &noteParker{}, &readier{}, &readier{}
	var err error
	return explore.Run{
		Threads: []func(){
			func() { err = d.Wait(netpoll.Read, p) },
			func() { d.Ready(netpoll.Read, false, byEvent.ready) },
			func() { d.Close(byClose.ready) },
		},
		Check: func() error {
			if err != nil && !errors.Is(err, netpoll.ErrClosing) {
				return fmt.Errorf("Wait returned %v", err)
			}
			return waitDone(d, err, err, p, byEvent.n+byClose.n)
		},
		Outcome: func() string {
			l := "event"
			if err != nil {
				l = "closed"
			}
			switch {
			case byEvent.n > 0:
				l += ", readied by the event"
			case byClose.n > 0:
				l += ", readied by Close"
			}
			return l
		},
	}
}

// expireVsReset: the read deadline is armed (generation 1) and a reader
// waits; the timer fires Expire(1) while SetDeadline(NoDeadline) moves the
// deadline on and then an event arrives. An Expire after the reset is
// stale and must do nothing; at the end no deadline stands; the reader
// fails with ErrDeadline only if the expiry happened, else it gets the
// event.
func expireVsReset() explore.Run {
	d := new(netpoll.Desc[*atomicx.Note])
	explore.Name(d, "d")
	p, r := &noteParker{}, &readier{}
	seq := d.SetDeadline(netpoll.Read, netpoll.Pending, r.ready)
	var err error
	var fired bool
	return explore.Run{
		Threads: []func(){
			func() { err = d.Wait(netpoll.Read, p) },
			func() { fired = d.Expire(netpoll.Read, seq, r.ready) },
			func() {
				d.SetDeadline(netpoll.Read, netpoll.NoDeadline, r.ready)
				d.Ready(netpoll.Read, false, r.ready)
			},
		},
		Check: func() error {
			if err != nil && !(fired && errors.Is(err, netpoll.ErrDeadline)) {
				return fmt.Errorf("Wait returned %v (the timer fired: %v)", err, fired)
			}
			if err := waitDone(d, err, err, p, r.n); err != nil {
				return err
			}
			if err := d.Err(netpoll.Read); err != nil {
				return fmt.Errorf("the deadline was moved on, yet Err(Read) = %v", err)
			}
			return nil
		},
		Outcome: func() string {
			switch {
			case !fired:
				return "stale"
			case err != nil:
				return "expired, waiter failed"
			}
			return "expired, waiter got the event"
		},
	}
}

// staleTagVsReuse: Desc a is in the table with tag ta, and the poller has
// an event for ta while the owner closes a, frees it and opens b, which
// takes a's slot. The event reaches a (before the free) or nobody; never
// b.
func staleTagVsReuse() explore.Run {
	var tab netpoll.Table[*atomicx.Note]
	explore.Name(&tab, "tab")
	a, b := new(netpoll.Desc[*atomicx.Note]), new(netpoll.Desc[*atomicx.Note])
	explore.Name(a, "a")
	explore.Name(b, "b")
	r := &readier{}
	ta := tab.Open(a)
	var tb uint64
	var hit *netpoll.Desc[*atomicx.Note]
	return explore.Run{
		Threads: []func(){
			func() {
				if hit = tab.Lookup(ta); hit != nil {
					hit.Ready(netpoll.Read, false, r.ready)
				}
			},
			func() {
				a.Close(r.ready)
				tab.Free(a)
				tb = tab.Open(b)
			},
		},
		Check: func() error {
			if hit == b {
				return errors.New("a's stale tag looked up b, which took a's slot")
			}
			if s := netpoll.Sem(b, netpoll.Read); s != "nil" {
				return fmt.Errorf("b's read semaphore says %s: an event for a reached it", s)
			}
			if uint32(tb) != uint32(ta) || tb == ta {
				return fmt.Errorf("b's tag %#x, a's %#x: want a's slot under a new generation", tb, ta)
			}
			if tab.Lookup(ta) != nil || tab.Lookup(tb) != b {
				return errors.New("after the reuse, a's tag must look up nothing and b's b")
			}
			return nil
		},
		Outcome: func() string {
			if hit == a {
				return "reached the old Desc"
			}
			return "dropped"
		},
	}
}

// breakVsDrain: a poller takes the work there is, else blocks until its
// eventfd (a Note) is readable, reads it (Clear) and calls Drained; two
// wakers each publish one unit of work and call Break, whose write is the
// Note's Wakeup. The poller takes both units (a lost break leaves it
// asleep: a deadlock), and no Break writes while a write is pending (the
// Note's Wakeup panics if woken twice).
func breakVsDrain() explore.Run {
	var b netpoll.Breaker
	explore.Name(&b, "breaker")
	var efd atomicx.Note
	explore.Name(&efd, "eventfd")
	var work atomicx.Int32
	explore.Name(&work, "work")
	writes, taken := 0, int32(0)
	waker := func() {
		work.Add(1)
		if b.Break(efd.Wakeup) {
			writes++
		}
	}
	return explore.Run{
		Threads: []func(){
			func() {
				for taken < 2 {
					if n := work.Load(); n > taken {
						taken = n
						continue
					}
					efd.Sleep()
					efd.Clear()
					b.Drained()
				}
			},
			waker,
			waker,
		},
		Check: func() error {
			if taken != 2 || writes == 0 {
				return fmt.Errorf("the poller took %d units, %d writes", taken, writes)
			}
			return nil
		},
		Outcome: func() string {
			if writes == 1 {
				return "one write"
			}
			return "two writes"
		},
	}
}

func (s xScenario) options() explore.Options {
	return explore.Options{Name: "netpoll-" + s.name, MustReach: s.mustReach}
}

// exploreNetpoll runs every scenario and returns the first failure, for the
// kill matrix; t only receives logs.
func exploreNetpoll(t testing.TB) error {
	for _, s := range xScenarios {
		res, err := explore.Explore(s.options(), s.build)
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

func TestExploreNetpoll(t *testing.T) {
	for _, s := range xScenarios {
		t.Run(s.name, func(t *testing.T) {
			res := explore.Check(t, s.options(), s.build)
			if !res.Complete && !res.Replayed {
				t.Errorf("exploration of %s was cut short at %d executions", s.name, res.Executions)
			}
		})
	}
}
