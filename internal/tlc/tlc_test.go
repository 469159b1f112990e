package tlc

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/realtime"
	"github.com/schedkit/schedkit/internal/watchdog"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Output samples captured from TLC 2.18 (rev 6d9e496), trimmed of the
// parsing lines and most of each trace.

// A passing model that ran long enough to print progress lines, whose
// running totals carry thousands separators.
const samplePass = `TLC2 Version 2.18 of Day Month 20?? (rev: 6d9e496)
Running breadth-first search Model-Checking with fp 121 and seed -6459697208080283983 with 2 workers on 2 cores with 5358MB heap and 64MB offheap memory [pid: 25667] (Linux 6.18.44-fc-v669 amd64, Debian 17.0.15 x86_64, MSBDiskFPSet, DiskStateQueue).
Starting... (2026-11-21 14:43:50)
Computing initial states...
Finished computing initial states: 1 distinct state generated at 2026-11-21 14:43:50.
Progress(20) at 2026-11-21 14:43:53: 103,367 states generated (103,367 s/min), 43,746 distinct states found (43,746 ds/min), 15,607 states left on queue.
Progress(37) at 2026-11-21 14:48:54: 11,000,637 states generated (1,046,755 s/min), 3,543,035 distinct states found (286,633 ds/min), 317,394 states left on queue.
Model checking completed. No error has been found.
  Estimates of the probability that TLC did not check all reachable states
  because two distinct states had the same fingerprint:
  calculated (optimistic):  val = 3.0E-6
  based on the actual fingerprints:  val = 6.5E-7
16396010 states generated, 4849527 distinct states found, 0 states left on queue.
The depth of the complete state graph search is 50.
The average outdegree of the complete state graph is 1 (minimum is 0, the maximum 8 and the 95th percentile is 2).
Finished in 06min 00s at (2026-11-21 14:49:50)
`

// An invariant violation (Ring_mutant_StealNoCAS).
const sampleInvariant = `TLC2 Version 2.18 of Day Month 20?? (rev: 6d9e496)
Starting... (2026-11-21 15:00:40)
Computing initial states...
Finished computing initial states: 1 distinct state generated at 2026-11-21 15:00:41.
Error: Invariant Conservation is violated.
Error: The behavior up to this point is:
State 1: <Initial predicate>
/\ tail = 0
/\ head = 0

State 9: <StealCAS(t1) line 266, col 5 to line 276, col 52 of module Ring>
/\ tail = 1
/\ head = 1

980 states generated, 458 distinct states found, 211 states left on queue.
The depth of the complete state graph search is 9.
Finished in 02s at (2026-11-21 15:00:43)
`

const sampleInitialState = `Starting... (2026-11-21 15:02:15)
Computing initial states...
Error: Invariant Init0 is violated by the initial state:
x = 0

Finished in 00s at (2026-11-21 15:02:15)
`

const sampleDeadlock = `Finished computing initial states: 1 distinct state generated at 2026-11-21 15:01:41.
Error: Deadlock reached.
Error: The behavior up to this point is:
State 1: <Initial predicate>
x = 0

State 3: <Next line 7, col 9 to line 7, col 31 of module Tiny>
x = 2

3 states generated, 3 distinct states found, 0 states left on queue.
The depth of the complete state graph search is 3.
Finished in 01s at (2026-11-21 15:01:41)
`

const sampleActionProperty = `Finished computing initial states: 1 distinct state generated at 2026-11-21 15:02:16.
Error: Action property Step is violated.
Error: The behavior up to this point is:
State 1: <Initial predicate>
x = 0

2 states generated, 2 distinct states found, 0 states left on queue.
The depth of the complete state graph search is 2.
Finished in 00s at (2026-11-21 15:02:16)
`

const sampleParseError = `Parsing file /tmp/exp/s/Syn.tla
***Parse Error***
Was expecting "Expression or Instance"
Encountered "Beginning of definition" at line 3, column 9 and token "==" 

Fatal errors while parsing TLA+ spec in file Syn

Starting... (2026-11-21 15:01:50)
Error: Parsing or semantic analysis failed.
Finished in 00s at (2026-11-21 15:01:50)
`

