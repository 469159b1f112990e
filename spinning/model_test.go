package spinning_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/internal/proptest"
	"github.com/schedkit/schedkit/spinning"
)

// Bar item 2: a rapid state machine drives a Sched and its Ms through every
// operation, one at a time, and compares everything observable after each
// step with a sequential model: the counters, the stacks of idle Ps and
// idle Ms, the waiting handoffs, needspinning, and each M's P, spinning
// flag and phase. StopM is split into its two halves (export_test.go) so
// that parking never blocks the test; a parked M whose note the model says
// is not woken must not be woken.

// phase is where an M is in its life, as the model sees it.
type phase uint8

const (
	phFree    phase = iota // no P, not parked: may StopM, AcquireP, DropSpinning
	phRunning              // holds a P
	phParked               // on the idle list, sleeping in StopM
	phWoken                // handed a P (or told to exit), not yet resumed
	phExited               // StopM returned false
)

var phaseNames = [...]string{"free", "running", "parked", "woken", "exited"}

func (p phase) String() string { return phaseNames[p] }

// modelM is the model of one M.
type modelM struct {
	phase    phase
	p        int
	spinning bool
	nextp    int
	nextSpin bool
}

// spinModel is the sequential specification: the Sched's state as plain
// values, each operation as straight-line code.
type spinModel struct {
	procs        int
	nmspinning   int
	pidle        []int // stack: the last is taken next
	midle        []int // stack of M ids: the last is woken next
	pending      []spinning.Handoff
	needspinning bool
	stopped      bool
	queue        int // queued tasks
	ms           []modelM
	needM        int
}

func (md *spinModel) pidleget() (int, bool) {
	if len(md.pidle) == 0 {
		return spinning.NoP, false
	}
	p := md.pidle[len(md.pidle)-1]
	md.pidle = md.pidle[:len(md.pidle)-1]
	return p, true
}

func (md *spinModel) becomeSpinning(i int) {
	md.ms[i].spinning = true
	md.nmspinning++
	md.needspinning = false
}

func (md *spinModel) startm(p int, spin bool) {
	if md.stopped {
		md.pidle = append(md.pidle, p)
		if spin {
			md.nmspinning--
		}
		return
	}
	if len(md.midle) == 0 {
		md.pending = append(md.pending, spinning.Handoff{P: p, Spinning: spin})
		md.needM++
		return
	}
	i := md.midle[len(md.midle)-1]
	md.midle = md.midle[:len(md.midle)-1]
	md.ms[i] = modelM{phase: phWoken, p: spinning.NoP, nextp: p, nextSpin: spin}
}

// wakep is the model of Wakep; it reports whether it started an M.
func (md *spinModel) wakep() bool {
	if md.nmspinning != 0 {
		return false
	}
	if md.stopped {
		return false
	}
	p, ok := md.pidleget()
	if !ok {
		md.needspinning = true
		return false
	}
	md.nmspinning++
	md.startm(p, true)
	return true
}

// spinStats counts how often the model took the interesting paths, over all
// test cases of one run.
type spinStats struct {
	cases, steps                                 int
	wakes, handoffs, lastSpinnerWakes, reSpins   int
	needSet, needAnswered, ruleRefused, shutdown int
	handoffPs, misuses, submits                  int
}

// spinImpl is what the state machine drives: the real Sched, or a broken
// variant of one of its parts for TestSpinningModelCatches.
type spinImpl struct {
	name string
	// submit publishes and wakes (Sched.Submit).
	submit func(s *spinning.Sched, publish func())
	// reset is what an M that found work while spinning does
	// (M.ResetSpinning).
	reset func(m *spinning.M)
	// blindWork makes Config.Work always report no work.
	blindWork bool
}

var realImpl = spinImpl{
	name:   "real",
	submit: func(s *spinning.Sched, publish func()) { s.Submit(publish) },
	reset:  func(m *spinning.M) { m.ResetSpinning() },
}

// spinMachine is the state machine: the real Sched and Ms beside the model.
type spinMachine struct {
	impl  spinImpl
	s     *spinning.Sched
	ms    []*spinning.M
	md    *spinModel
	queue int // the real queue Config.Work reads (the model has its own)
	needM int
	stats *spinStats
}

