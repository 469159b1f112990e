package explore

import (
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/atomicx"
)

// Fair scheduling of yields (Musuvathi and Qadeer, "Fair stateless model
// checking", PLDI 2008). A thread parked at a yield (atomicx.Sleep with
// d <= 0) is not run while another runnable thread has not run since the
// thread got there: so a spinner cannot hand the CPU to another spinner
// for ever while a third thread, the one they wait for, never runs. There is
// always a thread to run: among the threads parked at a yield, the one that
// got there first waits for nobody.
//
// A spin iteration is what a thread does between two of its yields. One
// that only reads (loads, failed CASes, the clock) is fruitless; when every
// runnable thread has repeated the same fruitless iteration livelockRounds
// times (the same operations on the same cells reading the same values)
// and no thread has changed shared state meanwhile, the execution cannot
// end: if a thread waits on the clock, time passes (as when every thread
// blocks); otherwise it is a livelock, reported as a *LivelockError with
// the iterations that repeat.

// livelockRounds is how many times every runnable thread must repeat the
// same fruitless iteration before the explorer calls it a livelock. A spin
// that gives up on its own after more fruitless rounds than this (a local
// counter the explorer cannot see), while every other thread spins or is
// blocked, is reported as a livelock.
const livelockRounds = 3

// livelockMutant is a seeded fault for tests: "streak-survives-writes"
// keeps counting a thread's repeated iterations across other threads'
// writes, so correct spins that hand a turn back and forth look like a
// livelock.
var livelockMutant string

// fairOff turns fair scheduling off (tests: the broken variant, under which
// two yielders starve a third thread again).
var fairOff bool

// ErrLivelock is what a *LivelockError wraps.
var ErrLivelock = errors.New("livelock")

// LivelockError is an execution in which every live thread spins (or is
// blocked) and none changes shared state: each spinning thread repeated
// the same fruitless iteration, with the same values read, Rounds times in
// a row under fair scheduling, so no fair schedule ends it.
type LivelockError struct {
	// Spinning is each spinning thread's iteration, as "T0: load b = 0; sleep".
	Spinning []string
	// Blocked is each blocked thread's pending operation, as "T2 lock m".
	Blocked []string
	// Rounds is how many times each iteration repeated.
	Rounds int
	// Steps is the length of the execution (not in the message, so that
	// equal cycles reached after more or fewer steps read the same);
	// Failure.Trace stops after the first full round of the cycle.
	Steps int
}

// Error describes the cycle once, with its count.
func (e *LivelockError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "livelock: every thread spins without changing shared state; each repeated its iteration %d times, and no fair schedule ends it:", e.Rounds)
	for _, s := range e.Spinning {
		b.WriteString("\n    " + s)
	}
	if len(e.Blocked) > 0 {
		b.WriteString("\n    blocked: " + strings.Join(e.Blocked, ", "))
	}
	return b.String()
}

// Unwrap returns ErrLivelock.
func (e *LivelockError) Unwrap() error { return ErrLivelock }

// fairness is an execution's record of who ran when and of every thread's
// current spin iteration. Steps are counted from 1 here (0: never).
type fairness struct {
	lastRun [MaxThreads]int // the latest step each thread ran
	yieldAt [MaxThreads]int // the step after which a thread parked at its yield
	it      [MaxThreads]iteration
	// yielding reports that the step being run is a yield.
	yielding bool
	// lastChange is the latest step that changed shared state (or the
	// clock's latest move).
	lastChange int
}

// iteration is a thread's current spin iteration: its steps since its
// latest yield.
type iteration struct {
	dirty   bool      // it wrote something
	reads   []uintptr // the cells it read
	sig     uint64    // hash of its operations, cells and values
	lastSig uint64    // the previous iteration's
	streak  int       // same fruitless iteration this many times in a row
	// Await (await.go): parked at a yield that closed a fruitless
	// iteration, waiting for a write to on.
	waiting, released, woken bool
	on                       *awaitSet
}

var sigSeed = maphash.MakeSeed()

// readOnly reports a step that changes no shared state.
func readOnly(s *Step) bool {
	switch s.Op {
	case atomicx.OpLoad, atomicx.OpNanotime:
		return true
	case atomicx.OpRead, atomicx.OpTryRecvEmpty, atomicx.OpTrySendFull:
		return true // a plain read, a TryRecv or TrySend that found nothing to do (race.go)
	case atomicx.OpCAS:
		return s.Done && s.Value == 0
	}
	return false
}

// noteStep is called by record before thread c runs its step.
func (x *execution) noteStep(c int) { x.fair.yielding = x.threads[c].pending.yield() }

