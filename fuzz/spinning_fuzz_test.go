package fuzz_test

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/fuzz"
	"github.com/schedkit/schedkit/spinning"
)

// FuzzSpinning drives a spinning.Sched with 2 to 4 Ms through a program of
// operations decoded from the input, one at a time, and compares what is
// observable after every step with a sequential model: the counters, each
// M's P and spinning flag, which Ms are parked, which a wakeup reached.
//
// An M that the model says parks runs StopM on a goroutine of its own;
// Config.CheckDead tells the interpreter when it is on the idle list, so
// the next step cannot race with it. When the model says a wakeup reached
// it, the interpreter takes StopM's result from that goroutine; a wakeup
// the model expects and the Sched did not deliver is reported, not waited
// for. Every identifier here starts with spin, to stay clear of the other
// targets of the package.

// The operations of a FuzzSpinning program. The actor is the M.
const (
	spinOpSubmit         = iota // arg 0: Submit; 1: Wakep alone
	spinOpTake                  // an M with a P takes a queued task (ResetSpinning if spinning)
	spinOpBecomeSpinning        //
	spinOpReleaseP              //
	spinOpDropSpinning          //
	spinOpStopM                 //
	spinOpAcquireP              //
	spinOpHandoffP              //
	spinOpShutdown              // only with arg 7 of 8: rare
	spinOpMisuse                // arg: which misuse, among those that apply
)

var spinSpec = fuzz.Spec{
	MinActors: 2,
	MaxActors: 4,
	Ops: []fuzz.Op{
		spinOpSubmit:         {Name: "Submit", Args: 2},
		spinOpTake:           {Name: "Take"},
		spinOpBecomeSpinning: {Name: "BecomeSpinning"},
		spinOpReleaseP:       {Name: "ReleaseP"},
		spinOpDropSpinning:   {Name: "DropSpinning"},
		spinOpStopM:          {Name: "StopM"},
		spinOpAcquireP:       {Name: "AcquireP"},
		spinOpHandoffP:       {Name: "HandoffP"},
		spinOpShutdown:       {Name: "Shutdown", Args: 8},
		spinOpMisuse:         {Name: "Misuse", Args: 16},
	},
	MaxSteps: 1024,
}

// spinProcs is the number of Ps: fewer than the Ms, so Ms wait for Ps.
const spinProcs = 2

// spinWakeTimeout bounds the wait for an M that the Sched did wake: it
// returns at once; the bound only turns a broken wakeup into an error.
const spinWakeTimeout = 10 * time.Second

// spinPhase is where an M is, as the model sees it.
type spinPhase uint8

const (
	spinFree    spinPhase = iota // no P, not parked
	spinRunning                  // holds a P
	spinParked                   // in StopM, on the idle list
	spinExited                   // StopM returned false
)

// spinModelM is the model of one M; done carries its StopM's result while
// it is parked.
type spinModelM struct {
	phase    spinPhase
	p        int
	spinning bool
	done     chan bool
}

// spinImpl is the implementation under test: the real Sched, or a broken
// variant of one part for TestFuzzSpinningCatchesBrokenVariants.
type spinImpl struct {
	submit    func(s *spinning.Sched, publish func())
	reset     func(m *spinning.M)
	blindWork bool
}

var spinReal = spinImpl{
	submit: func(s *spinning.Sched, publish func()) { s.Submit(publish) },
	reset:  func(m *spinning.M) { m.ResetSpinning() },
}

// spinRun is one interpretation: the Sched and its Ms beside the model.
type spinRun struct {
	impl   spinImpl
	s      *spinning.Sched
	ms     []*spinning.M
	parked chan int // CheckDead: an M joined the idle list

	// the model
	mm           []spinModelM
	nmspinning   int
	pidle        []int  // stack
	midle        []int  // stack of M indices
	pending      []bool // waiting handoffs: whether each is to spin
	pendingP     []int  // and its P
	needspinning bool
	stopped      bool
	queue        int // the model's and the real queue (Config.Work reads it)

	seen map[string]int
}

