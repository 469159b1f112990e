package executor_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/trace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// traceWorkload runs tasks that spawn locally (so others steal), block (so
// Ps are handed off) and fork-join in groups, and returns the IDs of the
// tasks it ran with how often each ran.
func traceWorkload(t *testing.T, e *executor.Executor) map[uint64]int {
	t.Helper()
	var mu sync.Mutex
	ran := map[uint64]int{}
	mark := func(t executor.Task) {
		mu.Lock()
		ran[t.ID()]++
		mu.Unlock()
	}
	spin := func() {
		x := 1
		for i := range 20000 {
			x = x*31 + i
		}
		runtime.KeepAlive(x)
	}
	g, _ := e.NewGroup(context.Background())
	g.Go(func(t executor.Task) error {
		mark(t)
		for range 200 {
			t.Go(func(t executor.Task) { mark(t); spin() })
		}
		return nil
	})
	for range 8 {
		g.Go(func(t executor.Task) error {
			mark(t)
			return t.Blocking(func() { time.Sleep(50 * time.Microsecond) })
		})
	}
	g.Go(func(t executor.Task) error {
		mark(t)
		inner, _ := t.NewGroup(context.Background())
		for range 4 {
			inner.Go(func(t executor.Task) error { mark(t); spin(); return nil })
		}
		return inner.Wait()
	})
	require.NoError(t, g.Wait())
	require.NoError(t, e.Close())
	return ran
}

// traceRecord is one event line of `go tool trace -d=parsed`: its kind
// and its key=value fields (quoted values unquoted).
type traceRecord struct {
	kind   string
	fields map[string]string
}

var (
	traceLine  = regexp.MustCompile(`^M=\S+ P=\S+ G=\S+ (\w+) (.*)$`)
	traceField = regexp.MustCompile(`(\w+)=("(?:[^"\\]|\\.)*"|\S+)`)
)

// parseRuntimeTrace parses a runtime/trace with the Go toolchain's own
// parser (`go tool trace -d=parsed`), keeping the user annotations.
func parseRuntimeTrace(t *testing.T, data []byte) []traceRecord {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(gobin); err != nil {
			t.Skip("no go command to parse the trace with")
		}
	}
	file := filepath.Join(t.TempDir(), "trace.out")
	require.NoError(t, os.WriteFile(file, data, 0o644))
	out, err := exec.Command(gobin, "tool", "trace", "-d=parsed", file).CombinedOutput()
	require.NoError(t, err, "go tool trace -d=parsed: %s", out)
	var recs []traceRecord
	for _, line := range strings.Split(string(out), "\n") {
		m := traceLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		switch m[1] {
		case "TaskBegin", "TaskEnd", "RegionBegin", "RegionEnd", "Log":
		default:
			continue
		}
		r := traceRecord{kind: m[1], fields: map[string]string{}}
		for _, f := range traceField.FindAllStringSubmatch(m[2], -1) {
			v := f[2]
			if strings.HasPrefix(v, `"`) {
				fmt.Sscanf(v, "%q", &v)
			}
			r.fields[f[1]] = v
		}
		recs = append(recs, r)
	}
	return recs
}

