package explore

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedkit/schedkit/atomicx"
)

// Run is one execution's fresh state: the threads to interleave and the
// invariant to check once they have all returned.
type Run struct {
	// Threads are the scenario's logical threads, 1 to MaxThreads of them
	// (2 to 4 is the useful range). Each runs on its own goroutine, and only
	// one of them runs at a time.
	Threads []func()
	// Check, if not nil, runs after every thread has returned and reports a
	// violated invariant. It runs on the goroutine that called Explore.
	Check func() error
	// Outcome, if not nil, runs after Check passes and labels the
	// execution's end state ("a=1 b=0", "stole 2"); Result.Outcomes counts
	// the executions per label. Keep labels few: they are a map's keys.
	Outcome func() string
	// Drain, if not nil, runs after every thread has returned and before
	// Check, as one more explored thread (so Threads may hold one fewer
	// than MaxThreads): alone, but its blocking operations are modelled,
	// so it may call the structure's own blocking drain (a Lock, a Note),
	// and a drain that would block for ever is a deadlock. Its steps are
	// in the schedule and the trace, as thread len(Threads).
	Drain func()
}

// MaxThreads is the most threads a Run may have.
const MaxThreads = 8

// Mode picks how Explore chooses schedules.
type Mode uint8

const (
	// DFS enumerates every schedule within the preemption bound, depth first.
	DFS Mode = iota
	// Random runs MaxExecutions random walks: at every scheduling point a
	// thread is picked uniformly among those that can run.
	Random
	// PCT runs MaxExecutions executions of probabilistic concurrency testing
	// (Burckhardt et al., ASPLOS 2010): random thread priorities, the highest
	// runs, and Depth random change points each demote the running thread.
	PCT
	// Bytes runs one execution whose scheduling decisions come from
	// Options.Decisions, as a fuzzer supplies them, with no preemption
	// bound; when the bytes run out every thread runs on until it blocks or
	// ends. The same bytes always give the same schedule.
	Bytes
	// DPOR explores every interleaving with no preemption bound, but only
	// one execution per class of equivalent ones (interleavings that differ
	// only in the order of independent steps): source-DPOR with sleep sets
	// (Abdulla et al., POPL 2014). It reaches every final state and failure
	// that unbounded DFS reaches, in far fewer executions. Bound is ignored.
	DPOR
)

var modeNames = [...]string{DFS: "dfs", Random: "random", PCT: "pct", Bytes: "bytes", DPOR: "dpor"}

// String returns the mode's name: dfs, random, pct, bytes or dpor.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", m)
}

// Preemption bounds for Options.Bound.
const (
	// DefaultBound is the bound the zero Options.Bound stands for.
	DefaultBound = 2
	// Unbounded explores every interleaving.
	Unbounded = -1
	// NoPreemption is a bound of 0: a thread runs until it blocks or ends, so
	// DFS explores one execution per order of the threads.
	NoPreemption = -2
)

// ReplayEnv is the environment variable that makes Explore run one schedule:
// SCHEDKIT_REPLAY='name:schedule' replays the scenario called name (the other
// scenarios of the test binary run their searches, and Check fails them
// for not being name); a bare schedule, without "name:", replays every
// scenario the binary runs (select one with -run). A replay that does not
// follow its schedule fails with ErrReplayDiverged, and Check fails one
// that passes.
const ReplayEnv = "SCHEDKIT_REPLAY"

// LongBound is the preemption bound a scenario asks for in long mode with
// Options.LongBound: one more than DefaultBound, for the bugs that need
// three preemptions.
const LongBound = 3

// LongEnv is the environment variable that overrides how Long decides:
// SCHEDKIT_LONG=1 forces long mode (even under -short), SCHEDKIT_LONG=0
// forces short mode; unset or empty, go test without -short is long mode.
const LongEnv = "SCHEDKIT_LONG"

