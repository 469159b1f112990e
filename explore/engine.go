package explore

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/internal/watchdog"
)

// epoch is the virtual clock's reading when an execution starts: one second,
// so that no reading is ever 0 (code often takes 0 for "never").
const epoch = int64(time.Second)

// stuckAfter is how long a thread may run without reaching a scheduling point
// before the explorer gives up on it (a real block: a channel, sync.Mutex).
var stuckAfter = 20 * time.Second

type threadState uint8

const (
	stNew      threadState = iota // goroutine not started
	stRunning                     // running between two scheduling points
	stParked                      // waiting at a scheduling point
	stDone                        // returned
	stPanicked                    // panicked
	stExited                      // called runtime.Goexit (t.FailNow in a thread)
	stAborted                     // stopped by the explorer
)

// pending is the operation a parked thread waits to do.
type pending struct {
	op       atomicx.Op
	addr     uintptr
	ready    func() bool   // nil: no condition
	timeout  time.Duration // < 0: none
	deadline int64         // clock value the timeout expires at
}

func (p *pending) timed() bool { return p.timeout >= 0 }

// yield reports a Sleep(d <= 0): a switch away is free, and the thread is not
// run again while another one can run.
func (p *pending) yield() bool { return p.op == atomicx.OpSleep && p.timeout == 0 }

// global reports an operation whose outcome depends on every thread (the
// clock moves only when all are blocked), so it commutes with no other.
func (p *pending) global() bool {
	return p.timed() || p.op == atomicx.OpNanotime || selects(p.op)
}

type thread struct {
	id     int
	x      *execution
	fn     func()
	resume chan bool // true: do the pending operation; false: abort

	// Written by the thread, read by the explorer after the thread's event
	// (the channel orders them).
	state     threadState
	pending   pending
	aborting  bool
	completed bool
	panicVal  any
	stack     []byte
}

// main runs the thread's function on its own goroutine.
func (th *thread) main() {
	g := getg()
	register(g, th)
	defer func() {
		r := recover()
		unregister(g)
		switch {
		case th.completed:
			th.state = stDone
		case th.aborting || th.x.abandoned.Load():
			th.state = stAborted
		case r != nil:
			th.state = stPanicked
			th.panicVal = r
			th.stack = debug.Stack()
		default:
			th.state = stExited
		}
		th.x.events <- th
	}()
	th.fn()
	th.completed = true
}

// point parks the thread at a scheduling point until the explorer runs it.
func (th *thread) point(p pending) {
	x := th.x
	if th.aborting || x.abandoned.Load() {
		runtime.Goexit() // a deferred call of an aborted thread reached atomicx
	}
	if p.timed() {
		p.deadline = x.clock + int64(p.timeout)
	}
	th.pending = p
	th.state = stParked
	x.events <- th
	if !<-th.resume {
		th.aborting = true
		runtime.Goexit()
	}
}

// after records the value of the thread's current step.
func (th *thread) after(val uint64) {
	x := th.x
	if n := len(x.steps); n > 0 && x.steps[n-1].Thread == th.id && !x.steps[n-1].Done {
		s := &x.steps[n-1]
		s.Value, s.Done = val, true
		switch s.Op {
		case atomicx.OpLoad, atomicx.OpStore, atomicx.OpSwap:
			s.Ref = x.cells.ref(val)
		}
		x.stepDone(th.id, s, val) // race.go
	}
}

