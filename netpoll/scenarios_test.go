package netpoll_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/netpoll"
)

// Fixed scenarios, each aimed at one or more seeded mutations' shape (the
// kill matrix's "scenarios" column, and TestScenarios against the real
// code). Each returns an error naming what broke. They are deterministic:
// the sequential ones call the Desc, Table and Breaker directly; the
// concurrent ones are the explorer's races pinned small.

type scenario = killmatrix.Scenario

// runScenarios is the kill matrix's "scenarios" checker: the first failure.
func runScenarios(t testing.TB) error { return killmatrix.RunScenarios(t, scenarios) }

func TestScenarios(t *testing.T) { killmatrix.TestScenarios(t, scenarios) }

var scenarios = []scenario{
	// Bound 1: the event lands between Wait and the commit.
	{Name: "event-races-commit", Targets: "CommitNoCAS EventLostOnWait UnblockNoCAS", Run: pinned("event-races-commit", 1, eventVsCommit)},
	// Bound 2: Close must stop between its unblock and its publish for
	// CloseWakesBeforePublish; ParkSkipsErrRecheck needs Close whole
	// between Wait's first check and its CAS Nil -> Wait.
	{Name: "close-races-wait", Targets: "ParkSkipsErrRecheck CloseWakesBeforePublish UnblockNoCAS", Run: pinned("close-races-wait", 2, closeVsWait)},
	{Name: "expire-after-reset", Targets: "ExpireIgnoresSeq", Run: scenarioExpireAfterReset},
	{Name: "stale-tag-after-reuse", Targets: "LookupIgnoresGen", Run: scenarioStaleTag},
	{Name: "break-after-drain", Targets: "DrainedNeverRearms BreakAlwaysSkips", Run: scenarioBreakAfterDrain},
}

// pinned explores build at the given bound, under the explorer only.
func pinned(name string, bound int, build func() explore.Run) func() error {
	return func() error {
		res, err := explore.Explore(explore.Options{Name: "netpoll-scenario-" + name, Bound: bound}, build)
		if errors.Is(err, explore.ErrNoSchedcheck) {
			return killmatrix.ErrNeedsExplorer
		}
		if err != nil {
			return err
		}
		if res.Failure != nil {
			return errors.New(res.Failure.String())
		}
		return nil
	}
}

func noReady(w chan struct{}) { panic("netpoll scenario: nobody waits, yet a W was readied") }

// scenarioExpireAfterReset: a timer armed for a deadline moved on since
// (reset, cleared, or both directions' timer after one was reset) does
// nothing.
func scenarioExpireAfterReset() error {
	var d netpoll.Desc[chan struct{}]
	old := d.SetDeadline(netpoll.Read, netpoll.Pending, noReady)
	cur := d.SetDeadline(netpoll.Read, netpoll.Pending, noReady)
	if d.Expire(netpoll.Read, old, noReady) {
		return fmt.Errorf("Expire(Read, %d) fired after SetDeadline moved the deadline to generation %d", old, cur)
	}
	if err := d.Err(netpoll.Read); err != nil {
		return fmt.Errorf("a stale timer left Err(Read) = %v", err)
	}
	both := d.SetDeadline(netpoll.ReadWrite, netpoll.Pending, noReady)
	d.SetDeadline(netpoll.Write, netpoll.NoDeadline, noReady)
	if d.Expire(netpoll.ReadWrite, both, noReady) {
		return errors.New("the timer for both directions fired after the write deadline was cleared")
	}
	if err := d.Err(netpoll.Write); err != nil {
		return fmt.Errorf("Err(Write) = %v after its deadline was cleared", err)
	}
	if !d.Expire(netpoll.Read, d.SetDeadline(netpoll.Read, netpoll.Pending, noReady), noReady) {
		return errors.New("the current timer did not fire")
	}
	return nil
}

// scenarioStaleTag: a's tag, after a is freed and b takes its slot, looks
// up nothing, and an event for it (the poller's Lookup, then Ready) leaves
// b's semaphores alone.
func scenarioStaleTag() error {
	var tab netpoll.Table[chan struct{}]
	a, b := new(netpoll.Desc[chan struct{}]), new(netpoll.Desc[chan struct{}])
	ta := tab.Open(a)
	tab.Free(a)
	tb := tab.Open(b)
	if uint32(ta) != uint32(tb) {
		return fmt.Errorf("b did not take a's slot (tags %#x, %#x): the scenario lost its shape", ta, tb)
	}
	if d := tab.Lookup(ta); d != nil {
		d.Ready(netpoll.ReadWrite, false, noReady)
		return fmt.Errorf("a's stale tag %#x looked up a Desc (b: %v)", ta, d == b)
	}
	if s := netpoll.Sem(b, netpoll.Read); s != "nil" {
		return fmt.Errorf("b's read semaphore says %s", s)
	}
	return nil
}

// scenarioBreakAfterDrain: Break writes, a second Break while that write
// is pending does not, and once the poller has drained, Break writes
// again.
func scenarioBreakAfterDrain() error {
	var b netpoll.Breaker
	writes := 0
	w := func() { writes++ }
	got := []bool{b.Break(w), b.Break(w)}
	b.Drained()
	got = append(got, b.Break(w))
	if want := []bool{true, false, true}; fmt.Sprint(got) != fmt.Sprint(want) || writes != 2 {
		return fmt.Errorf("Break, Break, Drained, Break wrote %v (%d writes), want %v", got, writes, want)
	}
	return nil
}
