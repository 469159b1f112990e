package linearize

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// DirEnv is the environment variable that, when set, names the directory
// for the visualizations of histories that are not linearizable.
const DirEnv = "SCHEDKIT_LINEARIZE_DIR"

// ErrNotLinearizable is wrapped by the error of a check whose outcome is
// porcupine.Illegal.
var ErrNotLinearizable = errors.New("linearize: history is not linearizable")

// ErrInconclusive is wrapped by the error of a check that neither accepted
// nor refuted its history (outcome porcupine.Unknown): its search spent its
// step budget (ErrBudget) or ran out of time (ErrTimeout). It is never a
// pass and never a fail.
var ErrInconclusive = errors.New("linearize: linearizability check inconclusive")

// ErrTimeout is wrapped by the error of a check whose search ran out of
// wall-clock time: inconclusive.
var ErrTimeout = fmt.Errorf("%w: timed out", ErrInconclusive)

// ErrBudget is wrapped by the error of a check whose search spent its step
// budget before it found a linearization: inconclusive.
var ErrBudget = fmt.Errorf("%w: step budget spent", ErrInconclusive)

// DefaultSteps is a check's step budget (calls of the model's Step) when
// none is given. In one run, not recorded elsewhere and its load not
// noted, the components' histories (3 to 5 threads, 180 to 800
// operations) took at most 5,010 steps each in the TestLinearizable and
// TestLinearizeCatches* of globalq, lfq, runnext, stealing and spinning
// (-short, about 1,500 histories), at 7 to 17µs a step; the costliest were
// refutations of globalq's race-only broken Len, up to 34,236 steps in 16
// runs. A history past the budget is inconclusive and recorded again
// smaller; the budget stops a search gone exponential at the same step on
// every machine, in about a second on the development machine.
const DefaultSteps = 1 << 16

// Recorder records one history: the operations of a few Clients, stamped
// by one shared logical clock. The zero value is not usable; call New.
type Recorder struct {
	// clock is the last timestamp handed out. It is an atomicx cell so that
	// under the explorer every stamp is a scheduling point of its own,
	// taken at its place in the explored order.
	clock atomicx.Int64
	name  string

	mu      sync.Mutex
	clients []*Client
}

// New returns an empty Recorder. name identifies the history in errors and
// in the visualization's file name; a test's t.Name() is a good choice.
func New(name string) *Recorder {
	r := &Recorder{name: name}
	explore.Name(&r.clock, "linearize.clock") // traces name the stamps; a no-op outside the explorer
	return r
}

// Client returns a new recorder of operations for one goroutine, whose
// operations carry id as their porcupine ClientId. Ids should be small and
// start at 0 (the visualization draws one row per id). Client may be called
// from any goroutine; it panics if id is negative or already taken.
func (r *Recorder) Client(id int) *Client {
	if id < 0 {
		panic(fmt.Sprintf("linearize: Recorder.Client called with negative id %d", id))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.clients {
		if c.id == id {
			panic(fmt.Sprintf("linearize: Recorder.Client called twice with id %d", id))
		}
	}
	c := &Client{r: r, id: id}
	r.clients = append(r.clients, c)
	return c
}

// Client records the operations of one goroutine, one at a time. Its
// methods must be called by one goroutine at a time (its owner).
type Client struct {
	r  *Recorder
	id int
	// mu guards open and ops against Progress, which a watchdog calls while
	// the owner runs. Only the owner locks it otherwise, so it orders no two
	// goroutines of the code under test.
	mu   sync.Mutex
	open bool // an operation has begun and not ended: ops[len-1]
	ops  []porcupine.Operation
	_    [64]byte // keep clients' hot fields on different cache lines
}

// Begin records the call of an operation with the given input and stamps
// it. It panics if the Client's previous operation has not ended.
//
// Call Begin right before the operation's first shared access: the stamp
// is taken where Begin runs. Under the explorer the stamp is a scheduling
// point, so the call is placed where it happens in the explored order, not
// before the thread's first step.
func (c *Client) Begin(input any) {
	if c.open {
		panic("linearize: Client.Begin called while an operation is open")
	}
	call := c.r.clock.Add(1)
	c.mu.Lock()
	c.open = true
	c.ops = append(c.ops, porcupine.Operation{ClientId: c.id, Input: input, Call: call})
	c.mu.Unlock()
}

// End stamps the return of the operation begun last and records its
// output. It panics if no operation is open. Call it right after the
// operation's last shared access; EndFunc when the output costs something
// to build.
func (c *Client) End(output any) {
	c.mustBeOpen("End")
	c.close(c.r.clock.Add(1), output)
}

// EndFunc is End for an output that costs something to compute: it stamps
// the return first and only then calls output, so the work of building the
// output does not widen the operation's interval. output must not depend on
// what other goroutines do after the operation returned.
func (c *Client) EndFunc(output func() any) {
	c.mustBeOpen("EndFunc")
	ret := c.r.clock.Add(1)
	c.close(ret, output())
}

// mustBeOpen panics, naming call, if no operation is open.
func (c *Client) mustBeOpen(call string) {
	if !c.open {
		panic("linearize: Client." + call + " called with no open operation")
	}
}

// close completes the open operation.
func (c *Client) close(ret int64, output any) {
	c.mu.Lock()
	c.open = false
	op := &c.ops[len(c.ops)-1]
	op.Return, op.Output = ret, output
	c.mu.Unlock()
}

// Progress describes the history so far, for a watchdog's report while the
// clients may still run: per client, how many operations returned, the
// last few of them (described by describe, as porcupine.Model's
// DescribeOperation; nil prints the values) and the one still open.
func (r *Recorder) Progress(describe func(input, output any) string) string {
	const last = 8
	if describe == nil {
		describe = func(input, output any) string { return fmt.Sprintf("%+v -> %+v", input, output) }
	}
	r.mu.Lock()
	clients := slices.Clone(r.clients)
	r.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "history %q so far (clock %d):", r.name, r.clock.Load())
	for _, c := range clients {
		c.mu.Lock()
		ops, open := slices.Clone(c.ops), c.open
		c.mu.Unlock()
		var pending *porcupine.Operation
		if open {
			pending, ops = &ops[len(ops)-1], ops[:len(ops)-1]
		}
		fmt.Fprintf(&b, "\n  client %d: %d operations returned", c.id, len(ops))
		if len(ops) > last {
			fmt.Fprintf(&b, "; the last %d:", last)
		}
		for _, op := range ops[max(len(ops)-last, 0):] {
			fmt.Fprintf(&b, "\n    [%d, %d] %s", op.Call, op.Return, describe(op.Input, op.Output))
		}
		if pending != nil {
			fmt.Fprintf(&b, "\n    [%d, -] still open: %+v", pending.Call, pending.Input)
		}
	}
	return b.String()
}