// execution is one run of the scenario from a fresh state.
type execution struct {
	e       *explorer
	index   int
	threads []*thread
	events  chan *thread
	clock   int64
	prev    int // thread that ran the last step; -1 before the first
	preempt int
	choices []uint8
	steps   []Step
	addrs   []uintptr // what each step touched (0: the clock)
	cells   cells
	fail    *Failure
	pruned  bool
	elig    []int
	last    Step     // the latest step as recorded, before its thread ran it
	stuck   *thread  // a thread that did not come back
	labels  []string // outcomes reported by Reached and Run.Outcome
	fair    fairness // fair scheduling of yields, awaits (fair.go, await.go)
	rep     report   // formatters, file:line (report.go)
	// parkedAtEnd is what the threads still parked when the execution
	// stopped (a deadlock, a failure) were about to do.
	parkedAtEnd []parkedOp

	// abandoned is set when a thread is stuck outside the explorer: the
	// threads left behind exit at their next scheduling point.
	abandoned atomic.Bool

	// race is the data-race checker's clocks (race.go).
	race raceState
}

func (x *execution) failWith(err error) {
	if x.fail != nil {
		return
	}
	var trace []Step
	if n := len(x.steps); n > 0 && x.stuck != nil {
		// The stuck thread may still write its step: take the explorer's copy.
		trace = append(slices.Clone(x.steps[:n-1]), x.last)
	} else {
		trace = slices.Clone(x.steps)
	}
	x.fail = &Failure{
		Name:      x.e.cfg.Name,
		Execution: x.index,
		Schedule:  encodeSchedule(x.choices),
		Trace:     trace,
		Err:       err,
	}
}

// run interleaves r's threads one scheduling point at a time until they have
// all returned, then runs r.Check. Every goroutine it starts has exited when
// it returns, unless a thread got stuck outside the explorer.
func (x *execution) run(r Run) {
	x.events = make(chan *thread, len(r.Threads)+1)
	for i, fn := range r.Threads {
		x.threads = append(x.threads, &thread{id: i, x: x, fn: fn, resume: make(chan bool, 1)})
	}
	// Each thread runs alone up to its first scheduling point: what it does
	// before touches no shared state, so its order does not matter.
	for _, th := range x.threads {
		th.state = stRunning
		go th.main()
		if !x.await(th) {
			return
		}
		if x.fail != nil {
			break
		}
	}
	for x.fail == nil {
		elig, prevRunnable, live := x.eligible()
		if !live || x.fail != nil {
			break
		}
		c := x.e.strat.choose(x, elig, prevRunnable)
		if c < 0 {
			x.pruned = c == cutShort
			break
		}
		if len(x.steps) >= x.e.cfg.MaxSteps {
			x.failWith(fmt.Errorf("%w: %d steps without ending (a spin loop that never yields with atomicx.Sleep, or one that writes on every try)", ErrStepLimit, len(x.steps)))
			break
		}
		// The clock is read every 64th step (and after each execution):
		// time.Now on every step was 6% of a large scenario's CPU.
		if len(x.steps)%64 == 0 && x.e.late() {
			x.failWith(x.e.deadlineError())
			break
		}
		x.record(c, prevRunnable)
		th := x.threads[c]
		th.state = stRunning
		th.resume <- true
		if !x.await(th) {
			return
		}
		x.stepped(th)
	}
	for _, th := range x.threads {
		if th != x.stuck && th.state == stParked {
			x.parkedAtEnd = append(x.parkedAtEnd, parkedOp{th.id, x.key(th)})
		}
	}
	x.abortParked()
	if x.fail == nil && !x.pruned {
		if r.Check != nil {
			x.e.at("in Check of execution %d, schedule %s", x.index, encodeSchedule(x.choices))
		}
		x.check(r.Check)
		if x.fail == nil && r.Outcome != nil {
			x.outcome(r.Outcome)
		}
	}
}

// replayEndedEarly fails a replayed execution that ended before its
// schedule did: it did not run the recorded schedule, so whatever it
// found is not the recorded failure. A failure it did meet is kept,
// wrapped, with its trace.
func (x *execution) replayEndedEarly(want int) {
	how := fmt.Sprintf("the execution ended after %d of the schedule's %d steps", len(x.choices), want)
	if x.fail == nil {
		x.failWith(fmt.Errorf("%w: %s, every thread done and every check passed: it does not reach the recorded failure here (another scenario, build, SCHEDKIT_MUTATION or version of the code?)", ErrReplayDiverged, how))
		return
	}
	if !errors.Is(x.fail.Err, ErrReplayDiverged) {
		x.fail.Err = fmt.Errorf("%w: %s, with a failure not where the schedule recorded one: %w", ErrReplayDiverged, how, x.fail.Err)
	}
}

