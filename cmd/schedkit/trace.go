package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/chrometrace"
)

const traceUsage = `usage: schedkit trace [-o FILE] [-workload NAME] [-procs N]

Runs a workload on the executor with its event hook on and writes what the
scheduler did as Chrome trace-event JSON: one track per P and per M, a slice
per task, instants for steals (victim and count), runnext hits, global
batches, overflows, handoffs, retakes, parks and spins. Open the file in
https://ui.perfetto.dev, chrome://tracing, or docs/README.md's offline viewer.

Workloads: %s (mix: all of them, one after another).

Example:
  go run ./cmd/schedkit trace -o trace.json -workload skewed -procs 4

Flags:
`

// Track layout of the JSON: one process for the Ps, one for the Ms.
const (
	tracePidP = 1
	tracePidM = 2
)

// traceWorkload is a named workload: it runs tasks on e, calling mark at
// the start of every task it makes, and returns once they have all been
// submitted (Close waits for the rest).
type traceWorkload struct {
	name, what string
	run        func(e *executor.Executor, mark func(executor.Task)) error
}

// traceBase are the workloads mix runs one after another.
var traceBase = []traceWorkload{
	{"forkjoin", "a binary fork-join tree of depth 8 (511 tasks), a group per node", traceForkJoin},
	{"submit", "4 goroutines submit 100 tasks each from outside (the global queue)", traceSubmit},
	{"skewed", "one task spawns 400 children on its own P; the other Ps steal them", traceSkewed},
	{"blocking", "48 tasks that block (Task.Blocking) between two steps, and a hog past the slice", traceBlocking},
}

var traceWorkloads = append(traceBase[:len(traceBase):len(traceBase)],
	traceWorkload{"mix", "all of the above, one after another", traceMix})

func traceWorkloadNames() string {
	var names []string
	for _, w := range traceWorkloads {
		names = append(names, w.name)
	}
	return strings.Join(names, ", ")
}

func findTraceWorkload(name string) (traceWorkload, bool) {
	for _, w := range traceWorkloads {
		if w.name == name {
			return w, true
		}
	}
	return traceWorkload{}, false
}

// traceSpin is a task's work: a few microseconds of arithmetic, so its
// slice is visible.
func traceSpin(n int) uint64 {
	x := uint64(14695981039346656037)
	for i := range n {
		x ^= uint64(i)
		x *= 1099511628211
	}
	return x
}

var traceSink sync.Map // keeps traceSpin's results alive

func traceWork(t executor.Task, n int) { traceSink.Store(t.ID()%8, traceSpin(n)) }

func traceForkJoin(e *executor.Executor, mark func(executor.Task)) error {
	var node func(t executor.Task, d int) error
	node = func(t executor.Task, d int) error {
		mark(t)
		if d == 0 {
			traceWork(t, 20000)
			return nil
		}
		traceWork(t, 2000)
		g, _ := t.NewGroup(context.Background())
		g.Go(func(t executor.Task) error { return node(t, d-1) })
		g.Go(func(t executor.Task) error { return node(t, d-1) })
		return g.Wait()
	}
	g, _ := e.NewGroup(context.Background())
	g.Go(func(t executor.Task) error { return node(t, 8) })
	return g.Wait()
}

