package netpoll_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/watchdog"
	"github.com/schedkit/schedkit/netpoll"
)

// Bar item 4: real goroutines on real Descs in a real Table. Four slots
// each hold a Desc with a reader and a writer looping Wait on it; a poller
// delivers events for tags picked at random, the current ones and, one
// time in eight, a tag of a Desc freed since (its slot may hold another
// now); a deadline goroutine arms, expires and clears deadlines; a churner
// closes a slot's Desc (its waiters leave with ErrClosing), frees it and
// opens a new one in the slot, with new waiters. Every W a Waiter() made
// is an item: readied exactly once if its park was committed, never if
// not; no event reaches a Desc its tag was not given to; no direction
// consumes more events than were delivered to it.

const stressSlots = 4

// stressW is one wait's W: its committed park, and the readies it got.
type stressW struct {
	ch        chan struct{}
	committed atomic.Bool
	readies   atomic.Int32
}

type stressParker struct{ res *stressResult }

func (p stressParker) Waiter() *stressW {
	w := &stressW{ch: make(chan struct{}, 1)}
	p.res.mu.Lock()
	p.res.ws = append(p.res.ws, w)
	p.res.mu.Unlock()
	return w
}

func (p stressParker) Park(w *stressW, committed bool) {
	if committed {
		w.committed.Store(true)
		<-w.ch
	}
}

func stressReady(w *stressW) {
	w.readies.Add(1)
	select {
	case w.ch <- struct{}{}:
	default: // a second ready: counted, and checked at the end
	}
}

// descStats is one Desc's tally per direction.
type descStats struct{ delivered, consumed [2]atomic.Int64 }

type stressResult struct {
	mu    sync.Mutex
	ws    []*stressW
	stats []*descStats

	staleHits                                      atomic.Int64 // events that reached a Desc other than their tag's
	events, staleTags, dropped, expired, deadlined atomic.Int64
	churns                                         atomic.Int64
}

// pollSlot is one slot's current Desc, its tag and its waiters.
type pollSlot struct {
	mu      sync.Mutex
	d       *netpoll.Desc[*stressW]
	tag     uint64
	st      *descStats
	waiters sync.WaitGroup
}

// runPollStress delivers about events events and returns the tally.
func runPollStress(events int, seed uint64) *stressResult {
	res := &stressResult{}
	var tab netpoll.Table[*stressW]
	var regMu sync.Mutex
	issued := map[uint64]*netpoll.Desc[*stressW]{} // every tag, to the Desc it was given to
	statsOf := map[*netpoll.Desc[*stressW]]*descStats{}
	var old []uint64 // freed tags
	p := stressParker{res}

	open := func(s *pollSlot) { // s.mu is held
		s.d = new(netpoll.Desc[*stressW])
		s.st = new(descStats)
		s.tag = tab.Open(s.d)
		regMu.Lock()
		issued[s.tag] = s.d
		statsOf[s.d] = s.st
		res.stats = append(res.stats, s.st)
		regMu.Unlock()
		for dir, m := range []netpoll.Mode{netpoll.Read, netpoll.Write} {
			d, st := s.d, s.st
			s.waiters.Go(func() {
				for {
					err := d.Wait(m, p)
					switch {
					case err == nil:
						st.consumed[dir].Add(1)
					case errors.Is(err, netpoll.ErrClosing):
						return
					default: // the deadline: wait for the deadline goroutine to clear it
						res.deadlined.Add(1)
						runtime.Gosched()
					}
				}
			})
		}
	}
	closeSlot := func(s *pollSlot) { // s.mu is held
		s.d.Close(stressReady)
		s.waiters.Wait()
		tab.Free(s.d)
		regMu.Lock()
		old = append(old, s.tag)
		regMu.Unlock()
	}
	var slots [stressSlots]*pollSlot
	for i := range slots {
		slots[i] = &pollSlot{}
		slots[i].mu.Lock()
		open(slots[i])
		slots[i].mu.Unlock()
	}

	var done atomic.Bool
	var helpers sync.WaitGroup
	helpers.Go(func() { // deadlines
		rng := rand.New(rand.NewPCG(seed, 1))
		for !done.Load() {
			s := slots[rng.IntN(stressSlots)]
			s.mu.Lock()
			d := s.d
			s.mu.Unlock()
			m := []netpoll.Mode{netpoll.Read, netpoll.Write, netpoll.ReadWrite}[rng.IntN(3)]
			if rng.IntN(4) == 0 {
				d.SetDeadline(m, netpoll.Expired, stressReady)
			} else {
				seq := d.SetDeadline(m, netpoll.Pending, stressReady)
				runtime.Gosched()
				if rng.IntN(2) == 0 && d.Expire(m, seq, stressReady) {
					res.expired.Add(1)
				}
			}
			runtime.Gosched()
			d.SetDeadline(m, netpoll.NoDeadline, stressReady)
			for range 4 {
				runtime.Gosched()
			}
		}
	})
	helpers.Go(func() { // churn
		rng := rand.New(rand.NewPCG(seed, 2))
		for !done.Load() {
			s := slots[rng.IntN(stressSlots)]
			s.mu.Lock()
			closeSlot(s)
			open(s)
			s.mu.Unlock()
			res.churns.Add(1)
			for range 64 {
				runtime.Gosched()
			}
		}
	})

	stop := watchdog.Start(fmt.Sprintf("netpoll stress (seed %d, %d events)", seed, events), stressDeadline(), func() string {
		return fmt.Sprintf("%d events delivered, %d churns", res.events.Load(), res.churns.Load())
	})
	defer stop()
	rng := rand.New(rand.NewPCG(seed, 0))
	for range events { // the poller
		var tag uint64
		regMu.Lock()
		if len(old) > 0 && rng.IntN(8) == 0 {
			tag = old[rng.IntN(len(old))]
			res.staleTags.Add(1)
		}
		regMu.Unlock()
		if tag == 0 {
			s := slots[rng.IntN(stressSlots)]
			s.mu.Lock()
			tag = s.tag
			s.mu.Unlock()
		}
		res.events.Add(1)
		d := tab.Lookup(tag)
		if d == nil {
			res.dropped.Add(1)
			continue
		}
		regMu.Lock()
		owner, st := issued[tag], statsOf[d]
		regMu.Unlock()
		if owner != d {
			res.staleHits.Add(1)
			continue
		}
		m := []netpoll.Mode{netpoll.Read, netpoll.Write, netpoll.ReadWrite}[rng.IntN(3)]
		for dir, md := range []netpoll.Mode{netpoll.Read, netpoll.Write} {
			if m&md != 0 {
				st.delivered[dir].Add(1) // before Ready: a waiter may consume it at once
			}
		}
		d.Ready(m, false, stressReady)
		if rng.IntN(16) == 0 {
			runtime.Gosched()
		}
	}
	done.Store(true)
	helpers.Wait()
	for _, s := range slots {
		s.mu.Lock()
		closeSlot(s)
		s.mu.Unlock()
	}
	return res
}