func (x *execution) outcome(fn func() string) {
	defer func() {
		if r := recover(); r != nil {
			x.failWith(&PanicError{Thread: -1, Value: r, Stack: string(debug.Stack())})
		}
	}()
	x.reach(fn())
}

// await waits for th, just started or resumed, to park, return or panic. It
// reports false if th is stuck outside the explorer.
func (x *execution) await(th *thread) bool {
	e := x.e
	seq := e.waits.Add(1) // this wait's number, for the stuck watch
	prev := e.waiting.Swap(seq)
	defer e.waiting.Store(prev) // abortParked waits inside a wait
	for got := (*thread)(nil); got != th; {
		select {
		case got = <-x.events:
			if got != th && !x.abandoned.Load() {
				panic("explore: internal error: a thread ran out of turn")
			}
		case s := <-e.stuck:
			if s != seq {
				continue // about an earlier wait, sent as it ended
			}
			// th still runs: leave its state and its last step alone.
			if x.abandoned.Swap(true) {
				return false // a second stuck thread, met while aborting
			}
			x.stuck = th
			x.failWith(&StuckError{Thread: th.id, After: stuckAfter})
			x.abortParked()
			return false
		}
	}
	switch th.state {
	case stPanicked:
		x.failWith(&PanicError{Thread: th.id, Value: th.panicVal, Stack: string(th.stack)})
	case stExited:
		x.failWith(fmt.Errorf("thread %d called runtime.Goexit (t.FailNow or t.Fatal in a thread?): report with a panic or Run.Check", th.id))
	}
	return true
}

// abortParked stops every parked thread and waits for it to exit.
func (x *execution) abortParked() {
	for _, th := range x.threads {
		if th != x.stuck && th.state == stParked {
			th.state = stRunning
			th.resume <- false
			x.await(th)
		}
	}
}

func (x *execution) enabled(th *thread) bool {
	p := &th.pending
	if p.ready != nil && p.ready() {
		return true
	}
	if p.timed() {
		return x.clock >= p.deadline
	}
	return p.ready == nil
}

// eligible returns the threads that may run the next step, ascending, moving
// the clock to the earliest deadline when every live thread is blocked, or
// spins fruitlessly (fair.go), and one waits on time. It fails the execution
// on a deadlock or a livelock. live is false when every thread has
// returned. prevRunnable reports that the thread that ran the last step
// could run on: a switch away from it is a preemption. Fair scheduling
// leaves out a thread parked at a yield while another has not run since
// (fair.go); an await waits for a write (await.go).
func (x *execution) eligible() (elig []int, prevRunnable, live bool) {
	advanced := false
	for {
		elig = x.elig[:0]
		next := int64(math.MaxInt64)
		waiting := false
		for _, th := range x.threads {
			if th.state != stParked {
				continue
			}
			live = true
			if x.awaiting(th) {
				waiting = true
			} else if x.enabled(th) {
				elig = append(elig, th.id)
			} else if th.pending.timed() {
				next = min(next, th.pending.deadline)
			}
		}
		if len(elig) == 0 && waiting && next == math.MaxInt64 {
			elig = x.wake(elig)
		}
		x.elig = elig
		if !live || len(elig) > 0 && !x.spunOut(elig) {
			break
		}
		if next == math.MaxInt64 {
			if len(elig) > 0 {
				x.livelock(elig)
			} else {
				x.failWith(x.deadlock())
			}
			return nil, false, true
		}
		x.clock = next
		x.changed(0, atomicx.OpSleep)
		advanced = true
	}
	if !live {
		return nil, false, false
	}
	if x.prev >= 0 && slices.Contains(elig, x.prev) && !x.threads[x.prev].pending.yield() {
		prevRunnable = !advanced
	}
	return x.fairFilter(elig), prevRunnable, true
}