func newSpinRun(actors int, impl spinImpl) (*spinRun, error) {
	r := &spinRun{impl: impl, parked: make(chan int, 1), seen: map[string]int{}}
	s, err := spinning.New(spinning.Config{
		Procs:     spinProcs,
		Work:      func() bool { return !impl.blindWork && r.queue > 0 },
		CheckDead: func(idle, _ int) { r.parked <- idle },
	})
	if err != nil {
		return nil, err
	}
	r.s = s
	for p := spinProcs - 1; p >= 0; p-- {
		r.pidle = append(r.pidle, p)
	}
	for range actors {
		r.ms = append(r.ms, s.NewM())
		r.mm = append(r.mm, spinModelM{p: spinning.NoP})
	}
	return r, nil
}

func (r *spinRun) pidleget() (int, bool) {
	if len(r.pidle) == 0 {
		return spinning.NoP, false
	}
	p := r.pidle[len(r.pidle)-1]
	r.pidle = r.pidle[:len(r.pidle)-1]
	return p, true
}

func (r *spinRun) becomeSpinning(i int) {
	r.mm[i].spinning = true
	r.nmspinning++
	r.needspinning = false
}

// startm is the model of startm: it wakes the M parked last, and then
// collects that M's StopM result, which must be true with the P.
func (r *spinRun) startm(p int, spin bool) error {
	if r.stopped {
		r.pidle = append(r.pidle, p)
		if spin {
			r.nmspinning--
		}
		return nil
	}
	if len(r.midle) == 0 {
		r.pending = append(r.pending, spin)
		r.pendingP = append(r.pendingP, p)
		r.seen["handoff waits"]++
		return nil
	}
	i := r.midle[len(r.midle)-1]
	r.midle = r.midle[:len(r.midle)-1]
	r.seen["M woken"]++
	ok, err := r.collect(i)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("M %d woken with a P returned false from StopM", i)
	}
	r.mm[i] = spinModelM{phase: spinRunning, p: p, spinning: spin}
	return nil
}

// collect takes the result of parked M i's StopM, which the model says was
// woken; it fails, rather than hang, if the M does not return.
func (r *spinRun) collect(i int) (bool, error) {
	if r.ms[i].Idle() {
		return false, fmt.Errorf("M %d is still on the idle list; the model woke it", i)
	}
	select {
	case ok := <-r.mm[i].done:
		r.mm[i].done = nil
		return ok, nil
	case <-time.After(spinWakeTimeout):
		return false, fmt.Errorf("M %d: the model woke it, but its StopM did not return", i)
	}
}

func (r *spinRun) wakep() error {
	if r.nmspinning != 0 || r.stopped {
		return nil
	}
	p, ok := r.pidleget()
	if !ok {
		r.needspinning = true
		r.seen["needspinning set"]++
		return nil
	}
	r.nmspinning++
	return r.startm(p, true)
}

// check compares the observable state with the model.
func (r *spinRun) check() error {
	if got, want := r.s.NMSpinning(), r.nmspinning; got != want {
		return fmt.Errorf("NMSpinning() = %d, the model %d", got, want)
	}
	if got, want := r.s.NPIdle(), len(r.pidle); got != want {
		return fmt.Errorf("NPIdle() = %d, the model %d", got, want)
	}
	if got, want := r.s.NMIdle(), len(r.midle); got != want {
		return fmt.Errorf("NMIdle() = %d, the model %d", got, want)
	}
	for i, m := range r.ms {
		mm := r.mm[i]
		switch mm.phase {
		case spinParked:
			if !m.Idle() {
				return fmt.Errorf("M %d is not on the idle list; the model has it parked", i)
			}
			select {
			case ok := <-mm.done:
				return fmt.Errorf("M %d returned %v from StopM; the model has it parked", i, ok)
			default:
			}
		case spinFree, spinRunning:
			if m.P() != mm.p || m.Spinning() != mm.spinning {
				return fmt.Errorf("M %d: P %d, spinning %v; the model: P %d, spinning %v", i, m.P(), m.Spinning(), mm.p, mm.spinning)
			}
		}
	}
	return nil
}

