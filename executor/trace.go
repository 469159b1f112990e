package executor

import (
	"context"
	"fmt"
	"runtime/trace"
)

// Tracing. While runtime/trace is on (trace.Start, go test -trace, the
// demo's -trace), every task the executor runs is a trace.Task of type
// TraceTaskType with a region of the same type around its func, on the M's
// goroutine, and a log naming its P and M; every scheduling event (steals,
// handoffs, retakes, parks, global batches, spins...) is a trace.Log of
// category "schedkit.<kind>". So `go tool trace` shows the executor's work
// beside the goroutines. With tracing off, a task pays one atomic load
// (trace.IsEnabled, read once per task in execute) and nothing else.
//
// Config.TaskEvents sends the task starts and ends to Config.OnEvent too,
// which is how `schedkit trace` draws task slices.

// TraceTaskType is the runtime/trace task and region type of an executor
// task; TraceCategory prefixes the log categories.
const (
	TraceTaskType = "schedkit.task"
	TraceCategory = "schedkit"
)

// ID returns the task's ID: unique among the tasks of its executor, the
// same as Event.Task of its EventTaskStart and EventTaskEnd, and 0 for the
// zero Task. It stays the same after the task returns.
func (t Task) ID() uint64 {
	if t.w == nil {
		return 0
	}
	return taskID(t.w.id, t.gen)
}

// taskID packs a worker's id and its task generation; a worker would need
// 2^40 tasks to wrap.
func taskID(m uint32, gen uint64) uint64 { return uint64(m)<<40 | gen&(1<<40-1) }

// traceTask is what taskStart began for one task.
type traceTask struct {
	task   *trace.Task
	region *trace.Region
	id     uint64
}

// taskStart begins tracing task t on w and P p: the runtime/trace task and
// region when tr (tracing is on), the EventTaskStart when Config.TaskEvents.
// It runs before the P goes to pTask, so no retake can come between the
// start and the P it names.
func (e *Executor) taskStart(w *worker, p *proc, t Task, inherit bool, tr bool) traceTask {
	tt := traceTask{id: t.ID()}
	if tr {
		ctx, task := trace.NewTask(context.Background(), TraceTaskType)
		from := "queue"
		if inherit {
			from = "runnext"
		}
		trace.Log(ctx, TraceCategory+".task", fmt.Sprintf("id=%d P=%d M=%d from=%s", tt.id, p.id, w.id, from))
		tt.task, tt.region = task, trace.StartRegion(ctx, TraceTaskType)
	}
	if e.cfg.TaskEvents && e.cfg.OnEvent != nil {
		n := 0
		if inherit {
			n = 1
		}
		e.cfg.OnEvent(Event{Kind: EventTaskStart, P: p.id, M: int(w.id), N: n, Victim: -1, Task: tt.id})
	}
	return tt
}

// runTraced is run with the task's trace ended after it, however it ends
// (a return, a panic run recovers, runtime.Goexit).
func (e *Executor) runTraced(w *worker, t Task, fn func(Task), gfn func(Task) error, g *Group, prev uint64, tt traceTask) {
	defer e.taskEnd(w, tt)
	e.run(w, t, fn, gfn, g, prev)
}

// taskEnd ends what taskStart began; the P is the one w holds now, if any
// (the task may have lost its P, or ended on another).
func (e *Executor) taskEnd(w *worker, tt traceTask) {
	if tt.region != nil {
		tt.region.End()
		tt.task.End()
	}
	if e.cfg.TaskEvents && e.cfg.OnEvent != nil {
		pid := -1
		if p := w.p.Load(); p != nil {
			pid = p.id
		}
		e.cfg.OnEvent(Event{Kind: EventTaskEnd, P: pid, M: int(w.id), Victim: -1, Task: tt.id})
	}
}

// emit delivers a scheduling event to the hook and, while tracing is on,
// logs it to runtime/trace. A steal names its victim: the thief holds P p,
// whose StealHalf noted it.
func (e *Executor) emit(k EventKind, p int, w *worker, n int) {
	ev := Event{Kind: k, P: p, M: int(w.id), N: n, Victim: -1}
	if k == EventSteal && p >= 0 {
		ev.Victim = e.allPs()[p].victim
	}
	if h := e.cfg.OnEvent; h != nil {
		h(ev)
	}
	if trace.IsEnabled() {
		msg := fmt.Sprintf("P=%d M=%d n=%d", ev.P, ev.M, ev.N)
		if k == EventSteal {
			msg += fmt.Sprintf(" victim=%d", ev.Victim)
		}
		trace.Log(context.Background(), TraceCategory+"."+k.String(), msg)
	}
}

// StealHalf makes *proc a stealing.Queue: runnext's steal of half of p's
// queue into dst's, noting p as dst's victim for the steal event. Only the
// thief, which holds dst, calls it.
func (p *proc) StealHalf(dst *proc, stealNext bool) *task {
	t := p.q.StealHalf(&dst.q, stealNext)
	if t != nil {
		dst.victim = p.id
	}
	return t
}
