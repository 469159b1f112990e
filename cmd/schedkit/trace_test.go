package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/chrometrace"
)

// checkTraceFile checks a trace read back from JSON against the run it came
// from: its structure (chrometrace.Check: valid nesting, every B has its E
// on its track, metadata for every track), every task the workload ran
// shown exactly once on the M tracks (and nothing else), one P track per P,
// and the scheduling events counted as the executor's Stats count them.
func checkTraceFile(f *chrometrace.File, r *traceRun) error {
	if err := chrometrace.Check(f); err != nil {
		return err
	}
	seen := taskSlices(f)
	for id, n := range r.ran {
		if n != 1 {
			return fmt.Errorf("the workload ran task %d %d times", id, n)
		}
		if seen[id] != 1 {
			return fmt.Errorf("task %d appears %d times in the trace, want once", id, seen[id])
		}
	}
	if len(seen) != len(r.ran) {
		return fmt.Errorf("the trace shows %d tasks, the workload ran %d", len(seen), len(r.ran))
	}
	if uint64(len(r.ran)) != r.stats.Total.Tasks {
		return fmt.Errorf("the workload ran %d tasks, Stats counts %d", len(r.ran), r.stats.Total.Tasks)
	}
	threads := map[chrometrace.Track]string{}
	counts := map[string]int{}
	for _, ev := range f.TraceEvents {
		if ev.Ph == chrometrace.PhaseMetadata && ev.Name == "thread_name" {
			threads[chrometrace.Track{Pid: ev.Pid, Tid: ev.Tid}] = ev.Args["name"].(string)
		}
		if ev.Ph == chrometrace.PhaseInstant {
			counts[ev.Name]++
		}
		if ev.Ph == chrometrace.PhaseFlowOut {
			counts["flow "+ev.Name]++
		}
	}
	for p := range r.procs {
		if threads[chrometrace.Track{Pid: tracePidP, Tid: p}] != fmt.Sprintf("P%d", p) {
			return fmt.Errorf("no track named P%d", p)
		}
	}
	s := r.stats.Total
	for name, want := range map[string]uint64{
		"steal": s.Steals, "globalbatch": s.GlobalBatches, "overflow": s.Overflows, "handoff": s.Handoffs,
		"retake": s.Retakes, "park": s.Parks, "unpark": s.Unparks, "spin": s.SpinStarts, "spinstop": s.SpinStops,
	} {
		if uint64(counts[name]) != want {
			return fmt.Errorf("%d %q instants, Stats counts %d", counts[name], name, want)
		}
	}
	reacquired, fromReacquire := 0, 0
	for _, te := range r.events {
		if te.ev.Kind == executor.EventReacquire {
			reacquired++
		}
	}
	for _, ev := range f.TraceEvents {
		if ev.Ph == chrometrace.PhaseBegin && ev.Pid == tracePidP && ev.Args["from"] == "reacquire" {
			fromReacquire++
		}
	}
	if reacquired != fromReacquire {
		return fmt.Errorf("%d reacquires, %d P slices that show them", reacquired, fromReacquire)
	}
	if uint64(counts["flow steal"]) > s.Steals {
		return fmt.Errorf("%d steal arrows, more than the %d steals", counts["flow steal"], s.Steals)
	}
	if uint64(counts["runnext"]) > s.RunnextHits {
		return fmt.Errorf("%d runnext instants, more than the %d runnext hits", counts["runnext"], s.RunnextHits)
	}
	return nil
}

func roundTrip(t *testing.T, f *chrometrace.File) *chrometrace.File {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, chrometrace.Write(&buf, f))
	back, err := chrometrace.Read(&buf)
	require.NoError(t, err)
	return back
}

// TestTraceWorkloads runs every workload (but mix, which is their sum) and
// checks its trace read back from JSON.
func TestTraceWorkloads(t *testing.T) {
	for _, w := range traceBase {
		t.Run(w.name, func(t *testing.T) {
			r, err := recordTrace(w, 3)
			require.NoError(t, err)
			f := roundTrip(t, toChrome(r))
			require.NoError(t, checkTraceFile(f, r))
			assert.NotEmpty(t, r.ran)
			switch w.name {
			case "skewed":
				assert.NotZero(t, r.stats.Total.Steals+r.stats.Total.GlobalBatches, "the other Ps stole, or took the overflow")
			case "blocking":
				assert.NotZero(t, r.stats.Total.Handoffs, "Blocking handed Ps off")
				assert.Contains(t, fmt.Sprint(f.TraceEvents), "reacquire", "tasks back on a P after Blocking")
			case "forkjoin":
				assert.NotZero(t, r.stats.Total.RunnextHits)
			}
		})
	}
}