// Long reports whether the tests run in long mode, the mode in which the
// stress tests take a million items and the slow scenarios run: go test
// without -short, unless LongEnv says otherwise. Outside a test binary, or
// before its flags are parsed, only LongEnv=1 makes it true.
func Long() bool {
	switch strings.TrimSpace(os.Getenv(LongEnv)) {
	case "1":
		return true
	case "0":
		return false
	}
	return testing.Testing() && flag.Parsed() && !testing.Short()
}

// DefaultDeadline is the wall-clock time an exploration may take when
// Options.Deadline is zero and it does not run under a test deadline (Check
// gives it nine tenths of what is left of the test binary's -timeout).
const DefaultDeadline = 5 * time.Minute

// Options tune Explore. The zero value explores by DFS with DefaultBound.
type Options struct {
	// Name names the scenario in logs and replay keys; Check defaults it to
	// t.Name(), Explore to "scenario". Spaces become underscores.
	Name string
	// Mode is DFS (default), DPOR, Random, PCT or Bytes; ModeEnv can
	// switch a DFS scenario to another search.
	Mode Mode
	// Bound is the preemption bound of DFS: how many times an execution may
	// switch away from a thread that could still run. 0 means DefaultBound
	// (2); use NoPreemption for 0 and Unbounded for no bound. Random, PCT
	// and Bytes ignore it.
	Bound int
	// LongBound, if not zero, replaces Bound in long mode (see Long): a
	// scenario that is cheap at DefaultBound asks for LongBound (3) here,
	// and -short runs keep the smaller bound. It takes the values Bound
	// takes.
	LongBound int
	// Seed seeds Random and PCT; the same seed gives the same executions.
	Seed int64
	// MaxExecutions stops the exploration after that many executions:
	// default 100000 for DFS (the result then says it is not complete) and
	// 1000 for Random and PCT.
	MaxExecutions int
	// MaxSteps fails an execution that takes more scheduling points than
	// this (a livelock, or a spin loop that never yields); default 10000.
	MaxSteps int
	// Deadline fails the exploration, with the schedule and trace of the
	// execution in progress, once it has run this long by the wall clock
	// (ErrDeadline); default: nine tenths of what is left of the test
	// binary's -timeout under Check, else DefaultDeadline. It reports a scenario too big
	// for its bound, or code that spins so slowly it never reaches
	// MaxSteps, instead of the test binary's timeout. If build or Check
	// hang, so that the explorer cannot report, a watchdog ends the process
	// a little later with every goroutine's stack.
	Deadline time.Duration
	// Decisions are the bytes mode Bytes takes its scheduling decisions
	// from (see the package documentation); other modes ignore them.
	Decisions []byte
	// Depth is the number of PCT priority change points; default 2, which
	// finds every bug of depth 3 with probability at least 1/(n·k²) per
	// execution for n threads and k steps.
	Depth int
	// Reduce turns on partial-order reduction by sleep sets: DFS does not
	// re-run an interleaving that only swaps independent steps (different
	// cells, or two loads) of one it has explored. It finds the same bugs
	// with fewer executions. It needs Bound: Unbounded, because sleep sets
	// can lose interleavings under a preemption bound.
	Reduce bool
	// Replay, if set, runs exactly this schedule once (see ReplayEnv), in
	// place of Mode. It is a schedule as Failure.Schedule prints it.
	Replay string
	// Visit, if not nil, is called with the schedule of every execution, in
	// the order they ran, but those Reduce or DPOR cut short.
	Visit func(schedule string)
	// MustReach lists labels, given by Run.Outcome or Reached, that at
	// least one execution must report: a scenario whose race no longer
	// happens (the code or the scenario drifted) then fails instead of
	// passing without testing anything. Result.Unreached lists those no
	// execution reported; Check fails the test on them.
	MustReach []string
	// Seeds, for Random and PCT with MustReach, is how many seeds the search
	// may use: when MaxExecutions from Seed leave a MustReach label
	// unreached, it goes on for MaxExecutions more from Seed+1, and so on
	// up to Seed+Seeds-1, stopping at the first failure or once every label
	// is reached. A label whose window is a few steps wide is then not lost
	// when a change elsewhere adds a scheduling point and moves every
	// schedule of a fixed seed; a search whose first seed reaches them all
	// costs nothing more. 0 or 1: Seed alone. Result.SeedsUsed says how
	// many ran (TestSeedsUntilReached).
	Seeds int
	// KeepGoing goes on searching after a failure, collecting distinct
	// ones in Result.Failures (two failures are the same when the same
	// check failed with the same message), until the search ends or
	// MaxFailures are in (default 20). A deadline still stops it.
	KeepGoing   bool
	MaxFailures int

	locate bool // find every step's file:line (a replay of a failure)
}

