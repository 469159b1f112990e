package netpoll_test

import (
	"errors"
	"fmt"
	"runtime"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/internal/proptest"
	"github.com/schedkit/schedkit/netpoll"
)

// Bar item 2: a Desc, a Table and a Breaker against a sequential model.
// The Desc's two waiters are real goroutines in Wait, stepped by the
// model: the Parker hands control back at Waiter() (the semaphore says
// Wait: published, not yet committed) and at a committed Park, so the
// state machine can deliver an event, close, expire or set a deadline in
// the window between Wait and the commit as well as before the wait and
// after the park, and then let the waiter go on. Only one goroutine runs
// at a time, so every step is deterministic; the model predicts each
// waiter's next stop (parked, back at Waiter() for another round, or
// returned with its error), the semaphores (netpoll.Sem), Err, Waiting,
// which W each call readies, Expire's verdict and SetDeadline's
// generations. The Table is checked against a map of the tags it gave
// (a freed tag looks up nothing, even once its slot is reused) and the
// Breaker against its flag.

// The model's semaphore states, named as netpoll.Sem names them.
const (
	sNil    = "nil"
	sReady  = "ready"
	sWait   = "wait"
	sParked = "parked"
)

// stepW is the W of the model's waiters.
type stepW struct {
	dir  int // 0 read, 1 write
	park int // the waiter's park number
	ch   chan struct{}
}

// report is what a stepped waiter tells the model when it stops.
type report struct {
	kind string // "waiter" (at Waiter()), "parked" or "done"
	err  error  // done: Wait's error
}

// stepWaiter is one direction's waiter goroutine and its handshakes.
type stepWaiter struct {
	dir    int
	mode   netpoll.Mode
	stops  chan report
	resume chan struct{}
	abort  chan struct{}
	parks  int
	w      *stepW // the W of its current park
}

func (s *stepWaiter) tell(r report) {
	select {
	case s.stops <- r:
	case <-s.abort:
		runtime.Goexit()
	}
}

func (s *stepWaiter) Waiter() *stepW {
	s.tell(report{kind: "waiter"})
	select {
	case <-s.resume:
	case <-s.abort:
		runtime.Goexit()
	}
	s.parks++
	s.w = &stepW{dir: s.dir, park: s.parks, ch: make(chan struct{}, 1)}
	return s.w
}

func (s *stepWaiter) Park(w *stepW, committed bool) {
	if !committed {
		return
	}
	s.tell(report{kind: "parked"})
	select {
	case <-w.ch:
	case <-s.abort:
		runtime.Goexit()
	}
}

// phases of a direction's waiter in the model.
const (
	idle   = "idle"   // no Wait in progress
	atWait = "waiter" // stopped in Waiter(): the semaphore was Wait
	parked = "parked" // parked; its W is in the slot
)

// pollModel is the state machine.
type pollModel struct {
	d     *netpoll.Desc[*stepW]
	ws    [2]*stepWaiter
	abort chan struct{}

	// the model
	sem      [2]string
	phase    [2]string
	closing  bool
	dl       [2]netpoll.Deadline
	seq      [2]uint64
	eventErr bool
	timers   []armed // every Pending SetDeadline's (mode, seq), stale or not
	readied  []*stepW

	tab   netpoll.Table[*stepW]
	descs []*netpoll.Desc[*stepW]
	tags  map[uint64]int // every tag the table gave, to its Desc's index
	live  map[int]uint64 // the Descs in the table, to their tags

	brk     netpoll.Breaker
	pending bool // a break write is pending
	writes  int

	stats     *modelStats
	finishing bool
}

type armed struct {
	mode netpoll.Mode
	seq  uint64
}

// modelStats counts how often the state machine reached the paths that
// matter, over all cases of one run.
type modelStats struct {
	cases, consumedAtOnce, commitFailed, parkedReadied, closeWoke, deadlineWoke, staleExpire,
	freed, reused, doubleWait, skippedBreak int
}

var modes = [2]netpoll.Mode{netpoll.Read, netpoll.Write}