func newSpinMachine(t *rapid.T, impl spinImpl, stats *spinStats) *spinMachine {
	procs := rapid.IntRange(1, 4).Draw(t, "procs")
	sm := &spinMachine{impl: impl, stats: stats, md: &spinModel{procs: procs}}
	for p := procs - 1; p >= 0; p-- {
		sm.md.pidle = append(sm.md.pidle, p)
	}
	s, err := spinning.New(spinning.Config{
		Procs: procs,
		Work:  func() bool { return !impl.blindWork && sm.queue > 0 },
		NeedM: func() { sm.needM++ },
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	sm.s = s
	for range rapid.IntRange(1, 4).Draw(t, "ms") {
		sm.newM()
	}
	return sm
}

func (sm *spinMachine) newM() {
	sm.ms = append(sm.ms, sm.s.NewM())
	sm.md.ms = append(sm.md.ms, modelM{phase: phFree, p: spinning.NoP, nextp: spinning.NoP})
}

// pick draws an M whose model satisfies ok, or skips the action.
func (sm *spinMachine) pick(t *rapid.T, ok func(modelM) bool) int {
	var cands []int
	for i, m := range sm.md.ms {
		if ok(m) {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		t.Skip("no M for this action")
	}
	return rapid.SampledFrom(cands).Draw(t, "m")
}

func isFree(m modelM) bool    { return m.phase == phFree }
func isRunning(m modelM) bool { return m.phase == phRunning }

// observable is everything the test can see of the real Sched.
func (sm *spinMachine) observable() string {
	var b strings.Builder
	fmt.Fprintf(&b, "nmspinning %d, npidle %d, nmidle %d, idle Ps %v, idle Ms %v, pending %v, needspinning %v, needM %d",
		sm.s.NMSpinning(), sm.s.NPIdle(), sm.s.NMIdle(), spinning.IdlePs(sm.s), spinning.IdleMs(sm.s),
		spinning.Pending(sm.s), spinning.NeedSpinning(sm.s), sm.needM)
	return b.String()
}

// check compares the real Sched and Ms with the model.
func (sm *spinMachine) check(t *rapid.T, after string) {
	t.Helper()
	md := sm.md
	want := fmt.Sprintf("nmspinning %d, npidle %d, nmidle %d, idle Ps %v, idle Ms %v, pending %v, needspinning %v, needM %d",
		md.nmspinning, len(md.pidle), len(md.midle), orEmpty(md.pidle), orEmpty(reversed(md.midle)),
		orEmptyH(md.pending), md.needspinning, md.needM)
	if got := sm.observable(); got != want {
		t.Fatalf("after %s:\n  real:  %s\n  model: %s", after, got, want)
	}
	for i, m := range sm.ms {
		mm := md.ms[i]
		switch mm.phase {
		case phFree, phRunning:
			if m.P() != mm.p || m.Spinning() != mm.spinning || m.Idle() {
				t.Fatalf("after %s: M %d: P %d, spinning %v, idle %v; model: %s, P %d, spinning %v",
					after, i, m.P(), m.Spinning(), m.Idle(), mm.phase, mm.p, mm.spinning)
			}
		case phParked:
			if !m.Idle() {
				t.Fatalf("after %s: M %d is not on the idle list; the model has it parked", after, i)
			}
			if woke, _ := spinning.StopMPoll(m); woke {
				t.Fatalf("after %s: M %d was woken; the model has it parked", after, i)
			}
		case phWoken:
			p, spin := spinning.NextP(m)
			if m.Idle() || p != mm.nextp || spin != mm.nextSpin {
				t.Fatalf("after %s: M %d: idle %v, handed P %d, spinning %v; model: woken with P %d, spinning %v",
					after, i, m.Idle(), p, spin, mm.nextp, mm.nextSpin)
			}
		}
	}
	if err := spinning.Validate(sm.s); err != nil {
		t.Fatalf("after %s: invariant: %v", after, err)
	}
}

func reversed(s []int) []int {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

func orEmpty(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

func orEmptyH(s []spinning.Handoff) []spinning.Handoff {
	if s == nil {
		return []spinning.Handoff{}
	}
	return s
}

func (sm *spinMachine) actions() map[string]func(*rapid.T) {
	md := sm.md
	return map[string]func(*rapid.T){
		// A submitter publishes a task and wakes: the publish must come
		// before any effect of Wakep.
		"Submit": func(t *rapid.T) {
			sm.stats.submits++
			before := sm.observable()
			published := false
			sm.impl.submit(sm.s, func() {
				if now := sm.observable(); now != before {
					t.Fatalf("Submit: the state changed before the work was published:\n  before: %s\n  at publish: %s", before, now)
				}
				sm.queue++
				published = true
			})
			if !published {
				t.Fatalf("Submit did not call publish")
			}
			md.queue++
			if md.wakep() {
				sm.stats.wakes++
			}
			sm.check(t, "Submit")
		},
		"Wakep": func(t *rapid.T) {
			had := md.needspinning
			if md.wakep() {
				sm.stats.wakes++
			} else if md.needspinning && !had {
				sm.stats.needSet++
			}
			sm.s.Wakep()
			sm.check(t, "Wakep")
		},
		"NewM": func(t *rapid.T) {
			if len(sm.ms) >= 6 {
				t.Skip("enough Ms")
			}
			sm.newM()
			sm.check(t, "NewM")
		},
		"AcquireP": func(t *rapid.T) {
			i := sm.pick(t, func(m modelM) bool { return m.phase == phFree && !m.spinning })
			got := sm.ms[i].AcquireP()
			p, ok := md.pidleget()
			if got != ok {
				t.Fatalf("AcquireP on M %d = %v, model %v", i, got, ok)
			}
			if ok {
				md.ms[i].phase, md.ms[i].p = phRunning, p
			}
			sm.check(t, fmt.Sprintf("AcquireP on M %d", i))
		},
		"BecomeSpinning": func(t *rapid.T) {
			i := sm.pick(t, isRunning)
			got := sm.ms[i].BecomeSpinning()
			want := md.ms[i].spinning
			if !want && 2*md.nmspinning < md.procs-len(md.pidle) {
				md.becomeSpinning(i)
				want = true
			} else if !want {
				sm.stats.ruleRefused++
			}
			if got != want {
				t.Fatalf("BecomeSpinning on M %d = %v, model %v (nmspinning %d, npidle %d, procs %d)",
					i, got, want, md.nmspinning, len(md.pidle), md.procs)
			}
			sm.check(t, fmt.Sprintf("BecomeSpinning on M %d", i))
		},
		// An M with a P takes a queued task; a spinning M then leaves the
		// spinning state (ResetSpinning), waking another if it was last.
		"Take": func(t *rapid.T) {
			if md.queue == 0 {
				t.Skip("nothing queued")
			}
			i := sm.pick(t, isRunning)
			sm.queue--
			md.queue--
			if sm.ms[i].Spinning() {
				sm.impl.reset(sm.ms[i])
			}
			if md.ms[i].spinning {
				md.ms[i].spinning = false
				md.nmspinning--
				if md.wakep() {
					sm.stats.lastSpinnerWakes++
				}
			}
			sm.check(t, fmt.Sprintf("Take (and ResetSpinning) on M %d", i))
		},
		"ReleaseP": func(t *rapid.T) {
			i := sm.pick(t, isRunning)
			got := sm.ms[i].ReleaseP()
			mm := &md.ms[i]
			want := true
			if !mm.spinning && md.needspinning {
				md.becomeSpinning(i)
				sm.stats.needAnswered++
				want = false
			} else {
				md.pidle = append(md.pidle, mm.p)
				mm.phase, mm.p = phFree, spinning.NoP
			}
			if got != want {
				t.Fatalf("ReleaseP on M %d = %v, model %v", i, got, want)
			}
			sm.check(t, fmt.Sprintf("ReleaseP on M %d", i))
		},
		"DropSpinning": func(t *rapid.T) {
			i := sm.pick(t, isFree)
			got := sm.ms[i].DropSpinning()
			mm := &md.ms[i]
			want := false
			if mm.spinning {
				mm.spinning = false
				md.nmspinning--
				if md.queue > 0 {
					if p, ok := md.pidleget(); ok {
						mm.phase, mm.p = phRunning, p
						md.becomeSpinning(i)
						want = true
						sm.stats.reSpins++
					} else {
						md.needspinning = true
						sm.stats.needSet++
					}
				}
			}
			if got != want {
				t.Fatalf("DropSpinning on M %d = %v, model %v (queue %d, idle Ps %v)", i, got, want, md.queue, md.pidle)
			}
			sm.check(t, fmt.Sprintf("DropSpinning on M %d", i))
		},
		"StopM": func(t *rapid.T) {
			i := sm.pick(t, func(m modelM) bool { return m.phase == phFree && !m.spinning })
			got := spinning.StopMBegin(sm.ms[i])
			mm := &md.ms[i]
			want := "parked"
			switch {
			case md.stopped:
				want = "exit"
				mm.phase = phExited
			case len(md.pending) > 0:
				want = "handoff"
				h := md.pending[len(md.pending)-1]
				md.pending = md.pending[:len(md.pending)-1]
				mm.phase, mm.p, mm.spinning = phRunning, h.P, h.Spinning
				sm.stats.handoffs++
			default:
				mm.phase = phParked
				md.midle = append(md.midle, i)
			}
			if got != want {
				t.Fatalf("StopM on M %d: %s, model %s", i, got, want)
			}
			sm.check(t, fmt.Sprintf("StopM on M %d", i))
		},
		"Resume": func(t *rapid.T) {
			i := sm.pick(t, func(m modelM) bool { return m.phase == phWoken })
			woke, ok := spinning.StopMPoll(sm.ms[i])
			mm := &md.ms[i]
			if !woke {
				t.Fatalf("M %d was not woken; the model has it woken", i)
			}
			if want := mm.nextp != spinning.NoP; ok != want {
				t.Fatalf("StopM on M %d returned %v after its wakeup, model %v", i, ok, want)
			}
			if ok {
				*mm = modelM{phase: phRunning, p: mm.nextp, spinning: mm.nextSpin, nextp: spinning.NoP}
			} else {
				*mm = modelM{phase: phExited, p: spinning.NoP, nextp: spinning.NoP}
			}
			sm.check(t, fmt.Sprintf("Resume of M %d", i))
		},
		"HandoffP": func(t *rapid.T) {
			i := sm.pick(t, func(m modelM) bool { return m.phase == phRunning && !m.spinning })
			sm.stats.handoffPs++
			sm.ms[i].HandoffP()
			mm := &md.ms[i]
			p := mm.p
			mm.phase, mm.p = phFree, spinning.NoP
			switch {
			case md.queue > 0:
				md.startm(p, false)
			case md.nmspinning+len(md.pidle) == 0:
				md.nmspinning = 1
				md.needspinning = false
				md.startm(p, true)
			case md.needspinning && !md.stopped:
				md.needspinning = false
				md.nmspinning++
				md.startm(p, true)
			default:
				md.pidle = append(md.pidle, p)
			}
			sm.check(t, fmt.Sprintf("HandoffP on M %d", i))
		},
		"Shutdown": func(t *rapid.T) {
			if rapid.IntRange(0, 9).Draw(t, "rarely") != 0 {
				t.Skip("shut down rarely")
			}
			sm.stats.shutdown++
			sm.s.Shutdown()
			if !md.stopped {
				md.stopped = true
				for len(md.midle) > 0 {
					i := md.midle[len(md.midle)-1]
					md.midle = md.midle[:len(md.midle)-1]
					md.ms[i] = modelM{phase: phWoken, p: spinning.NoP, nextp: spinning.NoP}
				}
				for _, h := range md.pending {
					md.pidle = append(md.pidle, h.P)
					if h.Spinning {
						md.nmspinning--
					}
				}
				md.pending = nil
			}
			sm.check(t, "Shutdown")
		},
		// Misuse panics with a message naming the call and changes nothing.
		"Misuse": func(t *rapid.T) {
			i := sm.pick(t, func(m modelM) bool { return m.phase == phFree || m.phase == phRunning })
			m, mm := sm.ms[i], md.ms[i]
			type misuse struct {
				applies bool
				name    string
				want    string
				f       func()
			}
			all := []misuse{
				{!mm.spinning, "ResetSpinning of a non-spinning M", "M.ResetSpinning", m.ResetSpinning},
				{mm.p == spinning.NoP, "ReleaseP without a P", "M.ReleaseP", func() { m.ReleaseP() }},
				{mm.p == spinning.NoP, "BecomeSpinning without a P", "M.BecomeSpinning", func() { m.BecomeSpinning() }},
				{mm.p == spinning.NoP, "HandoffP without a P", "M.HandoffP", m.HandoffP},
				{mm.p != spinning.NoP, "DropSpinning holding a P", "M.DropSpinning", func() { m.DropSpinning() }},
				{mm.p != spinning.NoP, "StopM holding a P", "M.StopM", func() { m.StopM() }},
				{mm.p != spinning.NoP, "AcquireP holding a P", "M.AcquireP", func() { m.AcquireP() }},
				{mm.p != spinning.NoP && mm.spinning, "HandoffP while spinning", "M.HandoffP", m.HandoffP},
				{mm.p == spinning.NoP && mm.spinning, "StopM while spinning", "M.StopM", func() { m.StopM() }},
				{true, "Submit(nil)", "Sched.Submit", func() { sm.s.Submit(nil) }},
			}
			var cands []misuse
			for _, x := range all {
				if x.applies {
					cands = append(cands, x)
				}
			}
			x := cands[rapid.IntRange(0, len(cands)-1).Draw(t, "misuse")]
			sm.stats.misuses++
			proptest.ExpectPanic(t, x.name, x.want, x.f)
			sm.check(t, "misuse: "+x.name)
		},
		"": func(*rapid.T) { sm.stats.steps++ },
	}
}

// checkSpinningModel is the model property for impl. It is run against the
// real code by TestSpinningModel and against broken variants by
// TestSpinningModelCatchesBrokenVariants (and, under schedmutant, against
// the seeded mutations by the kill matrix).
func checkSpinningModel(t *rapid.T, impl spinImpl, stats *spinStats) {
	stats.cases++
	sm := newSpinMachine(t, impl, stats)
	sm.check(t, "New")
	t.Repeat(sm.actions())
}

func TestSpinningModel(t *testing.T) {
	var stats spinStats
	rapid.Check(t, func(t *rapid.T) { checkSpinningModel(t, realImpl, &stats) })
	t.Logf("spinning model coverage: %d steps, %d submits, %d Wakeps that started an M, %d handoffs taken by StopM, "+
		"%d last-spinner wakeups, %d re-spins after the drop, %d needspinning set, %d answered, %d refused by the rule, "+
		"%d HandoffPs, %d shutdowns, %d misuses",
		stats.steps, stats.submits, stats.wakes, stats.handoffs, stats.lastSpinnerWakes, stats.reSpins, stats.needSet,
		stats.needAnswered, stats.ruleRefused, stats.handoffPs, stats.shutdown, stats.misuses)
	if !testing.Short() {
		for name, n := range map[string]int{
			"Wakep starting an M": stats.wakes, "a waiting handoff": stats.handoffs,
			"a last-spinner wakeup": stats.lastSpinnerWakes, "a re-spin after the drop": stats.reSpins,
			"needspinning set": stats.needSet, "needspinning answered": stats.needAnswered,
			"the rule refusing": stats.ruleRefused, "a shutdown": stats.shutdown, "a misuse": stats.misuses,
		} {
			if n == 0 {
				t.Errorf("the state machine never reached %s", name)
			}
		}
	}
	t.Logf("spinning model: %d checks passed", stats.cases)
}

// brokenImpls are the broken variants a normal build can make from the
// outside; the seeded mutations of mutation.go are the kill matrix's.
var brokenImpls = []struct {
	impl    spinImpl
	reasons []string // one of them is in the failure
}{
	{spinImpl{name: "submitter wakes before publishing", reset: realImpl.reset,
		submit: func(s *spinning.Sched, publish func()) { s.Wakep(); publish() }}, []string{"before the work was published"}},
	// Config.Work answers the drop's re-check and HandoffP alike.
	{spinImpl{name: "the drop's re-check sees no work", submit: realImpl.submit, reset: realImpl.reset,
		blindWork: true}, []string{"DropSpinning", "HandoffP"}},
	{spinImpl{name: "a spinner that found work stays spinning", submit: realImpl.submit,
		reset: func(*spinning.M) {}}, []string{"Take"}},
}

// TestSpinningModelCatchesBrokenVariants proves the model test can fail:
// each broken variant must be reported by rapid, for the expected reason.
func TestSpinningModelCatchesBrokenVariants(t *testing.T) {
	for _, b := range brokenImpls {
		t.Run(b.impl.name, func(t *testing.T) {
			var stats spinStats
			rec := proptest.ExpectFailure(t, func(rt *rapid.T) { checkSpinningModel(rt, b.impl, &stats) })
			if !rec.Failed() {
				t.Fatalf("rapid did not catch %q in %d cases", b.impl.name, stats.cases)
			}
			all := strings.Join(rec.Errors(), "\n")
			if !slices.ContainsFunc(b.reasons, func(r string) bool { return strings.Contains(all, r) }) {
				t.Fatalf("rapid failed on %q but not for an expected reason %q:\n%s", b.impl.name, b.reasons, all)
			}
			first, _, _ := strings.Cut(all, "\n")
			t.Logf("caught: %s", first)
		})
	}
}