func (x *execution) deadlock() error {
	var blocked []string
	for _, th := range x.threads {
		if th != x.stuck && th.state == stParked {
			blocked = append(blocked, fmt.Sprintf("T%d %s %s", th.id, th.pending.op, x.cells.name(th.pending.addr)))
		}
	}
	return &DeadlockError{Blocked: blocked}
}

// record appends the step thread c is about to take.
func (x *execution) record(c int, prevRunnable bool) {
	if c != x.prev && prevRunnable {
		x.preempt++
	}
	p := &x.threads[c].pending
	x.last = Step{Thread: c, Op: p.op, Cell: x.cells.name(p.addr), Time: time.Duration(x.clock - epoch)}
	x.steps = append(x.steps, x.last)
	x.addrs = append(x.addrs, p.addr)
	x.choices = append(x.choices, uint8(c))
	x.prev = c
	x.noteStep(c)
}

func (x *execution) check(fn func() error) {
	if fn == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			x.failWith(&PanicError{Thread: -1, Value: r, Stack: string(debug.Stack())})
		}
	}()
	if err := fn(); err != nil {
		x.failWith(err)
	}
}

// explorer runs executions one after another for a strategy.
type explorer struct {
	cfg   config
	build func() Run
	strat strategy
	host  uintptr
	// waits numbers await's waits, waiting is the number of the wait on
	// (0: none), and stuck carries the number of a wait that has lasted
	// stuckAfter, from watchStuck: a timer armed and stopped on every
	// step, which a select then put in the runtime's timer heap, was an
	// eighth of a large scenario's CPU.
	waits, waiting atomic.Uint64
	stuck          chan uint64
	res            Result
	seen           map[uint64]struct{}
	start          time.Time

	states  map[uint64]struct{} // end states (see state.go)
	scratch stateScratch
	until   time.Time // cfg.Deadline after start

	// where says what the host goroutine is doing, for the watchdog's
	// report if build or Check hang (read from the watchdog's goroutine).
	where atomic.Pointer[string]
}

// backstop bounds how long after Options.Deadline the watchdog ends a
// process whose exploration could not report (build or Check hang). The
// grace is a twentieth of the deadline, at least 30 seconds (the explorer
// gives up on a stuck thread after stuckAfter first), at most backstop: so
// under Check, whose deadline is nine tenths of the test's time left, the
// watchdog still speaks before the test binary's -timeout.
var backstop = 2 * time.Minute

func grace(deadline time.Duration) time.Duration {
	return min(backstop, max(deadline/20, 30*time.Second))
}

// watchStuck starts the stuck watch: every quarter of stuckAfter it looks
// at waiting, and when one wait has been on for stuckAfter or more, it
// sends that wait's number on stuck (a thread is given stuckAfter to
// stuckAfter and a quarter). It returns the function that stops it.
func (e *explorer) watchStuck() (stop func()) {
	every := stuckAfter / 4
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		var seen uint64
		var since time.Time
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				s := e.waiting.Load()
				if s == 0 || s != seen {
					seen, since = s, now
					continue
				}
				if now.Sub(since) >= stuckAfter-every/2 {
					select { // a stale number left unread gives way
					case <-e.stuck:
					default:
					}
					e.stuck <- s // the only sender: there is room
					since = now
				}
			}
		}
	}()
	return func() { close(done) }
}

// late reports that the exploration has run past its deadline.
func (e *explorer) late() bool { return time.Now().After(e.until) }

func (e *explorer) deadlineError() error {
	return fmt.Errorf("%w: the exploration ran %v, past its Deadline of %v, after %d executions (a bigger bound than the scenario can afford, or code that spins without end); the execution in progress follows",
		ErrDeadline, time.Since(e.start).Round(time.Millisecond), e.cfg.Deadline, e.res.Executions)
}