// checkRuntimeTrace checks the annotations of a traced run: every task the
// workload ran is one trace task of TraceTaskType, begun and ended, with a
// region and one log naming its ID, P and M; and there are as many steal
// and handoff logs as Stats counts.
func checkRuntimeTrace(recs []traceRecord, ran map[uint64]int, s executor.Stats) error {
	begun := map[string]bool{}
	ended := map[string]bool{}
	regions := map[string]int{}
	logged := map[uint64]int{}
	cats := map[string]int{}
	taskLog := regexp.MustCompile(`^id=(\d+) P=(\d+) M=(\d+) from=(runnext|queue)$`)
	for _, r := range recs {
		f := r.fields
		switch {
		case r.kind == "TaskBegin" && f["Type"] == executor.TraceTaskType:
			if begun[f["ID"]] {
				return fmt.Errorf("trace task %s begun twice", f["ID"])
			}
			begun[f["ID"]] = true
		case r.kind == "TaskEnd" && f["Type"] == executor.TraceTaskType:
			if !begun[f["ID"]] || ended[f["ID"]] {
				return fmt.Errorf("trace task %s ended without a begin, or twice", f["ID"])
			}
			ended[f["ID"]] = true
		case r.kind == "RegionBegin" && f["Type"] == executor.TraceTaskType:
			regions[f["Task"]]++
		case r.kind == "RegionEnd" && f["Type"] == executor.TraceTaskType:
			regions[f["Task"]]--
		case r.kind == "Log":
			cats[f["Category"]]++
			if f["Category"] != executor.TraceCategory+".task" {
				continue
			}
			m := taskLog.FindStringSubmatch(f["Message"])
			if m == nil || !begun[f["Task"]] {
				return fmt.Errorf("task log %q (task %s) does not name an ID, P and M inside a trace task", f["Message"], f["Task"])
			}
			var id uint64
			fmt.Sscan(m[1], &id)
			logged[id]++
		}
	}
	if len(begun) != len(ran) || len(ended) != len(begun) {
		return fmt.Errorf("%d trace tasks begun, %d ended, the workload ran %d", len(begun), len(ended), len(ran))
	}
	for id := range begun {
		if regions[id] != 0 {
			return fmt.Errorf("trace task %s: %d regions left open", id, regions[id])
		}
	}
	for id, n := range ran {
		if n != 1 || logged[id] != 1 {
			return fmt.Errorf("task %d ran %d times and is logged %d times, want once", id, n, logged[id])
		}
	}
	for cat, want := range map[string]uint64{"steal": s.Total.Steals, "handoff": s.Total.Handoffs, "park": s.Total.Parks} {
		if got := cats[executor.TraceCategory+"."+cat]; uint64(got) != want {
			return fmt.Errorf("%d %s logs, Stats counts %d", got, cat, want)
		}
	}
	return nil
}

// TestRuntimeTrace runs a workload under runtime/trace and parses the
// trace: every task is there once, as a task with a region and its P and
// M, and the steals and handoffs are logs. The checker must reject a trace
// with a task's end, a task, or a steal log taken out.
func TestRuntimeTrace(t *testing.T) {
	if trace.IsEnabled() {
		t.Skip("runtime/trace is already on (go test -trace)")
	}
	var buf bytes.Buffer
	require.NoError(t, trace.Start(&buf))
	e := newExec(t, executor.Config{Procs: 3}) // its Ms' first parks are traced too
	ran := traceWorkload(t, e)
	trace.Stop()
	s := e.Stats()
	recs := parseRuntimeTrace(t, buf.Bytes())
	require.NoError(t, checkRuntimeTrace(recs, ran, s))
	require.Len(t, ran, 1+200+8+1+4)
	require.NotZero(t, s.Total.Handoffs, "Blocking handed Ps off")
	t.Logf("%d tasks, %d steals, %d handoffs, %d annotation records", len(ran), s.Total.Steals, s.Total.Handoffs, len(recs))

	drop := func(match func(traceRecord) bool) []traceRecord {
		out := make([]traceRecord, 0, len(recs))
		dropped := false
		for _, r := range recs {
			if !dropped && match(r) {
				dropped = true
				continue
			}
			out = append(out, r)
		}
		require.True(t, dropped, "nothing to drop")
		return out
	}
	isTask := func(kind string) func(traceRecord) bool {
		return func(r traceRecord) bool { return r.kind == kind && r.fields["Type"] == executor.TraceTaskType }
	}
	broken := map[string][]traceRecord{
		"a task's end lost":  drop(isTask("TaskEnd")),
		"a region left open": drop(isTask("RegionEnd")),
		"a task's log lost":  drop(func(r traceRecord) bool { return r.kind == "Log" && r.fields["Category"] == "schedkit.task" }),
		"a handoff log lost": drop(func(r traceRecord) bool { return r.kind == "Log" && r.fields["Category"] == "schedkit.handoff" }),
	}
	for name, b := range broken {
		assert.Error(t, checkRuntimeTrace(b, ran, s), name)
	}
	more := map[uint64]int{1 << 50: 1}
	for id, n := range ran {
		more[id] = n
	}
	assert.Error(t, checkRuntimeTrace(recs, more, s), "a task missing from the trace")
}

