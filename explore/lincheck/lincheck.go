package lincheck

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/linearize"
)

// Model is the sequential specification Linearizable checks histories
// against: the state of the object before any operation. Each Op carries
// its own Step on this state.
type Model[S any] struct {
	// Init returns the initial state. A state must be a value: Step returns
	// a new one and never changes the one it was given (copy a slice
	// before appending to it), as the checker tries many orders from one
	// state.
	Init func() S
	// Equal, if not nil, tells two states apart for the checker's cache;
	// the default is reflect.DeepEqual.
	Equal func(a, b S) bool
}

// Op is one operation of the object under test T and of its model S.
type Op[T, S any] struct {
	// Name names the operation in scenarios and histories ("enq", "pop").
	// Letters, digits, '-' and '_' only.
	Name string
	// Owner reports an operation only one thread may call (a ring's put
	// and get, which only its owner does): scenarios give it to thread 0
	// alone; the other threads draw from the operations without Owner.
	Owner bool
	// Arg reports that the operation takes an argument: each call in a
	// scenario gets a value of its own, 1, 2, 3... in the order of the
	// calls (thread 0's first), so every pushed item is distinct. Calls of
	// an operation without Arg get 0.
	Arg bool
	// Run performs the operation on the object, in an explored thread, and
	// returns its result (nil if none). Results are compared with
	// reflect.DeepEqual: return a value, not a pointer into the object.
	Run func(obj T, arg int) any
	// Step applies the operation to the model's state: the new state and
	// the result the sequential object returns.
	Step func(s S, arg int) (S, any)
	// Accept, in place of Step, is for a specification that allows more
	// than one result (a dequeue that may report empty spuriously, a
	// relaxed order): it reports whether out is a result the operation
	// may give in state s, and the state it leaves.
	Accept func(s S, arg int, out any) (S, bool)
}

// Options tune Check.
type Options struct {
	// Name prefixes the scenarios' names: NAME/SCENARIO (Linearizable
	// defaults it to t.Name()).
	Name string
	// Threads is the number of threads of each scenario: default 2.
	Threads int
	// OpsPerThread is the number of calls each thread makes: default 2.
	OpsPerThread int
	// Seeds is the number of scenarios generated, one per seed from Seed
	// on (the same seeds give the same scenarios): default 10. A scenario
	// drawn twice is explored once.
	Seeds int
	// Seed is the first seed.
	Seed int64
	// Explore is the search each scenario's interleavings get: Mode,
	// Bound, MaxExecutions and so on (default: DFS within DefaultBound).
	// Its Name, Replay, Visit and MustReach are not used.
	Explore explore.Options
	// MaxShrinks bounds the explorations spent making a failing scenario
	// smaller: default 40.
	MaxShrinks int
	// Deadline bounds the whole run by the wall clock (every scenario's
	// exploration gets what is left of it): under Check, nine tenths of
	// what is left of the test binary's -timeout; else none of its own
	// (each exploration has explore's DefaultDeadline). Past it the run
	// is inconclusive (Result.Incomplete), not failed.
	Deadline time.Duration
}

// Result is what Check did and found.
type Result struct {
	// Scenarios counts the distinct scenarios explored (shrinking's not
	// included).
	Scenarios int
	// Executions counts their executions.
	Executions int
	// Histories counts the distinct histories the model checked (many
	// interleavings give one history).
	Histories int
	// Complete reports that the search of every scenario that passed was
	// complete (see explore.Result.Complete).
	Complete bool
	// Failure is the smallest non-linearizable history found, or nil (or
	// a scenario that failed otherwise: a panic, a deadlock).
	Failure *Failure
	// Incomplete, if not nil, is the execution in progress when a
	// scenario's exploration ran past its Deadline: the run is
	// inconclusive, not failed.
	Incomplete *explore.Failure
}

// Failure is a scenario with an execution whose history no order of
// its operations explains.
type Failure struct {
	// Scenario lists each thread's calls, threads separated by "|":
	// "enq(1),deq|enq(2)". It is the part of Failure.Name after the last
	// "/".
	Scenario string
	// Calls is the number of calls in the scenario: shrinking removes calls
	// while some execution still fails.
	Calls int
	// Failure is the failing execution: its error holds the history (each
	// call, its result and the steps it spanned), its schedule, trace and
	// replay key.
	*explore.Failure
}

// String reports the failure as Failure.String does, after a line naming
// the scenario.
func (f *Failure) String() string {
	what := "is not linearizable"
	if !errors.Is(f.Err, ErrNotLinearizable) {
		what = "fails"
	}
	return fmt.Sprintf("linearizability: scenario %s (%d calls) %s\n%s", f.Scenario, f.Calls, what, f.Failure)
}