func (r *spinRun) step(st fuzz.Step) error {
	i, m := st.Actor, r.ms[st.Actor]
	mm := &r.mm[i]
	live := mm.phase == spinFree || mm.phase == spinRunning
	switch st.Op {
	case spinOpSubmit:
		if st.Arg == 1 {
			r.s.Wakep()
			r.seen["Wakep"]++
			return r.wakep()
		}
		before := fmt.Sprint(r.s.NMSpinning(), r.s.NPIdle(), r.s.NMIdle())
		var early error
		published := false
		r.impl.submit(r.s, func() {
			if now := fmt.Sprint(r.s.NMSpinning(), r.s.NPIdle(), r.s.NMIdle()); now != before {
				early = fmt.Errorf("Submit woke an M before it published (nmspinning, npidle, nmidle: %s, then %s)", before, now)
			}
			r.queue++
			published = true
		})
		if early != nil {
			return early
		}
		if !published {
			return errors.New("Submit did not call publish")
		}
		r.seen["Submit"]++
		return r.wakep()
	case spinOpTake:
		if mm.phase != spinRunning || r.queue == 0 {
			return nil
		}
		r.queue--
		r.seen["Take"]++
		if m.Spinning() {
			r.impl.reset(m)
		}
		if mm.spinning {
			mm.spinning = false
			r.nmspinning--
			r.seen["ResetSpinning"]++
			return r.wakep()
		}
	case spinOpBecomeSpinning:
		if mm.phase != spinRunning {
			return nil
		}
		got := m.BecomeSpinning()
		want := mm.spinning
		if !want && 2*r.nmspinning < spinProcs-len(r.pidle) {
			r.becomeSpinning(i)
			want = true
		}
		r.seen[fmt.Sprintf("BecomeSpinning %v", want)]++
		if got != want {
			return fmt.Errorf("BecomeSpinning on M %d = %v, the model %v", i, got, want)
		}
	case spinOpReleaseP:
		if mm.phase != spinRunning {
			return nil
		}
		got := m.ReleaseP()
		want := true
		if !mm.spinning && r.needspinning {
			r.becomeSpinning(i)
			want = false
			r.seen["needspinning answered"]++
		} else {
			r.pidle = append(r.pidle, mm.p)
			mm.phase, mm.p = spinFree, spinning.NoP
		}
		if got != want {
			return fmt.Errorf("ReleaseP on M %d = %v, the model %v", i, got, want)
		}
	case spinOpDropSpinning:
		if mm.phase != spinFree {
			return nil
		}
		got := m.DropSpinning()
		want := false
		if mm.spinning {
			mm.spinning = false
			r.nmspinning--
			if r.queue > 0 {
				if p, ok := r.pidleget(); ok {
					mm.phase, mm.p = spinRunning, p
					r.becomeSpinning(i)
					want = true
					r.seen["re-spin"]++
				} else {
					r.needspinning = true
					r.seen["needspinning set"]++
				}
			}
		}
		if got != want {
			return fmt.Errorf("DropSpinning on M %d = %v, the model %v (queue %d)", i, got, want, r.queue)
		}
	case spinOpStopM:
		if mm.phase != spinFree || mm.spinning {
			return nil
		}
		return r.stopM(i)
	case spinOpAcquireP:
		if mm.phase != spinFree || mm.spinning {
			return nil
		}
		got := m.AcquireP()
		p, ok := r.pidleget()
		if got != ok {
			return fmt.Errorf("AcquireP on M %d = %v, the model %v", i, got, ok)
		}
		if ok {
			mm.phase, mm.p = spinRunning, p
		}
	case spinOpHandoffP:
		if mm.phase != spinRunning || mm.spinning {
			return nil
		}
		r.seen["HandoffP"]++
		m.HandoffP()
		p := mm.p
		mm.phase, mm.p = spinFree, spinning.NoP
		switch {
		case r.queue > 0:
			return r.startm(p, false)
		case r.nmspinning+len(r.pidle) == 0:
			r.nmspinning = 1
			r.needspinning = false
			return r.startm(p, true)
		case r.needspinning && !r.stopped:
			r.needspinning = false
			r.nmspinning++
			return r.startm(p, true)
		}
		r.pidle = append(r.pidle, p)
	case spinOpShutdown:
		if st.Arg != 7 {
			return nil
		}
		return r.shutdown()
	case spinOpMisuse:
		if !live {
			return nil
		}
		return r.misuse(i, st.Arg)
	default:
		return fmt.Errorf("unknown op %d", st.Op)
	}
	return nil
}