// Operations returns the recorded history, ordered by call time. It
// returns an error, and no history, if an operation has begun and not
// ended. Call it only after every Client's goroutine has finished, with a
// happens-before edge (sync.WaitGroup.Wait, a channel receive).
func (r *Recorder) Operations() ([]porcupine.Operation, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ops []porcupine.Operation
	for _, c := range r.clients {
		c.mu.Lock()
		open := c.open
		ops = append(ops, c.ops...)
		c.mu.Unlock()
		if open {
			return nil, fmt.Errorf("linearize: history %q: client %d has an operation that began and did not end", r.name, c.id)
		}
	}
	slices.SortFunc(ops, func(a, b porcupine.Operation) int { return cmp.Compare(a.Call, b.Call) })
	return ops, nil
}

// Check checks the recorded history against model; see CheckOperations.
// Call it only after every Client's goroutine has finished, as for
// Operations.
func (r *Recorder) Check(model porcupine.Model, timeout time.Duration) (Result, error) {
	ops, err := r.Operations()
	if err != nil {
		return Result{}, err
	}
	return CheckOperations(r.name, model, ops, timeout)
}

// Result describes one check.
type Result struct {
	// Outcome is porcupine.Ok, porcupine.Illegal or porcupine.Unknown (the
	// check timed out); empty if the history could not be checked.
	Outcome porcupine.CheckResult
	// Operations is the number of operations in the history.
	Operations int
	// Concurrent is how many of them overlapped in time an operation of
	// another client: 0 means the history was sequential.
	Concurrent int
	// File is the HTML visualization written for an Illegal outcome, else "".
	File string
	// Elapsed is the time porcupine's search took.
	Elapsed time.Duration
	// Steps is how many times the search called the model's Step.
	Steps int64
	// Shrink is how many times Stress.Run recorded the history again,
	// smaller, before this check.
	Shrink int
}

// CheckOperations is CheckBudget with the budget DefaultSteps.
func CheckOperations(name string, model porcupine.Model, ops []porcupine.Operation, timeout time.Duration) (Result, error) {
	return CheckBudget(name, model, ops, DefaultSteps, timeout)
}