// An error while evaluating an invariant (exit code 76): TLC prints a
// trace and counts, but it is not a violation.
const sampleEvalError = `Finished computing initial states: 1 distinct state generated at 2026-11-21 15:01:49.
Error: Evaluating invariant Err failed.
Attempted to access index 2 of tuple
<<1>>
which is out of bounds.
Error: The behavior up to this point is:
State 1: <Initial predicate>
x = 0

2 states generated, 2 distinct states found, 0 states left on queue.
The depth of the complete state graph search is 2.
Finished in 00s at (2026-11-21 15:01:49)
`

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want Stats
	}{
		{"pass, final counts not progress", samplePass,
			Stats{Generated: 16396010, Distinct: 4849527, Depth: 50, Counted: true}},
		{"invariant", sampleInvariant,
			Stats{Generated: 980, Distinct: 458, Depth: 9, Violated: "Conservation", Counted: true}},
		{"initial state", sampleInitialState, Stats{Violated: "Init0"}},
		{"deadlock", sampleDeadlock, Stats{Generated: 3, Distinct: 3, Depth: 3, Counted: true}},
		{"action property", sampleActionProperty,
			Stats{Generated: 2, Distinct: 2, Depth: 2, Violated: "Step", Counted: true}},
		{"parse error", sampleParseError, Stats{}},
		{"evaluation error", sampleEvalError, Stats{Generated: 2, Distinct: 2, Depth: 2, Counted: true}},
		{"empty", "", Stats{}},
		{"garbage", "states generated, distinct states found\nThe depth of the complete state graph search is x", Stats{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Parse(tc.out))
		})
	}
}

func TestParseSeparators(t *testing.T) {
	s := Parse("1,234,567 states generated, 89,012 distinct states found, 0 states left on queue.\n")
	assert.Equal(t, int64(1234567), s.Generated)
	assert.Equal(t, int64(89012), s.Distinct)
}

func TestOutcomeOf(t *testing.T) {
	cases := map[int]Outcome{
		0: OutcomeOK, 10: OutcomeAssumption, 11: OutcomeDeadlock, 12: OutcomeSafety,
		13: OutcomeLiveness, 14: OutcomeAssert,
		1: OutcomeError, 15: OutcomeError, 75: OutcomeError, 76: OutcomeError,
		150: OutcomeError, 151: OutcomeError, 255: OutcomeError, -1: OutcomeError,
	}
	for code, want := range cases {
		assert.Equal(t, want, OutcomeOf(code), "exit code %d", code)
	}
	for _, o := range []Outcome{OutcomeDeadlock, OutcomeSafety, OutcomeLiveness, OutcomeAssert} {
		assert.True(t, o.Rejects(), o)
	}
	for _, o := range []Outcome{OutcomeOK, OutcomeAssumption, OutcomeError} {
		assert.False(t, o.Rejects(), o)
	}
}

func TestJudge(t *testing.T) {
	counted := Parse(samplePass)
	violated := Parse(sampleInvariant)
	tests := []struct {
		name         string
		expectReject bool
		exit         int
		stats        Stats
		ok           bool
		reason       string // a substring of the reason when not ok
	}{
		{"model passes", false, 0, counted, true, ""},
		{"model passes without counts", false, 0, Stats{}, false, "no state counts"},
		{"model violates an invariant", false, 12, violated, false, "safety violation of Conservation"},
		{"model deadlocks", false, 11, Parse(sampleDeadlock), false, "deadlock violation"},
		{"model parse error", false, 150, Stats{}, false, "exit code 150"},
		{"model timed out", false, -1, Stats{}, false, "did not finish"},
		{"mutant rejected by an invariant", true, 12, violated, true, ""},
		{"mutant rejected by a deadlock", true, 11, Stats{}, true, ""},
		{"mutant rejected by a temporal property", true, 13, Stats{}, true, ""},
		{"mutant rejected by an Assert", true, 14, Stats{}, true, ""},
		{"mutant passes", true, 0, counted, false, "mutant passed"},
		{"mutant parse error", true, 150, Stats{}, false, "exit code 150"},
		{"mutant config error", true, 151, Stats{}, false, "exit code 151"},
		{"mutant evaluation error", true, 76, Parse(sampleEvalError), false, "exit code 76"},
		{"mutant general error", true, 75, Stats{}, false, "exit code 75"},
		{"mutant assumption failure", true, 10, Stats{}, false, "assumption failure"},
		{"mutant timed out", true, -1, Stats{}, false, "did not finish"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ok, reason := Judge(tc.expectReject, tc.exit, tc.stats)
			assert.Equal(t, tc.ok, ok)
			if tc.ok {
				assert.Empty(t, reason)
			} else {
				assert.Contains(t, reason, tc.reason)
			}
		})
	}
}