// Result is what an exploration did and found.
type Result struct {
	Name string
	Mode Mode
	// Bound is the preemption bound DFS used; -1 when unbounded or not DFS.
	Bound int
	// Executions counts executions run from a fresh state, Pruned included.
	Executions int
	// Schedules counts distinct schedules of executions that ran to their
	// end (in DFS without reduction, every execution is one).
	Schedules int
	// Pruned counts executions Reduce or DPOR cut short as equivalent to
	// one explored already.
	Pruned int
	// Complete reports that DFS explored every schedule within the bound,
	// or DPOR every class of equivalent schedules: MaxExecutions did not
	// cut it short and no failure stopped it.
	Complete bool
	// Replayed reports that the run was one replayed schedule.
	Replayed bool
	// SeedsUsed is how many seeds Random or PCT ran (Options.Seeds): 1
	// unless a MustReach label was still unreached after the first.
	SeedsUsed int
	// Failure is the first failing execution, or nil.
	Failure *Failure
	// Failures lists the distinct failures found, Failure first: one
	// unless Options.KeepGoing.
	Failures []*Failure
	// Incomplete, if not nil, is the execution in progress when the
	// exploration ran past its Deadline (its error wraps ErrDeadline):
	// the search is inconclusive, which is not a failure of the code.
	Incomplete *Failure
	// Outcomes counts, for each label, the executions that reported it
	// through Run.Outcome or Reached (once per execution). Under DPOR or
	// Reduce one execution stands for its class of equivalent
	// interleavings, so the counts are per class; under Random and PCT they
	// estimate how often each outcome happens.
	Outcomes map[string]int
	// Unreached lists the labels of Options.MustReach that no execution
	// reported, in their order there, when no failure stopped the search.
	Unreached []string
	// States counts the distinct end states of the executions that ran to
	// their end or failed: the final values of the cells, locks and notes
	// the threads touched, the clock, the outcome labels and the failure
	// (see the package documentation, End states). Equivalent
	// interleavings end in one state, so a complete DPOR search reaches the
	// states of a complete unbounded DFS.
	States int
	// StateHash hashes the set of end states, in no particular order: two
	// searches with equal States and StateHash reached the same states.
	StateHash uint64
}

// Summary is the line Check logs, "explore NAME: N executions, N schedules,
// bound B" followed by the mode and what else applies.
func (r Result) Summary() string {
	s := fmt.Sprintf("explore %s: %d executions, %d schedules, bound %d, mode %s", r.Name, r.Executions, r.Schedules, r.Bound, r.Mode)
	if r.Pruned > 0 {
		s += fmt.Sprintf(", %d pruned by reduction", r.Pruned)
	}
	if r.SeedsUsed > 1 {
		s += fmt.Sprintf(", %d seeds (Options.Seeds: a MustReach label was unreached)", r.SeedsUsed)
	}
	switch {
	case r.Replayed:
		s += ", replayed"
	case len(r.Failures) > 1:
		s += fmt.Sprintf(", failed (%d distinct failures)", len(r.Failures))
	case r.Failure != nil:
		s += ", failed"
	case r.Incomplete != nil:
		s += ", incomplete (Deadline): inconclusive"
	case (r.Mode == DFS || r.Mode == DPOR) && !r.Complete:
		s += ", incomplete (MaxExecutions)"
	}
	if len(r.Unreached) > 0 {
		s += fmt.Sprintf(", unreached %q", r.Unreached)
	}
	return s
}

