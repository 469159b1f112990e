package spinning_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/internal/atomicx"
	"github.com/schedkit/schedkit/internal/explore"
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
	xHandoff                    // holding a P, about to block: HandoffP, then AcquireP or StopM
)

// xScenario is one scenario: the Ps, how each M starts, the tasks the
// submitter submits in order.
type xScenario struct {
	name  string
	procs int
	ms    []xStart
	tasks []uint8
	opts  explore.Options
}

var xScenarios = []xScenario{
	// The basic promise: work submitted while every M is parked runs.
	{name: "submit-wakes-parked", procs: 2, ms: []xStart{xParked, xParked}, tasks: []uint8{kindPlain}},
	// Two tasks: the second Wakep races with the first spinner.
	{name: "submit-two", procs: 2, ms: []xStart{xParked, xParked}, tasks: []uint8{kindPlain, kindPlain}},
	// The drop-and-recheck race: M0 spins and found nothing; it releases
	// its P and drops while the submitter publishes and reads nmspinning.
	{name: "drop-vs-submit", procs: 2, ms: []xStart{xSpinningIdle, xParked}, tasks: []uint8{kindPlain}},
	// ResetSpinning of the last spinner: the M that takes the blocker keeps
	// its P until the partner runs, so another M must be started for it.
	{name: "last-spinner-wakes", procs: 2, ms: []xStart{xParked, xParked}, tasks: []uint8{kindBlocker, kindPartner}},
	// needspinning: the only P is held by an M that found nothing; the
	// submitter's Wakep finds no idle P, so that M must spin, not idle.
	{name: "needspinning", procs: 1, ms: []xStart{xIdleNoSpin, xParked}, tasks: []uint8{kindPlain}},
	// HandoffP racing with a submission.
	{name: "handoff-vs-submit", procs: 2, ms: []xStart{xHandoff, xParked}, tasks: []uint8{kindPlain}},
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
	counts := make([]int, len(sc.tasks))
	tasks := make([]*xTask, len(sc.tasks))
	var pairNote *atomicx.Note
	for i, k := range sc.tasks {
		tasks[i] = &xTask{id: i, kind: k}
		if k == kindBlocker {
			pairNote = new(atomicx.Note)
			explore.Name(pairNote, fmt.Sprintf("pair%d", i))
		}
		if k != kindPlain {
			tasks[i].pair = pairNote
		}
	}
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

	ms := make([]*spinning.M, len(sc.ms))
	threads := []func(){func() { // the submitter
		for _, t := range tasks {
			s.Submit(func() { q.push(t) })
		}
		done.Sleep()
		s.Shutdown()
	}}
	for i, start := range sc.ms {
		m := s.NewM()
		ms[i] = m
		explore.Name(m, fmt.Sprintf("m%d", i))
		switch start {
		case xParked:
			if spinning.StopMBegin(m) != "parked" {
				panic("set-up: StopMBegin did not park")
			}
		default:
			if !m.AcquireP() {
				panic("set-up: no P")
			}
			if start == xSpinningIdle {
				spinning.ForceSpinning(m)
			}
		}
		threads = append(threads, func() { xMLoop(m, start, q, run) })
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

// xMLoop is an M thread: the executor's loop of doc.go over one global
// queue (a spinning M's steal is a second look at it), entered where start
// says.
func xMLoop(m *spinning.M, start xStart, q *xQueue, run func(*xTask)) {
	switch start {
	case xParked:
		if !spinning.StopMWait(m) {
			return
		}
	case xHandoff:
		m.HandoffP()
		// ... the blocking call returns ...
		if !m.AcquireP() && !m.StopM() {
			return
		}
	}
	skipLook := start == xSpinningIdle || start == xIdleNoSpin
	for {
		var t *xTask
		if !skipLook {
			t = q.pop()
			if t == nil && m.BecomeSpinning() {
				t = q.pop()
			}
		}
		skipLook = false
		if t != nil {
			if m.Spinning() {
				m.ResetSpinning()
			}
			run(t)
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

// exploreSpinning runs every scenario and returns the first failure, for
// the kill matrix.
func exploreSpinning() error {
	for _, sc := range xScenarios {
		opts := sc.opts
		opts.Name = "spinning-" + sc.name
		res, err := explore.Explore(opts, sc.xRun)
		if err != nil {
			return err
		}
		if res.Failure != nil {
			return errors.New(res.Failure.String())
		}
	}
	return nil
}

func TestExploreSpinning(t *testing.T) {
	for _, sc := range xScenarios {
		t.Run(sc.name, func(t *testing.T) {
			opts := sc.opts
			opts.Name = "spinning-" + sc.name
			res := explore.Check(t, opts, sc.xRun)
			if !res.Complete && !res.Replayed {
				t.Errorf("exploration of %s was cut short at %d executions", sc.name, res.Executions)
			}
		})
	}
}
