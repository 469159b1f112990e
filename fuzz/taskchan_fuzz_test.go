package fuzz_test

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/fuzz"
	"github.com/schedkit/schedkit/taskchan"
)

// FuzzTaskChan drives 1 to 4 task channels (channel i buffers i values)
// from one goroutine with their non-blocking operations, each beside a Go
// channel of the same capacity as the model: TrySend, TryRecv, Close, Len,
// and a select with a default that receives from one channel and sends on
// the next. A select with both cases ready may choose either (Go's choice
// is random too): the model then takes the case the task channel chose,
// which must have been ready on the Go channels, and a default is right
// only if neither was. Misuse (a send on a closed channel, a second close)
// must panic with the Go channel's message. Blocking operations and their
// waiters are taskchan's rapid model's (taskchan/model_test.go). Every
// identifier of this file but the tests starts with tc, to stay clear of
// the other targets of the package.

// tcChan is what FuzzTaskChan drives: a *taskchan.Chan[int], or a broken
// wrapper in TestFuzzTaskChanCatchesBrokenChan.
type tcChan interface {
	TrySend(v int) bool
	TryRecv() (v int, ok, ready bool)
	Close()
	Len() int
	// Select is taskchan.Select of a receive from this channel, a send of
	// v on next, and a default.
	Select(next tcChan, v int) (chosen, got int, ok bool)
	raw() *taskchan.Chan[int]
}

type tcReal struct{ c *taskchan.Chan[int] }

func newTCReal(capacity int) tcChan { return tcReal{taskchan.Make[int](capacity)} }

func (r tcReal) TrySend(v int) bool               { return r.c.TrySend(v) }
func (r tcReal) TryRecv() (v int, ok, ready bool) { return r.c.TryRecv() }
func (r tcReal) Close()                           { r.c.Close() }
func (r tcReal) Len() int                         { return r.c.Len() }
func (r tcReal) raw() *taskchan.Chan[int]         { return r.c }

func (r tcReal) Select(next tcChan, v int) (chosen, got int, ok bool) {
	chosen, ok = taskchan.Select(executor.Task{}, r.c.RecvCase(&got), next.raw().SendCase(v), taskchan.Default())
	return chosen, got, ok
}

// The operations of a FuzzTaskChan program. Actor i is channel i.
const (
	tcOpTrySend = iota // arg: the value
	tcOpTryRecv
	tcOpClose
	tcOpLen
	tcOpSelect // arg: the value the send case sends on the next channel
)

var tcSpec = fuzz.Spec{
	MinActors: 1,
	MaxActors: 4,
	Ops: []fuzz.Op{
		tcOpTrySend: {Name: "TrySend", Args: 256},
		tcOpTryRecv: {Name: "TryRecv"},
		tcOpClose:   {Name: "Close"},
		tcOpLen:     {Name: "Len"},
		tcOpSelect:  {Name: "Select", Args: 256},
	},
	MaxSteps: 512,
}

// tcRun is the state of one interpretation.
type tcRun struct {
	cs     []tcChan
	gcs    []chan int
	closed []bool
	seen   map[string]int
}

func interpretTC(data []byte, newChan func(capacity int) tcChan) (map[string]int, error) {
	p := tcSpec.Decode(data)
	m := &tcRun{seen: map[string]int{}}
	for i := range p.Actors {
		m.cs = append(m.cs, newChan(i))
		m.gcs = append(m.gcs, make(chan int, i))
		m.closed = append(m.closed, false)
	}
	return seqSteps(tcSpec, p, "channel", m.seen, m.step, m.check, m.finish)
}

func runTC(data []byte, newChan func(capacity int) tcChan) error {
	_, err := interpretTC(data, newChan)
	return err
}

// tcPanicText is what f panicked with, as text, or "".
func tcPanicText(f func()) string {
	if v := panics(f); v != nil {
		return fmt.Sprint(v)
	}
	return ""
}

func (m *tcRun) check() error {
	for i, c := range m.cs {
		if got, want := c.Len(), len(m.gcs[i]); got != want {
			return fmt.Errorf("channel %d: Len() = %d, the Go channel's %d", i, got, want)
		}
	}
	return nil
}

// goTryRecv is TryRecv on the Go channel.
func goTryRecv(gc chan int) (v int, ok, ready bool) {
	select {
	case v, ok = <-gc:
		return v, ok, true
	default:
		return 0, false, false
	}
}