// stopM runs M i's StopM on a goroutine and waits until it parks, takes a
// waiting handoff, or exits.
func (r *spinRun) stopM(i int) error {
	m, mm := r.ms[i], &r.mm[i]
	done := make(chan bool, 1)
	go func() { done <- m.StopM() }()
	select {
	case <-r.parked:
		if r.stopped || len(r.pending) > 0 {
			return fmt.Errorf("StopM on M %d parked; the model says it %s", i,
				map[bool]string{true: "exits", false: "takes a waiting handoff"}[r.stopped])
		}
		mm.phase, mm.done = spinParked, done
		r.midle = append(r.midle, i)
		r.seen["StopM parks"]++
	case ok := <-done:
		switch {
		case r.stopped:
			if ok {
				return fmt.Errorf("StopM on M %d after Shutdown returned true", i)
			}
			mm.phase = spinExited
			r.seen["StopM exits"]++
		case len(r.pending) > 0:
			if !ok {
				return fmt.Errorf("StopM on M %d returned false; the model has a handoff waiting", i)
			}
			n := len(r.pending) - 1
			mm.phase, mm.p, mm.spinning = spinRunning, r.pendingP[n], r.pending[n]
			r.pending, r.pendingP = r.pending[:n], r.pendingP[:n]
			r.seen["StopM takes a handoff"]++
		default:
			return fmt.Errorf("StopM on M %d returned %v without parking; the model parks it", i, ok)
		}
	case <-time.After(spinWakeTimeout):
		return fmt.Errorf("StopM on M %d neither parked nor returned", i)
	}
	return nil
}

func (r *spinRun) shutdown() error {
	r.s.Shutdown()
	if r.stopped {
		return nil
	}
	r.stopped = true
	r.seen["Shutdown"]++
	for len(r.midle) > 0 {
		i := r.midle[len(r.midle)-1]
		r.midle = r.midle[:len(r.midle)-1]
		ok, err := r.collect(i)
		if err != nil {
			return err
		}
		if ok {
			return fmt.Errorf("M %d woken by Shutdown returned true from StopM", i)
		}
		r.mm[i] = spinModelM{phase: spinExited, p: spinning.NoP}
	}
	for k, spin := range r.pending {
		r.pidle = append(r.pidle, r.pendingP[k])
		if spin {
			r.nmspinning--
		}
	}
	r.pending, r.pendingP = nil, nil
	return nil
}

