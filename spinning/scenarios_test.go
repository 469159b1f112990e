package spinning_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/spinning"
)

// Fixed scenarios: short sequential runs of the real API, each aimed at one
// step of the protocol (and at the seeded mutation that breaks it), each
// returning an error naming what went wrong. TestScenarios runs them on the
// real code; the kill matrix runs them as its deterministic "scenarios"
// checker (the same verdict on every run: no goroutines, no clock).

type scenario struct {
	name   string
	target string // the mutation of mutation.go this scenario is aimed at
	run    func() error
}

// scene is a Sched over a counted queue, built for one scenario.
type scene struct {
	s *spinning.Sched
	q *queue
}

func newScene(procs int) (*scene, error) {
	q := new(queue)
	s, err := spinning.New(spinning.Config{Procs: procs, Work: q.has})
	return &scene{s: s, q: q}, err
}

// running returns a new M holding a P; spin makes it spinning.
func (sc *scene) running(spin bool) (*spinning.M, error) {
	m := sc.s.NewM()
	if !m.AcquireP() {
		return nil, errors.New("set-up: no idle P")
	}
	if spin {
		spinning.ForceSpinning(m)
	}
	return m, nil
}

// parked returns a new M parked on the idle list.
func (sc *scene) parked() (*spinning.M, error) {
	m := sc.s.NewM()
	if got := spinning.StopMBegin(m); got != "parked" {
		return nil, fmt.Errorf("set-up: StopM did %s, want parked", got)
	}
	return m, nil
}

// wokenSpinning reports an error unless m was woken to spin.
func wokenSpinning(m *spinning.M, what string) error {
	woken, ok := spinning.StopMPoll(m)
	switch {
	case !woken:
		return fmt.Errorf("%s: the parked M was not woken", what)
	case !ok || !m.Spinning():
		return fmt.Errorf("%s: the M was woken with ok %v, spinning %v; want a spinner", what, ok, m.Spinning())
	}
	return nil
}

// twoParked makes a Sched of procs Ps with a keep-alive of an hour (the
// scenarios run its expiry themselves) and parks two Ms, m1 last.
func twoParked(procs int) (s *spinning.Sched, m0, m1 *spinning.M, err error) {
	q := new(queue)
	if s, err = spinning.New(spinning.Config{Procs: procs, Work: q.has, NeedM: func() {}, KeepAlive: time.Hour}); err != nil {
		return nil, nil, nil, err
	}
	sc := &scene{s: s, q: q}
	m0, err = sc.parked()
	m1, err2 := sc.parked()
	return s, m0, m1, must(err, err2)
}

// must runs the set-up steps of a scenario, returning the first error.
func must(errs ...error) error { return errors.Join(errs...) }

