package spinning_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/spinning"
)

// Bar item 5: the real Sched under every interleaving, within the
// preemption bound, of small scenarios: a submitter and two Ms over one
// global queue, each M running the executor's loop of doc.go, entered
// parked or at a chosen point. Every scheduling point is an atomicx operation
// (the counters, the lock, the Ms' park notes, the queue's lock and length),
// so these run only with -tags schedcheck; without it explore.Check skips
// them.
//
// The submitter submits its tasks, then sleeps until the last one has run,
// then shuts the Sched down so that parked Ms exit. A lost wakeup therefore
// shows as a deadlock: the submitter sleeps on its note, every M sleeps on
// its park note, and a task waits in the queue. After each execution Check
// requires every task run exactly once, the queue empty, and the Sched back
// at rest (no spinner, every P idle, the invariants of doc.go).

// xTask is a task of a scenario.
type xTask struct {
	id   int
	kind uint8         // kindPlain, kindBlocker, kindPartner
	pair *atomicx.Note // a blocker sleeps on it until its partner wakes it
}

// xQueue is a global run queue: a slice under an atomicx.Mutex, its length
// in a cell for Config.Work.
type xQueue struct {
	mu    atomicx.Mutex
	items []*xTask
	n     atomicx.Int32
}

func (q *xQueue) push(t *xTask) {
	q.mu.Lock()
	q.items = append(q.items, t)
	q.n.Add(1)
	q.mu.Unlock()
}

func (q *xQueue) pop() *xTask {
	if q.n.Load() == 0 {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return nil
	}
	t := q.items[0]
	q.items = q.items[1:]
	q.n.Add(-1)
	return t
}

// How an M thread starts.
type xStart uint8

const (
	xParked       xStart = iota // on the idle list (StopM's first half ran in build)
	xSpinningIdle               // spinning, holding a P, having found nothing
	xIdleNoSpin                 // holding a P, not spinning, having found nothing
	xHandoff                    // holding a P, its task about to block: HandoffP, then xReturning
	xReturning                  // no P, its task back from a blocking call: AcquireP, or put the task back and StopM
)

// xM is one M thread of a scenario: where it starts and, for xHandoff and
// xReturning, the kind of the task it is in (kindNone: none, so it just
// takes a P or parks).
type xM struct {
	start xStart
	cont  uint8
}

// kindNone marks an M that is in no task.
const kindNone = 255

// xScenario is one scenario: the Ps, the M threads, and the tasks each
// submitter thread submits in order (submitter 0 then waits until every
// task has run and shuts the Sched down).
type xScenario struct {
	name  string
	procs int
	ms    []xM
	subs  [][]uint8
	// queued are tasks already in the queue when the threads start.
	queued []uint8
	opts   explore.Options
	// longMax, if not zero, replaces opts.MaxExecutions in long mode, for
	// a shape whose LongBound takes more than the default.
	longMax int
}

// options are sc's explorer options for this mode.
func (sc xScenario) options() explore.Options {
	opts := sc.opts
	opts.Name = "spinning-" + sc.name
	if sc.longMax != 0 && !testing.Short() {
		opts.MaxExecutions = sc.longMax
	}
	return opts
}

var (
	xPark   = xM{start: xParked, cont: kindNone}
	xSpin   = xM{start: xSpinningIdle, cont: kindNone}
	xNoSpin = xM{start: xIdleNoSpin, cont: kindNone}
)