// misuse runs the arg-th misuse that applies to M i and requires a panic
// whose message names the call.
func (r *spinRun) misuse(i, arg int) error {
	m, mm := r.ms[i], r.mm[i]
	type mis struct {
		applies bool
		want    string
		f       func()
	}
	all := []mis{
		{!mm.spinning, "M.ResetSpinning", m.ResetSpinning},
		{mm.p == spinning.NoP, "M.ReleaseP", func() { m.ReleaseP() }},
		{mm.p == spinning.NoP, "M.BecomeSpinning", func() { m.BecomeSpinning() }},
		{mm.p == spinning.NoP, "M.HandoffP", m.HandoffP},
		{mm.p != spinning.NoP, "M.DropSpinning", func() { m.DropSpinning() }},
		{mm.p != spinning.NoP, "M.StopM", func() { m.StopM() }},
		{mm.p != spinning.NoP, "M.AcquireP", func() { m.AcquireP() }},
		{mm.p != spinning.NoP && mm.spinning, "M.HandoffP", m.HandoffP},
		{mm.p == spinning.NoP && mm.spinning, "M.StopM", func() { m.StopM() }},
		{true, "Sched.Submit", func() { r.s.Submit(nil) }},
	}
	var cands []mis
	for _, x := range all {
		if x.applies {
			cands = append(cands, x)
		}
	}
	x := cands[arg%len(cands)]
	r.seen["Misuse"]++
	v := panics(x.f)
	if v == nil {
		return fmt.Errorf("misuse of %s on M %d did not panic", x.want, i)
	}
	if !strings.Contains(fmt.Sprint(v), x.want) {
		return fmt.Errorf("misuse of %s on M %d panicked with %q", x.want, i, v)
	}
	return nil
}

// finish shuts the Sched down, collects every parked M, and checks that
// every P came back and no spinner is left once no M holds a P.
func (r *spinRun) finish() error {
	if err := r.shutdown(); err != nil {
		return err
	}
	for i := range r.mm {
		if r.mm[i].phase == spinParked {
			return fmt.Errorf("M %d still parked after Shutdown", i)
		}
	}
	return r.check()
}

// interpretSpinning runs data as a FuzzSpinning program on impl and returns
// how often each path was taken and the first difference from the model.
func interpretSpinning(data []byte, impl spinImpl) (map[string]int, error) {
	p := spinSpec.Decode(data)
	r, err := newSpinRun(p.Actors, impl)
	if err != nil {
		return nil, err
	}
	defer r.s.Shutdown() // on an early error, let parked goroutines exit
	return seqSteps(spinSpec, p, "M", r.seen, r.step, r.check, r.finish)
}

func runSpinning(data []byte, impl spinImpl) error {
	_, err := interpretSpinning(data, impl)
	return err
}

// spinSeeds are hand-written programs, each exercising paths on purpose.
func spinSeeds() []fuzz.Program {
	s := seqStep
	return []fuzz.Program{
		// Park both Ms, submit: one wakes spinning, takes the task, and as
		// the last spinner wakes the other; both drop and park again.
		{Actors: 2, Steps: []fuzz.Step{
			s(0, spinOpStopM, 0), s(1, spinOpStopM, 0), s(0, spinOpSubmit, 0), s(0, spinOpSubmit, 0),
			s(1, spinOpTake, 0), s(0, spinOpTake, 0), s(1, spinOpBecomeSpinning, 0), s(1, spinOpReleaseP, 0),
			s(1, spinOpDropSpinning, 0), s(1, spinOpStopM, 0), s(0, spinOpBecomeSpinning, 0),
			s(0, spinOpReleaseP, 0), s(0, spinOpDropSpinning, 0), s(0, spinOpStopM, 0),
		}},
		// The drop finds work: re-spin. Then a handoff with no idle M.
		{Actors: 3, Steps: []fuzz.Step{
			s(0, spinOpAcquireP, 0), s(0, spinOpBecomeSpinning, 0), s(0, spinOpReleaseP, 0),
			s(1, spinOpSubmit, 0), s(0, spinOpDropSpinning, 0), s(0, spinOpTake, 0),
			s(2, spinOpAcquireP, 0), s(2, spinOpSubmit, 1), s(1, spinOpStopM, 0),
		}},
		// needspinning: both Ps held, Wakep finds none, the next ReleaseP
		// of a non-spinning M spins instead; HandoffP with work.
		{Actors: 3, Steps: []fuzz.Step{
			s(0, spinOpAcquireP, 0), s(1, spinOpAcquireP, 0), s(2, spinOpSubmit, 1), s(0, spinOpReleaseP, 0),
			s(0, spinOpTake, 0), s(2, spinOpStopM, 0), s(2, spinOpSubmit, 0), s(1, spinOpHandoffP, 0),
			s(1, spinOpStopM, 0), s(0, spinOpHandoffP, 0),
		}},
		// Misuse of every kind, then Shutdown with an M parked and a
		// handoff waiting, and StopM after it.
		{Actors: 4, Steps: []fuzz.Step{
			s(0, spinOpMisuse, 0), s(0, spinOpMisuse, 1), s(0, spinOpMisuse, 2), s(0, spinOpMisuse, 3),
			s(0, spinOpMisuse, 4), s(1, spinOpAcquireP, 0), s(1, spinOpMisuse, 1), s(1, spinOpMisuse, 2),
			s(1, spinOpMisuse, 3), s(1, spinOpMisuse, 4), s(1, spinOpBecomeSpinning, 0), s(1, spinOpMisuse, 5),
			s(2, spinOpStopM, 0), s(3, spinOpSubmit, 1), s(3, spinOpSubmit, 0),
			s(0, spinOpShutdown, 7), s(3, spinOpStopM, 0),
		}},
	}
}