func touch(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o644))
	}
}

func TestModels(t *testing.T) {
	dir := t.TempDir()
	touch(t, dir, "Ring.tla", "Ring.cfg", "Ring_mutant_StealNoCAS.cfg", "Ring_mutant_A.cfg",
		"Exec.tla", "Exec_mutant_NoRecheck.cfg", "README.md", "Ring_TTrace_1.tla")
	ms, err := Models(dir)
	require.NoError(t, err)
	var got []string
	for _, m := range ms {
		got = append(got, m.Name+"|"+m.Spec+"|"+m.Mutant)
		assert.Equal(t, m.Mutant != "", m.ExpectReject())
		assert.Equal(t, filepath.Join(dir, m.Spec+".tla"), m.File)
		assert.Equal(t, filepath.Join(dir, m.Name+".cfg"), m.Config)
	}
	assert.Equal(t, []string{
		"Exec_mutant_NoRecheck|Exec|NoRecheck",
		"Ring|Ring|",
		"Ring_mutant_A|Ring|A",
		"Ring_mutant_StealNoCAS|Ring|StealNoCAS",
	}, got)
}

func TestModelsBadNames(t *testing.T) {
	for _, tc := range []struct{ files []string }{
		{[]string{"Lost.cfg"}},                       // no Lost.tla
		{[]string{"Ring.tla", "Ring_mutant_.cfg"}},   // no mutant name
		{[]string{"Ring.tla", "_mutant_X.cfg"}},      // no spec name
		{[]string{"Ring.tla", "Other_mutant_X.cfg"}}, // no Other.tla
	} {
		dir := t.TempDir()
		touch(t, dir, tc.files...)
		_, err := Models(dir)
		assert.Error(t, err, tc.files)
	}
	ms, err := Models(t.TempDir())
	assert.NoError(t, err)
	assert.Empty(t, ms)
}

func TestFindJar(t *testing.T) {
	dir := t.TempDir()
	jar := filepath.Join(dir, "tla2tools.jar")
	touch(t, dir, "tla2tools.jar")

	t.Setenv(JarEnv, jar)
	got, err := FindJar()
	require.NoError(t, err)
	assert.Equal(t, jar, got)

	t.Setenv(JarEnv, filepath.Join(dir, "missing.jar"))
	_, err = FindJar()
	assert.ErrorIs(t, err, ErrNoJar)
	assert.Contains(t, err.Error(), "missing.jar")

	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(JarEnv, "")
	_, err = FindJar()
	assert.ErrorIs(t, err, ErrNoJar)
	assert.Contains(t, err.Error(), "TLA2TOOLS_JAR")
	assert.Contains(t, err.Error(), "~/.cache/tla/tla2tools.jar")

	require.NoError(t, os.MkdirAll(filepath.Join(home, ".cache", "tla"), 0o755))
	touch(t, filepath.Join(home, ".cache", "tla"), "tla2tools.jar")
	got, err = FindJar()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(home, ".cache", "tla", "tla2tools.jar"), got)
}

func TestTail(t *testing.T) {
	assert.Equal(t, "c\nd", tail("a\nb\nc\nd\n", 2))
	assert.Equal(t, "a\nb", tail("a\nb", 5))
	assert.Equal(t, "", tail("a\nb", 0))
	assert.Equal(t, "", tail("", 3))
}