var xScenarios = []xScenario{
	// The basic promise: work submitted while every M is xPark runs.
	{name: "submit-wakes-parked", procs: 2, ms: []xM{xPark, xPark}, subs: [][]uint8{{kindPlain}},
		opts: explore.Options{LongBound: 3}},
	// Two tasks: the second Wakep races with the first spinner.
	{name: "submit-two", procs: 2, ms: []xM{xPark, xPark}, subs: [][]uint8{{kindPlain, kindPlain}}},
	// Two submitters at once: two Wakeps race for nmspinning's 0 -> 1.
	{name: "two-submitters", procs: 2, ms: []xM{xPark, xPark}, subs: [][]uint8{{kindPlain}, {kindPlain}},
		opts: explore.Options{Bound: 1, LongBound: 2}},
	// The drop-and-recheck race: M0 spins and found nothing; it releases
	// its P and drops while the submitter publishes and reads nmspinning.
	{name: "drop-vs-submit", procs: 2, ms: []xM{xSpin, xPark}, subs: [][]uint8{{kindPlain}},
		opts: explore.Options{LongBound: 3}},
	// Two submitters and a spinner dropping.
	{name: "drop-vs-two-submitters", procs: 2, ms: []xM{xSpin, xPark}, subs: [][]uint8{{kindPlain}, {kindPlain}},
		opts: explore.Options{Bound: 1, LongBound: 2}, longMax: 3_000_000},
	// ResetSpinning of the last spinner: the M that takes the blocker keeps
	// its P until the partner runs, so another M must be started for it.
	{name: "last-spinner-wakes", procs: 2, ms: []xM{xPark, xPark}, subs: [][]uint8{{kindBlocker, kindPartner}}},
	// needspinning: the only P is held by an M that found nothing; the
	// submitter's Wakep finds no idle P, so that M must spin, not idle.
	{name: "needspinning", procs: 1, ms: []xM{xNoSpin, xPark}, subs: [][]uint8{{kindPlain}},
		opts: explore.Options{LongBound: 3}},
	// HandoffP racing with a submission.
	{name: "handoff-vs-submit", procs: 2, ms: []xM{{start: xHandoff, cont: kindNone}, xPark}, subs: [][]uint8{{kindPlain}}},
	// HandoffP racing a Wakep for the only P: M0's task makes a blocking
	// call that waits for the partner. If the Wakep finds no idle P it sets
	// needspinning, and the handoff must then start a spinner for the
	// partner, not idle the P.
	{name: "handoff-vs-wakep", procs: 1, ms: []xM{{start: xHandoff, cont: kindBlocker}, xPark},
		subs: [][]uint8{{kindPartner}}, opts: explore.Options{LongBound: 3}, longMax: 3_000_000},
	// A Wakep that finds no idle P against a spinner re-taking its P after
	// the drop: M0 re-checks, sees the blocker queued and takes P 0 back,
	// and the submitter's Wakep for the partner then finds no idle P. M0's
	// becomeSpinning clears needspinning, M0 takes the blocker and keeps
	// P 0, and its ResetSpinning's Wakep sees the submitter's count: the
	// submitter must have given it back before setting needspinning, so
	// that either M0's Wakep or M1's ReleaseP answers for the partner.
	// Bound 2 in both modes (a one-off run at bound 3: 1,082,429
	// executions, 7 minutes, no failure).
	{name: "respin-vs-wakep", procs: 2, ms: []xM{xSpin, xNoSpin}, queued: []uint8{kindBlocker},
		subs: [][]uint8{{kindPartner}}},
	// AcquireP without spinning against the drop's re-check: M2 comes back
	// from a blocking call and may take the P that spinning M0 releases,
	// and keep it (its task waits for the partner). M0's re-check then
	// finds the partner and no idle P: needspinning must make M1, about to
	// idle the other P, spin for it. Bound 1 in both modes: bound 2 takes
	// 1.3 million executions, over ten minutes (a one-off run at bound 2
	// found the lost wakeup that respin-vs-wakep now aims at).
	{name: "acquire-vs-drop", procs: 2, ms: []xM{xSpin, xNoSpin, {start: xReturning, cont: kindBlocker}},
		subs: [][]uint8{{kindPartner}}, opts: explore.Options{Bound: 1}},
}