// Failure is one failing execution: how to reach it and what happened.
type Failure struct {
	Name string
	// Execution is the failing execution's number, from 1.
	Execution int
	// Schedule lists the thread run at every scheduling point, run-length
	// encoded: "0x3.1x2.0" ran thread 0 for three steps, thread 1 for two,
	// then thread 0 for one ("-" when the failure came before any step).
	Schedule string
	// Trace is every step up to the failure.
	Trace []Step
	// Err is the failure: the error Run.Check returned, a *PanicError, a
	// *DeadlockError, a *StuckError, or an error wrapping ErrStepLimit or
	// ErrNondeterministic.
	Err error
}

// ReplayKey is the value of ReplayEnv that replays this failure.
// The schedule is the long form when that is short, else a compact token
// (token.go) of a few dozen characters; both replay the same.
func (f *Failure) ReplayKey() string { return f.Name + ":" + replaySchedule(f.Schedule) }

// maxTraceLines bounds the trace Failure.String prints (the Trace field
// keeps every step).
const maxTraceLines = 300

// String reports the failure: the error, the schedule, the trace and how to
// replay it.
func (f *Failure) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "explore %s: execution %d failed: %v\n", f.Name, f.Execution, f.Err)
	fmt.Fprintf(&b, "schedule: %s (%d steps)\n", replaySchedule(f.Schedule), len(f.Trace)) // a long one as its token
	b.WriteString("trace:\n")
	trace := f.Trace
	if len(trace) > maxTraceLines {
		fmt.Fprintf(&b, "     ... %d earlier steps\n", len(trace)-maxTraceLines)
		trace = trace[len(trace)-maxTraceLines:]
	}
	first := len(f.Trace) - len(trace)
	for i := 0; i < len(trace); {
		line := trace[i].line()
		j := i + 1
		for j < len(trace) && trace[j].line() == line {
			j++
		}
		if j-i > 2 { // a spin: one line for the run
			fmt.Fprintf(&b, "  %4d  %s   (steps %d-%d: %d times)\n", first+i+1, line, first+i+1, first+j, j-i)
		} else {
			for k := i; k < j; k++ {
				fmt.Fprintf(&b, "  %4d  %s\n", first+k+1, line)
			}
		}
		i = j
	}
	var pe *PanicError
	if errors.As(f.Err, &pe) && pe.Stack != "" {
		fmt.Fprintf(&b, "panic stack:\n%s\n", pe.Stack)
	}
	fmt.Fprintf(&b, "replay: %s='%s'", ReplayEnv, f.ReplayKey())
	return b.String()
}

// Step is one scheduling point of an execution: the thread the explorer ran
// and the operation it let that thread do.
type Step struct {
	Thread int
	Op     atomicx.Op
	// Cell names what the operation touched: the name given with Name (with
	// the field path inside a named struct, as "r.slots[3]"), else "#n"
	// numbered by first access in the execution, or "clock".
	Cell string
	// Value is the value read or written as atomicx's After reports it (for
	// a CAS 1 if it succeeded; for note sleeps 1 if woken).
	Value uint64
	// Ref is "&name" when Value is the address of an object given to Name.
	Ref string
	// Done is false when the operation did not finish (its thread panicked
	// in it, or the execution ended there).
	Done bool
	// Time is the virtual time of the step since the execution began.
	Time time.Duration
	// RMW marks a read-modify-write (Add, Swap, CAS) that reported both
	// values: Old is what it found in the cell (for a failed CAS, the
	// value that made it fail) and New what it wrote (for a failed CAS,
	// what it would have written).
	RMW      bool
	Old, New uint64
	// Text and OldText are the new and old values as the cell's Format
	// function prints them, "" when it has none.
	Text, OldText string
	// Where is the file:line of the call into atomicx from outside
	// packages atomicx and explore. Check fills it in for the steps of the
	// failure it reports, by replaying the failing schedule once (finding
	// it on every step of a search would slow the search).
	Where string
}

