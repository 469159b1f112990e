package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/internal/tlc"
)

const sampleJSON = `{"Action":"start","Package":"github.com/schedkit/schedkit/lfq"}
{"Action":"run","Package":"github.com/schedkit/schedkit/lfq","Test":"TestPutGetIsFIFO"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/lfq","Test":"TestPutGetIsFIFO"}
{"Action":"run","Package":"github.com/schedkit/schedkit/lfq","Test":"TestZeroRingIsEmptyAndUsable"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/lfq","Test":"TestZeroRingIsEmptyAndUsable"}
{"Action":"run","Package":"github.com/schedkit/schedkit/lfq","Test":"TestRingModel"}
{"Action":"output","Package":"github.com/schedkit/schedkit/lfq","Test":"TestRingModel","Output":"    model_test.go:9: lfq model: 20 checks passed\n"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/lfq","Test":"TestRingModel"}
{"Action":"run","Package":"github.com/schedkit/schedkit/lfq","Test":"TestStressExactlyOnce"}
{"Action":"output","Package":"github.com/schedkit/schedkit/lfq","Test":"TestStressExactlyOnce","Output":"    stress_test.go:1: lfq stress: 50000 items consumed exactly once by 4 goroutines\n"}
{"Action":"fail","Package":"github.com/schedkit/schedkit/lfq","Test":"TestStressExactlyOnce"}
{"Action":"fail","Package":"github.com/schedkit/schedkit/lfq"}
{"Action":"run","Package":"github.com/schedkit/schedkit/fuzz","Test":"FuzzRing"}
{"Action":"run","Package":"github.com/schedkit/schedkit/fuzz","Test":"FuzzRing/seed#0"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/fuzz","Test":"FuzzRing/seed#0"}
{"Action":"run","Package":"github.com/schedkit/schedkit/fuzz","Test":"FuzzRing/seed#1"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/fuzz","Test":"FuzzRing/seed#1"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/fuzz","Test":"FuzzRing"}
{"Action":"run","Package":"github.com/schedkit/schedkit/internal/tlc","Test":"TestNeedsJar"}
{"Action":"output","Package":"github.com/schedkit/schedkit/internal/tlc","Test":"TestNeedsJar","Output":"    tlc_test.go:3: no jar here\n"}
{"Action":"skip","Package":"github.com/schedkit/schedkit/internal/tlc","Test":"TestNeedsJar"}
{"Action":"output","Package":"github.com/schedkit/schedkit/atomicx","Output":"FAIL: leaked goroutines\n"}
{"Action":"fail","Package":"github.com/schedkit/schedkit/atomicx"}
`

func rowsByCheck(rows []row) map[string]row {
	m := map[string]row{}
	for _, r := range rows {
		m[r.component+"/"+r.check] = r
	}
	return m
}

func TestTestRowsGroupsTestsIntoTheLadder(t *testing.T) {
	tests, _, err := parseTestJSON(strings.NewReader(sampleJSON))
	require.NoError(t, err)
	rows, failures := testRows(tests, "")
	m := rowsByCheck(rows)

	assert.Equal(t, row{"lfq", "unit", "pass", "2 tests"}, m["lfq/unit"])
	assert.Equal(t, row{"lfq", "property (rapid vs model)", "pass", "20 cases"}, m["lfq/property (rapid vs model)"])
	assert.Equal(t, "FAIL", m["lfq/race stress, exactly once"].result, "a failed test fails its row")
	assert.Equal(t, row{"lfq", "fuzz seeds vs model", "pass", "2 seeds"}, m["lfq/fuzz seeds vs model"])
	assert.Equal(t, "skipped: no jar here", m["tlc runner/unit"].result)
	assert.Equal(t, "FAIL", m["atomicx/unit"].result, "a package failing outside its tests is not green")

	var names []string
	for _, f := range failures {
		names = append(names, f.Test)
	}
	assert.ElementsMatch(t, []string{"TestStressExactlyOnce", "(package)"}, names)
}

func TestParseTestJSONRejectsGarbledEvents(t *testing.T) {
	_, _, err := parseTestJSON(strings.NewReader("{not json\n"))
	assert.Error(t, err)
}

func TestRowFailed(t *testing.T) {
	assert.True(t, row{result: "FAIL"}.failed())
	assert.False(t, row{result: "skipped: no jar"}.failed())
	assert.False(t, row{result: "pass"}.failed())
}