// xRun builds one execution of sc.
func (sc xScenario) xRun() explore.Run {
	q := new(xQueue)
	explore.Name(q, "q")
	s, err := spinning.New(spinning.Config{Procs: sc.procs, Work: func() bool { return q.n.Load() > 0 }})
	if err != nil {
		panic(err)
	}
	explore.Name(s, "sched")
	var done atomicx.Note
	explore.Name(&done, "done")
	var ran atomicx.Int32
	explore.Name(&ran, "ran")

	// Every task: the Ms' continuations first, then each submitter's in
	// order; a blocker and the next partner share a note.
	var tasks []*xTask
	conts := make([]*xTask, len(sc.ms))
	var pairNote *atomicx.Note
	add := func(k uint8) *xTask {
		t := &xTask{id: len(tasks), kind: k}
		if k == kindBlocker {
			pairNote = new(atomicx.Note)
			explore.Name(pairNote, fmt.Sprintf("pair%d", t.id))
		}
		if k != kindPlain {
			t.pair = pairNote
		}
		tasks = append(tasks, t)
		return t
	}
	for i, xm := range sc.ms {
		if xm.cont != kindNone {
			conts[i] = add(xm.cont)
		}
	}
	for _, k := range sc.queued {
		q.items = append(q.items, add(k))
		q.n.Store(int32(len(q.items)))
	}
	subTasks := make([][]*xTask, len(sc.subs))
	for i, ks := range sc.subs {
		for _, k := range ks {
			subTasks[i] = append(subTasks[i], add(k))
		}
	}
	counts := make([]int, len(tasks))
	run := func(t *xTask) {
		counts[t.id]++
		switch t.kind {
		case kindBlocker:
			t.pair.Sleep()
		case kindPartner:
			t.pair.Wakeup()
		}
		if int(ran.Add(1)) == len(tasks) {
			done.Wakeup()
		}
	}
	env := &xEnv{s: s, q: q, run: run}

	var threads []func()
	for i, ts := range subTasks {
		threads = append(threads, func() { // a submitter
			for _, t := range ts {
				s.Submit(func() { q.push(t) })
			}
			if i == 0 {
				done.Sleep()
				s.Shutdown()
			}
		})
	}
	for i, xm := range sc.ms {
		m := s.NewM()
		explore.Name(m, fmt.Sprintf("m%d", i))
		switch xm.start {
		case xParked:
			if spinning.StopMBegin(m) != "parked" {
				panic("set-up: StopMBegin did not park")
			}
		case xReturning:
		default:
			if !m.AcquireP() {
				panic("set-up: no P")
			}
			if xm.start == xSpinningIdle {
				spinning.ForceSpinning(m)
			}
		}
		threads = append(threads, func() { env.mLoop(m, xm.start, conts[i]) })
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			for id, c := range counts {
				if c != 1 {
					return fmt.Errorf("task %d ran %d times", id, c)
				}
			}
			if n := q.n.Load(); n != 0 {
				return fmt.Errorf("%d tasks still queued", n)
			}
			if n := s.NMSpinning(); n != 0 {
				return fmt.Errorf("nmspinning = %d at the end, every M exited", n)
			}
			if n := s.NPIdle(); n != sc.procs {
				return fmt.Errorf("npidle = %d at the end, want %d", n, sc.procs)
			}
			return spinning.Validate(s)
		},
	}
}

// xEnv is what an M thread of one execution works on.
type xEnv struct {
	s   *spinning.Sched
	q   *xQueue
	run func(*xTask)
}

// mLoop is an M thread: the executor's loop of doc.go over one global
// queue (a spinning M's steal is a second look at it), entered where start
// says; cont is the task an xHandoff or xReturning M is in, or nil.
func (e *xEnv) mLoop(m *spinning.M, start xStart, cont *xTask) {
	switch start {
	case xParked:
		if !spinning.StopMWait(m) {
			return
		}
	case xHandoff, xReturning:
		if start == xHandoff {
			m.HandoffP()
			if cont != nil && cont.kind == kindBlocker {
				// The blocking call waits for the partner, without a P.
				cont.pair.Sleep()
			}
		}
		if !e.afterBlocking(m, cont) {
			return
		}
	}
	skipLook := start == xSpinningIdle || start == xIdleNoSpin
	for {
		var t *xTask
		if !skipLook {
			t = e.q.pop()
			if t == nil && m.BecomeSpinning() {
				t = e.q.pop()
			}
		}
		skipLook = false
		if t != nil {
			if m.Spinning() {
				m.ResetSpinning()
			}
			e.run(t)
			continue
		}
		if !m.ReleaseP() {
			continue
		}
		if m.DropSpinning() {
			continue
		}
		if !m.StopM() {
			return
		}
	}
}