func newPollModel(stats *modelStats) *pollModel {
	m := &pollModel{
		d: new(netpoll.Desc[*stepW]), abort: make(chan struct{}), stats: stats,
		sem: [2]string{sNil, sNil}, phase: [2]string{idle, idle},
		tags: map[uint64]int{}, live: map[int]uint64{},
	}
	for i := range m.ws {
		m.ws[i] = &stepWaiter{dir: i, mode: modes[i], stops: make(chan report), resume: make(chan struct{}), abort: m.abort}
	}
	for range 3 {
		m.descs = append(m.descs, new(netpoll.Desc[*stepW]))
	}
	return m
}

func (m *pollModel) ready(w *stepW) { m.readied = append(m.readied, w) }

// errOf is the model's Err(dir).
func (m *pollModel) errOf(i int) error {
	switch {
	case m.closing:
		return netpoll.ErrClosing
	case m.dl[i] == netpoll.Expired:
		return netpoll.ErrDeadline
	case i == 0 && m.eventErr:
		return netpoll.ErrEvent
	}
	return nil
}

// unblock is netpollunblock on the model: it returns whether direction i's
// parked waiter is readied.
func (m *pollModel) unblock(i int, ioready bool) bool {
	old := m.sem[i]
	if old == sReady || old == sNil && !ioready {
		return false
	}
	m.sem[i] = sNil
	if ioready {
		m.sem[i] = sReady
	}
	return old == sParked
}

// wakes checks that the call just made readied exactly the parked waiters
// of the directions in want, wakes them and follows each to its next stop.
func (m *pollModel) wakes(t *rapid.T, call string, want [2]bool) {
	t.Helper()
	got := m.readied
	m.readied = nil
	n := 0
	for i, w := range want {
		if w {
			n++
			if m.phase[i] != parked {
				t.Fatalf("%s: the model readies direction %d's waiter, which is %s", call, i, m.phase[i])
			}
		}
	}
	if len(got) != n {
		t.Fatalf("%s readied %d waiters, the model %d (%v)", call, len(got), n, want)
	}
	for _, w := range got {
		if !want[w.dir] || w != m.ws[w.dir].w {
			t.Fatalf("%s readied direction %d's park %d, which the model does not ready", call, w.dir, w.park)
		}
	}
	for _, w := range got {
		w.ch <- struct{}{}
		m.phase[w.dir] = idle // running; follow decides where it stops
		m.stats.parkedReadied++
		m.follow(t, w.dir, call+" then the woken waiter")
	}
}

// follow predicts where direction i's running waiter stops next, from the
// Swap after a park (or a failed commit), and checks it does.
func (m *pollModel) follow(t *rapid.T, i int, after string) {
	t.Helper()
	old := m.sem[i]
	m.sem[i] = sNil
	switch {
	case old == sReady:
		m.expect(t, i, after, report{kind: "done"})
	case m.errOf(i) != nil:
		m.expect(t, i, after, report{kind: "done", err: m.errOf(i)})
	default:
		m.sem[i] = sWait // block again: Nil -> Wait, no error
		m.expect(t, i, after, report{kind: "waiter"})
	}
}

// expect receives direction i's waiter's next stop and compares it.
func (m *pollModel) expect(t *rapid.T, i int, after string, want report) {
	t.Helper()
	got := <-m.ws[i].stops
	if got.kind != want.kind || !errors.Is(got.err, want.err) || (got.err == nil) != (want.err == nil) {
		t.Fatalf("after %s: direction %d's waiter stopped %s (err %v), the model says %s (err %v)",
			after, i, got.kind, got.err, want.kind, want.err)
	}
	switch want.kind {
	case "done":
		m.phase[i] = idle
	case "waiter":
		m.phase[i] = atWait
	case "parked":
		m.phase[i] = parked
	}
}

