package stealing_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/internal/proptest"
	"github.com/schedkit/schedkit/stealing"
)

// Bar item 2: a rapid state machine drives 2 to 6 fake Ps (fakes_test.go:
// each a ring and a runnext task as slices, logging every StealHalf) and an
// idle mask, and runs the thieves' Steal and Pass on them. A sequential
// model, written from the runtime's definition and independent of the
// package, predicts for every Steal and Pass the victims it must visit, in
// order and with which stealNext, what it takes from each, and what it
// returns; after every action each P's ring and runnext task must equal the
// model's. So the test checks the invariants of doc.go: each pass visits
// each other non-idle P once in the random coprime order, never self;
// runnext only on the last pass; half of one victim's ring, rounded up, or
// its runnext task; nothing lost or duplicated.

// stealerUT is what the model drives: the real Stealer, or a broken
// variant (handStealer) in TestStealingModelCatchesBrokenStealers.
type stealerUT interface {
	Steal(self int, rand func() uint32) *int
	Pass(self int, r uint32, stealNext bool) *int
}

// newStealerUT builds the stealer under test over the model's fake Ps.
type newStealerUT func(ps []*fakeP, idle *stealing.IdleMask) (stealerUT, error)

func newRealStealerUT(ps []*fakeP, idle *stealing.IdleMask) (stealerUT, error) {
	return stealing.New(ps, idle)
}

// modelStats counts how often the state machine reached the interesting
// paths, over all test cases of one run.
type modelStats struct {
	cases, steals, ringTakes, nextTakes, nothing, lastPassTakes, idleSkips, passes, misuses int
}

// stealModel is the state machine.
type stealModel struct {
	ps     []*fakeP
	log    *[]stealCall
	idle   *stealing.IdleMask // nil: no mask (no P is ever idle)
	s      stealerUT
	rings  [][]int // the model: ring ids, oldest first
	next   []int   // runnext id, -1 for none
	idles  []bool
	nextID int
	stats  *modelStats
}

// expectation is what the model predicts for a Steal or a Pass.
type expectation struct {
	calls  []stealCall
	result int // -1: nil
	passes int // random numbers used (Steal)
}

// modelCoprimes is the model's list of strides: those in 1..n coprime with n.
func (m *stealModel) modelCoprimes() []uint32 { return refCoprimes(len(m.ps)) }

// modelPass predicts one pass of thief self from r with stealNext, and
// applies it to the model: the calls it makes and what it returns.
func (m *stealModel) modelPass(self int, r uint32, stealNext bool, exp *expectation) bool {
	n := len(m.ps)
	strides := m.modelCoprimes()
	start, stride := int(r%uint32(n)), int(strides[r/uint32(n)%uint32(len(strides))])
	for k := range n {
		v := (start + k*stride) % n
		if v == self {
			continue
		}
		if m.idles[v] {
			m.stats.idleSkips++
			continue
		}
		exp.calls = append(exp.calls, stealCall{victim: v, thief: self, stealNext: stealNext})
		if ring := m.rings[v]; len(ring) > 0 {
			k := len(ring) - len(ring)/2
			m.rings[self] = append(m.rings[self], ring[:k-1]...)
			exp.result = ring[k-1]
			m.rings[v] = slices.Clone(ring[k:])
			m.stats.ringTakes++
			return true
		}
		if stealNext && m.next[v] >= 0 {
			exp.result = m.next[v]
			m.next[v] = -1
			m.stats.nextTakes++
			return true
		}
	}
	return false
}

// check compares every fake P with the model.
func (m *stealModel) check(t *rapid.T, after string) {
	t.Helper()
	for i, p := range m.ps {
		if got := itemIDs(p.ring); !slices.Equal(got, m.rings[i]) {
			t.Fatalf("after %s: P %d's ring holds %v, the model %v", after, i, got, m.rings[i])
		}
		if got := itemID(p.next); got != m.next[i] {
			t.Fatalf("after %s: P %d's runnext is %d, the model's %d", after, i, got, m.next[i])
		}
	}
}