// afterBlocking is the executor's return from a blocking call, as
// exitsyscall: take an idle P and go on with the task; with none idle, put
// the task back (Submit) and park. It reports whether the M holds a P.
func (e *xEnv) afterBlocking(m *spinning.M, cont *xTask) bool {
	if m.AcquireP() {
		if cont != nil {
			e.run(cont)
		}
		return true
	}
	if cont != nil {
		e.s.Submit(func() { e.q.push(cont) })
	}
	return m.StopM()
}

// exploreSpinning runs every scenario and returns the first failure, for
// the kill matrix.
func exploreSpinning() error {
	// The keep-alive shape first: it is cheap (about 1,100 executions), and
	// ExitIgnoresWake's cell then stops at it.
	res, err := explore.Explore(keepAliveOpts, keepAliveVsWakep)
	if err != nil {
		return err
	}
	if res.Failure != nil {
		return errors.New(res.Failure.String())
	}
	for _, sc := range xScenarios {
		res, err := explore.Explore(sc.options(), sc.xRun)
		if err != nil {
			return err
		}
		if res.Failure != nil {
			return errors.New(res.Failure.String())
		}
	}
	res, err = explore.Explore(wakepOnceOpts, wakepOnce(2, 3, (*spinning.Sched).Wakep))
	if err != nil {
		return err
	}
	if res.Failure != nil {
		return errors.New(res.Failure.String())
	}
	return nil
}

// keepAliveVsWakep is the shape "an M's keep-alive runs out while a Wakep
// hands it a P": one P, two Ms parked with a keep-alive (two Ms alive for
// one P, so one may exit), and a Wakep, for work, at the instant the
// keep-alives run out (the virtual clock moves only when every thread
// waits), so each M's look under the lock (expire) interleaves with the
// Wakep's mget in every order. Each M ends holding the P, or exits; the work must not
// be lost: the P is held by an M that returned from StopM, or waits in a
// handoff for the M NeedM starts, and at most one M exits (the one P
// needs the other).
func keepAliveVsWakep() explore.Run {
	var needM atomicx.Int32
	explore.Name(&needM, "needM")
	s, err := spinning.New(spinning.Config{Procs: 1, Work: func() bool { return true }, KeepAlive: time.Millisecond,
		NeedM: func() { needM.Add(1) }})
	if err != nil {
		panic(err)
	}
	explore.Name(s, "sched")
	ms := make([]*spinning.M, 2)
	got := make([]bool, 2)
	threads := []func(){func() {
		atomicx.Sleep(time.Millisecond) // the keep-alives run out at the same instant
		s.Wakep()
	}}
	for i := range ms {
		ms[i] = s.NewM()
		explore.Name(ms[i], fmt.Sprintf("m%d", i))
	}
	for i := range ms { // both park beyond the one P: both with the keep-alive
		if spinning.StopMBegin(ms[i]) != "parked" {
			panic("set-up: StopMBegin did not park")
		}
		threads = append(threads, func() { got[i] = spinning.StopMWait(ms[i]) })
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			held, exited := heldExited(ms, got)
			if exited > 1 {
				return errors.New("both Ms exited: the one P needs one")
			}
			if held+int(needM.Load()) != 1 {
				return fmt.Errorf("%d Ms got the P and NeedM was called %d times, want one of them once", held, needM.Load())
			}
			return spinning.Validate(s)
		},
	}
}

var keepAliveOpts = explore.Options{Name: "spinning-keepalive-vs-wakep"}