func TestResultString(t *testing.T) {
	r := Result{Model: "Ring_mutant_StealNoCAS", Mutant: "StealNoCAS", ExpectReject: true, OK: true,
		Outcome: OutcomeSafety, ExitCode: 12, Violated: "Conservation", Distinct: 458, Generated: 980,
		Depth: 9, Duration: 2 * time.Second}
	assert.Equal(t, "mutant Ring_mutant_StealNoCAS: safety (exit 12 violated Conservation), "+
		"458 distinct states, 980 generated, depth 9, 2s: ok", r.String())
	r.CPU = 1234 * time.Millisecond
	assert.Contains(t, r.String(), "depth 9, 2s (CPU 1.23s): ok", "the JVM's CPU time beside the wall time, where known")
	r.CPU = 0
	r.OK, r.Reason = false, "mutant passed: TLC found no violation"
	assert.True(t, strings.HasSuffix(r.String(), "FAIL: mutant passed: TLC found no violation"))
}

// A tiny spec run by the real TLC: one model, one mutant per way a mutant
// can end. Skipped without the jar or java.
const tinySpec = `---- MODULE Tiny ----
EXTENDS Naturals
CONSTANT Limit
ASSUME Limit \in Nat
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % Limit
Small == x < 3
====
`

func TestCheckAllTiny(t *testing.T) {
	c, err := NewChecker(1)
	if errors.Is(err, ErrNoJar) || errors.Is(err, ErrNoJava) {
		t.Skip(err)
	}
	require.NoError(t, err)
	dir := t.TempDir()
	files := map[string]string{
		"Tiny.tla":                  tinySpec,
		"Tiny.cfg":                  "CONSTANT Limit = 3\nINIT Init\nNEXT Next\nINVARIANT Small\n",
		"Tiny_mutant_Big.cfg":       "CONSTANT Limit = 4\nINIT Init\nNEXT Next\nINVARIANT Small\n",
		"Tiny_mutant_Passes.cfg":    "CONSTANT Limit = 2\nINIT Init\nNEXT Next\nINVARIANT Small\n",
		"Tiny_mutant_Undefined.cfg": "CONSTANT Limit = 4\nINIT Init\nNEXT Next\nINVARIANT Nope\n",
		"Tiny_mutant_Assume.cfg":    "CONSTANT Limit = \"a\"\nINIT Init\nNEXT Next\nINVARIANT Small\n",
	}
	for n, s := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rs, err := c.CheckAll(ctx, dir)
	require.Len(t, rs, 5)
	by := map[string]Result{}
	for _, r := range rs {
		t.Log(r)
		by[r.Model] = r
	}

	pass := by["Tiny"]
	assert.True(t, pass.OK, pass.Reason)
	assert.Equal(t, OutcomeOK, pass.Outcome)
	assert.Equal(t, int64(3), pass.Distinct)

	big := by["Tiny_mutant_Big"]
	assert.True(t, big.OK, big.Reason)
	assert.Equal(t, 12, big.ExitCode)
	assert.Equal(t, "Small", big.Violated)
	assert.Equal(t, "Big", big.Mutant)

	assert.False(t, by["Tiny_mutant_Passes"].OK)
	assert.Equal(t, OutcomeOK, by["Tiny_mutant_Passes"].Outcome)
	assert.False(t, by["Tiny_mutant_Undefined"].OK)
	assert.Equal(t, OutcomeError, by["Tiny_mutant_Undefined"].Outcome)
	assert.False(t, by["Tiny_mutant_Assume"].OK)
	assert.Equal(t, OutcomeAssumption, by["Tiny_mutant_Assume"].Outcome)

	// The three that misbehaved, one line each, and nothing left beside the spec.
	require.Error(t, err)
	assert.Equal(t, 3, strings.Count(err.Error(), "\n")+1, err.Error())
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	assert.Len(t, left, len(files))
}