func TestFindCountSumsEveryMatch(t *testing.T) {
	re := goChecks[0].count // "lfq model: N checks passed"
	assert.Equal(t, "30", findCount([]string{"lfq model: 10 checks passed\n", "x\n", "lfq model: 20 checks passed\n"}, re))
	assert.Equal(t, "", findCount([]string{"nothing here\n"}, re))
}

func TestLogBlockTakesTheIndentedLinesAfterTheMarker(t *testing.T) {
	out := []string{
		"=== RUN   TestKillMatrix\n",
		"    killmatrix_test.go:248: lfq kill matrix: 5 mutants\n",
		"        mutation   TLC\n",
		"        none       survived\n",
		"--- PASS: TestKillMatrix (1.00s)\n",
	}
	assert.Equal(t, []string{"mutation   TLC", "none       survived"}, logBlock(out, "lfq kill matrix:"))
	assert.Empty(t, logBlock(out, "no such marker"))
}

func TestEveryComponentSharesTheRungs(t *testing.T) {
	const events = `{"Action":"run","Package":"github.com/schedkit/schedkit/runnext","Test":"TestRunnextModel"}
{"Action":"output","Package":"github.com/schedkit/schedkit/runnext","Test":"TestRunnextModel","Output":"    m.go:1: runnext model: 100 checks passed\n"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/runnext","Test":"TestRunnextModel"}
{"Action":"run","Package":"github.com/schedkit/schedkit/fuzz","Test":"TestFuzzGlobalQCatchesBrokenQueue"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/fuzz","Test":"TestFuzzGlobalQCatchesBrokenQueue"}
{"Action":"run","Package":"github.com/schedkit/schedkit/atomicx","Test":"TestModelless"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/atomicx","Test":"TestModelless"}
`
	tests, _, err := parseTestJSON(strings.NewReader(events))
	require.NoError(t, err)
	rows, failures := testRows(tests, "")
	assert.Empty(t, failures)
	m := rowsByCheck(rows)
	assert.Equal(t, row{"runnext", "property (rapid vs model)", "pass", "100 cases"}, m["runnext/property (rapid vs model)"])
	assert.Equal(t, "1 test", m["globalq/fuzz oracle catches broken variant"].explored)
	assert.Equal(t, "1 test", m["atomicx/unit"].explored, "component rungs apply to component packages only")
	assert.Equal(t, "fuzz decoder", fuzzComponent("TestReaderIntn"))
}

func TestComponentOfByPrefix(t *testing.T) {
	for name, want := range map[string]string{
		"Ring": "lfq", "RingSmall": "lfq", "Runnext": "runnext", "RunnextFine": "runnext", "GlobalQ": "globalq",
		"Steal": "stealing", "Stealing": "stealing", "Spinning": "spinning", "SpinningHandoff": "spinning",
		"Executor": "executor", "ExecutorSysmon": "executor", "Timers": "timers", "Other": "", "": "",
		"ParkReady": "executor", "TaskChan": "taskchan", "TaskChanLocks": "taskchan",
		"PollDesc": "netpoll", "PollDescBreak": "netpoll",
	} {
		assert.Equal(t, want, componentOf(name), name)
	}
	assert.Equal(t, "lfq", fuzzComponent("FuzzRingSchedule"), "a new fuzz target needs no entry")
	assert.Equal(t, "executor", fuzzComponent("TestFuzzExecutorCatchesLostTask"))
}

func TestIsComponentPkg(t *testing.T) {
	for _, p := range []string{"lfq", "executor", "newcomponent"} {
		assert.True(t, isComponentPkg(p), p)
	}
	for _, p := range []string{"fuzz", ".", "", "internal/tlc", "cmd/schedkit", "proofs/tla", "atomicx", "explore", "examples", "examples/treiber"} {
		assert.False(t, isComponentPkg(p), p)
	}
}