// String formats the step as a trace line, as "T1 cas head ok".
func (s Step) String() string {
	var b strings.Builder
	if s.Time > 0 {
		fmt.Fprintf(&b, "@%v ", s.Time)
	}
	fmt.Fprintf(&b, "T%d %s", s.Thread, s.Op)
	if s.Cell != "clock" {
		b.WriteString(" " + s.Cell)
	}
	if !s.Done {
		b.WriteString(" (did not finish)")
		return b.String()
	}
	val := func() string {
		if s.Ref != "" {
			return s.Ref
		}
		if s.Text != "" {
			return s.Text
		}
		return number(s.Value)
	}
	if s.RMW {
		s.rmwString(&b)
		return b.String()
	}
	switch s.Op {
	case atomicx.OpLoad:
		b.WriteString(" = " + val())
	case atomicx.OpStore, atomicx.OpSwap:
		b.WriteString(" ← " + val())
	case atomicx.OpAdd:
		b.WriteString(" → " + val())
	case atomicx.OpCAS:
		b.WriteString(map[bool]string{true: " ok", false: " failed"}[s.Value == 1])
	case atomicx.OpNoteSleep, atomicx.OpNoteSleepFor:
		b.WriteString(map[bool]string{true: " woken", false: " timed out"}[s.Value == 1])
	default:
		b.WriteString(opSuffix(s.Op, val)) // opformat.go
	}
	return b.String()
}

// PanicError is a panic in a thread (Thread ≥ 0) or in Run.Check (Thread -1).
type PanicError struct {
	Thread int
	Value  any
	Stack  string
}

func (e *PanicError) Error() string {
	if e.Thread < 0 {
		return fmt.Sprintf("Check panicked: %v", e.Value)
	}
	return fmt.Sprintf("thread %d panicked: %v", e.Thread, e.Value)
}

// Unwrap returns the panic value if it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// DeadlockError reports a state where every live thread is blocked and none
// waits on the clock.
type DeadlockError struct {
	// Blocked describes each blocked thread, as "T0 lock b".
	Blocked []string
}

func (e *DeadlockError) Error() string {
	return "deadlock: every live thread is blocked: " + strings.Join(e.Blocked, ", ")
}

// StuckError reports a thread that did not come back to the explorer: it
// blocks or spins on something the explorer does not control (a channel, a
// sync.Mutex, time.Sleep, a loop without atomicx calls). Its goroutine could
// not be joined.
type StuckError struct {
	Thread int
	After  time.Duration
}

func (e *StuckError) Error() string {
	return fmt.Sprintf("thread %d ran %v without reaching a scheduling point: it blocks or spins outside atomicx", e.Thread, e.After)
}

var (
	// ErrStepLimit is wrapped by the failure of an execution that reached
	// Options.MaxSteps.
	ErrStepLimit = errors.New("step limit reached")
	// ErrDeadline is wrapped by the failure of an exploration that ran past
	// Options.Deadline.
	ErrDeadline = errors.New("deadline passed")
	// ErrNondeterministic is wrapped by the failure of an execution that did
	// not repeat the runnable threads of an earlier one with the same
	// choices: the scenario depends on something besides the schedule.
	ErrNondeterministic = errors.New("the scenario is not deterministic")
	// ErrNoSchedcheck is returned by Explore in a build without -tags
	// schedcheck, where atomicx has no hook.
	ErrNoSchedcheck = errors.New("explore: atomicx has no hook in this build: run the tests with -tags schedcheck")
	// ErrSchedcheckRequired is returned by Explore, in place of
	// ErrNoSchedcheck (which it does not wrap, so that the tests that skip
	// on ErrNoSchedcheck fail on it), in a build without -tags schedcheck
	// when RequireSchedcheckEnv is 1.
	ErrSchedcheckRequired = errors.New("explore: " + RequireSchedcheckEnv + "=1 and this build has no explorer: run the tests with -tags schedcheck (scenarios would skip)")
	// ErrReplayDiverged is wrapped by the failure of a replayed execution
	// that did not follow its schedule to its end: the schedule named a
	// thread that could not run, ended while the execution went on, or
	// outlasted the execution. The replay did not reach the recorded
	// failure; whatever else it met is wrapped too.
	ErrReplayDiverged = errors.New("replay diverged from its schedule")
)