// checkPollStress judges a run.
func checkPollStress(res *stressResult) error {
	var errs []error
	lost, doubled, spurious := 0, 0, 0
	for _, w := range res.ws {
		n := w.readies.Load()
		switch {
		case w.committed.Load() && n == 0:
			lost++
		case n > 1:
			doubled++
		case !w.committed.Load() && n > 0:
			spurious++
		}
	}
	if lost+doubled+spurious > 0 {
		errs = append(errs, fmt.Errorf("of %d waits: %d parks never readied, %d readied more than once, %d readied without a park",
			len(res.ws), lost, doubled, spurious))
	}
	if n := res.staleHits.Load(); n > 0 {
		errs = append(errs, fmt.Errorf("%d events reached a Desc their tag was not given to", n))
	}
	for i, st := range res.stats {
		for dir := range 2 {
			if c, d := st.consumed[dir].Load(), st.delivered[dir].Load(); c > d {
				errs = append(errs, fmt.Errorf("Desc %d direction %d consumed %d events of %d delivered", i, dir, c, d))
			}
		}
	}
	return errors.Join(errs...)
}

// stressDeadline bounds one stress run: generous, since it guards against
// hangs and measures nothing.
func stressDeadline() time.Duration {
	if testing.Short() {
		return time.Minute
	}
	return 5 * time.Minute
}

func stressEvents() int {
	switch {
	case testing.Short() && raceBuild:
		return 10_000
	case testing.Short():
		return 30_000
	}
	return 1_000_000
}

func TestStressExactlyOnce(t *testing.T) {
	n := stressEvents()
	seed := rand.Uint64()
	res := runPollStress(n, seed)
	if err := checkPollStress(res); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	parks := 0
	for _, w := range res.ws {
		if w.committed.Load() {
			parks++
		}
	}
	var consumed int64
	for _, st := range res.stats {
		consumed += st.consumed[0].Load() + st.consumed[1].Load()
	}
	t.Logf("stress paths (seed %d): %d events (%d with a freed tag, %d dropped), %d waits, %d parks, %d consumed, %d deadlines expired by their timer, %d waits failed by a deadline, %d churns",
		seed, res.events.Load(), res.staleTags.Load(), res.dropped.Load(), len(res.ws), parks, consumed,
		res.expired.Load(), res.deadlined.Load(), res.churns.Load())
	if parks == 0 || consumed == 0 || res.churns.Load() == 0 || res.staleTags.Load() == 0 {
		t.Errorf("the run missed a path: no park, no event consumed, no churn or no stale tag")
	}
}

// TestStressCheckerCatchesLoss proves the tally can fail: a park never
// readied, one readied twice, and an event to the wrong Desc.
func TestStressCheckerCatchesLoss(t *testing.T) {
	res := &stressResult{}
	for _, c := range []struct {
		committed bool
		readies   int32
	}{{true, 0}, {true, 2}, {false, 1}, {true, 1}} {
		w := &stressW{}
		w.committed.Store(c.committed)
		w.readies.Store(c.readies)
		res.ws = append(res.ws, w)
	}
	err := checkPollStress(res)
	if err == nil {
		t.Fatal("a lost, a doubled and a spurious ready passed")
	}
	t.Logf("caught: %v", err)
	res.ws = res.ws[3:]
	res.staleHits.Store(1)
	if err := checkPollStress(res); err == nil {
		t.Fatal("a stale event passed")
	}
}
