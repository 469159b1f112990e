package explore

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"

	"github.com/schedkit/schedkit/atomicx"
)

// report is an execution's share of the reporting: the cells' formatters
// and whether steps get their file:line.
type report struct {
	formats []formatRange
	locate  bool
}

type formatRange struct {
	start, size uintptr
	f           func(uint64) string
}

// Format prints the values of the cells inside the object ptr points to
// with f in traces, for this execution: a packed word (a head and a tail in
// one uint64, a state and a count) reads as f makes it, "h=3 t=5", instead
// of a decimal. Call it in build or in a thread, beside Name; elsewhere it
// does nothing. The latest Format covering a cell wins. It panics if ptr is
// not a non-nil pointer or f is nil.
func Format(ptr any, f func(uint64) string) {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() || f == nil {
		panic("explore: Format called with something other than a non-nil pointer and a function")
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
	x.rep.formats = append(x.rep.formats, formatRange{v.Pointer(), max(v.Type().Elem().Size(), 1), f})
}

// format returns addr's formatter, or nil.
func (r *report) format(addr uintptr) func(uint64) string {
	for i := len(r.formats) - 1; i >= 0; i-- {
		if o := &r.formats[i]; addr >= o.start && addr-o.start < o.size {
			return o.f
		}
	}
	return nil
}

// AfterRMW records both values of a read-modify-write in the trace
// (atomicx.RMWHook).
func (dispatcher) AfterRMW(op atomicx.Op, addr uintptr, old, new uint64, ok bool) {
	th, is := lookup().(*thread)
	if !is {
		return
	}
	v := new
	if op == atomicx.OpCAS {
		v = 0
		if ok {
			v = 1
		}
	}
	th.after(v)
	x := th.x
	if n := len(x.steps); n > 0 && x.steps[n-1].Thread == th.id {
		s := &x.steps[n-1]
		s.RMW, s.Old, s.New = true, old, new
		if op == atomicx.OpCAS && !ok {
			s.New = old // nothing was written
		}
		if f := x.rep.format(addr); f != nil {
			s.Text, s.OldText = f(new), f(old)
		} else if op == atomicx.OpCAS {
			// a pointer CAS reads as the named objects it swapped
			o, n := x.cells.ref(old), x.cells.ref(s.New)
			if o != "" || n != "" {
				s.OldText, s.Text = cmp.Or(o, number(old)), cmp.Or(n, number(s.New))
			}
		}
		if x.rep.locate {
			s.Where = callerOutside()
		}
	}
}

// afterPlain completes a step that After reported: its formatted value and
// where it was called from.
func (th *thread) afterPlain(addr uintptr) {
	x := th.x
	if len(x.rep.formats) == 0 && !x.rep.locate {
		return
	}
	if n := len(x.steps); n > 0 && x.steps[n-1].Thread == th.id {
		s := &x.steps[n-1]
		if f := x.rep.format(addr); f != nil && (s.Op == atomicx.OpLoad || s.Op == atomicx.OpStore) {
			s.Text = f(s.Value)
		}
		if x.rep.locate {
			s.Where = callerOutside()
		}
	}
}

const (
	atomicxPrefix = "github.com/schedkit/schedkit/atomicx."
	explorePrefix = "github.com/schedkit/schedkit/explore."
)

// callerOutside is the file:line of the innermost caller outside atomicx,
// explore and the runtime.
func callerOutside() string {
	var pcs [24]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		fn := f.Function
		if !strings.HasPrefix(fn, atomicxPrefix) && !strings.HasPrefix(fn, explorePrefix) &&
			!strings.HasPrefix(fn, "runtime.") && !strings.HasPrefix(fn, "sync/atomic.") && f.File != "" {
			return fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// number prints a value as a signed number when it reads as a negative one.
func number(v uint64) string {
	if int64(v) < 0 {
		return fmt.Sprint(int64(v))
	}
	return fmt.Sprint(v)
}

// rmwString writes a read-modify-write's values: "0 → 1" for Add, Swap and
// a CAS that succeeded ("cas c ok: 0 → 1"), "failed, saw 3" for one that
// lost.
func (s Step) rmwString(b *strings.Builder) {
	old, new := number(s.Old), number(s.New)
	if s.Text != "" {
		old, new = s.OldText, s.Text
	}
	if s.Ref != "" {
		new = s.Ref
	}
	switch {
	case s.Op == atomicx.OpCAS && s.Value != 1:
		fmt.Fprintf(b, " failed, saw %s", old)
	case s.Op == atomicx.OpCAS:
		fmt.Fprintf(b, " ok: %s → %s", old, new)
	default:
		fmt.Fprintf(b, " %s → %s", old, new)
	}
}

// line is the step as a trace line, with where it was called from.
func (s Step) line() string {
	if s.Where == "" {
		return s.String()
	}
	return fmt.Sprintf("%-40s %s", s.String(), s.Where)
}

// failed takes x's failure into the result: Result.Incomplete for a
// deadline, else Result.Failures if it is not a duplicate (Failure is the
// first). It reports whether the search stops: at a deadline, a
// nondeterministic scenario, a replay, or once Options.MaxFailures
// distinct failures are in (the first one unless KeepGoing).
func (e *explorer) failed(x *execution) (stop bool) {
	f := x.fail
	if errors.Is(f.Err, ErrDeadline) {
		e.res.Incomplete = f
		return true
	}
	key := failureKey(f.Err)
	dup := false
	for _, g := range e.res.Failures {
		dup = dup || failureKey(g.Err) == key
	}
	if !dup {
		e.res.Failures = append(e.res.Failures, f)
	}
	if e.res.Failure == nil {
		e.res.Failure = f
	}
	return !e.cfg.KeepGoing || len(e.res.Failures) >= e.cfg.MaxFailures ||
		e.cfg.replay != nil || errors.Is(f.Err, ErrNondeterministic) || errors.Is(f.Err, ErrReplayDiverged)
}

// failureKey tells failures apart: the check that failed (Check's error, a
// thread's panic, a deadlock, the step limit...) and its message.
func failureKey(err error) string {
	var pe *PanicError
	if errors.As(err, &pe) {
		return fmt.Sprintf("panic in T%d: %v", pe.Thread, pe.Value)
	}
	return fmt.Sprintf("%T: %s", err, err)
}

// drainThread returns r with r.Drain as a last thread that waits until
// every other thread has returned, so that it runs alone, explored like
// the others (its blocking operations are modelled).
func (x *execution) withDrain(r Run) Run {
	if r.Drain == nil {
		return r
	}
	drain := r.Drain
	r.Threads = append(r.Threads[:len(r.Threads):len(r.Threads)], func() {
		th, _ := lookup().(*thread)
		if th == nil {
			return
		}
		others := x.threads[:th.id]
		mark := new(uint64) // a cell of its own, so that it depends on nothing
		x.cells.add(reflect.ValueOf(mark).Pointer(), reflect.TypeFor[uint64](), "drain")
		th.point(pending{op: atomicx.OpNoteSleep, addr: reflect.ValueOf(mark).Pointer(), timeout: -1, ready: func() bool {
			for _, o := range others {
				if o.state != stDone {
					return false
				}
			}
			return true
		}})
		th.after(1)
		drain()
	})
	return r
}

// locate replays f's schedule once to find where each of its steps was
// called from (Step.Where), and returns f with them; on any trouble, f as
// it was.
func locate(opts Options, build func() Run, f *Failure) *Failure {
	if f == nil || errors.As(f.Err, new(*StuckError)) || errors.Is(f.Err, ErrDeadline) {
		return f
	}
	opts.Replay, opts.Name, opts.Visit, opts.MustReach = f.Schedule, f.Name, nil, nil
	opts.locate, opts.KeepGoing = true, false
	res, err := Explore(opts, build)
	if err != nil || res.Failure == nil || len(res.Failure.Trace) != len(f.Trace) {
		return f
	}
	g := *f
	g.Trace = append([]Step(nil), f.Trace...)
	for i := range g.Trace {
		if s := res.Failure.Trace[i]; s.Thread == g.Trace[i].Thread && s.Op == g.Trace[i].Op {
			g.Trace[i].Where = s.Where
		}
	}
	return &g
}

// failureReport is what Check fails its test with: every distinct
// failure, each with its file:lines (found by a replay) and its replay
// command.
func (r Result) failureReport(test string, opts Options, build func() Run) string {
	fs := r.Failures
	if len(fs) == 0 {
		fs = []*Failure{r.Failure}
	}
	var b strings.Builder
	if len(fs) > 1 {
		fmt.Fprintf(&b, "%s:\n", r.Summary())
	}
	for i, f := range fs {
		if len(fs) > 1 {
			fmt.Fprintf(&b, "--- failure %d of %d\n", i+1, len(fs))
		}
		if i < 3 {
			f = locate(opts, build, f)
		}
		fmt.Fprintf(&b, "%s\n  %s\n", f, replayCommand(test, f))
	}
	return strings.TrimSuffix(b.String(), "\n")
}