// stepped updates fairness after th ran the latest step.
func (x *execution) stepped(th *thread) {
	f := &x.fair
	k := len(x.steps)
	t := th.id
	f.lastRun[t] = k
	it := &f.it[t]
	s := &x.steps[k-1]
	switch {
	case f.yielding: // a new iteration begins
		*it = iteration{lastSig: it.lastSig, streak: it.streak, reads: it.reads[:0]}
	case readOnly(s):
		it.reads = append(it.reads, x.addrs[k-1])
		var h maphash.Hash
		h.SetSeed(sigSeed)
		fmt.Fprint(&h, it.sig, s.Op, x.addrs[k-1], s.Value)
		it.sig = h.Sum64()
	default:
		it.dirty = true
		x.changed(x.addrs[k-1], s.Op)
	}
	if th.state != stParked || !th.pending.yield() {
		return
	}
	f.yieldAt[t] = k
	if it.dirty {
		it.streak = 0
		return
	}
	if it.streak > 0 && it.sig == it.lastSig {
		it.streak++
	} else {
		it.streak = 1
	}
	it.lastSig = it.sig
	// An await needs a loop: the same fruitless iteration twice in a row,
	// with something read. A yield in straight-line code ("load x; yield;
	// store y") is not a wait for x: blocking there would delay the store.
	if x.awaits() && it.streak >= 2 && len(it.reads) > 0 {
		it.waiting = true
		it.on = &awaitSet{addrs: slices.Clone(it.reads)}
	}
}

// changed records a change of shared state by op at addr (0 and OpSleep:
// the clock moved): every streak starts again, and the threads awaiting a
// write to addr may run.
func (x *execution) changed(addr uintptr, _ atomicx.Op) {
	f := &x.fair
	f.lastChange = len(x.steps)
	for t := range x.threads {
		it := &f.it[t]
		if livelockMutant != "streak-survives-writes" {
			it.streak = 0
		}
		if it.waiting && it.on.has(addr) {
			it.released = true
		}
	}
}

// fairFilter removes from elig (the runnable threads) every thread parked at a
// yield while another runnable thread has not run since it got there.
func (x *execution) fairFilter(elig []int) []int {
	f := &x.fair
	if fairOff {
		if x.prev >= 0 && len(elig) > 1 && slices.Contains(elig, x.prev) && x.threads[x.prev].pending.yield() {
			return slices.DeleteFunc(elig, func(t int) bool { return t == x.prev })
		}
		return elig
	}
	return slices.DeleteFunc(elig, func(t int) bool {
		if !x.threads[t].pending.yield() {
			return false
		}
		for _, u := range elig {
			if u != t && f.lastRun[u] < f.yieldAt[t] {
				return true
			}
		}
		return false
	})
}

// spunOut reports that every thread of elig has repeated the same
// fruitless iteration livelockRounds times since shared state last changed.
func (x *execution) spunOut(elig []int) bool {
	for _, t := range elig {
		if x.fair.it[t].streak < livelockRounds {
			return false
		}
	}
	return len(elig) > 0
}

// livelock fails the execution: every thread of elig spins, the others are
// blocked. The trace is cut after the first full round of the cycle.
func (x *execution) livelock(elig []int) {
	e := &LivelockError{Rounds: livelockRounds, Steps: len(x.steps)}
	end := 0
	for _, th := range x.threads {
		switch {
		case th.state != stParked:
		case slices.Contains(elig, th.id) || x.awaiting(th):
			// An await is a spin DPOR does not run again: it spins too.
			line, last := x.lastIteration(th.id)
			e.Spinning = append(e.Spinning, line)
			end = max(end, last)
		default:
			e.Blocked = append(e.Blocked, fmt.Sprintf("T%d %s %s", th.id, th.pending.op, x.cells.name(th.pending.addr)))
		}
	}
	x.failWith(e)
	if x.fail.Err == e && end > 0 && end < len(x.fail.Trace) {
		x.fail.Trace = x.fail.Trace[:end]
	}
}

// lastIteration formats thread t's latest complete iteration (the steps
// since its latest yield when it is parked at its next one, else those
// between its last two yields), and returns the step, counted from 1, that
// ends its first repetition since shared state last changed.
func (x *execution) lastIteration(t int) (string, int) {
	var sleeps []int // t's sleep steps, latest first
	for k := len(x.steps) - 1; k >= 0 && len(sleeps) < 2; k-- {
		if s := &x.steps[k]; s.Thread == t && s.Op == atomicx.OpSleep {
			sleeps = append(sleeps, k)
		}
	}
	th := x.threads[t]
	atYield := th.state == stParked && th.pending.yield()
	from, to := 0, len(x.steps)
	switch {
	case atYield && len(sleeps) > 0:
		from = sleeps[0] + 1
	case !atYield && len(sleeps) == 2:
		from, to = sleeps[1]+1, sleeps[0]+1
	case !atYield && len(sleeps) == 1:
		to = sleeps[0] + 1
	}
	var ops []string
	for k := from; k < to; k++ {
		if s := &x.steps[k]; s.Thread == t {
			ops = append(ops, strings.Replace(s.String(), fmt.Sprintf("T%d ", t), "", 1))
		}
	}
	if atYield {
		ops = append(ops, atomicx.OpSleep.String())
	}
	// The first repetition since the last change: the iteration ending at
	// t's second yield after it.
	end, n := 0, 0
	for k := x.fair.lastChange; k < len(x.steps); k++ {
		if s := &x.steps[k]; s.Thread == t && s.Op == atomicx.OpSleep {
			if n++; n == 2 {
				end = k + 1
				break
			}
		}
	}
	return fmt.Sprintf("T%d: %s", t, strings.Join(ops, "; ")), end
}