// CheckBudget checks the history ops against model with
// porcupine.CheckOperationsVerbose, within a budget of steps calls of the
// model's Step (0: DefaultSteps) and, as a safety net, timeout of wall-clock
// time (0: none). The error is nil exactly when the outcome is
// porcupine.Ok. For Illegal it writes the visualization (see the package
// documentation for where) and returns an error wrapping
// ErrNotLinearizable that names the file. A search that spends its budget
// or its time is Unknown, with an error wrapping ErrBudget or ErrTimeout
// (both ErrInconclusive). name identifies the history in errors and in the
// file name.
//
// The budget makes the verdict a function of the history alone: porcupine's
// search of one partition is a deterministic depth-first search, so the
// same history spends the same steps on every machine. Once the budget is
// spent every further step is refused, which only prunes the search: an Ok
// found is a real linearization, and an Illegal reached after that point is
// reported as Unknown, since a refused step may have been the way through.
func CheckBudget(name string, model porcupine.Model, ops []porcupine.Operation, steps int64, timeout time.Duration) (Result, error) {
	if steps <= 0 {
		steps = DefaultSteps
	}
	res := Result{Operations: len(ops), Concurrent: concurrent(ops)}
	var used atomic.Int64 // partitions, if the model has them, search in parallel
	start := time.Now()
	outcome, info := porcupine.CheckOperationsVerbose(budgeted(model, steps, &used), ops, timeout)
	res.Elapsed = time.Since(start)
	res.Steps = min(used.Load(), steps+1)
	if outcome == porcupine.Illegal && used.Load() > steps {
		outcome = porcupine.Unknown
		res.Outcome = outcome
		return res, fmt.Errorf("%w: history %q of %d operations (%d concurrent) not decided within %d steps",
			ErrBudget, name, len(ops), res.Concurrent, steps)
	}
	res.Outcome = outcome
	switch outcome {
	case porcupine.Ok:
		return res, nil
	case porcupine.Unknown:
		return res, fmt.Errorf("%w: history %q of %d operations (%d concurrent) not decided within %v",
			ErrTimeout, name, len(ops), res.Concurrent, timeout)
	case porcupine.Illegal:
		file, err := visualize(name, model, info)
		res.File = file
		if err != nil {
			return res, fmt.Errorf("%w: history %q of %d operations; writing the visualization failed: %w",
				ErrNotLinearizable, name, len(ops), err)
		}
		return res, fmt.Errorf("%w: history %q of %d operations; visualization: %s",
			ErrNotLinearizable, name, len(ops), file)
	default:
		return res, fmt.Errorf("linearize: history %q: porcupine returned unknown outcome %q", name, outcome)
	}
}

// budgeted is model with its Step counted in used and refused once used
// passes steps.
func budgeted(model porcupine.Model, steps int64, used *atomic.Int64) porcupine.Model {
	step := model.StepContext
	if step == nil {
		plain := model.Step
		step = func(_ context.Context, state, input, output any) (bool, any) { return plain(state, input, output) }
	}
	model.Step = nil
	model.StepContext = func(ctx context.Context, state, input, output any) (bool, any) {
		if used.Add(1) > steps {
			return false, state
		}
		return step(ctx, state, input, output)
	}
	return model
}

// Dir returns the directory for visualizations: $SCHEDKIT_LINEARIZE_DIR if
// set, else os.TempDir()/schedkit-linearize.
func Dir() string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "schedkit-linearize")
}

// visualize writes porcupine's HTML visualization of info into a new file
// in Dir and returns its path ("" if none was created).
func visualize(name string, model porcupine.Model, info porcupine.LinearizationInfo) (string, error) {
	dir := Dir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	pattern := sanitize(name) + "-" + time.Now().Format("20060102-150405") + "-*.html"
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	err = porcupine.Visualize(model, info, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return f.Name(), err
}

// sanitize makes name usable as a file name: letters, digits, '.', '-' and
// '_' are kept and everything else (the '/' of a subtest) becomes '_'.
func sanitize(name string) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, name)
	s = strings.TrimLeft(s, ".")
	if len(s) > 100 {
		s = s[:100]
	}
	if s == "" {
		s = "history"
	}
	return s
}

// concurrent counts the operations of ops whose interval [Call, Return]
// overlaps that of an operation of another client. Two closed intervals
// overlap exactly when one is called while the other is open, so one sweep
// over the calls and returns in time order (calls first at equal times, as
// porcupine orders them) finds every overlapping pair's later call.
func concurrent(ops []porcupine.Operation) int {
	type event struct {
		t    int64
		ret  bool
		op   int
		clnt int
	}
	evs := make([]event, 0, 2*len(ops))
	for i, op := range ops {
		evs = append(evs, event{op.Call, false, i, op.ClientId}, event{op.Return, true, i, op.ClientId})
	}
	slices.SortFunc(evs, func(a, b event) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		switch {
		case a.ret == b.ret:
			return 0
		case b.ret: // calls first
			return -1
		default:
			return 1
		}
	})
	overlapped := make([]bool, len(ops))
	open := map[int]int{} // op index -> client, for the operations now open
	for _, e := range evs {
		if e.ret {
			delete(open, e.op)
			continue
		}
		for i, c := range open {
			if c != e.clnt {
				overlapped[i] = true
				overlapped[e.op] = true
			}
		}
		open[e.op] = e.clnt
	}
	n := 0
	for _, o := range overlapped {
		if o {
			n++
		}
	}
	return n
}