var scenarios = []scenario{
	{"a keep-alive that runs out after a StartM popped the M stays", "ExitIgnoresWake", func() error {
		s, m0, m1, err := twoParked(1)
		if err != nil {
			return err
		}
		s.Wakep() // pops m1 (parked last) and hands it the P to spin
		if spinning.KeepAliveExpire(m1) {
			return errors.New("an M handed a P while its keep-alive ran out exited (its P went with it)")
		}
		if err := wokenSpinning(m1, "after the expired keep-alive"); err != nil {
			return err
		}
		if !spinning.KeepAliveExpire(m0) || !m0.Exited() {
			return errors.New("an idle M beyond the one P did not exit when its keep-alive ran out")
		}
		if n := spinning.NMAlive(s); n != 1 || s.NMFreed() != 1 {
			return fmt.Errorf("%d Ms alive, %d freed after one exit of two, want 1 and 1", n, s.NMFreed())
		}
		return spinning.Validate(s)
	}},
	{"an M parked while the Ps needed it exits after a retire", "NeededMUntimed", func() error {
		s, m0, m1, err := twoParked(2)
		if err != nil {
			return err
		}
		if spinning.Timed(m0) || spinning.Timed(m1) {
			return errors.New("an M parked with no more Ms than Ps sleeps with a timer (the steady state should pay nothing)")
		}
		if !s.RetireP(1) {
			return errors.New("set-up: RetireP of an idle P did not retire it")
		}
		for i, m := range []*spinning.M{m0, m1} {
			if woken, rearmed := spinning.StopMRearm(m); !woken || !rearmed || !spinning.Timed(m) {
				return fmt.Errorf("after RetireP left one P for two idle Ms, M %d: woken %v, parked again %v, timed %v; want all three (else it may stay alive beyond the Ps)", i, woken, rearmed, spinning.Timed(m))
			}
		}
		if !spinning.KeepAliveExpire(m1) || !m1.Exited() {
			return errors.New("an M parked again beyond the one P did not exit at its keep-alive's end")
		}
		if spinning.KeepAliveExpire(m0) || spinning.Timed(m0) {
			return errors.New("the last M, which the one P needs, exited or kept its timer")
		}
		if n := spinning.NMAlive(s); n != 1 {
			return fmt.Errorf("%d Ms alive after the retire and the keep-alive, want 1", n)
		}
		return spinning.Validate(s)
	}},
	{"drop re-checks the queue", "DropWithoutRecheck", func() error {
		sc, err := newScene(2)
		m, err2 := sc.running(true)
		if err := must(err, err2); err != nil {
			return err
		}
		if !m.ReleaseP() {
			return errors.New("ReleaseP of a spinning M returned false")
		}
		sc.q.push() // published after the M's last look, before its drop
		if !m.DropSpinning() {
			return errors.New("DropSpinning did not see work published before it decremented: it must re-check")
		}
		if !m.Spinning() || m.P() == spinning.NoP {
			return fmt.Errorf("after a re-check that found work: spinning %v, P %d; want spinning with a P", m.Spinning(), m.P())
		}
		return spinning.Validate(sc.s)
	}},
	{"submit publishes before it wakes", "WakepBeforePublish", func() error {
		sc, err := newScene(2)
		idle, err2 := sc.parked()
		if err := must(err, err2); err != nil {
			return err
		}
		var early error
		sc.s.Submit(func() {
			if !idle.Idle() || sc.s.NMSpinning() != 0 {
				early = errors.New("Submit woke an M before it published the work")
			}
			sc.q.push()
		})
		if early != nil {
			return early
		}
		return wokenSpinning(idle, "Submit")
	}},
	{"the last spinner wakes another", "NoWakeOnLastSpinner", func() error {
		sc, err := newScene(2)
		m, err2 := sc.running(true)
		idle, err3 := sc.parked()
		if err := must(err, err2, err3); err != nil {
			return err
		}
		m.ResetSpinning()
		return wokenSpinning(idle, "ResetSpinning of the last spinner")
	}},
	{"ResetSpinning uncounts the M", "CountLeak", func() error {
		sc, err := newScene(4)
		a, err2 := sc.running(true)
		b, err3 := sc.running(true)
		if err := must(err, err2, err3); err != nil {
			return err
		}
		a.ResetSpinning() // b still spins: no Wakep, no new count
		if n := sc.s.NMSpinning(); n != 1 {
			return fmt.Errorf("nmspinning = %d after one of two spinners reset, want 1", n)
		}
		b.ResetSpinning()
		if n := sc.s.NMSpinning(); n != 1 {
			return fmt.Errorf("nmspinning = %d after the last spinner reset and woke one (no idle M: a handoff), want 1", n)
		}
		return spinning.Validate(sc.s)
	}},
	{"ReleaseP answers needspinning", "NoNeedSpinning", func() error {
		sc, err := newScene(1)
		m, err2 := sc.running(false)
		if err := must(err, err2); err != nil {
			return err
		}
		sc.q.push()
		sc.s.Wakep() // no idle P: needspinning
		if !spinning.NeedSpinning(sc.s) {
			return errors.New("Wakep found no idle P but did not set needspinning")
		}
		if m.ReleaseP() {
			return errors.New("a non-spinning M idled its P while needspinning was set; it must spin instead")
		}
		if !m.Spinning() {
			return errors.New("ReleaseP answered needspinning but the M is not spinning")
		}
		return spinning.Validate(sc.s)
	}},
	{"the drop sets needspinning", "DropNoNeedSpinning", func() error {
		// M a spins and gives up P 0; M c, back from a blocking call, takes
		// it without spinning; b holds P 1 and found nothing.
		sc, err := newScene(2)
		a, err2 := sc.running(true)
		b, err3 := sc.running(false)
		if err := must(err, err2, err3); err != nil {
			return err
		}
		if !a.ReleaseP() {
			return errors.New("ReleaseP of a spinning M returned false")
		}
		c := sc.s.NewM()
		if !c.AcquireP() {
			return errors.New("AcquireP found no idle P after a ReleaseP")
		}
		sc.q.push()
		if a.DropSpinning() {
			return errors.New("DropSpinning took a P although none was idle")
		}
		if !spinning.NeedSpinning(sc.s) {
			return errors.New("the drop's re-check found work and no idle P but did not set needspinning")
		}
		if b.ReleaseP() {
			return errors.New("M b idled its P beside queued work: needspinning must make it spin")
		}
		return spinning.Validate(sc.s)
	}},
	{"HandoffP answers needspinning", "HandoffNoNeedSpinning", func() error {
		// m holds P 0 and is about to block; y spins on P 1. x spins on P 2
		// and gives it up, c takes it without spinning, and x's re-check
		// finds work and no idle P: needspinning. c takes that work. Now
		// HandoffP sees no work and a spinner, so it goes to the lock, where
		// needspinning must make it start a spinner, not idle the P.
		sc, err := newScene(3)
		m, err2 := sc.running(false)
		_, err3 := sc.running(true)
		x, err4 := sc.running(true)
		idle, err5 := sc.parked()
		if err := must(err, err2, err3, err4, err5); err != nil {
			return err
		}
		if !x.ReleaseP() {
			return errors.New("ReleaseP of a spinning M returned false")
		}
		if !sc.s.NewM().AcquireP() {
			return errors.New("AcquireP found no idle P after a ReleaseP")
		}
		sc.q.push()
		if x.DropSpinning() || !spinning.NeedSpinning(sc.s) {
			return errors.New("the drop's re-check found work and no idle P but did not set needspinning")
		}
		sc.q.n.Add(-1) // taken
		m.HandoffP()
		if err := wokenSpinning(idle, "HandoffP with needspinning set"); err != nil {
			return err
		}
		if spinning.NeedSpinning(sc.s) {
			return errors.New("HandoffP started a spinner but left needspinning set")
		}
		return spinning.Validate(sc.s)
	}},
}