// RequireSchedcheckEnv is the environment variable that, set to 1, turns
// the skip of a scenario in a build without -tags schedcheck into a
// failure (for CI, where a missing tag must not pass as "ok"): Explore
// returns ErrSchedcheckRequired, so Check and every test that skips on
// ErrNoSchedcheck fail, and SkipWithoutSchedcheck fails its test.
const RequireSchedcheckEnv = "SCHEDKIT_REQUIRE_SCHEDCHECK"

// noSchedcheck is the error Explore returns in a build without the hook.
func noSchedcheck() error {
	if strings.TrimSpace(os.Getenv(RequireSchedcheckEnv)) == "1" {
		return ErrSchedcheckRequired
	}
	noteSkipOnce.Do(func() {
		if testing.Testing() {
			fmt.Fprintf(os.Stderr, "explore: %s has no -tags schedcheck: its explorer scenarios skip (%s=1 fails them instead)\n",
				filepath.Base(os.Args[0]), RequireSchedcheckEnv)
		}
	})
	return ErrNoSchedcheck
}

// noteSkipOnce prints the line that says scenarios skip once per process.
var noteSkipOnce sync.Once

// SkipWithoutSchedcheck skips tb in a build without -tags schedcheck (the
// first time in a test binary, it says so on stderr, visible without -v),
// or fails it when RequireSchedcheckEnv is 1. A test that needs the
// explorer but does not go through Check calls it first.
func SkipWithoutSchedcheck(tb testing.TB) {
	tb.Helper()
	if hookAvailable {
		return
	}
	if err := noSchedcheck(); errors.Is(err, ErrNoSchedcheck) {
		tb.Skip(err)
	} else {
		tb.Fatal(err)
	}
}

// Available reports whether this build can explore: atomicx has its hook
// only under -tags schedcheck. Without it Explore returns ErrNoSchedcheck.
func Available() bool { return hookAvailable }

// Check explores the scenario build makes and fails t with the schedule, the
// trace and the replay command if an execution fails. It logs
// "explore NAME: N executions, N schedules, bound B, ..." and skips t in a
// build without -tags schedcheck.
func Check(t testing.TB, opts Options, build func() Run) Result {
	t.Helper()
	res := exploreFor(t, opts, build)
	t.Log(res.Summary())
	if len(res.Outcomes) > 0 {
		t.Log(res.OutcomeTable())
	}
	if res.Failure != nil {
		t.Fatalf("%s", res.failureReport(t.Name(), opts, build))
	}
	if res.Incomplete != nil {
		t.Fatalf("inconclusive, not a bug found: %s\n%s\n  %s", res.Summary(), res.Incomplete, replayCommand(t.Name(), res.Incomplete))
	}
	if res.Replayed && opts.Replay == "" {
		t.Fatalf("%s: the replay of %s='%s' ran its whole schedule and every check passed: it does not reproduce a failure here (another build, SCHEDKIT_MUTATION or version of the code than the failing run?)",
			res.Summary(), ReplayEnv, strings.TrimSpace(os.Getenv(ReplayEnv)))
	}
	if len(res.Unreached) > 0 {
		t.Fatal(res.UnreachedError())
	}
	return res
}