// heldExited counts the Ms whose StopM returned holding a P (got) and the
// Ms that exited after their keep-alive.
func heldExited(ms []*spinning.M, got []bool) (held, exited int) {
	for i, m := range ms {
		if got[i] {
			held++
		}
		if m.Exited() {
			exited++
		}
	}
	return held, exited
}

// retireVsWakep: on 2 idle Ps two Ms are parked with no timer (the Ps
// need both); RetireP of P 1 races a Wakep (which hands an idle P to a
// parked M), and a last thread waits past the keep-alive and shuts the
// Sched down. If RetireP retired P 1 at once, one parked M is one too
// many: retimeIdle wakes it to park again, timed, and it must have exited
// before the Shutdown while the other got P 0 from Wakep; if Wakep handed
// P 1 first, RetireP only marks it, and no M exits. In every order no note
// is woken twice (retimeIdle takes the M off the idle list, so StartM
// cannot pop it too).
func retireVsWakep() explore.Run {
	s, err := spinning.New(spinning.Config{Procs: 2, Work: func() bool { return true }, KeepAlive: time.Millisecond,
		NeedM: func() {}})
	if err != nil {
		panic(err)
	}
	explore.Name(s, "sched")
	ms := make([]*spinning.M, 2)
	got := make([]bool, 2)
	for i := range ms {
		ms[i] = s.NewM()
		explore.Name(ms[i], fmt.Sprintf("m%d", i))
		if spinning.StopMBegin(ms[i]) != "parked" || spinning.Timed(ms[i]) {
			panic("set-up: StopMBegin did not park with no timer")
		}
	}
	var retired bool
	threads := []func(){
		func() { retired = s.RetireP(1) },
		func() { s.Wakep() },
		func() {
			atomicx.Sleep(10 * time.Millisecond) // past the keep-alive
			s.Shutdown()
		},
	}
	for i := range ms {
		threads = append(threads, func() { got[i] = spinning.StopMWait(ms[i]) })
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			held, exited := heldExited(ms, got)
			want := 0
			if retired {
				want = 1
			}
			if held != 1 || exited != want {
				return fmt.Errorf("RetireP retired P 1 at once: %v; %d Ms got a P and %d exited, want 1 and %d (retimeIdle)", retired, held, exited, want)
			}
			return spinning.Validate(s)
		},
	}
}

func TestExploreRetire(t *testing.T) {
	res := explore.Check(t, explore.Options{Name: "spinning-retire-vs-wakep"}, retireVsWakep)
	if !res.Complete && !res.Replayed {
		t.Errorf("exploration cut short at %d executions", res.Executions)
	}
}

func TestExploreKeepAlive(t *testing.T) {
	res := explore.Check(t, keepAliveOpts, keepAliveVsWakep)
	if !res.Complete && !res.Replayed {
		t.Errorf("exploration cut short at %d executions", res.Executions)
	}
}

func TestExploreSpinning(t *testing.T) {
	for _, sc := range xScenarios {
		t.Run(sc.name, func(t *testing.T) {
			res := explore.Check(t, sc.options(), sc.xRun)
			if !res.Complete && !res.Replayed {
				t.Errorf("exploration of %s was cut short at %d executions", sc.name, res.Executions)
			}
		})
	}
}

// wakepOnce builds the shape "two Wakeps at once" for the property "one
// Wakep starts at most one spinner": callers threads call wakep together
// while every P is idle and an M is parked for each; no M runs. Exactly one
// M must be handed a P to spin: the first CAS of nmspinning from 0 wins,
// the others see 1, and no one gives the count back.
func wakepOnce(procs, callers int, wakep func(*spinning.Sched)) func() explore.Run {
	return func() explore.Run {
		s, err := spinning.New(spinning.Config{Procs: procs, Work: func() bool { return false }})
		if err != nil {
			panic(err)
		}
		explore.Name(s, "sched")
		ms := make([]*spinning.M, procs)
		for i := range ms {
			ms[i] = s.NewM()
			explore.Name(ms[i], fmt.Sprintf("m%d", i))
			if spinning.StopMBegin(ms[i]) != "parked" {
				panic("set-up: StopMBegin did not park")
			}
		}
		threads := make([]func(), callers)
		for i := range threads {
			threads[i] = func() { wakep(s) }
		}
		return explore.Run{
			Threads: threads,
			Check: func() error {
				started := 0
				for _, m := range ms {
					if p, _ := spinning.NextP(m); p != spinning.NoP {
						started++
					}
				}
				if started != 1 {
					return fmt.Errorf("%d concurrent Wakeps started %d spinners, want 1", callers, started)
				}
				if n := s.NMSpinning(); n != 1 {
					return fmt.Errorf("nmspinning = %d after the Wakeps, want 1", n)
				}
				return spinning.Validate(s)
			},
		}
	}
}