func TestNewComponentsAndColumnsShow(t *testing.T) {
	const events = `{"Action":"run","Package":"github.com/schedkit/schedkit/executor","Test":"TestKillMatrix"}
{"Action":"output","Package":"github.com/schedkit/schedkit/executor","Test":"TestKillMatrix","Output":"    km.go:1: executor kill matrix: 1 mutants\n"}
{"Action":"output","Package":"github.com/schedkit/schedkit/executor","Test":"TestKillMatrix","Output":"        mutation   TLC(extra)  scenarios*  explorer*\n"}
{"Action":"output","Package":"github.com/schedkit/schedkit/executor","Test":"TestKillMatrix","Output":"        LostWake   killed      killed      killed\n"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/executor","Test":"TestKillMatrix"}
{"Action":"run","Package":"github.com/schedkit/schedkit/executor","Test":"TestExploreHandoffRace"}
{"Action":"output","Package":"github.com/schedkit/schedkit/executor","Test":"TestExploreHandoffRace","Output":"    e.go:1: explore executor-handoff: 42 executions\n"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/executor","Test":"TestExploreHandoffRace"}
{"Action":"run","Package":"github.com/schedkit/schedkit/executor","Test":"TestScenarioGroupWait"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/executor","Test":"TestScenarioGroupWait"}
`
	tests, _, err := parseTestJSON(strings.NewReader(events))
	require.NoError(t, err)
	rows, failures := testRows(tests, "schedcheck,schedmutant")
	assert.Empty(t, failures)
	m := rowsByCheck(rows)
	assert.Equal(t, row{"executor", "seeded mutants killed by >= 2 deterministic checkers", "pass", "1 mutant"},
		m["executor/seeded mutants killed by >= 2 deterministic checkers"])
	assert.Equal(t, "42 executions", m["executor/interleavings (explorer, bound 2)"].explored)
	assert.Equal(t, "1 test", m["executor/unit (-tags schedcheck,schedmutant)"].explored, "a new test name still shows")

	ms := killMatrices(tests)
	require.Len(t, ms, 1)
	assert.Equal(t, "executor", ms[0].component)
	assert.Equal(t, []string{"mutation   TLC(extra)  scenarios*  explorer*", "LostWake   killed      killed      killed"}, ms[0].lines)
}

func TestTLARowSaysHowAMutantWasJudged(t *testing.T) {
	base := tlc.Result{Spec: "RunnextFine", Mutant: "Skip", ExpectReject: true, OK: true, Distinct: 10, Violated: "Inv"}
	r := tlaRow(base)
	assert.Equal(t, row{"runnext", "TLA+ RunnextFine mutant Skip rejected (Inv; no Expect line)", "pass", "10 states"}, r)

	base.Expect = "Inv"
	assert.Equal(t, "TLA+ RunnextFine mutant Skip rejected by Inv", tlaRow(base).check)

	base.Only, base.Long = &tlc.Result{Distinct: 7}, true
	r = tlaRow(base)
	assert.Equal(t, "TLA+ RunnextFine (long) mutant Skip rejected by Inv only", r.check)
	assert.Equal(t, "10 states + 7 without", r.explored)

	base.OK = false
	assert.True(t, tlaRow(base).failed())
	assert.Equal(t, "Zeta", tlaRow(tlc.Result{Spec: "Zeta", OK: true}).component, "an unknown spec is its own row")
}

func TestNoExpectWarnings(t *testing.T) {
	var b strings.Builder
	n := noExpectWarnings(&b, []tlc.Model{
		{Name: "Ring", Spec: "Ring", Config: "d/Ring.cfg"},
		{Name: "Ring_mutant_A", Spec: "Ring", Mutant: "A", Config: "d/Ring_mutant_A.cfg"},
		{Name: "Ring_mutant_B", Spec: "Ring", Mutant: "B", Expect: "Conservation", Config: "d/Ring_mutant_B.cfg"},
	})
	assert.Equal(t, 1, n)
	assert.Equal(t, "schedkit tlc: warning: Ring_mutant_A.cfg has no `\\* Expect: <Name>` line: any rejection counts\n", b.String())
}

func TestSelectorPicksPackagesThatCanMakeAKeptRow(t *testing.T) {
	all := selector{}
	assert.True(t, all.pkg("lfq", "") && all.pkg("internal/tlc", "") && all.match("x", "y"), "no -run keeps everything")

	lfq := selector{regexp.MustCompile(`^lfq `)}
	assert.True(t, lfq.pkg("lfq", ""))
	assert.True(t, lfq.pkg("fuzz", ""), "lfq's fuzz targets live in fuzz/")
	assert.False(t, lfq.pkg("runnext", ""))
	assert.False(t, lfq.pkg("explore", "schedcheck"))
	assert.True(t, lfq.row(row{component: "lfq", check: "unit"}))
	assert.False(t, lfq.row(row{component: "runnext", check: "unit"}))

	km := selector{regexp.MustCompile(`seeded mutants`)}
	assert.True(t, km.pkg("executor", "schedcheck,schedmutant"))
	assert.False(t, km.pkg("executor", ""), "the kill matrix runs in the mutant pass only")
	assert.False(t, km.pkg("atomicx", "schedcheck,schedmutant"))

	tool := selector{regexp.MustCompile(`^tlc runner unit$`)}
	assert.True(t, tool.pkg("internal/tlc", ""))
	assert.False(t, tool.pkg("internal/tlc", "schedcheck"))
	assert.False(t, tool.pkg("fuzz", ""))
}