func (e *explorer) at(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	e.where.Store(&s)
}

// Explore runs the scenario that build makes, one execution after another,
// and reports what it explored and the first failure. build is called once
// per execution, on the calling goroutine, to make fresh state; so is
// Run.Check. The error is about the exploration itself (ErrNoSchedcheck, bad
// options, a bad Run), never about the code under test: that is
// Result.Failure.
func Explore(opts Options, build func() Run) (Result, error) {
	return explore(opts, build, false)
}

// explore is Explore; keepGoing (for tests) counts a failure as the outcome
// "failure: ERROR" and searches on instead of stopping.
func explore(opts Options, build func() Run, keepGoing bool) (res Result, err error) {
	if !hookAvailable {
		return Result{}, noSchedcheck()
	}
	cfg, err := opts.config()
	if err != nil {
		return Result{}, err
	}
	if build == nil {
		return Result{}, fmt.Errorf("explore %s: nil build", cfg.Name)
	}
	if lookup() != nil {
		return Result{}, fmt.Errorf("explore %s: Explore called from inside a scenario", cfg.Name)
	}
	acquireHook()
	defer releaseHook()
	e := &explorer{
		cfg:    cfg,
		build:  build,
		stuck:  make(chan uint64, 1),
		host:   getg(),
		seen:   make(map[uint64]struct{}),
		states: make(map[uint64]struct{}),
		res:    Result{Name: cfg.Name, Mode: cfg.Mode, Bound: -1},
	}
	defer e.watchStuck()()
	defer unregister(e.host)
	defer func() {
		if err == nil {
			err = e.record()
		}
	}()
	switch {
	case cfg.replay != nil:
		e.strat = &replayer{sched: cfg.replay}
		e.res.Replayed = true
	case cfg.Mode == DFS:
		e.strat = &dfs{bound: cfg.bound, reduce: cfg.Reduce}
		e.res.Bound = cfg.bound
	case cfg.Mode == DPOR:
		e.strat = &dpor{}
	case cfg.Mode == Random:
		e.strat = newRandom(cfg.Seed)
		e.res.SeedsUsed = 1
	case cfg.Mode == PCT:
		e.strat = newPCT(cfg.Seed, cfg.Depth)
		e.res.SeedsUsed = 1
	case cfg.Mode == Bytes:
		e.strat = &fromBytes{data: cfg.Decisions}
	}
	e.start = time.Now()
	e.until = e.start.Add(cfg.Deadline)
	e.at("starting")
	stop := watchdog.Start("explore "+cfg.Name, cfg.Deadline+grace(cfg.Deadline), func() string { return *e.where.Load() })
	defer stop()
	for {
		x, err := e.execute()
		if err != nil {
			return e.res, err
		}
		if x.fail == nil && !x.pruned && e.late() {
			x.failWith(e.deadlineError()) // slow builds or Checks: name the last execution
		}
		if cfg.replay != nil && len(x.choices) < len(cfg.replay) {
			x.replayEndedEarly(len(cfg.replay))
		}
		if x.fail != nil && keepGoing && !errors.Is(x.fail.Err, ErrDeadline) && !errors.Is(x.fail.Err, ErrNondeterministic) {
			x.reach("failure: " + x.fail.Err.Error())
			x.fail = nil
		}
		if !x.pruned {
			e.count(x)
			e.addState(x)
		}
		if x.fail != nil && cfg.replay == nil && !errors.Is(x.fail.Err, ErrDeadline) && !errors.Is(x.fail.Err, ErrNondeterministic) {
			e.confirm(x)
		}
		if x.fail != nil && e.failed(x) {
			return e.res, nil
		}
		if !e.strat.next() {
			e.res.Complete = (cfg.Mode == DFS || cfg.Mode == DPOR) && cfg.replay == nil
			e.unreached()
			return e.res, nil
		}
		if e.res.Executions >= cfg.MaxExecutions*max(e.res.SeedsUsed, 1) {
			if e.reseed() {
				continue
			}
			e.unreached()
			return e.res, nil
		}
	}
}