func (m *pollModel) check(t *rapid.T, after string) {
	t.Helper()
	for i, md := range modes {
		if got := netpoll.Sem(m.d, md); got != m.sem[i] {
			t.Fatalf("after %s: direction %d's semaphore says %s, the model %s", after, i, got, m.sem[i])
		}
		if got, want := m.d.Err(md), m.errOf(i); !errors.Is(got, want) || (got == nil) != (want == nil) {
			t.Fatalf("after %s: Err(%d) = %v, the model %v", after, i, got, want)
		}
		if got, want := m.d.Waiting(md), m.sem[i] == sWait || m.sem[i] == sParked; got != want {
			t.Fatalf("after %s: Waiting(%d) = %v, the model %v", after, i, got, want)
		}
	}
	for tag, k := range m.tags {
		want := m.descs[k]
		if m.live[k] != tag {
			want = nil
		}
		if got := m.tab.Lookup(tag); got != want {
			t.Fatalf("after %s: Lookup(%#x) found %s, the model %s (the tag was Desc %d's)", after, tag, m.descName(got), m.descName(want), k)
		}
	}
	if got := m.tab.Len(); got != len(m.live) {
		t.Fatalf("after %s: the table's Len() = %d, the model %d", after, got, len(m.live))
	}
}

// descName names one of the table's Descs for a message.
func (m *pollModel) descName(d *netpoll.Desc[*stepW]) string {
	for k, e := range m.descs {
		if e == d {
			return fmt.Sprintf("Desc %d", k)
		}
	}
	return "nothing"
}

func pickMode(t *rapid.T, both bool) netpoll.Mode {
	if both {
		return rapid.SampledFrom([]netpoll.Mode{netpoll.Read, netpoll.Write, netpoll.ReadWrite}).Draw(t, "mode")
	}
	return rapid.SampledFrom(modes[:]).Draw(t, "mode")
}

func dirs(md netpoll.Mode) []int {
	switch md {
	case netpoll.Read:
		return []int{0}
	case netpoll.Write:
		return []int{1}
	}
	return []int{0, 1}
}