// compare checks what a Steal or Pass did against the model's expectation.
func (m *stealModel) compare(t *rapid.T, what string, got *int, exp expectation) {
	t.Helper()
	if !slices.Equal(*m.log, exp.calls) {
		t.Fatalf("%s: visited %v, the model expects the victims %v", what, *m.log, exp.calls)
	}
	if itemID(got) != exp.result {
		t.Fatalf("%s: returned %d, the model %d", what, itemID(got), exp.result)
	}
	m.check(t, what)
}

func (m *stealModel) drawP(t *rapid.T, label string) int {
	return rapid.IntRange(0, len(m.ps)-1).Draw(t, label)
}

// drawR draws a random number for a pass: small ones reach every start and
// stride of a few Ps, large ones the wrap of r/n.
func drawR(t *rapid.T, label string) uint32 {
	return rapid.OneOf(rapid.Uint32Range(0, 64), rapid.Uint32()).Draw(t, label)
}

// actions are the state machine's actions. Put, PutNext and Get change the
// fake Ps directly (they are the environment, not the code under test).
func (m *stealModel) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"Put": func(t *rapid.T) {
			i := m.drawP(t, "P")
			for range rapid.IntRange(1, 7).Draw(t, "k") {
				v := m.nextID
				m.nextID++
				m.ps[i].ring = append(m.ps[i].ring, &v)
				m.rings[i] = append(m.rings[i], v)
			}
		},
		"PutNext": func(t *rapid.T) {
			i := m.drawP(t, "P")
			v := m.nextID
			m.nextID++
			if old := m.ps[i].next; old != nil {
				m.ps[i].ring = append(m.ps[i].ring, old)
				m.rings[i] = append(m.rings[i], m.next[i])
			}
			m.ps[i].next = &v
			m.next[i] = v
		},
		"Get": func(t *rapid.T) {
			i := m.drawP(t, "P")
			switch {
			case m.ps[i].next != nil:
				m.ps[i].next, m.next[i] = nil, -1
			case len(m.ps[i].ring) > 0:
				m.ps[i].ring = slices.Clone(m.ps[i].ring[1:])
				m.rings[i] = slices.Clone(m.rings[i][1:])
			}
		},
		"SetIdle": func(t *rapid.T) {
			if m.idle == nil {
				t.Skip("no mask")
			}
			i := m.drawP(t, "P")
			m.idle.Set(i)
			m.idles[i] = true
		},
		"ClearIdle": func(t *rapid.T) {
			if m.idle == nil {
				t.Skip("no mask")
			}
			i := m.drawP(t, "P")
			m.idle.Clear(i)
			m.idles[i] = false
		},
		"Steal": func(t *rapid.T) {
			self := m.drawP(t, "thief")
			var rs []uint32
			for k := range stealing.StealTries {
				rs = append(rs, drawR(t, fmt.Sprintf("r%d", k)))
			}
			exp := expectation{result: -1}
			for try, r := range rs {
				exp.passes++
				if m.modelPass(self, r, try == stealing.StealTries-1, &exp) {
					if try == stealing.StealTries-1 {
						m.stats.lastPassTakes++
					}
					break
				}
			}
			if exp.result < 0 {
				m.stats.nothing++
			}
			m.stats.steals++
			*m.log = nil
			rand, calls := fixedRand(rs...)
			got := m.s.Steal(self, rand)
			m.compare(t, fmt.Sprintf("Steal(%d, r=%v)", self, rs), got, exp)
			if *calls != exp.passes {
				t.Fatalf("Steal(%d, r=%v): %d random numbers drawn, the model %d passes", self, rs, *calls, exp.passes)
			}
		},
		"Pass": func(t *rapid.T) {
			self := m.drawP(t, "thief")
			r := drawR(t, "r")
			stealNext := rapid.Bool().Draw(t, "stealNext")
			exp := expectation{result: -1}
			m.modelPass(self, r, stealNext, &exp)
			m.stats.passes++
			*m.log = nil
			got := m.s.Pass(self, r, stealNext)
			m.compare(t, fmt.Sprintf("Pass(%d, r=%d, stealNext=%v)", self, r, stealNext), got, exp)
		},
		"BadThief": func(t *rapid.T) {
			self := rapid.SampledFrom([]int{-1, len(m.ps), len(m.ps) + 5}).Draw(t, "thief")
			m.stats.misuses++
			*m.log = nil
			proptest.ExpectPanic(t, "Steal with a bad thief", "Stealer.Steal", func() { m.s.Steal(self, func() uint32 { return 0 }) })
			proptest.ExpectPanic(t, "Pass with a bad thief", "Stealer.Pass", func() { m.s.Pass(self, 0, true) })
			proptest.ExpectPanic(t, "Steal with a nil random source", "nil random source", func() { m.s.Steal(0, nil) })
			if len(*m.log) != 0 {
				t.Fatalf("a call that panicked visited %v", *m.log)
			}
			m.check(t, "a misuse")
		},
		"": func(t *rapid.T) { m.check(t, "an action") },
	}
}