// modelCheck, which -run matches before TLC runs, must be the start of the
// row tlaRow makes from the result: else -run would pick a model whose row
// it then drops, or skip one it would keep.
func TestModelCheckIsTheRowsPrefix(t *testing.T) {
	for _, m := range []tlc.Model{
		{Spec: "Ring"}, {Spec: "Ring", Long: true}, {Spec: "Ring", Mutant: "X", Expect: "Inv"},
		{Spec: "Runnext", Mutant: "Y", Long: true},
	} {
		r := tlaRow(tlc.Result{Spec: m.Spec, Mutant: m.Mutant, Long: m.Long, Expect: m.Expect,
			ExpectReject: m.ExpectReject(), OK: true, Violated: "Inv"})
		assert.True(t, strings.HasPrefix(r.check, modelCheck(m)), "%q vs %q", r.check, modelCheck(m))
	}
}

func TestPackageEvent(t *testing.T) {
	pkg, action, secs, ok := packageEvent([]byte(`{"Action":"pass","Package":"github.com/schedkit/schedkit/lfq","Elapsed":1.5}`))
	assert.True(t, ok)
	assert.Equal(t, "lfq", pkg)
	assert.Equal(t, "ok", action)
	assert.Equal(t, 1.5, secs)
	_, action, _, _ = packageEvent([]byte(`{"Action":"fail","Package":"github.com/schedkit/schedkit/lfq"}`))
	assert.Equal(t, "FAIL", action)
	_, action, _, _ = packageEvent([]byte(`{"Action":"start","Package":"github.com/schedkit/schedkit/lfq"}`))
	assert.Equal(t, "start", action)
	for _, l := range []string{
		`{"Action":"pass","Package":"github.com/schedkit/schedkit/lfq","Test":"TestX"}`, // a test, not the package
		`{"Action":"output","Package":"github.com/schedkit/schedkit/lfq"}`,
		`# build output`, ``,
	} {
		_, _, _, ok := packageEvent([]byte(l))
		assert.False(t, ok, l)
	}
}

// TestPassProgressSaysEndsAndWhatStillRuns drives passProgress with a
// fake clock: a line per package end, and after a quiet spell the
// packages still running, once per spell.
func TestPassProgressSaysEndsAndWhatStillRuns(t *testing.T) {
	var said []string
	now := time.Unix(1000, 0)
	p := &passProgress{total: 2, now: func() time.Time { return now },
		say: func(f string, a ...any) { said = append(said, fmt.Sprintf(f, a...)) }}
	ev := func(action, pkg string) []byte {
		return []byte(`{"Action":"` + action + `","Package":"github.com/schedkit/schedkit/` + pkg + `","Elapsed":2}`)
	}
	p.line(ev("start", "lfq"))
	p.line(ev("start", "executor"))
	now = now.Add(10 * time.Second)
	p.line(ev("pass", "lfq"))
	p.tick(30 * time.Second)
	require.Len(t, said, 1, "nothing still running is said before the quiet spell")
	assert.Equal(t, "  [1/2] lfq                    ok 2.0s", said[0])
	now = now.Add(31 * time.Second)
	p.tick(30 * time.Second)
	p.tick(30 * time.Second)
	require.Len(t, said, 2, "once per quiet spell")
	assert.Equal(t, "  still running: executor (41s)", said[1])
	p.line(ev("fail", "executor"))
	now = now.Add(time.Hour)
	p.tick(30 * time.Second)
	assert.Equal(t, []string{"  [1/2] lfq                    ok 2.0s", "  still running: executor (41s)",
		"  [2/2] executor               FAIL 2.0s"}, said, "nothing runs: nothing more to say")
}