// TestTraceCheckCatchesBrokenTraces: checkTraceFile must reject a trace
// that shows a task twice, one that misses a task, one whose slices do not
// nest, and one whose steal count is off.
func TestTraceCheckCatchesBrokenTraces(t *testing.T) {
	r, err := recordTrace(traceBase[2], 2) // skewed: steals and runnext
	require.NoError(t, err)
	require.NoError(t, checkTraceFile(roundTrip(t, toChrome(r)), r))
	firstTask := func(f *chrometrace.File) int {
		for i, ev := range f.TraceEvents {
			if ev.Ph == chrometrace.PhaseBegin && ev.Pid == tracePidM && strings.HasPrefix(ev.Name, "task ") {
				return i
			}
		}
		t.Fatal("no task slice")
		return -1
	}
	for name, edit := range map[string]func(f *chrometrace.File){
		"task twice": func(f *chrometrace.File) {
			i := firstTask(f)
			b := f.TraceEvents[i]
			e := chrometrace.Event{Name: b.Name, Ph: chrometrace.PhaseEnd, Ts: b.Ts, Pid: b.Pid, Tid: b.Tid}
			f.TraceEvents = append(f.TraceEvents[:i:i], append([]chrometrace.Event{b, e}, f.TraceEvents[i:]...)...)
		},
		"task missing": func(f *chrometrace.File) {
			f.TraceEvents[firstTask(f)].Args["id"] = uint64(1 << 62)
		},
		"unbalanced": func(f *chrometrace.File) {
			i := firstTask(f)
			f.TraceEvents = append(f.TraceEvents[:i:i], f.TraceEvents[i+1:]...)
		},
		"an event lost": func(f *chrometrace.File) {
			for i, ev := range f.TraceEvents {
				switch ev.Name {
				case "steal", "globalbatch", "park", "unpark", "spin", "spinstop":
					f.TraceEvents[i].Name = "lost"
					return
				}
			}
			t.Fatal("no scheduling event in a run") // an M parks at least once at Close
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := toChrome(r)
			edit(f)
			assert.Error(t, checkTraceFile(roundTrip(t, f), r))
		})
	}
}

func TestRunTraceWritesFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "trace.json")
	var stdout, stderr bytes.Buffer
	code := runTraceTo([]string{"-o", out, "-workload", "skewed", "-procs", "2"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	t.Log(stdout.String())
	assert.Contains(t, stdout.String(), "workload skewed on 2 Ps")
	fh, err := os.Open(out)
	require.NoError(t, err)
	defer fh.Close()
	f, err := chrometrace.Read(fh)
	require.NoError(t, err)
	require.NoError(t, chrometrace.Check(f))
	// skewed runs 401 tasks: the parent and its 400 children.
	seen := taskSlices(f)
	assert.Len(t, seen, 401)
	for id, n := range seen {
		assert.Equal(t, 1, n, "task %d", id)
	}
	assert.EqualValues(t, "401", fmt.Sprint(f.OtherData["tasks"]))
}

func TestRunTraceBadInput(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		args []string
		code int
		want string
	}{
		"bad flag":         {[]string{"-nope"}, 2, "see schedkit trace -h"},
		"bad procs value":  {[]string{"-procs", "x"}, 2, "see schedkit trace -h"},
		"procs range":      {[]string{"-procs", "0", "-o", filepath.Join(dir, "a.json")}, 2, fmt.Sprintf("use 1..%d", executor.MaxProcs)},
		"unknown workload": {[]string{"-workload", "nope", "-o", filepath.Join(dir, "b.json")}, 2, "one of forkjoin"},
		"extra argument":   {[]string{"x"}, 2, "unexpected argument"},
		"unwritable":       {[]string{"-o", filepath.Join(dir, "no", "such", "dir", "t.json")}, 1, "pass -o with a writable path"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runTraceTo(c.args, &stdout, &stderr)
			assert.Equal(t, c.code, code)
			assert.Contains(t, stderr.String(), c.want)
			assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %q", stderr.String())
			assert.Empty(t, stdout.String())
		})
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no file written on bad input")
}

func TestRunTraceHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, runTraceTo([]string{"-h"}, &stdout, &stderr))
	assert.Contains(t, stdout.String(), "Example:")
	assert.Contains(t, stdout.String(), "-workload")
	assert.Contains(t, stdout.String(), "forkjoin, submit, skewed, blocking, mix")
	assert.Empty(t, stderr.String())
}

// The trace's tracks are per P and per M: a run on every P count names
// them all.
func TestTraceTracksPerPAndM(t *testing.T) {
	r, err := recordTrace(traceBase[1], 4)
	require.NoError(t, err)
	f := toChrome(r)
	names := map[string]bool{}
	for _, ev := range f.TraceEvents {
		if ev.Name == "thread_name" {
			names[fmt.Sprint(ev.Pid, ev.Args["name"])] = true
		}
	}
	for p := range 4 {
		assert.True(t, names[fmt.Sprint(tracePidP, fmt.Sprintf("P%d", p))], "P%d", p)
	}
	for m := 1; m <= r.stats.Ms; m++ {
		assert.True(t, names[fmt.Sprint(tracePidM, fmt.Sprintf("M%d", m))], "M%d", m)
	}
	assert.GreaterOrEqual(t, r.stats.Ms, 4)
}