func TestRunTimeout(t *testing.T) {
	c, err := NewChecker(1)
	if errors.Is(err, ErrNoJar) || errors.Is(err, ErrNoJava) {
		t.Skip(err)
	}
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Tiny.tla"), []byte(tinySpec), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Tiny.cfg"), []byte("CONSTANT Limit = 3\nINIT Init\nNEXT Next\n"), 0o644))
	ms, err := Models(dir)
	require.NoError(t, err)
	c.Timeout = time.Millisecond // java cannot even start in that
	r := c.Run(context.Background(), ms[0])
	assert.False(t, r.OK)
	assert.Equal(t, -1, r.ExitCode)
	assert.Contains(t, r.Reason, "did not finish")
}

func TestPropertiesReadsTheConfigsTemporalProperties(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "M.cfg")
	body := "SPECIFICATION Spec\nINVARIANT TypeOK \\* not a property\nPROPERTY Live\nPROPERTIES\n  A B \\* two more\nCONSTANT N = 2\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(Properties(cfg), ","), "Live,A,B"; got != want {
		t.Fatalf("Properties = %q, want %q", got, want)
	}
	if got := Properties(filepath.Join(dir, "missing.cfg")); got != nil {
		t.Fatalf("Properties of a missing file = %v, want nil", got)
	}
}

// scriptTLC writes a shell script that stands for java: it ignores its
// arguments and runs body.
func scriptTLC(t *testing.T, body string) Checker {
	t.Helper()
	dir := t.TempDir()
	java := filepath.Join(dir, "java")
	require.NoError(t, os.WriteFile(java, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Tiny.tla"), []byte(tinySpec), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Tiny.cfg"), []byte("CONSTANT Limit = 3\n"), 0o644))
	return Checker{Jar: filepath.Join(dir, "none.jar"), Java: java, Workers: 1}
}

// progressLoop is a shell loop printing TLC's progress line n times, every
// 50 ms; the counts move with i when moving is set.
func progressLoop(n int, moving bool) string {
	count := "7"
	if moving {
		count = "$i"
	}
	return `i=0; while [ $i -lt ` + strconv.Itoa(n) + ` ]; do i=$((i+1)); ` +
		`echo "Progress(3) at 2026-11-21 14:43:5$((i%10)): ` + count + ` states generated ($i s/min), ` + count +
		` distinct states found ($i ds/min), 1 states left on queue."; ` + stamp + `sleep 0.05; done`
}

// stamp, in a fake's loop, appends the time to the file stamps beside it:
// what the fake did, to tell a stall watch that is wrong from a machine
// that did not run the fake.
const stamp = `date +%s%N >> "$(dirname "$0")/stamps"; `

// starved reports why a run of a fake that prints a line every 50 ms may
// have been stopped for a stall by the machine and not by the watch: the
// fake itself (its stamps, up to end) or this process (ticker) went
// half of stall or more without running. "" when both kept up.
func starved(t *testing.T, dir string, end time.Time, ticker *realtime.Ticker, stall time.Duration) string {
	t.Helper()
	if gap := ticker.Stop().MaxGap; gap >= stall/2 {
		return fmt.Sprintf("this process did not run for %v", gap)
	}
	b, err := os.ReadFile(filepath.Join(dir, "stamps"))
	require.NoError(t, err)
	prev, most := int64(0), time.Duration(0)
	for f := range strings.FieldsSeq(string(b)) {
		ns, err := strconv.ParseInt(f, 10, 64)
		require.NoError(t, err)
		if prev != 0 {
			most = max(most, time.Duration(ns-prev))
		}
		prev = ns
	}
	if prev != 0 {
		most = max(most, end.Sub(time.Unix(0, prev)))
	}
	if most >= stall/2 {
		return fmt.Sprintf("the fake went %v between two lines", most)
	}
	return ""
}