func traceSubmit(e *executor.Executor, mark func(executor.Task)) error {
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for s := range 4 {
		wg.Go(func() {
			for range 100 {
				if err := e.Go(func(t executor.Task) { mark(t); traceWork(t, 30000) }); err != nil {
					errs[s] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func traceSkewed(e *executor.Executor, mark func(executor.Task)) error {
	g, _ := e.NewGroup(context.Background())
	g.Go(func(t executor.Task) error {
		mark(t)
		for range 400 {
			t.Go(func(t executor.Task) { mark(t); traceWork(t, 40000) })
		}
		return nil
	})
	return g.Wait()
}

func traceBlocking(e *executor.Executor, mark func(executor.Task)) error {
	g, _ := e.NewGroup(context.Background())
	for i := range 48 {
		g.Go(func(t executor.Task) error {
			mark(t)
			traceWork(t, 20000)
			if err := t.Blocking(func() { time.Sleep(time.Duration(100+50*(i%8)) * time.Microsecond) }); err != nil {
				return err
			}
			traceWork(t, 20000)
			return nil
		})
	}
	// A hog holds its P past the slice while tasks wait on that P: sysmon
	// retakes the P, and the hog runs on without one.
	g.Go(func(t executor.Task) error {
		mark(t)
		for range 8 {
			t.Go(func(t executor.Task) { mark(t); traceWork(t, 20000) })
		}
		for start := time.Now(); time.Since(start) < 2*executor.DefaultSlice; {
			traceWork(t, 1000)
		}
		return nil
	})
	return g.Wait()
}

func traceMix(e *executor.Executor, mark func(executor.Task)) error {
	for _, w := range traceBase {
		if err := w.run(e, mark); err != nil {
			return fmt.Errorf("%s: %w", w.name, err)
		}
	}
	return nil
}

// traceEvent is an executor event with its time since the run began.
type traceEvent struct {
	at time.Duration
	ev executor.Event
}

// traceRun is what recordTrace saw: the events in the order they happened
// (stamped under one lock), how often each task's mark ran, and the
// executor's stats after Close.
type traceRun struct {
	workload string
	procs    int
	events   []traceEvent
	ran      map[uint64]int
	stats    executor.Stats
	wall     time.Duration
}

// recordTrace runs workload w on a new executor of procs Ps with every
// event, task starts and ends included, recorded.
func recordTrace(w traceWorkload, procs int) (*traceRun, error) {
	r := &traceRun{workload: w.name, procs: procs, ran: map[uint64]int{}}
	var mu sync.Mutex
	t0 := time.Now()
	e, err := executor.New(executor.Config{
		Procs:      procs,
		TaskEvents: true,
		OnEvent: func(ev executor.Event) {
			mu.Lock()
			r.events = append(r.events, traceEvent{time.Since(t0), ev})
			mu.Unlock()
		},
	})
	if err != nil {
		return nil, err
	}
	mark := func(t executor.Task) {
		mu.Lock()
		r.ran[t.ID()]++
		mu.Unlock()
	}
	runErr := w.run(e, mark)
	closeErr := e.Close()
	r.wall = time.Since(t0)
	r.stats = e.Stats()
	if err := errors.Join(runErr, closeErr); err != nil {
		return nil, fmt.Errorf("workload %s: %w", w.name, err)
	}
	return r, nil
}

// traceSlice is a slice open on a track: a task's (of M m), or an M's
// "parked" (task 0).
type traceSlice struct {
	name string
	task uint64
	m    int
}

// toChrome turns a run into trace-event JSON. Task slices go on their M's
// track (an M's tasks nest: a Wait runs tasks inside its own) and on the
// track of the P they hold: from the start until the task ends or loses the
// P (a handoff, a retake, or another M starting a task there), and again
// from a reacquire (or, for a task whose Wait ran a task that changed Ps,
// from that task's end) on the P it holds then. Parked Ms show a "parked"
// slice. Scheduling events are instants on the P's (or the M's) track, and
// a steal is also an arrow (a flow) from the victim's task to the thief.
func toChrome(r *traceRun) *chrometrace.File {
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	out := []chrometrace.Event{
		chrometrace.ProcessName(tracePidP, "Ps (processors)"),
		chrometrace.ProcessName(tracePidM, "Ms (workers)"),
		{Name: "process_sort_index", Ph: chrometrace.PhaseMetadata, Pid: tracePidP, Args: map[string]any{"sort_index": 1}},
		{Name: "process_sort_index", Ph: chrometrace.PhaseMetadata, Pid: tracePidM, Args: map[string]any{"sort_index": 2}},
	}
	for p := range r.procs {
		out = append(out, chrometrace.ThreadName(tracePidP, p, fmt.Sprintf("P%d", p)), chrometrace.SortIndex(tracePidP, p, p))
	}
	ms := map[int]bool{}
	for m := 1; m <= r.stats.Ms; m++ {
		ms[m] = true
	}
	for _, te := range r.events {
		ms[te.ev.M] = true
	}
	mids := make([]int, 0, len(ms))
	for m := range ms {
		mids = append(mids, m)
	}
	sort.Ints(mids)
	for _, m := range mids {
		out = append(out, chrometrace.ThreadName(tracePidM, m, fmt.Sprintf("M%d", m)), chrometrace.SortIndex(tracePidM, m, m))
	}

	pOpen := map[int][]traceSlice{} // per P, innermost last
	mOpen := map[int][]traceSlice{} // per M, innermost last
	startP := map[uint64]int{}
	begin := func(pid, tid int, ts float64, name string, args map[string]any) {
		out = append(out, chrometrace.Event{Name: name, Cat: "slice", Ph: chrometrace.PhaseBegin, Ts: ts, Pid: pid, Tid: tid, Args: args})
	}
	end := func(pid, tid int, ts float64, name string) {
		out = append(out, chrometrace.Event{Name: name, Cat: "slice", Ph: chrometrace.PhaseEnd, Ts: ts, Pid: pid, Tid: tid})
	}
	instant := func(pid, tid int, ts float64, name string, args map[string]any) {
		out = append(out, chrometrace.Event{Name: name, Cat: "sched", Ph: chrometrace.PhaseInstant, S: "t", Ts: ts, Pid: pid, Tid: tid, Args: args})
	}
	closeP := func(p int, ts float64, downTo int) { // pops pOpen[p] to length downTo
		st := pOpen[p]
		for len(st) > downTo {
			end(tracePidP, p, ts, st[len(st)-1].name)
			st = st[:len(st)-1]
		}
		pOpen[p] = st
	}
	// openP opens slice sl on P p's track, closing what another M left
	// open there (the P changed hands under a task that ran on).
	openP := func(p int, ts float64, sl traceSlice, args map[string]any) {
		if st := pOpen[p]; len(st) > 0 && st[len(st)-1].m != sl.m {
			closeP(p, ts, 0)
		}
		begin(tracePidP, p, ts, sl.name, args)
		pOpen[p] = append(pOpen[p], sl)
		startP[sl.task] = p
	}
	unpark := func(m int, ts float64) {
		if st := mOpen[m]; len(st) > 0 && st[len(st)-1].task == 0 {
			end(tracePidM, m, ts, "parked")
			mOpen[m] = st[:len(st)-1]
		}
	}
	var ts float64
	flows := 0
	for _, te := range r.events {
		ev := te.ev
		ts = us(te.at)
		switch ev.Kind {
		case executor.EventTaskStart:
			unpark(ev.M, ts)
			from := "queue"
			if ev.N == 1 {
				from = "runnext"
				instant(tracePidP, ev.P, ts, "runnext", map[string]any{"task": ev.Task, "m": ev.M})
			}
			args := map[string]any{"id": ev.Task, "p": ev.P, "m": ev.M, "from": from}
			sl := traceSlice{traceTaskName(ev.Task), ev.Task, ev.M}
			begin(tracePidM, ev.M, ts, sl.name, args)
			mOpen[ev.M] = append(mOpen[ev.M], sl)
			openP(ev.P, ts, sl, args)
		case executor.EventTaskEnd:
			unpark(ev.M, ts) // never: an M parks outside tasks
			st := mOpen[ev.M]
			if len(st) > 0 {
				end(tracePidM, ev.M, ts, st[len(st)-1].name)
				st = st[:len(st)-1]
			}
			mOpen[ev.M] = st
			p := startP[ev.Task]
			delete(startP, ev.Task)
			for i, s := range pOpen[p] {
				if s.task == ev.Task {
					closeP(p, ts, i)
					break
				}
			}
			// The task this one ran inside (a Wait's) goes on, on the P
			// held now, which may be another than its slice shows.
			if len(st) > 0 && ev.P >= 0 {
				if ps := pOpen[ev.P]; len(ps) == 0 || ps[len(ps)-1].task != st[len(st)-1].task {
					outer := st[len(st)-1]
					openP(ev.P, ts, outer, map[string]any{"id": outer.task, "p": ev.P, "m": ev.M, "from": "wait"})
				}
			}
		case executor.EventReacquire:
			if st := mOpen[ev.M]; len(st) > 0 && st[len(st)-1].task != 0 {
				t := st[len(st)-1]
				openP(ev.P, ts, t, map[string]any{"id": t.task, "p": ev.P, "m": ev.M, "from": "reacquire"})
			}
		case executor.EventSteal:
			instant(tracePidP, ev.P, ts, "steal", map[string]any{"victim": ev.Victim, "n": ev.N, "m": ev.M})
			if ev.Victim >= 0 {
				instant(tracePidP, ev.Victim, ts, "stolen", map[string]any{"thief": ev.P, "n": ev.N})
				// An arrow from the victim's running task (if any: a flow
				// starts in a slice) to the thief's next slice.
				if len(pOpen[ev.Victim]) > 0 {
					flows++
					id := fmt.Sprint(flows)
					out = append(out,
						chrometrace.Event{Name: "steal", Cat: "steal", Ph: chrometrace.PhaseFlowOut, ID: id, Ts: ts, Pid: tracePidP, Tid: ev.Victim},
						chrometrace.Event{Name: "steal", Cat: "steal", Ph: chrometrace.PhaseFlowIn, ID: id, Ts: ts, Pid: tracePidP, Tid: ev.P})
				}
			}
		case executor.EventHandoff, executor.EventRetake, executor.EventTaskPark:
			if ev.P < 0 { // a task that parked holding no P
				instant(tracePidM, ev.M, ts, ev.Kind.String(), map[string]any{"p": ev.P})
				break
			}
			instant(tracePidP, ev.P, ts, ev.Kind.String(), map[string]any{"m": ev.M})
			closeP(ev.P, ts, 0)
		case executor.EventPark:
			if ev.P >= 0 {
				instant(tracePidP, ev.P, ts, "park", map[string]any{"m": ev.M})
				closeP(ev.P, ts, 0)
			} else { // an M that held no P (new, or its P was taken)
				instant(tracePidM, ev.M, ts, "park", map[string]any{"p": ev.P})
			}
			if len(mOpen[ev.M]) == 0 {
				begin(tracePidM, ev.M, ts, "parked", map[string]any{"p": ev.P})
				mOpen[ev.M] = []traceSlice{{name: "parked", m: ev.M}}
			}
		case executor.EventUnpark:
			unpark(ev.M, ts)
			instant(tracePidP, ev.P, ts, "unpark", map[string]any{"m": ev.M})
		case executor.EventSpin, executor.EventSpinStop, executor.EventPanic:
			instant(tracePidM, ev.M, ts, ev.Kind.String(), map[string]any{"p": ev.P})
		default: // overflow, global batch
			if ev.P >= 0 {
				instant(tracePidP, ev.P, ts, ev.Kind.String(), map[string]any{"n": ev.N, "m": ev.M})
			}
		}
	}
	// Close what is still open (Ms parked at the end) at the last event.
	for p := range r.procs {
		closeP(p, ts, 0)
	}
	for _, m := range mids {
		for st := mOpen[m]; len(st) > 0; st = st[:len(st)-1] {
			end(tracePidM, m, ts, st[len(st)-1].name)
		}
	}
	s := r.stats.Total
	return &chrometrace.File{
		TraceEvents: out,
		OtherData: map[string]any{
			"workload": r.workload, "procs": r.procs, "tasks": len(r.ran), "ms": r.stats.Ms,
			"steals": s.Steals, "stolen": s.Stolen, "runnext_hits": s.RunnextHits, "global_batches": s.GlobalBatches,
			"handoffs": s.Handoffs, "retakes": s.Retakes, "parks": s.Parks, "wall_us": us(r.wall),
			"task_parks": s.TaskParks, "timers_fired": r.stats.TimersFired,
		},
	}
}

// traceTaskName names a task's slices by the M and generation in its ID,
// so that the viewers color neighbouring tasks apart.
func traceTaskName(id uint64) string { return fmt.Sprintf("task M%d.%d", id>>40, id&(1<<40-1)) }

// taskSlices returns, for every task ID, how many task slices of the M
// tracks name it: a run shows every task exactly once.
func taskSlices(f *chrometrace.File) map[uint64]int {
	n := map[uint64]int{}
	for _, ev := range f.TraceEvents {
		if ev.Ph != chrometrace.PhaseBegin || ev.Pid != tracePidM || !strings.HasPrefix(ev.Name, "task ") {
			continue
		}
		n[traceArgUint(ev.Args["id"])]++
	}
	return n
}

// traceArgUint reads a numeric arg as written (uint64) or as read back
// (json.Number); 0 if it is neither.
func traceArgUint(v any) uint64 {
	switch x := v.(type) {
	case uint64:
		return x
	case interface{ String() string }:
		var u uint64
		if _, err := fmt.Sscan(x.String(), &u); err == nil {
			return u
		}
	}
	return 0
}

func runTrace(args []string) int { return runTraceTo(args, os.Stdout, os.Stderr) }

// runTraceTo is runTrace writing to the given streams: a usage or input
// error is one line on stderr and exit 2, a failed write or run exit 1.
func runTraceTo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "trace.json", "the trace-event JSON file to write")
	name := fs.String("workload", "mix", "the workload to run: "+traceWorkloadNames())
	procs := fs.Int("procs", 4, fmt.Sprintf("the number of Ps, 1..%d", executor.MaxProcs))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, traceUsage, traceWorkloadNames())
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintf(stderr, "schedkit trace: %v; see schedkit trace -h\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "schedkit trace: unexpected argument %q; flags only, see schedkit trace -h\n", fs.Arg(0))
		return 2
	}
	w, ok := findTraceWorkload(*name)
	if !ok {
		fmt.Fprintf(stderr, "schedkit trace: unknown workload %q; use -workload with one of %s\n", *name, traceWorkloadNames())
		return 2
	}
	if *procs < 1 || *procs > executor.MaxProcs {
		fmt.Fprintf(stderr, "schedkit trace: -procs %d is out of range; use 1..%d\n", *procs, executor.MaxProcs)
		return 2
	}
	f, err := os.Create(*out) // before the run: an unwritable path fails at once
	if err != nil {
		fmt.Fprintf(stderr, "schedkit trace: cannot write %s (%v); pass -o with a writable path\n", *out, errors.Unwrap(err))
		return 1
	}
	r, err := recordTrace(w, *procs)
	if err != nil {
		f.Close()
		os.Remove(*out)
		fmt.Fprintf(stderr, "schedkit trace: %v\n", err)
		return 1
	}
	ct := toChrome(r)
	werr := chrometrace.Write(f, ct)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		fmt.Fprintf(stderr, "schedkit trace: writing %s: %v; pass -o with a writable path\n", *out, werr)
		return 1
	}
	s := r.stats.Total
	fmt.Fprintf(stdout, "trace: workload %s on %d Ps, %d Ms: %d tasks in %v; %d steals (%d tasks), %d runnext hits, %d global batches, %d handoffs, %d retakes, %d parks\n",
		w.name, r.procs, r.stats.Ms, len(r.ran), r.wall.Round(time.Microsecond), s.Steals, s.Stolen, s.RunnextHits, s.GlobalBatches, s.Handoffs, s.Retakes, s.Parks)
	fmt.Fprintf(stdout, "trace: wrote %d events to %s; open it in https://ui.perfetto.dev or chrome://tracing\n", len(ct.TraceEvents), *out)
	return 0
}