// goTrySend is TrySend on the Go channel; it panics as a send does on a
// closed channel.
func goTrySend(gc chan int, v int) bool {
	select {
	case gc <- v:
		return true
	default:
		return false
	}
}

func (m *tcRun) step(st fuzz.Step) error {
	c, gc := m.cs[st.Actor], m.gcs[st.Actor]
	switch st.Op {
	case tcOpTrySend:
		var got, want bool
		gotP := tcPanicText(func() { got = c.TrySend(st.Arg) })
		wantP := tcPanicText(func() { want = goTrySend(gc, st.Arg) })
		if gotP != wantP || got != want {
			return fmt.Errorf("TrySend(%d) = %v (panic %q), the Go channel's %v (panic %q)", st.Arg, got, gotP, want, wantP)
		}
		switch {
		case wantP != "":
			m.seen["TrySend closed panics"]++
		case want:
			m.seen["TrySend ok"]++
		default:
			m.seen["TrySend full"]++
		}
	case tcOpTryRecv:
		v, ok, ready := c.TryRecv()
		gv, gok, gready := goTryRecv(gc)
		if v != gv || ok != gok || ready != gready {
			return fmt.Errorf("TryRecv() = (%d, %v, ready %v), the Go channel's (%d, %v, ready %v)", v, ok, ready, gv, gok, gready)
		}
		switch {
		case !ready:
			m.seen["TryRecv empty"]++
		case !ok:
			m.seen["TryRecv closed"]++
		default:
			m.seen["TryRecv value"]++
		}
	case tcOpClose:
		gotP := tcPanicText(c.Close)
		wantP := tcPanicText(func() { close(gc) })
		if gotP != wantP {
			return fmt.Errorf("Close panicked with %q, the Go channel's close with %q", gotP, wantP)
		}
		if wantP != "" {
			m.seen["Close closed panics"]++
		} else {
			m.seen["Close"]++
		}
		m.closed[st.Actor] = true
	case tcOpLen:
		m.seen["Len"]++ // check compares every channel's after each step
	case tcOpSelect:
		return m.sel(st.Actor, st.Arg)
	}
	return nil
}

// sel runs the select on channel a (receive) and the next one (send v),
// and follows its choice on the Go channels.
func (m *tcRun) sel(a, v int) error {
	b := (a + 1) % len(m.cs)
	ga, gb := m.gcs[a], m.gcs[b]
	var chosen, got int
	var ok bool
	gotP := tcPanicText(func() { chosen, got, ok = m.cs[a].Select(m.cs[b], v) })
	recvReady := len(ga) > 0 || m.closed[a]
	sendReady := m.closed[b] || len(gb) < cap(gb)
	if gotP != "" {
		// Only a send case on a closed channel panics, and only if chosen:
		// it was ready (a closed channel's send case always is).
		if !m.closed[b] || gotP != tcPanicText(func() { goTrySend(gb, v) }) {
			return fmt.Errorf("Select panicked with %q (channel %d closed: %v)", gotP, b, m.closed[b])
		}
		m.seen["Select send closed panics"]++
		return nil
	}
	switch chosen {
	case 0:
		gv, gok, gready := goTryRecv(ga)
		if !gready || gv != got || gok != ok {
			return fmt.Errorf("Select received (%d, %v) from channel %d; the Go channel gives (%d, %v, ready %v)", got, ok, a, gv, gok, gready)
		}
		m.seen["Select recv"]++
	case 1:
		if m.closed[b] || !goTrySend(gb, v) {
			return fmt.Errorf("Select sent %d on channel %d, which the Go channel has no room for", v, b)
		}
		m.seen["Select send"]++
	case 2:
		if recvReady || sendReady {
			return fmt.Errorf("Select took the default with the receive ready %v and the send ready %v on the Go channels", recvReady, sendReady)
		}
		m.seen["Select default"]++
	default:
		return fmt.Errorf("Select chose case %d of 3", chosen)
	}
	return nil
}

// finish closes every channel still open and drains each: the values and
// the closed receive must match the Go channel's.
func (m *tcRun) finish() error {
	for i, c := range m.cs {
		if !m.closed[i] {
			c.Close()
			close(m.gcs[i])
			m.closed[i] = true
		}
		for {
			v, ok, ready := c.TryRecv()
			gv, gok, gready := goTryRecv(m.gcs[i])
			if v != gv || ok != gok || ready != gready {
				return fmt.Errorf("draining channel %d: (%d, %v, ready %v), the Go channel's (%d, %v, ready %v)", i, v, ok, ready, gv, gok, gready)
			}
			if !ok {
				break
			}
		}
	}
	return m.check()
}