// CheckFails explores a scenario that must fail, as a known-buggy variant
// kept beside the correct code does: it fails t if no execution fails (the
// scenario no longer catches the bug), or if the exploration itself went
// wrong (ErrDeadline, ErrNondeterministic); else it logs the failure, with
// its trace and replay line, and returns it. It skips t in a build without
// -tags schedcheck, as Check does.
func CheckFails(t testing.TB, opts Options, build func() Run) *Failure {
	t.Helper()
	res := exploreFor(t, opts, build)
	f := res.Failure
	switch {
	case f == nil && res.Incomplete != nil:
		t.Fatalf("the exploration ran out of time before it found the bug (inconclusive):\n%s", res.Incomplete)
	case f == nil:
		how := "every execution within the bound"
		if !res.Complete {
			how = "the executions run (the search was cut at MaxExecutions)"
		}
		t.Fatalf("%s: %s passed, and this scenario must fail: it no longer catches the bug it is for (check the buggy variant, the scenario, or ask for a larger Bound or DPOR)", res.Summary(), how)
	case errors.Is(f.Err, ErrNondeterministic), errors.Is(f.Err, ErrReplayDiverged):
		t.Fatalf("the exploration went wrong before it found the bug:\n%s", f)
	}
	f = locate(opts, build, f)
	t.Logf("found, as expected:\n%s", f)
	return f
}

// exploreFor runs Explore for Check and CheckFails: the test's name and
// deadline, a skip without schedcheck, a fatal error for bad options.
func exploreFor(t testing.TB, opts Options, build func() Run) Result {
	t.Helper()
	if opts.Name == "" {
		opts.Name = t.Name()
	}
	// Fail with a schedule before the test binary's -timeout fails with
	// nothing but stacks; a long-mode run may take most of it.
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok && opts.Deadline == 0 {
		if at, ok := d.Deadline(); ok {
			if left := time.Until(at) * 9 / 10; left > 0 {
				opts.Deadline = left
			}
		}
	}
	SkipWithoutSchedcheck(t)
	if key, ok := otherReplay(opts.Name); ok && opts.Replay == "" {
		t.Errorf("%s='%s' names scenario %q, and this one is %q: it runs its whole search instead, and no replay happens here (run the test the replay line names with -run, or unset %s)",
			ReplayEnv, key, key[:strings.LastIndexByte(key, ':')], configName(opts.Name), ReplayEnv)
	}
	res, err := Explore(opts, build)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// configName is the scenario name Explore uses for name.
func configName(name string) string { return strings.Join(strings.Fields(name), "_") }

// otherReplay returns ReplayEnv when it names a scenario other than name.
func otherReplay(name string) (string, bool) {
	v := strings.TrimSpace(os.Getenv(ReplayEnv))
	i := strings.LastIndexByte(v, ':')
	return v, i >= 0 && v[:i] != configName(name)
}

// replayCommand is the go test command line that replays f in the test's
// package directory.
func replayCommand(test string, f *Failure) string {
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	var env []string
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case !strings.HasPrefix(k, "SCHEDKIT_"), v == "", k == ReplayEnv, k == ModeEnv, k == MaxExecutionsEnv, k == RequireSchedcheckEnv,
			k == "SCHEDKIT_TEST_STEPS": // scripts/test.sh's choice of steps: nothing to replay
			continue
		}
		env = append(env, k+"='"+v+"'")
	}
	slices.Sort(env)
	env = append(env, ReplayEnv+"='"+f.ReplayKey()+"'")
	short := ""
	if flag.Parsed() && testing.Short() {
		short = " -short"
	}
	return fmt.Sprintf("in the package directory: %s go test -tags %s%s -count=1 -run '%s' .",
		strings.Join(env, " "), buildTags(), short, strings.Join(parts, "/"))
}

// buildTags returns the build tags of the running binary, as go test was
// given them, or "schedcheck" if the binary does not record them.
func buildTags() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-tags" && s.Value != "" {
				return s.Value
			}
		}
	}
	return "schedcheck"
}