// TestVerifyRunAndJSON runs verify on one small package (internal/mutation): -run narrows what
// runs, -json writes one object a row, progress goes to stderr as it comes.
func TestVerifyRunAndJSON(t *testing.T) {
	var out, errb strings.Builder
	code := runVerify([]string{"-run", `^mutation unit$`, "-tla=false", "-race=false", "-json"}, &out, &errb)
	t.Logf("stderr:\n%s", errb.String())
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 1, out.String())
	var r rowJSON
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &r))
	assert.Equal(t, "mutation", r.Component)
	assert.Equal(t, "unit", r.Check)
	assert.Equal(t, "pass", r.Result)
	assert.Regexp(t, `^\d+ tests?$`, r.Explored)
	assert.Regexp(t, `verify: pass 1 of 1: go test -json -count=1 -timeout `+verifyTimeout+` -run '\^\((\w+\|)*\w+\)\$' -short \./internal/mutation\n`, errb.String(),
		"one pass, of 1: the explorer and the kill matrix can make no mutation row; only mutation's tests")
	assert.Contains(t, errb.String(), "[1/1] internal/mutation")
	assert.Contains(t, errb.String(), "verify: all 1 checks passed")
	assert.NotContains(t, errb.String(), "go vet", "-run left vet out")

	out.Reset()
	errb.Reset()
	require.Equal(t, 0, runVerify([]string{"-run", `^mutation unit$`, "-tla=false", "-race=false"}, &out, &errb))
	assert.Regexp(t, `^COMPONENT\s+CHECK\s+RESULT\s+EXPLORED\nmutation\s+unit\s+pass\s+\d+ tests\n`, out.String())
	assert.Contains(t, out.String(), "verify: all 1 checks passed")
}

func TestMetricsPackagesShowAsOneComponent(t *testing.T) {
	const events = `{"Action":"run","Package":"github.com/schedkit/schedkit/metrics/prom","Test":"TestLint"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/metrics/prom","Test":"TestLint"}
{"Action":"run","Package":"github.com/schedkit/schedkit/metrics/expvars","Test":"TestPublishTwicePanics"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/metrics/expvars","Test":"TestPublishTwicePanics"}
`
	tests, _, err := parseTestJSON(strings.NewReader(events))
	require.NoError(t, err)
	rows, _ := testRows(tests, "")
	require.Len(t, rows, 1)
	assert.Equal(t, row{"metrics", "unit", "pass", "2 tests"}, rows[0])
	assert.Greater(t, rank("metrics"), rank("executor"), "after the components it reads")
	assert.True(t, selector{regexp.MustCompile(`^metrics `)}.pkg("metrics/prom", ""))
}

// A failure is shown only with its row: -run '^lfq unit$' runs all of
// lfq's tests, and a failing stress test's row is not asked about.
func TestFailureFollowsItsRow(t *testing.T) {
	tests, _, err := parseTestJSON(strings.NewReader(sampleJSON))
	require.NoError(t, err)
	_, failures := testRows(tests, "")
	require.Len(t, failures, 2)
	assert.Empty(t, selector{regexp.MustCompile(`^lfq unit$`)}.failures(failures, ""))
	kept := selector{regexp.MustCompile(`^lfq race`)}.failures(failures, "")
	require.Len(t, kept, 1)
	assert.Equal(t, "TestStressExactlyOnce", kept[0].Test)
	assert.Len(t, selector{}.failures(failures, ""), 2, "no -run: every failure")
}

// planner plans verify's passes on this checkout for a -run pattern.
func planner(t *testing.T) func(pattern string) []plannedPass {
	t.Helper()
	root, err := moduleRoot()
	require.NoError(t, err)
	pkgs, err := listPackages(context.Background(), root)
	require.NoError(t, err)
	return func(pattern string) []plannedPass {
		var sel selector
		if pattern != "" {
			sel.re = regexp.MustCompile(pattern)
		}
		return planPasses(root, pkgs, sel, true)
	}
}