// A TLC that stops making progress (TLC 2.18's one-worker deadlock: the
// progress line repeats with the same counts, or nothing is printed) is
// stopped by the stall watch with a line saying so, never waited for; one
// whose counts move, or that prints other lines, is left to finish. The
// watch runs on the real clock: a run of the second kind that is stopped
// while the machine did not run the fake (or this process) is retried, and
// skipped after three such, never failed; one stopped while both ran is a
// failure.
func TestRunStopsAStalledTLC(t *testing.T) {
	defer watchdog.Start("TestRunStopsAStalledTLC: fake TLC runs", 120*time.Second, nil)()
	cases := []struct {
		name, body string
		stalled    bool
	}{
		{"silent", "echo 'Starting...'; exec sleep 600", true},
		{"same counts", progressLoop(100000, false), true},
		{"moving counts", progressLoop(30, true) + "; echo '3 states generated, 3 distinct states found, 0 states left on queue.'", false},
		{"other lines", `i=0; while [ $i -lt 30 ]; do i=$((i+1)); echo "Checking temporal properties $i"; ` + stamp + `sleep 0.05; done; echo '3 states generated, 3 distinct states found, 0 states left on queue.'`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var inconclusive []string
			for len(inconclusive) < 3 {
				c := scriptTLC(t, tc.body)
				c.Stall = time.Second // 20 times the fakes' 50 ms between lines
				ms, err := Models(filepath.Dir(c.Java))
				require.NoError(t, err)
				start := time.Now()
				ticker := realtime.StartTicker(time.Millisecond)
				r := c.Run(context.Background(), ms[0])
				end := time.Now()
				t.Log(r, end.Sub(start))
				if tc.stalled {
					ticker.Stop()
					assert.True(t, r.Stalled)
					assert.False(t, r.OK)
					assert.Equal(t, -1, r.ExitCode)
					assert.Equal(t, StallReason(c.Stall), r.Reason)
					assert.Contains(t, r.Reason, "no progress")
					assert.Contains(t, r.Tail, "PR 1438")
					return
				}
				if r.Stalled {
					if why := starved(t, filepath.Dir(c.Java), end, ticker, c.Stall); why != "" {
						inconclusive = append(inconclusive, why)
						t.Logf("stopped for a stall, inconclusive: %s", why)
						continue
					}
				}
				ticker.Stop()
				assert.False(t, r.Stalled, "stopped for a stall while the fake printed a line every 50 ms and this process ran")
				assert.True(t, r.OK, r.Reason)
				assert.Equal(t, int64(3), r.Distinct)
				return
			}
			t.Skipf("three runs stopped while the machine did not run them: %s", strings.Join(inconclusive, "; "))
		})
	}
}

// The watch is off with a negative Stall, and a progress line's changing
// rates alone are not progress.
func TestWatchProgress(t *testing.T) {
	w := &watch{}
	line := func(counts, rate string) string {
		return "Progress(3) at 2026-11-21 14:43:53: " + counts + " states generated (" + rate + " s/min), " +
			counts + " distinct states found (" + rate + " ds/min), 1 states left on queue.\n"
	}
	_, _ = w.Write([]byte(line("5", "1")))
	first := w.last
	require.False(t, first.IsZero())
	time.Sleep(2 * time.Millisecond)
	_, _ = w.Write([]byte(line("5", "0")))
	assert.Equal(t, first, w.last, "a repeat with other rates is not progress")
	_, _ = w.Write([]byte("Checking temporal"))
	assert.Equal(t, first, w.last, "half a line is not progress yet")
	_, _ = w.Write([]byte(" properties\n"))
	assert.True(t, w.last.After(first), "a new line is progress")
	second := w.last
	time.Sleep(2 * time.Millisecond)
	_, _ = w.Write([]byte(line("6", "0")))
	assert.True(t, w.last.After(second), "new counts are progress")

	c := scriptTLC(t, "echo '3 states generated, 3 distinct states found, 0 states left on queue.'")
	c.Stall = -1
	assert.Equal(t, DefaultStall, Checker{}.stall())
	ms, err := Models(filepath.Dir(c.Java))
	require.NoError(t, err)
	r := c.Run(context.Background(), ms[0])
	assert.True(t, r.OK, r.Reason)
}

