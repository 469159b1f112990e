package fuzz_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/fuzz"
	"github.com/schedkit/schedkit/spinning"
)

// FuzzSpinningInterleaved: one or two submitters and two Ms over one
// global queue, each M running the executor's loop of spinning's doc.go,
// entered as its start says. Submitter 0, once it has submitted, sleeps
// until every task has run and then shuts the Sched down, so that parked
// Ms exit: a lost wakeup shows as a deadlock (every M parked, submitter 0
// asleep, a task queued), which the explorer reports with its schedule.
// After each execution every task must have run exactly once, the queue be
// empty and the Sched at rest: no spinner, every P idle.

// Submitter ops.
const (
	ivpSubmit        = iota // Submit(push a task)
	ivpPutWakep             // push a task, then Wakep
	ivpSubmitTwo            // Submit a blocker, then Submit its partner (only with 2 Ps, once)
	ivpSubmitSyscall        // Submit a task that blocks in a syscall: its M hands its P off first
	ivpSubmitSysTwo         // Submit a blocker that waits in a syscall (its P handed off), then its partner (once)
)

var ivSpinningSpec = fuzz.Spec{
	MinActors: 1,
	MaxActors: 2,
	Ops: []fuzz.Op{ivpSubmit: {Name: "Submit"}, ivpPutWakep: {Name: "PutWakep"}, ivpSubmitTwo: {Name: "SubmitPair"},
		ivpSubmitSyscall: {Name: "SubmitSyscall"}, ivpSubmitSysTwo: {Name: "SubmitSyscallPair"}},
	MaxSteps: 6,
}

// How an M thread starts.
const (
	ivmParked   = iota // StopM first: parked until a Wakep hands it a P
	ivmLooking         // holding a P (taken in build), at the top of the loop
	ivmFoundNil        // holding a P, having looked and found nothing: ReleaseP next
	ivmHandoff         // holding a P, about to block: HandoffP, then AcquireP or StopM
	ivmStarts
)

var ivmNames = []string{"parked", "looking", "found-nothing", "handoff"}

const ivSpinMs = 2

// ivSpinningProg is a decoded FuzzSpinningInterleaved input.
type ivSpinningProg struct {
	procs      int
	starts     [ivSpinMs]int
	submitters [][]fuzz.Step
	schedule   []byte
}

func decodeIVSpinning(data []byte) ivSpinningProg {
	r, schedule := ivInputs(data)
	p := ivSpinningProg{procs: 1 + r.Intn(2), schedule: schedule}
	for i := range p.starts {
		p.starts[i] = r.Intn(ivmStarts)
	}
	p.submitters = ivSpinningSpec.Decode(r.Rest()).Threads(3)
	// A blocker holds its P until its partner runs on another: with one P,
	// or two blockers, a deadlock would be the program's, not the Sched's.
	// (A blocker in a syscall has handed its P off: one P is enough.)
	pair := false
	for _, steps := range p.submitters {
		for i := range steps {
			switch op := steps[i].Op; {
			case op == ivpSubmitTwo && (pair || p.procs < 2), op == ivpSubmitSysTwo && pair:
				steps[i].Op = ivpSubmit
			case op == ivpSubmitTwo, op == ivpSubmitSysTwo:
				pair = true
			}
		}
	}
	return p
}

func (p ivSpinningProg) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d Ps; Ms start %s, %s; schedule %x\n", p.procs, ivmNames[p.starts[0]], ivmNames[p.starts[1]], p.schedule)
	ivWriteThreads(&b, "submitter ", p.submitters, func(_ int, st fuzz.Step) string {
		return ivSpinningSpec.Ops[st.Op].Name
	})
	return b.String()
}

func (p ivSpinningProg) encode() []byte {
	setup := []byte{byte(p.procs - 1), byte(p.starts[0]), byte(p.starts[1])}
	return fuzz.JoinInterleaved(append(setup, ivSpinningSpec.Encode(ivProgram(p.submitters))...), p.schedule)
}

// ivTask is a task of FuzzSpinningInterleaved.
type ivTask struct {
	id      int
	blocker bool          // sleeps on pair until its partner runs
	partner bool          // wakes pair
	syscall bool          // its M hands off its P, blocks, then takes a P again
	pair    *atomicx.Note // shared by a blocker and its partner
}

// ivGlobalQ is the executor's global queue: a slice under an
// atomicx.Mutex, its length in a cell for Config.Work.
type ivGlobalQ struct {
	mu    atomicx.Mutex
	items []*ivTask
	n     atomicx.Int32
}

func (q *ivGlobalQ) push(t *ivTask) {
	q.mu.Lock()
	q.items = append(q.items, t)
	q.n.Add(1)
	q.mu.Unlock()
}