// FuzzSpinning checks the Sched against its model on programs decoded from
// the input; seeds are the hand-written programs and every corpus file.
func FuzzSpinning(f *testing.F) { spinTarget.fuzz(f) }

var spinTarget = seqTarget{spec: spinSpec, seeds: spinSeeds,
	interpret: func(b []byte) (map[string]int, error) { return interpretSpinning(b, spinReal) }}

// TestSpinningSeeds runs the hand-written seeds, requires that together
// they take the main paths of the model, and logs how far the corpus files
// reach.
func TestSpinningSeeds(t *testing.T) {
	spinTarget.testSeeds(t, []string{
		"Submit", "Wakep", "M woken", "Take", "ResetSpinning", "BecomeSpinning true", "re-spin",
		"needspinning set", "needspinning answered", "handoff waits", "StopM parks", "StopM takes a handoff",
		"StopM exits", "HandoffP", "Shutdown", "Misuse",
	})
}

// TestFuzzSpinningCatchesBrokenVariants shows FuzzSpinning's interpreter
// can fail: on the hand-written seeds it must report a mismatch for each
// broken variant, and none for the real Sched.
func TestFuzzSpinningCatchesBrokenVariants(t *testing.T) {
	broken := []struct {
		name string
		impl spinImpl
		want string // a regular expression
	}{
		{"Submit wakes before it publishes", spinImpl{reset: spinReal.reset,
			submit: func(s *spinning.Sched, publish func()) { s.Wakep(); publish() }}, "before it published"},
		{"the drop's re-check sees no work", spinImpl{submit: spinReal.submit, reset: spinReal.reset, blindWork: true},
			"DropSpinning|HandoffP"},
		{"a spinner that found work stays spinning", spinImpl{submit: spinReal.submit, reset: func(*spinning.M) {}},
			"Take"},
	}
	for _, b := range broken {
		t.Run(b.name, func(t *testing.T) {
			var errs []string
			for _, p := range spinSeeds() {
				if err := runSpinning(spinSpec.Encode(p), b.impl); err != nil {
					errs = append(errs, err.Error())
				}
			}
			if len(errs) == 0 {
				t.Fatal("the interpreter accepted a broken Sched on every seed")
			}
			if all := strings.Join(errs, "\n"); !regexp.MustCompile(b.want).MatchString(all) {
				t.Fatalf("errors %q, want one mentioning %q", all, b.want)
			}
			t.Logf("caught: %s", errs[0])
		})
	}
}