// checkStealingModel is the model property over stealers made by newS. It
// is run against the real Stealer by TestStealingModel and against broken
// ones by TestStealingModelCatchesBrokenStealers.
func checkStealingModel(t *rapid.T, newS newStealerUT, stats *modelStats) {
	stats.cases++
	n := rapid.IntRange(2, 6).Draw(t, "Ps")
	ps, log := newFakePs(n)
	m := &stealModel{ps: ps, log: log, stats: stats, rings: make([][]int, n), next: make([]int, n), idles: make([]bool, n)}
	for i := range m.next {
		m.next[i] = -1
	}
	if rapid.IntRange(0, 4).Draw(t, "mask") > 0 {
		idle, err := stealing.NewIdleMask(n)
		if err != nil {
			t.Fatal(err)
		}
		m.idle = idle
	}
	s, err := newS(ps, m.idle)
	if err != nil {
		t.Fatal(err)
	}
	m.s = s
	t.Repeat(m.actions())
}

func TestStealingModel(t *testing.T) {
	var stats modelStats
	rapid.Check(t, func(t *rapid.T) { checkStealingModel(t, newRealStealerUT, &stats) })
	t.Logf("stealing model coverage: %d Steals (%d found nothing, %d took on the last pass), %d Passes; %d ring takes, %d runnext takes, %d idle Ps skipped, %d misuses",
		stats.steals, stats.nothing, stats.lastPassTakes, stats.passes, stats.ringTakes, stats.nextTakes, stats.idleSkips, stats.misuses)
	if !testing.Short() && (stats.ringTakes == 0 || stats.nextTakes == 0 || stats.nothing == 0 || stats.lastPassTakes == 0 || stats.idleSkips == 0) {
		t.Errorf("the state machine missed a path: %+v", stats)
	}
	t.Logf("stealing model: %d checks passed", stats.cases)
}

// handStealer is a stealer written by hand from the package's public parts
// (the Ps, the mask and an Order), with knobs that break one rule each. With
// every knob off it is correct (TestHandStealerIsCorrectWithNoKnob), so a
// failure of a checker on a knob is the knob's doing. The model, stress,
// linearizability and explorer tests share it.
type handStealer[Q stealing.Queue[Q, T], T any] struct {
	ps    []Q
	idle  *stealing.IdleMask
	order stealing.Order
	// The knobs.
	indexOrder    bool // every pass visits the Ps in index order from P 0
	anyStride     bool // the stride is r/n % n + 1, coprime with n or not
	nextEveryPass bool // stealNext on every pass
	noSelfSkip    bool // the thief steals from itself too
	invertIdle    bool // skips the busy Ps instead of the idle ones
	dropsStolen   bool // loses the task StealHalf returned and goes on
}

// knobs is a handStealer's configuration, without its Ps.
type knobs struct {
	indexOrder, anyStride, nextEveryPass, noSelfSkip, invertIdle, dropsStolen bool
}