var wakepOnceOpts = explore.Options{Name: "spinning-wakep-once", LongBound: 3}

func TestExploreWakepOnce(t *testing.T) {
	res := explore.Check(t, wakepOnceOpts, wakepOnce(2, 3, (*spinning.Sched).Wakep))
	if !res.Complete && !res.Replayed {
		t.Errorf("exploration cut short at %d executions", res.Executions)
	}
}

// TestExploreWakepOnceCatchesLoadAdd proves the shape can fail: a Wakep
// whose CAS is a load and an add starts two spinners in some interleaving.
func TestExploreWakepOnceCatchesLoadAdd(t *testing.T) {
	opts := wakepOnceOpts
	opts.Name += "-load-add"
	res, err := explore.Explore(opts, wakepOnce(2, 3, spinning.WakepLoadAdd))
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil {
		t.Fatalf("the explorer accepted a Wakep without CAS in %d executions", res.Executions)
	}
	t.Logf("caught in execution %d: %v", res.Failure.Execution, res.Failure.Err)
}

// workWithoutLock checks "Config.Work is called without the scheduler
// lock": its Work takes that lock (NMIdle), so a call made under it
// deadlocks, which the explorer reports. One M drops after a failed look
// and re-checks (work has appeared); another hands its P off (HandoffP
// calls Work first).
func workWithoutLock(work func(*spinning.Sched) bool) func() explore.Run {
	return func() explore.Run {
		var queued atomicx.Int32
		explore.Name(&queued, "queued")
		var s *spinning.Sched
		s, err := spinning.New(spinning.Config{Procs: 2, Work: func() bool {
			s.NMIdle() // takes the scheduler lock
			return queued.Load() > 0
		}})
		if err != nil {
			panic(err)
		}
		explore.Name(s, "sched")
		dropper, handoff := s.NewM(), s.NewM()
		if !dropper.AcquireP() || !handoff.AcquireP() {
			panic("set-up: no P")
		}
		spinning.ForceSpinning(dropper)
		queued.Store(1)
		return explore.Run{
			Threads: []func(){
				func() {
					if dropper.ReleaseP() && dropper.DropSpinning() {
						dropper.ResetSpinning()
					}
				},
				func() {
					work(s)
					handoff.HandoffP()
				},
			},
			Check: func() error { return nil }, // a deadlock is the failure
		}
	}
}

func TestExploreWorkWithoutLock(t *testing.T) {
	res := explore.Check(t, explore.Options{Name: "spinning-work-without-lock"},
		workWithoutLock(func(*spinning.Sched) bool { return false }))
	if !res.Complete && !res.Replayed {
		t.Errorf("exploration cut short at %d executions", res.Executions)
	}
}

// TestExploreWorkWithoutLockCatchesWorkUnderLock proves the check can
// fail: the same run, with a caller that calls Work under the lock.
func TestExploreWorkWithoutLockCatchesWorkUnderLock(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "spinning-work-under-lock"}, workWithoutLock(spinning.WorkUnderLock))
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil {
		t.Fatalf("the explorer accepted Work called under the lock in %d executions", res.Executions)
	}
	t.Logf("caught in execution %d: %v", res.Failure.Execution, res.Failure.Err)
}