// TestLaunchOrder: with several jobs the models that must pass start
// first (the long runs), each group in name order; with one, name order.
func TestLaunchOrder(t *testing.T) {
	ms := []Model{{Name: "A"}, {Name: "A_mutant_X", Mutant: "X"}, {Name: "B"}, {Name: "B_mutant_Y", Mutant: "Y"}}
	if got, want := fmt.Sprint(launchOrder(ms, 2)), "[0 2 1 3]"; got != want {
		t.Errorf("launchOrder(jobs 2) = %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(launchOrder(ms, 1)), "[0 1 2 3]"; got != want {
		t.Errorf("launchOrder(jobs 1) = %s, want %s", got, want)
	}
}

// A mutant's JVM compiles with C1 alone (its run is mostly start-up); a
// model that must pass keeps C2 for its full search.
func TestJavaArgsC1ForMutantsOnly(t *testing.T) {
	pass := Model{Name: "Ring", Spec: "Ring"}
	mut := Model{Name: "Ring_mutant_X", Spec: "Ring", Mutant: "X"}
	c1 := "-XX:TieredStopAtLevel=1"
	args := javaArgs(pass, "j.jar", 2, "m", "c.cfg", "s.tla")
	require.NotContains(t, args, c1)
	require.Equal(t, []string{"-Xmn64m", "-cp", "j.jar", "tlc2.TLC", "-workers", "2", "-cleanup", "-noGenerateSpecTE",
		"-lncheck", "final", "-metadir", "m", "-config", "c.cfg", "s.tla"}, args[len(args)-15:],
		"a model that must pass checks its temporal properties once, at the end")
	args = javaArgs(mut, "j.jar", 2, "m", "c.cfg", "s.tla")
	require.Contains(t, args, c1)
	require.Equal(t, []string{"-XX:TieredStopAtLevel=1", "-cp", "j.jar", "tlc2.TLC", "-workers", "2", "-cleanup", "-noGenerateSpecTE",
		"-metadir", "m", "-config", "c.cfg", "s.tla"}, args[len(args)-13:], "a mutant keeps TLC's periodic liveness checks")
}

// TestCheckJar: a TLA2TOOLS_JAR that is not a jar, or a jar without TLC, is
// said plainly and counts as no jar (ErrNoJar: exit 3, a skipped row), where
// java's "could not find or load main class" read as a spec's failure.
func TestCheckJar(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(text, []byte("not a jar at all\n"), 0o644))
	err := CheckJar(text)
	assert.ErrorIs(t, err, ErrNoJar)
	assert.ErrorContains(t, err, "tlc: "+text+" is not a jar (")
	assert.ErrorContains(t, err, "point TLA2TOOLS_JAR at tla2tools.jar")

	other := filepath.Join(dir, "other.jar")
	f, err := os.Create(other)
	require.NoError(t, err)
	z := zip.NewWriter(f)
	w, err := z.Create("META-INF/MANIFEST.MF")
	require.NoError(t, err)
	_, _ = w.Write([]byte("Manifest-Version: 1.0\n"))
	require.NoError(t, z.Close())
	require.NoError(t, f.Close())
	err = CheckJar(other)
	assert.ErrorIs(t, err, ErrNoJar)
	assert.ErrorContains(t, err, "is a jar but not TLC (it has no tlc2/TLC.class)")

	t.Setenv(JarEnv, text)
	_, err = NewChecker(1)
	assert.ErrorContains(t, err, "is not a jar", "NewChecker checks the jar it found")

	home, _ := os.UserHomeDir()
	if real := filepath.Join(home, ".cache", "tla", "tla2tools.jar"); isFile(real) {
		assert.NoError(t, CheckJar(real), "the installed jar is TLC")
	}
}

// TestModelsOfAMissingDirectory: a directory that does not exist is said to
// be missing, not to have "no .cfg files".
func TestModelsOfAMissingDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := Models(missing)
	assert.EqualError(t, err, "tlc: the specs' directory "+missing+" does not exist")
	_, err = Checker{}.CheckAll(context.Background(), missing)
	assert.ErrorContains(t, err, "does not exist")
	file := filepath.Join(t.TempDir(), "Ring.tla")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = Models(file)
	assert.ErrorContains(t, err, "is not a directory")
}