func newHandStealer[Q stealing.Queue[Q, T], T any](k knobs, ps []Q, idle *stealing.IdleMask) (*handStealer[Q, T], error) {
	h := &handStealer[Q, T]{ps: ps, idle: idle, indexOrder: k.indexOrder, anyStride: k.anyStride,
		nextEveryPass: k.nextEveryPass, noSelfSkip: k.noSelfSkip, invertIdle: k.invertIdle, dropsStolen: k.dropsStolen}
	return h, h.order.Reset(len(ps))
}

func (h *handStealer[Q, T]) Steal(self int, rand func() uint32) *T {
	if self < 0 || self >= len(h.ps) {
		panic("handStealer: Stealer.Steal called with a bad thief")
	}
	if rand == nil {
		panic("handStealer: Stealer.Steal called with a nil random source")
	}
	for try := range stealing.StealTries {
		if t, found := h.pass(self, rand(), try == stealing.StealTries-1 || h.nextEveryPass); found {
			return t
		}
	}
	return nil
}

func (h *handStealer[Q, T]) Pass(self int, r uint32, stealNext bool) *T {
	if self < 0 || self >= len(h.ps) {
		panic("handStealer: Stealer.Pass called with a bad thief")
	}
	t, _ := h.pass(self, r, stealNext)
	return t
}

// pass is one pass; found reports that a StealHalf returned a task, which
// is t unless dropsStolen lost it.
func (h *handStealer[Q, T]) pass(self int, r uint32, stealNext bool) (t *T, found bool) {
	n := len(h.ps)
	e := h.order.Start(r)
	start, stride := e.Position(), e.Stride()
	switch {
	case h.indexOrder:
		start, stride = 0, 1
	case h.anyStride:
		stride = int(r/uint32(n))%n + 1
	}
	for k := range n {
		v := (start + k*stride) % n
		if v == self && !h.noSelfSkip {
			continue
		}
		if h.idle.Read(v) != h.invertIdle {
			continue
		}
		if t := h.ps[v].StealHalf(h.ps[self], stealNext); t != nil {
			if h.dropsStolen {
				return nil, true
			}
			return t, true
		}
	}
	return nil, false
}

func newHand(k knobs) newStealerUT {
	return func(ps []*fakeP, idle *stealing.IdleMask) (stealerUT, error) {
		return newHandStealer(k, ps, idle)
	}
}

// brokenStealers are the variants the model must catch, and what its
// message must mention.
var brokenStealers = []struct {
	name   string
	newS   newStealerUT
	reason string
}{
	{"visits the Ps in index order", newHand(knobs{indexOrder: true}), "the model"},
	{"a stride that shares a factor with the P count", newHand(knobs{anyStride: true}), "the model"},
	{"runnext on every pass", newHand(knobs{nextEveryPass: true}), "the model"},
	{"steals from itself", newHand(knobs{noSelfSkip: true}), "the model"},
	{"skips the busy Ps, not the idle ones", newHand(knobs{invertIdle: true}), "the model"},
	{"loses the task it stole", newHand(knobs{dropsStolen: true}), "the model"},
}

// TestHandStealerIsCorrectWithNoKnob runs the model on the hand-written
// stealer with every knob off: it must pass, as the real one does.
func TestHandStealerIsCorrectWithNoKnob(t *testing.T) {
	var stats modelStats
	rapid.Check(t, func(t *rapid.T) { checkStealingModel(t, newHand(knobs{}), &stats) })
}

// TestStealingModelCatchesBrokenStealers proves the model test can fail:
// each broken variant must be reported by rapid, for the expected reason.
func TestStealingModelCatchesBrokenStealers(t *testing.T) {
	for _, b := range brokenStealers {
		t.Run(b.name, func(t *testing.T) {
			var stats modelStats
			rec := proptest.ExpectFailure(t, func(rt *rapid.T) { checkStealingModel(rt, b.newS, &stats) })
			if !rec.Failed() {
				t.Fatalf("rapid did not catch %q in %d cases", b.name, stats.cases)
			}
			if all := strings.Join(rec.Errors(), "\n"); !strings.Contains(all, b.reason) {
				t.Fatalf("rapid failed on %q but not for the expected reason %q:\n%s", b.name, b.reason, all)
			}
			t.Logf("caught: %s", rec.FirstError())
		})
	}
}