func tcSeeds() []fuzz.Program {
	s := seqStep
	return []fuzz.Program{
		{Actors: 3, Steps: []fuzz.Step{
			s(0, tcOpTrySend, 1), s(0, tcOpTryRecv, 0), s(1, tcOpTrySend, 2), s(1, tcOpTrySend, 3),
			s(1, tcOpLen, 0), s(1, tcOpTryRecv, 0), s(2, tcOpTrySend, 4), s(2, tcOpTrySend, 5), s(2, tcOpTrySend, 6),
			s(1, tcOpSelect, 7), s(0, tcOpSelect, 8), s(2, tcOpSelect, 9), s(1, tcOpSelect, 10),
			s(1, tcOpClose, 0), s(1, tcOpTryRecv, 0), s(1, tcOpTryRecv, 0), s(1, tcOpTrySend, 11), s(1, tcOpClose, 0),
			s(0, tcOpSelect, 12), s(1, tcOpSelect, 13),
		}},
		{Actors: 2, Steps: []fuzz.Step{
			s(1, tcOpTrySend, 1), s(0, tcOpSelect, 2), s(1, tcOpSelect, 3), s(0, tcOpClose, 0), s(1, tcOpSelect, 4),
			s(0, tcOpSelect, 5),
		}},
	}
}

// FuzzTaskChan runs TrySend, TryRecv, Close, Len and selects with a
// default on 1 to 4 task channels through a program decoded from the
// input; every result is compared with Go channels.
func FuzzTaskChan(f *testing.F) { tcTarget.fuzz(f) }

var tcTarget = seqTarget{spec: tcSpec, seeds: tcSeeds,
	interpret: func(b []byte) (map[string]int, error) { return interpretTC(b, newTCReal) }}

// TestTaskChanSeeds runs the hand-written seeds, requires that together
// they take every path of the model, and logs how far the corpus files
// reach.
func TestTaskChanSeeds(t *testing.T) {
	tcTarget.testSeeds(t, []string{"TrySend ok", "TrySend full", "TrySend closed panics", "TryRecv value",
		"TryRecv empty", "TryRecv closed", "Close", "Close closed panics", "Len",
		"Select recv", "Select send", "Select default", "Select send closed panics"})
}

// Broken channels for TestFuzzTaskChanCatchesBrokenChan.

// tcClosedNotReady's TryRecv says "would block" on a closed, drained
// channel, as if closed and empty were one.
type tcClosedNotReady struct{ tcReal }

func (c tcClosedNotReady) TryRecv() (v int, ok, ready bool) {
	v, ok, ready = c.tcReal.TryRecv()
	return v, ok, ready && ok
}

// tcFullDrops's TrySend on a full buffer says it sent.
type tcFullDrops struct{ tcReal }

func (c tcFullDrops) TrySend(v int) bool { c.tcReal.TrySend(v); return true }

// tcCloseTwice's Close of a closed channel does nothing.
type tcCloseTwice struct{ tcReal }

func (c tcCloseTwice) Close() { _ = panics(c.tcReal.Close) }

// TestFuzzTaskChanCatchesBrokenChan shows FuzzTaskChan's interpreter can
// fail: on the first seed it must report a mismatch for each broken
// channel, and none for the real one.
func TestFuzzTaskChanCatchesBrokenChan(t *testing.T) {
	prog := tcSpec.Encode(tcSeeds()[0])
	if err := runTC(prog, newTCReal); err != nil {
		t.Fatalf("the real channel fails the seed: %v", err)
	}
	wrap := func(f func(tcReal) tcChan) func(int) tcChan {
		return func(capacity int) tcChan { return f(newTCReal(capacity).(tcReal)) }
	}
	catchesBroken(t, "channel", []brokenVariant[func(int) tcChan]{
		{"TryRecv of a closed channel would block", wrap(func(r tcReal) tcChan { return tcClosedNotReady{r} }), "TryRecv()"},
		{"TrySend on a full buffer says it sent", wrap(func(r tcReal) tcChan { return tcFullDrops{r} }), "TrySend("},
		{"a second Close does not panic", wrap(func(r tcReal) tcChan { return tcCloseTwice{r} }), "Close panicked"},
	}, func(_ *testing.T, newChan func(int) tcChan) error { return runTC(prog, newChan) })
}