func (m *pollModel) actions() map[string]func(*rapid.T) {
	acts := map[string]func(*rapid.T){
		"Wait": func(t *rapid.T) {
			md := pickMode(t, false)
			i := dirs(md)[0]
			if m.phase[i] != idle {
				if m.errOf(i) != nil || m.sem[i] != sWait && m.sem[i] != sParked {
					// Close or an event moved the word under a waiter that
					// has not committed: a second Wait would not panic but
					// consume or wait, which only the waiter may do.
					t.Skip("a second Wait is only a misuse the Desc can see while the word says Wait or Parked")
				}
				proptest.ExpectPanic(t, "a second Wait in one direction", "two waiters at once", func() { _ = m.d.Wait(md, m.ws[i]) })
				m.stats.doubleWait++
				return
			}
			w := m.ws[i]
			go func() { w.tell(report{kind: "done", err: m.d.Wait(md, w)}) }()
			switch {
			case m.errOf(i) != nil:
				m.expect(t, i, "Wait", report{kind: "done", err: m.errOf(i)})
			case m.sem[i] == sReady:
				m.sem[i] = sNil
				m.stats.consumedAtOnce++
				m.expect(t, i, "Wait", report{kind: "done"})
			default:
				m.sem[i] = sWait
				m.expect(t, i, "Wait", report{kind: "waiter"})
			}
		},
		"Commit": func(t *rapid.T) { // let a waiter stopped in Waiter() commit
			i := rapid.IntRange(0, 1).Draw(t, "dir")
			if m.phase[i] != atWait {
				t.Skip("no waiter between Wait and its commit")
			}
			m.ws[i].resume <- struct{}{}
			if m.sem[i] == sWait {
				m.sem[i] = sParked
				m.expect(t, i, "the commit", report{kind: "parked"})
				return
			}
			m.stats.commitFailed++
			m.follow(t, i, "a failed commit")
		},
		"Ready": func(t *rapid.T) {
			md := pickMode(t, true)
			errEvent := rapid.Bool().Draw(t, "errEvent")
			m.d.Ready(md, errEvent, m.ready)
			m.eventErr = errEvent
			var want [2]bool
			for _, i := range dirs(md) {
				want[i] = m.unblock(i, true)
			}
			m.wakes(t, "Ready", want)
		},
		"Close": func(t *rapid.T) {
			if !m.closeNow(t) {
				t.Skip("not this time: Close ends the case's waits")
			}
			if m.closing {
				proptest.ExpectPanic(t, "Close twice", "Close called twice", func() { m.d.Close(m.ready) })
				return
			}
			m.d.Close(m.ready)
			m.closing = true
			var want [2]bool
			for i := range want {
				want[i] = m.unblock(i, false)
				if want[i] {
					m.stats.closeWoke++
				}
			}
			m.wakes(t, "Close", want)
		},
		"SetDeadline": func(t *rapid.T) {
			md := pickMode(t, true)
			s := rapid.SampledFrom([]netpoll.Deadline{netpoll.NoDeadline, netpoll.Pending, netpoll.Expired}).Draw(t, "deadline")
			m.setDeadline(t, md, s)
		},
		"Expire": func(t *rapid.T) {
			if rapid.Bool().Draw(t, "arm first") { // the deadline passes before anything moves it
				m.setDeadline(t, pickMode(t, true), netpoll.Pending)
			}
			if len(m.timers) == 0 {
				t.Skip("no timer armed")
			}
			a := m.timers[len(m.timers)-1] // the latest: often still current
			if rapid.Bool().Draw(t, "an older timer") {
				a = rapid.SampledFrom(m.timers).Draw(t, "timer")
			}
			fired := m.d.Expire(a.mode, a.seq, m.ready)
			due := !m.closing
			for _, i := range dirs(a.mode) {
				due = due && m.seq[i] == a.seq
			}
			if fired != due {
				t.Fatalf("Expire(%d, %d) = %v; the model's generations are %v, closing %v", a.mode, a.seq, fired, m.seq, m.closing)
			}
			var want [2]bool
			if !due {
				m.stats.staleExpire++
				m.wakes(t, "a stale Expire", want)
				return
			}
			for _, i := range dirs(a.mode) {
				m.dl[i] = netpoll.Expired
				want[i] = m.unblock(i, false)
				if want[i] {
					m.stats.deadlineWoke++
				}
			}
			m.wakes(t, "Expire", want)
		},
		"Reset": func(t *rapid.T) {
			md := pickMode(t, false)
			i := dirs(md)[0]
			if m.phase[i] != idle {
				t.Skip("Reset is the direction's own waiter's, before a wait")
			}
			err, want := m.d.Reset(md), m.errOf(i)
			if !errors.Is(err, want) || (err == nil) != (want == nil) {
				t.Fatalf("Reset(%d) = %v, the model %v", md, err, want)
			}
			if want == nil && m.sem[i] == sReady {
				m.sem[i] = sNil
			}
		},
		"Open": func(t *rapid.T) {
			k := rapid.IntRange(0, len(m.descs)-1).Draw(t, "desc")
			if _, ok := m.live[k]; ok {
				proptest.ExpectPanic(t, "Open twice", "in a table already", func() { m.tab.Open(m.descs[k]) })
				return
			}
			tag := m.tab.Open(m.descs[k])
			if _, seen := m.tags[tag]; seen || tag == 0 {
				t.Fatalf("Open gave tag %#x, given before", tag)
			}
			for old := range m.tags {
				if uint32(old) == uint32(tag) {
					m.stats.reused++
					break
				}
			}
			if got := m.descs[k].Tag(); got != tag {
				t.Fatalf("Open returned %#x, the Desc's Tag() is %#x", tag, got)
			}
			m.tags[tag], m.live[k] = k, tag
		},
		"Free": func(t *rapid.T) {
			k := rapid.IntRange(0, len(m.descs)-1).Draw(t, "desc")
			_, ok := m.live[k]
			if got := m.tab.Free(m.descs[k]); got != ok {
				t.Fatalf("Free of Desc %d = %v, the model has it in the table: %v", k, got, ok)
			}
			if ok {
				m.stats.freed++
			}
			delete(m.live, k)
		},
		"Break": func(t *rapid.T) {
			wrote := m.brk.Break(func() { m.writes++ })
			if wrote == m.pending {
				t.Fatalf("Break wrote %v with a write pending: %v", wrote, m.pending)
			}
			if !wrote {
				m.stats.skippedBreak++
			}
			m.pending = true
		},
		"Drained": func(t *rapid.T) {
			m.brk.Drained()
			m.pending = false
		},
		"": func(t *rapid.T) { m.check(t, "an action") },
	}
	// The waiter's steps and the events weigh more than the rest: a case
	// is a few dozen actions, and the races are between these.
	for _, k := range []string{"Wait", "Commit", "Ready", "Expire"} {
		acts[k+" "] = acts[k]
	}
	return acts
}