func (q *ivGlobalQ) pop() *ivTask {
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

func (p ivSpinningProg) build() explore.Run {
	q := new(ivGlobalQ)
	explore.Name(q, "q")
	s, err := spinning.New(spinning.Config{Procs: p.procs, Work: func() bool { return q.n.Load() > 0 }})
	if err != nil {
		panic(err)
	}
	explore.Name(s, "sched")
	var done atomicx.Note
	explore.Name(&done, "done")
	var ran atomicx.Int32
	explore.Name(&ran, "ran")

	// The tasks, made here so that no thread touches shared state to make
	// them: per submitter, per op, one or two.
	var tasks []*ivTask
	newTask := func() *ivTask {
		t := &ivTask{id: len(tasks)}
		tasks = append(tasks, t)
		return t
	}
	plan := make([][][]*ivTask, len(p.submitters))
	for k, steps := range p.submitters {
		for _, st := range steps {
			ts := []*ivTask{newTask()}
			ts[0].syscall = st.Op == ivpSubmitSyscall || st.Op == ivpSubmitSysTwo
			if st.Op == ivpSubmitTwo || st.Op == ivpSubmitSysTwo {
				partner := newTask()
				note := new(atomicx.Note)
				explore.Name(note, fmt.Sprintf("pair%d", ts[0].id))
				ts[0].blocker, ts[0].pair = true, note
				partner.partner, partner.pair = true, note
				ts = append(ts, partner)
			}
			plan[k] = append(plan[k], ts)
		}
	}
	counts := make([]int, len(tasks))
	run := func(t *ivTask) {
		counts[t.id]++
		switch {
		case t.blocker:
			t.pair.Sleep()
		case t.partner:
			t.pair.Wakeup()
		}
		if int(ran.Add(1)) == len(tasks) {
			done.Wakeup()
		}
	}

	var threads []func()
	for k, steps := range p.submitters {
		threads = append(threads, func() {
			for i, st := range steps {
				for _, t := range plan[k][i] {
					if st.Op == ivpPutWakep {
						q.push(t)
						s.Wakep()
					} else {
						s.Submit(func() { q.push(t) })
					}
				}
			}
			if k == 0 {
				if len(tasks) > 0 {
					done.Sleep()
				}
				s.Shutdown()
			}
		})
	}
	for i, start := range p.starts {
		m := s.NewM()
		explore.Name(m, fmt.Sprintf("m%d", i))
		if start != ivmParked && !m.AcquireP() {
			start = ivmParked // no P left for it
		}
		threads = append(threads, func() { ivMLoop(m, start, q, run) })
	}
	return explore.Run{Threads: threads, Check: func() error {
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
		if n := s.NPIdle(); n != p.procs {
			return fmt.Errorf("npidle = %d at the end, want every P (%d) idle", n, p.procs)
		}
		return nil
	}}
}

// ivMLoop is an M thread: the executor's loop of spinning's doc.go over
// one global queue (a spinning M's steal is a second look at it), entered
// where start says.
func ivMLoop(m *spinning.M, start int, q *ivGlobalQ, run func(*ivTask)) {
	switch start {
	case ivmParked:
		if !m.StopM() {
			return
		}
	case ivmHandoff:
		m.HandoffP()
		// ... the blocking call returns ...
		if !m.AcquireP() && !m.StopM() {
			return
		}
	}
	skipLook := start == ivmFoundNil
	for {
		var t *ivTask
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
			if t.syscall {
				// executor.Blocking: the P goes to another M (or idle)
				// for the length of the call.
				m.HandoffP()
				run(t)
				if !m.AcquireP() && !m.StopM() {
					return
				}
				continue
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

// ivSpinningSeeds are hand-written inputs, each aimed at one race.
func ivSpinningSeeds() []ivSpinningProg {
	s := func(op int) fuzz.Step { return fuzz.Step{Op: op} }
	return []ivSpinningProg{
		// Work submitted while every M is parked.
		{procs: 2, submitters: [][]fuzz.Step{{s(ivpSubmit), s(ivpSubmit)}}, schedule: []byte{0x09, 0x01, 0x02}},
		// The drop-and-recheck race: an M found nothing and drops while a
		// submitter publishes and reads nmspinning.
		{procs: 2, starts: [2]int{ivmFoundNil, ivmParked}, submitters: [][]fuzz.Step{{s(ivpSubmit)}}, schedule: []byte{0x11, 0x01, 0x19}},
		{procs: 2, starts: [2]int{ivmLooking, ivmParked}, submitters: [][]fuzz.Step{{s(ivpPutWakep)}, {s(ivpSubmit)}}, schedule: []byte{0x02, 0x21, 0x01}},
		// The last spinner must wake another: the blocker keeps its P.
		{procs: 2, submitters: [][]fuzz.Step{{s(ivpSubmitTwo)}}, schedule: []byte{0x01, 0x09}},
		// needspinning: the only P is held by an M that found nothing.
		{procs: 1, starts: [2]int{ivmFoundNil, ivmParked}, submitters: [][]fuzz.Step{{s(ivpSubmit)}}, schedule: []byte{0x01, 0x11, 0x01}},
		// A blocker waits in a syscall for a partner submitted after it.
		{procs: 1, starts: [2]int{ivmParked, ivmParked}, submitters: [][]fuzz.Step{{s(ivpSubmitSysTwo)}}, schedule: []byte{0x19, 0x01}},
		// A task blocks in a syscall while another is submitted.
		{procs: 1, starts: [2]int{ivmParked, ivmParked}, submitters: [][]fuzz.Step{{s(ivpSubmitSyscall), s(ivpSubmit)}}, schedule: []byte{0x11, 0x01, 0x09}},
		// HandoffP racing with a submission.
		{procs: 2, starts: [2]int{ivmHandoff, ivmParked}, submitters: [][]fuzz.Step{{s(ivpSubmit)}}, schedule: []byte{0x09, 0x01, 0x12}},
	}
}

// FuzzSpinningInterleaved fuzzes the spinning-M accounting under the
// explorer. It runs only with -tags schedcheck.
func FuzzSpinningInterleaved(f *testing.F) { ivFuzz(f, ivSpinningSeeds()) }

func init() { ivRegister("FuzzSpinningInterleaved", decodeIVSpinning) }

func TestSpinningInterleavedSeedsRoundTrip(t *testing.T) {
	ivSeedsRoundTrip(t, ivSpinningSeeds(), decodeIVSpinning)
}