// TestPlanRunsOnlyWhatTheRowsNeed: -run '^lfq unit' ran the fuzz package,
// the explorer and the kill matrix (4 minutes for 18 tests); now only lfq's
// unit tests, in one pass. Each narrower pattern runs only its tests, and
// no -run runs every pass as it is.
func TestPlanRunsOnlyWhatTheRowsNeed(t *testing.T) {
	planFor := planner(t)
	plans := planFor(`^lfq unit`)
	require.Len(t, plans, 1, "the normal pass only")
	p := plans[0]
	assert.Equal(t, "", p.tags)
	assert.Equal(t, []string{"./lfq"}, p.pkgs, "not the fuzz package")
	assert.Equal(t, []row{{component: "lfq", check: "unit"}}, p.rows)
	for _, left := range []string{"TestStressExactlyOnce", "TestLinearizable", "TestKillMatrix", "FuzzRing"} {
		assert.NotContains(t, p.run, left)
	}
	assert.Contains(t, p.run, "TestPutGetIsFIFO")
	assert.Regexp(t, `^\^\((\w+\|)*\w+\)\$$`, p.run)

	plans = planFor(`^lfq interleavings`)
	require.Len(t, plans, 1)
	assert.Equal(t, "schedcheck,schedmutant", plans[0].tags)
	assert.Equal(t, []string{"./lfq"}, plans[0].pkgs)
	assert.Contains(t, plans[0].run, "TestExploreRing")
	assert.NotContains(t, plans[0].run, "TestKillMatrix", "the explorer's row needs no kill matrix")

	plans = planFor(`seeded mutants`)
	require.Len(t, plans, 1)
	assert.Equal(t, "^(TestKillMatrix)$", plans[0].run)
	assert.Equal(t, []string{"./executor", "./future", "./globalq", "./lfq", "./netpoll", "./runnext", "./spinning", "./stealing", "./taskchan", "./timers"}, sorted(plans[0].pkgs))

	plans = planFor(`^(lfq unit|explore finds seeded)`)
	require.Len(t, plans, 2, "the normal pass and the explorer's, not the mutants'")
	assert.Equal(t, []string{"", "schedcheck"}, []string{plans[0].tags, plans[1].tags})
	assert.Equal(t, "pass 2 of 2: go test -run '^(TestA|TestB)$' -short ./explore", passLine(1, len(plans), []string{"test", "-run", "^(TestA|TestB)$", "-short"}, "./explore"),
		"the passes that run are numbered 1..n, with none skipped")

	plans = planFor("")
	require.Len(t, plans, len(goPasses))
	for i, p := range plans {
		assert.Equal(t, goPasses[i].run, p.run, "no -run: the pass's own pattern")
	}
	assert.Contains(t, plans[0].pkgs, "./fuzz")
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// TestVerifyList: -list prints the rows, one "component check" a line, what
// -run matches, and builds nothing.
func TestVerifyList(t *testing.T) {
	var out, errb strings.Builder
	require.Equal(t, 0, runVerify([]string{"-list", "-run", `^lfq `, "-tla=false"}, &out, &errb), errb.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for _, want := range []string{"lfq unit", "lfq race stress, exactly once", "lfq fuzz seeds vs model",
		"lfq interleavings (explorer, bound 2)", "lfq seeded mutants killed by >= 2 deterministic checkers"} {
		assert.Contains(t, lines, want)
	}
	for _, l := range lines {
		assert.True(t, strings.HasPrefix(l, "lfq "), l)
	}
	assert.Empty(t, errb.String(), "no progress: nothing runs")

	// The TLC models' rows, from a directory of specs of its own.
	specs := t.TempDir()
	for name, text := range map[string]string{"Ring.tla": "", "Ring.cfg": "INVARIANT Inv\n",
		"Ring_mutant_X.cfg": "\\* Expect: Inv\nINVARIANT Inv\n", "Ring_long.cfg": "INVARIANT Inv\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(specs, name), []byte(text), 0o644))
	}
	out.Reset()
	require.Equal(t, 0, listRows(&out, &errb, specs, nil, selector{regexp.MustCompile(`TLA`)}, true, false, "TLA"), errb.String())
	assert.Equal(t, "lfq TLA+ Ring.tla passes\nlfq TLA+ Ring mutant X rejected by Inv\n", out.String())
	out.Reset()
	require.Equal(t, 0, listRows(&out, &errb, specs, nil, selector{regexp.MustCompile(`TLA`)}, true, true, "TLA"), errb.String())
	assert.Contains(t, out.String(), "lfq TLA+ Ring (long).tla passes\n")
	assert.Contains(t, out.String(), "lfq TLA+ Ring mutant X rejected by Inv only\n", "long mode does the only-it re-run")
	out.Reset()
	require.Equal(t, 0, runVerify([]string{"-list", "-tla=false"}, &out, &errb), errb.String())
	assert.True(t, strings.HasPrefix(out.String(), "all go vet\n"), out.String())
	assert.Equal(t, 2, runVerify([]string{"-list", "-run", "no such row"}, &out, &errb))
}