// runScenarios runs every scenario, and the explored ones where the build
// has schedcheck, and joins their errors, for the kill matrix.
func runScenarios() error {
	var errs []error
	for _, sc := range scenarios {
		if err := sc.run(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", sc.name, err))
		}
	}
	if err := exploreScenarios(); err != nil && !errors.Is(err, explore.ErrNoSchedcheck) {
		errs = append(errs, fmt.Errorf("wakep order: %w", err))
	}
	return errors.Join(errs...)
}

func TestScenarios(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			if err := sc.run(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// wakepOrderRun is a fixed two-thread scenario, explored exhaustively under
// -tags schedcheck, aimed at Wakep's order when it finds no idle P: it
// gives its count back before it sets needspinning. An observer that sees
// needspinning set must then see nmspinning 0 (no other M spins here);
// with the flag set first, an M starting to spin in between would clear
// it while the count still tells its ResetSpinning's Wakep that help is
// coming.
func wakepOrderRun() explore.Run {
	s, err := spinning.New(spinning.Config{Procs: 1, Work: func() bool { return false }})
	if err != nil {
		panic(err)
	}
	explore.Name(s, "sched")
	if !s.NewM().AcquireP() { // the only P is busy
		panic("set-up: no P")
	}
	var sawNeed bool
	var sawCount int
	return explore.Run{
		Threads: []func(){
			s.Wakep,
			func() {
				if sawNeed = spinning.NeedSpinning(s); sawNeed {
					sawCount = s.NMSpinning()
				}
			},
		},
		Check: func() error {
			if sawNeed && sawCount != 0 {
				return fmt.Errorf("needspinning was set while Wakep still held its count (nmspinning = %d)", sawCount)
			}
			if !spinning.NeedSpinning(s) || s.NMSpinning() != 0 {
				return fmt.Errorf("after Wakep with no idle P: needspinning %v, nmspinning %d; want true, 0",
					spinning.NeedSpinning(s), s.NMSpinning())
			}
			return nil
		},
	}
}

// exploreScenarios runs the fixed explored scenarios; without schedcheck
// it reports explore.ErrNoSchedcheck.
func exploreScenarios() error {
	res, err := explore.Explore(explore.Options{Name: "spinning-wakep-order", Bound: explore.Unbounded}, wakepOrderRun)
	if err != nil {
		return err
	}
	if res.Failure != nil {
		return errors.New(res.Failure.String())
	}
	return nil
}

func TestScenarioWakepOrder(t *testing.T) {
	if err := exploreScenarios(); errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip(err)
	} else if err != nil {
		t.Fatal(err)
	}
}
