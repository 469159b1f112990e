package stealing_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/stealing"
)

// Fixed scenarios, each aimed at one seeded mutation's shape (the kill
// matrix's "scenarios" column, and TestScenarios against the real code).
// Each returns an error naming what broke. They are deterministic: the
// sequential ones drive fake Ps (fakes_test.go) with fixed random numbers,
// the concurrent one is a tiny explorer scenario searched exhaustively at
// preemption bound 1.

// errNoExplorer marks a scenario that needs -tags schedcheck.
var errNoExplorer = killmatrix.ErrNeedsExplorer

type scenario = killmatrix.Scenario

// runScenarios is the kill matrix's "scenarios" checker: the first failure.
func runScenarios(t testing.TB) error { return killmatrix.RunScenarios(t, scenarios) }

func TestScenarios(t *testing.T) { killmatrix.TestScenarios(t, scenarios) }

var scenarios = []scenario{
	{Name: "strides-of-six", Targets: "StrideNotCoprime", Run: scenarioStrides},
	{Name: "runnext-on-the-last-pass", Targets: "RunnextEveryPass, NoRunnextPass", Run: scenarioRunnextLast},
	{Name: "never-from-self", Targets: "StealsFromSelf", Run: scenarioNeverFromSelf},
	{Name: "busy-P-is-visited", Targets: "SkipsNonIdle", Run: scenarioBusyVisited},
	{Name: "pass-visits-every-P", Targets: "PassEndsEarly", Run: scenarioPassVisitsAll},
	{Name: "two-sets-in-one-word", Targets: "IdleMaskNoCAS", Run: scenarioTwoSets},
}

// scenarioStrides: 6 Ps have the strides 1 and 5, and every start with
// each visits all six once.
func scenarioStrides() error {
	var o stealing.Order
	if err := o.Reset(6); err != nil {
		return err
	}
	if got := o.Coprimes(); !slices.Equal(got, []uint32{1, 5}) {
		return fmt.Errorf("the strides of 6 are %v, want [1 5]", got)
	}
	for r := range uint32(12) {
		if p, visits := firstRepeat(o.Start(r), 6); p >= 0 || visits != 6 {
			return fmt.Errorf("Start(%d) visits P %d twice, or %d Ps", r, p, visits)
		}
	}
	return nil
}

// scenarioRunnextLast: the only task anywhere is P 1's runnext task. A
// Steal by P 0 must make every pass, without stealNext but on the last,
// and take the task there.
func scenarioRunnextLast() error {
	ps, log := newFakePs(3)
	task := 7
	ps[1].next = &task
	s, err := stealing.New(ps, nil)
	if err != nil {
		return err
	}
	rand, calls := fixedRand(0, 1, 2, 3)
	if got := s.Steal(0, rand); got != &task {
		return fmt.Errorf("Steal returned %d, want the runnext task 7 (visits %v)", itemID(got), *log)
	}
	if *calls != stealing.StealTries {
		return fmt.Errorf("%d passes, want %d", *calls, stealing.StealTries)
	}
	for i, c := range *log {
		if last := i >= len(*log)-2; c.stealNext != last {
			return fmt.Errorf("visit %d of %v has stealNext %v", i, *log, c.stealNext)
		}
	}
	return nil
}

// scenarioNeverFromSelf: every pass of P 2 over 4 empty Ps visits the 3
// others, never P 2.
func scenarioNeverFromSelf() error {
	ps, log := newFakePs(4)
	s, err := stealing.New(ps, nil)
	if err != nil {
		return err
	}
	rand, _ := fixedRand(2, 6, 7, 10)
	s.Steal(2, rand)
	for _, c := range *log {
		if c.victim == 2 {
			return fmt.Errorf("P 2 stole from itself: %v", *log)
		}
	}
	return nil
}

// scenarioBusyVisited: P 1 holds work, P 2 is idle; P 0's Steal must take
// from P 1 and never look at P 2.
func scenarioBusyVisited() error {
	ps, log := newFakePs(3)
	ps[1].ring = intsFrom(0, 2)
	idle, err := stealing.NewIdleMask(3)
	if err != nil {
		return err
	}
	idle.Set(2)
	s, err := stealing.New(ps, idle)
	if err != nil {
		return err
	}
	rand, _ := fixedRand(2, 2, 2, 2)
	if got := s.Steal(0, rand); itemID(got) != 0 {
		return fmt.Errorf("Steal returned %d, want task 0 from P 1 (visits %v)", itemID(got), *log)
	}
	for _, c := range *log {
		if c.victim == 2 {
			return fmt.Errorf("the pass visited P 2, which is idle: %v", *log)
		}
	}
	return nil
}

// scenarioPassVisitsAll: every pass of P 2 over 5 empty Ps, from every
// start and stride, visits each of the 4 others once.
func scenarioPassVisitsAll() error {
	ps, log := newFakePs(5)
	s, err := stealing.New(ps, nil)
	if err != nil {
		return err
	}
	for r := range uint32(5 * 4) {
		*log = nil
		s.Pass(2, r, false)
		var vs []int
		for _, c := range *log {
			vs = append(vs, c.victim)
		}
		slices.Sort(vs)
		if !slices.Equal(vs, []int{0, 1, 3, 4}) {
			return fmt.Errorf("Pass(2, %d) visited %v, want each of 0, 1, 3, 4 once", r, *log)
		}
	}
	return nil
}

// scenarioTwoSets: two Ps go idle at once, their bits in one word, and a
// third comes back; afterwards exactly the two are idle.
func scenarioTwoSets() error {
	res, err := explore.Explore(explore.Options{Name: "stealing-scenario-two-sets", Bound: 1}, func() explore.Run {
		m, err := stealing.NewIdleMask(8)
		if err != nil {
			panic(err)
		}
		m.Set(5)
		return explore.Run{
			Threads: []func(){func() { m.Set(1) }, func() { m.Set(2) }, func() { m.Clear(5) }},
			Check: func() error {
				var got []int
				for p := range 8 {
					if m.Read(p) {
						got = append(got, p)
					}
				}
				if !slices.Equal(got, []int{1, 2}) {
					return fmt.Errorf("idle Ps %v after Set(1), Set(2) and Clear(5) at once, want [1 2]", got)
				}
				return nil
			},
		}
	})
	if errors.Is(err, explore.ErrNoSchedcheck) {
		return errNoExplorer
	}
	if err != nil {
		return err
	}
	if res.Failure != nil {
		return errors.New(res.Failure.String())
	}
	return nil
}