// reseed moves Random or PCT on to its next seed (Options.Seeds) when a
// MustReach label is still unreached and seeds are left, and reports
// whether it did.
func (e *explorer) reseed() bool {
	if e.res.SeedsUsed == 0 || e.res.SeedsUsed >= e.cfg.Seeds {
		return false
	}
	if !slices.ContainsFunc(e.cfg.MustReach, func(l string) bool { return e.res.Outcomes[l] == 0 }) {
		return false
	}
	seed := e.cfg.Seed + int64(e.res.SeedsUsed)
	e.res.SeedsUsed++
	if e.cfg.Mode == PCT {
		e.strat = newPCT(seed, e.cfg.Depth)
	} else {
		e.strat = newRandom(seed)
	}
	return true
}

// confirm re-runs a failed execution from its recorded schedule, as a
// replay would, before the failure is reported: an execution that does not
// repeat on its own schedule depends on something the explorer does not
// control (a real goroutine, time, map order, a sync.Pool, a global carried
// from one execution to the next), and its replay key would not replay it.
// Then x's failure becomes ErrNondeterministic, naming the step where the
// re-run left the schedule and what it met there. The re-run counts in no
// tally (Executions, Schedules, outcomes, Visit); it costs one execution
// per reported failure.
func (e *explorer) confirm(x *execution) {
	strat, visit, res := e.strat, e.cfg.Visit, e.res
	e.strat, e.cfg.Visit = &replayer{sched: slices.Clone(x.choices)}, nil
	y, err := e.execute()
	e.strat, e.cfg.Visit, e.res = strat, visit, res
	if err != nil {
		return
	}
	if len(y.choices) < len(x.choices) {
		y.replayEndedEarly(len(x.choices))
	}
	var again string
	switch {
	case y.fail == nil:
		again = fmt.Sprintf("re-run on it, execution %d ran all %d steps and passed every check", x.index, len(x.choices))
	case errors.Is(y.fail.Err, ErrReplayDiverged):
		again = fmt.Sprintf("re-run on it, %v", y.fail.Err)
	default:
		return // it repeats
	}
	x.fail.Err = fmt.Errorf("%w: nondeterminism outside the explorer: execution %d does not repeat on its own recorded schedule (%s); what the first run found: %w",
		ErrNondeterministic, x.index, again, x.fail.Err)
}

func (e *explorer) execute() (*execution, error) {
	x := &execution{e: e, index: e.res.Executions + 1, prev: -1, clock: epoch}
	register(e.host, x)
	e.at("in build of execution %d", x.index)
	x.rep.locate = e.cfg.locate
	r := x.withDrain(e.build())
	if n := len(r.Threads); n == 0 || n > MaxThreads {
		return nil, fmt.Errorf("explore %s: a Run needs 1 to %d threads, not %d", e.cfg.Name, MaxThreads, n)
	}
	for i, fn := range r.Threads {
		if fn == nil {
			return nil, fmt.Errorf("explore %s: thread %d of the Run is nil", e.cfg.Name, i)
		}
	}
	e.strat.begin(x, len(r.Threads))
	x.run(r)
	e.res.Executions++
	if x.pruned {
		e.res.Pruned++
		return x, nil
	}
	e.strat.end(x)
	h := fnv.New64a()
	h.Write(x.choices)
	if _, dup := e.seen[h.Sum64()]; !dup {
		e.seen[h.Sum64()] = struct{}{}
		e.res.Schedules++
	}
	if e.cfg.Visit != nil {
		e.cfg.Visit(encodeSchedule(x.choices))
	}
	if f := observer.Load(); f != nil {
		(*f)(e.cfg.Name, x.steps)
	}
	return x, nil
}