// setDeadline is SetDeadline(md, s) on the Desc and the model.
func (m *pollModel) setDeadline(t *rapid.T, md netpoll.Mode, s netpoll.Deadline) {
	seq := m.d.SetDeadline(md, s, m.ready)
	var want [2]bool
	if m.closing {
		if seq != 0 {
			t.Fatalf("SetDeadline on a closing Desc returned %d, want 0", seq)
		}
		m.wakes(t, "SetDeadline", want)
		return
	}
	for _, i := range dirs(md) {
		m.dl[i] = s
		m.seq[i]++
	}
	if md == netpoll.ReadWrite {
		m.seq[0] = max(m.seq[0], m.seq[1])
		m.seq[1] = m.seq[0]
	}
	if w := m.seq[dirs(md)[0]]; seq != w {
		t.Fatalf("SetDeadline(%d, %d) returned generation %d, the model %d", md, s, seq, w)
	}
	if s == netpoll.Pending {
		m.timers = append(m.timers, armed{md, seq})
	}
	if s == netpoll.Expired {
		for _, i := range dirs(md) {
			want[i] = m.unblock(i, false)
			if want[i] {
				m.stats.deadlineWoke++
			}
		}
	}
	m.wakes(t, "SetDeadline", want)
}

// closeNow draws whether a Close action closes: one time in eight, so that
// most of a case's events, deadlines and waits come before it.
func (m *pollModel) closeNow(t *rapid.T) bool {
	return m.finishing || rapid.IntRange(0, 7).Draw(t, "close now") == 0
}

// finish ends the case: Close (if the case did not) readies what is
// parked, and a waiter stopped in Waiter() commits and fails; each must
// return ErrClosing. The abort channel ends any waiter a failure left
// behind.
func (m *pollModel) finish(t *rapid.T) {
	defer close(m.abort)
	if !m.closing {
		m.finishing = true
		m.actions()["Close"](t)
	}
	for i := range m.phase {
		if m.phase[i] == atWait {
			m.ws[i].resume <- struct{}{}
			m.follow(t, i, "the final commit")
		}
		if m.phase[i] != idle {
			t.Fatalf("direction %d's waiter is %s after Close", i, m.phase[i])
		}
	}
	m.check(t, "the final Close")
}

// checkPollModel is the model property.
func checkPollModel(t *rapid.T, stats *modelStats) {
	stats.cases++
	m := newPollModel(stats)
	defer func() {
		select {
		case <-m.abort:
		default:
			close(m.abort) // a failure: end the waiters
		}
	}()
	t.Repeat(m.actions())
	m.finish(t)
}

func TestPollModel(t *testing.T) {
	var stats modelStats
	// A deadline that readies a parked waiter needs a Wait, its commit and
	// a current timer in a row: 0 to 7 times in 100 cases (12 runs), so
	// without -short three runs of rapid's cases (9 to 20 in 10 runs) keep
	// the coverage check below from failing by chance.
	runs := 3
	if testing.Short() {
		runs = 1
	}
	for range runs {
		rapid.Check(t, func(t *rapid.T) { checkPollModel(t, &stats) })
	}
	t.Logf("netpoll model coverage: %+v", stats)
	if !testing.Short() && (stats.consumedAtOnce == 0 || stats.commitFailed == 0 || stats.parkedReadied == 0 ||
		stats.closeWoke == 0 || stats.deadlineWoke == 0 || stats.staleExpire == 0 || stats.reused == 0 ||
		stats.doubleWait == 0 || stats.skippedBreak == 0) {
		t.Errorf("the state machine missed a path: %+v", stats)
	}
	t.Logf("netpoll model: %d checks passed", stats.cases)
}