// TestTaskEvents: with Config.TaskEvents every task has one start and one
// end event naming its ID (Task.ID), on a P, in that order on its M; without
// it OnEvent sees none.
func TestTaskEvents(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprint("TaskEvents=", on), func(t *testing.T) {
			var mu sync.Mutex
			starts, ends := map[uint64]int{}, map[uint64]int{}
			running := map[int][]uint64{} // per M, innermost last
			var order []string
			e := newExec(t, executor.Config{Procs: 3, TaskEvents: on, OnEvent: func(ev executor.Event) {
				mu.Lock()
				defer mu.Unlock()
				switch ev.Kind {
				case executor.EventTaskStart:
					starts[ev.Task]++
					if ev.P < 0 || ev.P >= 3 {
						order = append(order, fmt.Sprintf("start of %d on P %d", ev.Task, ev.P))
					}
					running[ev.M] = append(running[ev.M], ev.Task)
				case executor.EventTaskEnd:
					ends[ev.Task]++
					st := running[ev.M]
					if len(st) == 0 || st[len(st)-1] != ev.Task {
						order = append(order, fmt.Sprintf("end of %d on M %d, running %v", ev.Task, ev.M, st))
					} else {
						running[ev.M] = st[:len(st)-1]
					}
				case executor.EventSteal:
					if ev.Victim < 0 || ev.Victim >= 3 || ev.Victim == ev.P {
						order = append(order, fmt.Sprintf("steal by P %d from victim %d", ev.P, ev.Victim))
					}
				}
			}})
			ran := traceWorkload(t, e)
			mu.Lock()
			defer mu.Unlock()
			assert.Empty(t, order)
			if !on {
				assert.Empty(t, starts)
				assert.Empty(t, ends)
				return
			}
			assert.Len(t, starts, len(ran))
			assert.EqualValues(t, e.Stats().Total.Tasks, len(starts))
			for id := range ran {
				assert.Equal(t, 1, starts[id], "task %d", id)
				assert.Equal(t, 1, ends[id], "task %d", id)
			}
		})
	}
}

func TestTaskID(t *testing.T) {
	assert.Zero(t, executor.Task{}.ID())
	e := newExec(t, executor.Config{Procs: 2})
	var mu sync.Mutex
	ids := map[uint64]bool{}
	done := make(chan uint64, 1)
	for range 100 {
		require.NoError(t, e.Go(func(t executor.Task) {
			mu.Lock()
			ids[t.ID()] = true
			mu.Unlock()
			t.Go(func(t executor.Task) {
				mu.Lock()
				ids[t.ID()] = true
				mu.Unlock()
			})
		}))
	}
	var kept executor.Task
	require.NoError(t, e.Go(func(t executor.Task) { kept = t; done <- t.ID() }))
	id := <-done
	require.NoError(t, e.Close())
	assert.Len(t, ids, 200, "IDs are unique")
	assert.NotContains(t, ids, uint64(0))
	assert.Equal(t, id, kept.ID(), "the same after the task returned")
}

// BenchmarkLocalSpawnTraced is BenchmarkLocalSpawn with runtime/trace on
// (to io.Discard): the cost of a trace task, region and log per task. With
// tracing off, BenchmarkLocalSpawn itself measures the one IsEnabled load.
func BenchmarkLocalSpawnTraced(b *testing.B) {
	if trace.IsEnabled() {
		b.Skip("runtime/trace is already on")
	}
	require.NoError(b, trace.Start(io.Discard))
	defer trace.Stop()
	BenchmarkLocalSpawn(b)
}

// BenchmarkLocalSpawnTaskEvents is BenchmarkLocalSpawn with
// Config.TaskEvents and a hook that counts: the cost of two hook calls per
// task.
func BenchmarkLocalSpawnTaskEvents(b *testing.B) {
	var n atomic.Int64
	localSpawn(b, executor.Config{TaskEvents: true, OnEvent: func(executor.Event) { n.Add(1) }})
	require.GreaterOrEqual(b, n.Load(), int64(2*b.N))
}