// ErrNotLinearizable is wrapped by the failure of an execution whose
// history is not linearizable with respect to the model.
var ErrNotLinearizable = errors.New("history is not linearizable")

// linAcceptAll is a checker that accepts every history, for the test that
// shows the checker is what catches the bugs (export_test.go).
var linAcceptAll bool

// linCall is one call of a scenario.
type linCall struct{ op, arg int }

// linScenario is each thread's calls.
type linScenario [][]linCall

func (sc linScenario) calls() int {
	n := 0
	for _, th := range sc {
		n += len(th)
	}
	return n
}

// linIn is porcupine's input of a call.
type linIn struct{ thread, op, arg int }

// lin is one Linearizable run's fixed parts.
type lin[T, S any] struct {
	opts   Options
	model  Model[S]
	newObj func() T
	ops    []Op[T, S]
	pmodel porcupine.Model
	res    Result
	// verdicts caches the checker's answer per history and scenario.
	verdicts map[string]error
	until    time.Time // the end of Options.Deadline, zero for none
}

// Check checks that the object newObj makes is linearizable with
// respect to the sequential model m and ops, with no invariant written by
// hand: it generates o.Seeds small scenarios (o.Threads threads of
// o.OpsPerThread calls drawn from ops, seeded), explores each one's
// interleavings with o.Explore, records every execution's history (each
// call spans the steps from its first scheduling point to its last, the
// tightest interval the execution allows) and checks it against the model
// with internal/linearize's porcupine checker. A failing scenario is made
// smaller, call by call, while some execution still fails, and t fails
// with the smallest one's history, schedule, trace and replay line. It
// logs one line per run and skips t without -tags schedcheck.
func Check[T, S any](t testing.TB, o Options, m Model[S], newObj func() T, ops ...Op[T, S]) Result {
	t.Helper()
	res, err := linFor(t, o, m, newObj, ops)
	if res.Failure != nil {
		t.Fatalf("%s\n  %s", res.Failure, explore.ReplayCommand(t.Name(), res.Failure.Failure))
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.Incomplete != nil {
		t.Fatalf("linearizability %s: inconclusive, not a bug found: the time ran out in scenario %d:\n%s", o.Name, res.Scenarios, res.Incomplete)
	}
	return res
}

// CheckFails is Check for an object that must not be
// linearizable, a known-buggy variant kept beside the correct one: it fails
// t if every history checked is linearizable, else logs the smallest
// failure and returns it.
func CheckFails[T, S any](t testing.TB, o Options, m Model[S], newObj func() T, ops ...Op[T, S]) *Failure {
	t.Helper()
	res, err := linFor(t, o, m, newObj, ops)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil && res.Incomplete != nil {
		t.Fatalf("the exploration ran out of time before it found the bug (inconclusive):\n%s", res.Incomplete)
	}
	if res.Failure == nil {
		t.Fatalf("linearizability %s: %d scenarios, %d executions, %d histories, all linearizable, and this object must fail: the scenarios no longer catch its bug (more Seeds, OpsPerThread or a larger Bound?)",
			o.Name, res.Scenarios, res.Executions, res.Histories)
	}
	t.Logf("found, as expected:\n%s", res.Failure)
	return res.Failure
}

func linFor[T, S any](t testing.TB, o Options, m Model[S], newObj func() T, ops []Op[T, S]) (Result, error) {
	t.Helper()
	if o.Name == "" {
		o.Name = t.Name()
	}
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok && o.Deadline == 0 {
		if at, ok := d.Deadline(); ok {
			o.Deadline = max(time.Until(at)*9/10, time.Millisecond)
		}
	}
	explore.SkipWithoutSchedcheck(t)
	res, err := Run(o, m, newObj, ops...)
	t.Logf("linearizability %s: %d scenarios of %d threads x %d calls, %d executions, %d distinct histories checked%s",
		o.Name, res.Scenarios, o.Threads, o.OpsPerThread, res.Executions, res.Histories, map[bool]string{true: "", false: ", incomplete"}[res.Complete])
	return res, err
}

// CheckLinearizable is Linearizable without a test: the error is about the
// run itself (bad options, ErrNoSchedcheck), and a history that is not
// linearizable is Result.Failure. With ReplayEnv naming one of its
// scenarios ("NAME/SCENARIO:schedule"), it replays that scenario's
// schedule alone.
func Run[T, S any](o Options, m Model[S], newObj func() T, ops ...Op[T, S]) (Result, error) {
	if !explore.Available() {
		_, err := explore.Explore(explore.Options{}, nil) // ErrNoSchedcheck, or the required-tag error
		return Result{}, err
	}
	if o.Name == "" {
		o.Name = "linearizable"
	}
	o.Name = strings.Join(strings.Fields(o.Name), "_")
	o.Threads = cmp.Or(o.Threads, 2)
	o.OpsPerThread = cmp.Or(o.OpsPerThread, 2)
	o.Seeds = cmp.Or(o.Seeds, 10)
	o.MaxShrinks = cmp.Or(o.MaxShrinks, 40)
	switch {
	case m.Init == nil || newObj == nil || len(ops) == 0:
		return Result{}, fmt.Errorf("linearizability %s: need Model.Init, newObj and at least one Op", o.Name)
	case o.Threads < 1 || o.Threads > explore.MaxThreads || o.OpsPerThread < 1 || o.Seeds < 0:
		return Result{}, fmt.Errorf("linearizability %s: Threads 1 to %d, OpsPerThread and Seeds positive", o.Name, explore.MaxThreads)
	}
	for i, op := range ops {
		if op.Run == nil || (op.Step == nil) == (op.Accept == nil) || op.Name == "" || strings.ContainsFunc(op.Name, func(r rune) bool {
			return !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) {
			return Result{}, fmt.Errorf("linearizability %s: Op %d needs Run, one of Step and Accept, and a Name of letters, digits, '-' and '_'", o.Name, i)
		}
	}
	if o.Threads > 1 && !slices.ContainsFunc(ops, func(op Op[T, S]) bool { return !op.Owner }) {
		return Result{}, fmt.Errorf("linearizability %s: every Op is Owner: the threads past the first have nothing to call", o.Name)
	}
	l := &lin[T, S]{opts: o, model: m, newObj: newObj, ops: ops, verdicts: map[string]error{}}
	l.pmodel = l.porcupineModel()
	if o.Deadline > 0 {
		l.until = time.Now().Add(o.Deadline)
	}
	l.res.Complete = true

	if key := strings.TrimSpace(os.Getenv(explore.ReplayEnv)); strings.HasPrefix(key, o.Name+"/") {
		name := key[:max(strings.LastIndexByte(key, ':'), 0)]
		sc, err := l.parse(strings.TrimPrefix(name, o.Name+"/"))
		if err != nil {
			return l.res, fmt.Errorf("linearizability %s: %s: %w", o.Name, explore.ReplayEnv, err)
		}
		f, _, err := l.explore(sc, true) // the scenario's name picks the replay up
		l.res.Scenarios++
		if f != nil {
			l.fail(sc, f)
		}
		return l.res, err
	}

	seen := map[string]bool{}
	for s := range o.Seeds {
		sc := l.generate(o.Seed + int64(s))
		if seen[l.format(sc)] {
			continue
		}
		seen[l.format(sc)] = true
		l.res.Scenarios++
		f, _, err := l.explore(sc, true)
		if err != nil {
			return l.res, err
		}
		if f != nil && errors.Is(f.Err, explore.ErrDeadline) {
			l.res.Incomplete = f // inconclusive: no bug shown
			return l.res, nil
		}
		if f != nil {
			sc, f = l.shrink(sc, f)
			l.fail(sc, f)
			return l.res, nil
		}
	}
	return l.res, nil
}

// fail reports f, a failure of sc, with its steps' file:lines.
func (l *lin[T, S]) fail(sc linScenario, f *explore.Failure) {
	if errors.Is(f.Err, ErrNotLinearizable) {
		f = explore.Locate(l.options(sc), l.build(sc), f)
	}
	l.res.Failure = &Failure{Scenario: l.format(sc), Calls: sc.calls(), Failure: f}
}

// options are the explorer's options for sc.
func (l *lin[T, S]) options(sc linScenario) explore.Options {
	opts := l.opts.Explore
	opts.Name = l.opts.Name + "/" + l.format(sc)
	opts.Replay, opts.Visit, opts.MustReach = "", nil, nil
	opts.KeepGoing = false
	if !l.until.IsZero() && opts.Deadline == 0 {
		opts.Deadline = max(time.Until(l.until), time.Millisecond)
	}
	return opts
}

// generate draws a scenario from seed.
func (l *lin[T, S]) generate(seed int64) linScenario {
	r := rand.New(rand.NewPCG(uint64(seed), 0x6c696e))
	sc := make(linScenario, l.opts.Threads)
	var shared []int // the operations any thread may call
	for i, op := range l.ops {
		if !op.Owner {
			shared = append(shared, i)
		}
	}
	for th := range sc {
		for range l.opts.OpsPerThread {
			if th == 0 {
				sc[th] = append(sc[th], linCall{op: r.IntN(len(l.ops))})
			} else {
				sc[th] = append(sc[th], linCall{op: shared[r.IntN(len(shared))]})
			}
		}
	}
	return l.numbered(sc)
}

// numbered gives the calls of operations with Arg 1, 2, 3... in order.
func (l *lin[T, S]) numbered(sc linScenario) linScenario {
	n := 0
	for _, th := range sc {
		for i := range th {
			th[i].arg = 0
			if l.ops[th[i].op].Arg {
				n++
				th[i].arg = n
			}
		}
	}
	return sc
}

func (l *lin[T, S]) callString(c linCall) string {
	if l.ops[c.op].Arg {
		return l.ops[c.op].Name + "(" + strconv.Itoa(c.arg) + ")"
	}
	return l.ops[c.op].Name
}

// format writes a scenario as its name: "enq(1),deq|enq(2)".
func (l *lin[T, S]) format(sc linScenario) string {
	var b strings.Builder
	for i, th := range sc {
		if i > 0 {
			b.WriteByte('|')
		}
		for j, c := range th {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(l.callString(c))
		}
	}
	return b.String()
}

// parse reads what format writes.
func (l *lin[T, S]) parse(s string) (linScenario, error) {
	var sc linScenario
	for ths := range strings.SplitSeq(s, "|") {
		var calls []linCall
		for cs := range strings.SplitSeq(ths, ",") {
			if cs == "" {
				continue
			}
			name, arg, hasArg := strings.Cut(strings.TrimSuffix(cs, ")"), "(")
			i := slices.IndexFunc(l.ops, func(o Op[T, S]) bool { return o.Name == name })
			if i < 0 {
				return nil, fmt.Errorf("scenario %q: no operation %q", s, name)
			}
			c := linCall{op: i}
			if hasArg {
				n, err := strconv.Atoi(arg)
				if err != nil {
					return nil, fmt.Errorf("scenario %q: bad argument in %q", s, cs)
				}
				c.arg = n
			}
			calls = append(calls, c)
		}
		sc = append(sc, calls)
	}
	if len(sc) == 0 || len(sc) > explore.MaxThreads {
		return nil, fmt.Errorf("scenario %q: 1 to %d threads", s, explore.MaxThreads)
	}
	return sc, nil
}

// explore explores sc's interleavings and returns its first failure.
func (l *lin[T, S]) explore(sc linScenario, count bool) (*explore.Failure, explore.Result, error) {
	opts := l.options(sc)
	res, err := explore.Explore(opts, l.build(sc))
	if count {
		l.res.Executions += res.Executions
		l.res.Complete = l.res.Complete && (res.Complete || res.Replayed || res.Failure != nil)
	}
	if err != nil {
		return nil, res, err
	}
	if res.Failure == nil && res.Incomplete != nil {
		return res.Incomplete, res, nil // out of time: say so, as a failure of the run
	}
	return res.Failure, res, nil
}

// shrink removes calls from a failing scenario, one at a time, while some
// execution of the smaller one still fails, within MaxShrinks
// explorations.
func (l *lin[T, S]) shrink(sc linScenario, f *explore.Failure) (linScenario, *explore.Failure) {
	tries := l.opts.MaxShrinks
	for smaller := true; smaller && tries > 0; {
		smaller = false
		for th := range sc {
			for i := range sc[th] {
				if tries == 0 || sc.calls() == 1 {
					return sc, f
				}
				c := make(linScenario, 0, len(sc))
				for j, calls := range sc {
					if j == th {
						calls = slices.Delete(slices.Clone(calls), i, i+1)
					}
					if len(calls) > 0 {
						c = append(c, slices.Clone(calls))
					}
				}
				tries--
				cf, _, err := l.explore(l.numbered(c), false)
				if err == nil && cf != nil && errors.Is(cf.Err, ErrNotLinearizable) {
					sc, f, smaller = c, cf, true
					break
				}
			}
			if smaller {
				break
			}
		}
	}
	return sc, f
}

// linEvent is a call's start or end as a thread met it.
type linEvent struct {
	thread, call int
	ret          bool
	at           int // the index of the step the thread was running (-1: before the first)
	seq          int // order of recording
	out          any
}

// build makes the explorer's scenario of sc.
func (l *lin[T, S]) build(sc linScenario) func() explore.Run {
	return func() explore.Run {
		obj := l.newObj()
		var events []linEvent // appended by one thread at a time: the explorer orders them
		note := func(th, call int, ret bool, out any) {
			_, at, ok := explore.Position()
			if !ok {
				return
			}
			events = append(events, linEvent{thread: th, call: call, ret: ret, at: at, seq: len(events), out: out})
		}
		threads := make([]func(), len(sc))
		for th, calls := range sc {
			threads[th] = func() {
				for i, c := range calls {
					note(th, i, false, nil)
					out := l.ops[c.op].Run(obj, c.arg)
					note(th, i, true, out)
				}
			}
		}
		return explore.Run{Threads: threads, Check: func() error {
			return l.check(sc, explore.Steps(), events)
		}}
	}
}

// check builds the history of one execution and checks it against the
// model.
func (l *lin[T, S]) check(sc linScenario, steps []explore.Step, events []linEvent) error {
	type key struct{ at, phase, seq int }
	type span struct {
		call, ret key
		first     int // first step of the call, -1 if none
		out       any
	}
	spans := map[[2]int]*span{}
	for _, ev := range events {
		id := [2]int{ev.thread, ev.call}
		if !ev.ret {
			spans[id] = &span{call: key{ev.at, 1, ev.seq}, first: -1}
			continue
		}
		s := spans[id]
		s.ret, s.out = key{ev.at, 1, ev.seq}, ev.out
		// The call's first step is the thread's first after the call began:
		// the call starts just before it, as tight as the execution allows.
		for i := s.call.at + 1; i <= ev.at && i < len(steps); i++ {
			if steps[i].Thread == ev.thread {
				s.call, s.first = key{i, 0, s.call.seq}, i
				break
			}
		}
	}
	var keys []key
	for _, s := range spans {
		keys = append(keys, s.call, s.ret)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.phase, b.phase), cmp.Compare(a.seq, b.seq))
	})
	rank := func(k key) int64 {
		i, _ := slices.BinarySearchFunc(keys, k, func(a, b key) int {
			return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.phase, b.phase), cmp.Compare(a.seq, b.seq))
		})
		return int64(i)
	}
	var hist []porcupine.Operation
	var desc []string
	for th, calls := range sc {
		for i, c := range calls {
			s := spans[[2]int{th, i}]
			if s == nil {
				return fmt.Errorf("linearizability: call %d of thread %d did not run", i, th)
			}
			hist = append(hist, porcupine.Operation{ClientId: th, Input: linIn{th, c.op, c.arg}, Call: rank(s.call), Output: s.out, Return: rank(s.ret)})
			where := "no step"
			if s.first >= 0 {
				where = fmt.Sprintf("steps %d-%d", s.first+1, s.ret.at+1)
			}
			desc = append(desc, fmt.Sprintf("T%d %s = %v (%s)", th, l.callString(c), l.show(s.out), where))
		}
	}
	slices.SortStableFunc(hist, func(a, b porcupine.Operation) int { return cmp.Compare(a.Call, b.Call) })
	var hk strings.Builder
	for _, op := range hist {
		fmt.Fprintf(&hk, "%v@%d-%d=%#v;", op.Input, op.Call, op.Return, op.Output)
	}
	err, ok := l.verdicts[hk.String()]
	if !ok {
		l.res.Histories++
		if !linAcceptAll {
			if _, cerr := linearize.CheckBudget(l.opts.Name, l.pmodel, hist, 0, 0); cerr != nil {
				err = cerr
				if errors.Is(cerr, linearize.ErrNotLinearizable) {
					err = fmt.Errorf("%w: no order of the calls, each at one point of its span, gives these results from the model:\n    %s\n  (%w)",
						ErrNotLinearizable, strings.Join(desc, "\n    "), cerr)
				}
			}
		}
		l.verdicts[hk.String()] = err
	}
	return err
}

// show prints a result: a struct's fields without their names.
func (l *lin[T, S]) show(v any) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%v", v)
}

// porcupineModel is the model as porcupine takes it.
func (l *lin[T, S]) porcupineModel() porcupine.Model {
	equal := l.model.Equal
	if equal == nil {
		equal = func(a, b S) bool { return reflect.DeepEqual(a, b) }
	}
	return porcupine.Model{
		Init: func() any { return l.model.Init() },
		Step: func(state, input, output any) (bool, any) {
			in := input.(linIn)
			if acc := l.ops[in.op].Accept; acc != nil {
				next, ok := acc(state.(S), in.arg, output)
				return ok, next
			}
			next, want := l.ops[in.op].Step(state.(S), in.arg)
			return reflect.DeepEqual(want, output), next
		},
		Equal: func(a, b any) bool { return equal(a.(S), b.(S)) },
		DescribeOperation: func(input, output any) string {
			in := input.(linIn)
			return fmt.Sprintf("T%d %s = %v", in.thread, l.callString(linCall{in.op, in.arg}), l.show(output))
		},
	}
}