// Name names the object ptr points to in traces, for this execution: a cell
// reads as name, a cell inside a named struct or array as its path ("r.head",
// "r.slots[3]"), the elements of a slice ptr points to as "name[i]", and a
// stored pointer equal to ptr as "&name". Call it in
// build or in a thread; elsewhere it does nothing. It panics if ptr is not a
// non-nil pointer.
func Name(ptr any, name string) {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic("explore: Name called with something other than a non-nil pointer")
	}
	var x *execution
	switch r := lookup().(type) {
	case *thread:
		x = r.x
	case *execution:
		x = r
	default:
		return
	}
	x.cells.add(v.Pointer(), v.Type().Elem(), name)
	if e := v.Elem(); e.Kind() == reflect.Slice && e.Len() > 0 {
		// a slice names its elements too (an atomicx.PlainSlice): "buf[1]"
		x.cells.add(e.Pointer(), reflect.ArrayOf(e.Len(), e.Type().Elem()), name)
	}
}

// config is Options checked and with defaults filled in.
type config struct {
	Options
	bound  int // -1: unbounded
	replay []uint8
}

const (
	defaultMaxExecutionsDFS  = 100000
	defaultMaxExecutionsWalk = 1000
	defaultMaxSteps          = 10000
	defaultDepth             = 2
	defaultMaxFailures       = 20
)

func (o Options) config() (config, error) {
	c := config{Options: o}
	if c.Name == "" {
		c.Name = "scenario"
	}
	c.Name = strings.Join(strings.Fields(c.Name), "_")
	if c.Mode > DPOR {
		return c, fmt.Errorf("explore %s: unknown Mode %d", c.Name, c.Mode)
	}
	if err := c.modeFromEnv(); err != nil {
		return c, err
	}
	if err := c.optionsFromEnv(); err != nil {
		return c, err
	}
	if c.LongBound != 0 && Long() {
		c.Bound = c.LongBound
	}
	switch {
	case c.Bound == 0:
		c.bound = DefaultBound
	case c.Bound == NoPreemption:
		c.bound = 0
	case c.Bound == Unbounded:
		c.bound = -1
	case c.Bound > 0:
		c.bound = c.Bound
	default:
		return c, fmt.Errorf("explore %s: Bound %d: use a positive bound, NoPreemption or Unbounded", c.Name, c.Bound)
	}
	if c.MaxExecutions < 0 || c.MaxSteps < 0 || c.Depth < 0 || c.Deadline < 0 || c.MaxFailures < 0 {
		return c, fmt.Errorf("explore %s: negative MaxExecutions, MaxSteps, Depth, Deadline or MaxFailures", c.Name)
	}
	if c.Deadline == 0 {
		c.Deadline = DefaultDeadline
	}
	if c.MaxExecutions == 0 {
		c.MaxExecutions = defaultMaxExecutionsWalk
		if c.Mode == DFS || c.Mode == DPOR {
			c.MaxExecutions = defaultMaxExecutionsDFS
		}
	}
	if err := c.maxExecutionsFromEnv(); err != nil {
		return c, err
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = defaultMaxSteps
	}
	if c.Depth == 0 {
		c.Depth = defaultDepth
	}
	if c.MaxFailures == 0 {
		c.MaxFailures = defaultMaxFailures
	}
	if c.Reduce && (c.Mode != DFS || c.bound >= 0) {
		return c, fmt.Errorf("explore %s: Reduce needs Mode DFS with Bound: Unbounded", c.Name)
	}
	sched := c.Replay
	if sched == "" {
		sched = replayFromEnv(c.Name)
	}
	if sched != "" {
		s, err := parseSchedule(sched)
		if err != nil {
			return c, fmt.Errorf("explore %s: replay: %w", c.Name, err)
		}
		c.replay = s
		c.Replay = sched
	}
	return c, nil
}

// replayFromEnv returns the schedule ReplayEnv holds for the scenario name.
func replayFromEnv(name string) string {
	v := strings.TrimSpace(os.Getenv(ReplayEnv))
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		if v[:i] != name {
			return ""
		}
		return v[i+1:]
	}
	return v
}
