package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/suite"
	"github.com/schedkit/schedkit/internal/cmdline"
)

// fixed is an impl that reports the given figures, whatever the machine:
// the ratios through the whole runner are then known in advance.
func fixed(name string, nsPerTask, cpuPerTask float64) suite.Impl {
	return suite.Impl{Name: name, Bench: func(b *testing.B) {
		for b.Loop() {
		}
		b.ReportMetric(nsPerTask, "ns/task")
		b.ReportMetric(cpuPerTask, "cpu-ns/task")
	}}
}

// The test-only workloads, named zz-test-* so that -run picks them out of
// the suite's real ones.
func init() {
	suite.Register(suite.Workload{Name: "zz-test-ok", Title: "fixed figures", About: "About text of the fake.",
		Impls: []suite.Impl{fixed("schedkit", 10, 20), fixed("slow", 30, 40), fixed("fast", 5, 5)}})
	// Reports GOMAXPROCS in its metric, so the table shows the runner set it.
	procsImpl := func(name string, k float64) suite.Impl {
		return suite.Impl{Name: name, Bench: func(b *testing.B) {
			for b.Loop() {
			}
			b.ReportMetric(k*float64(runtime.GOMAXPROCS(0)), "tasks/s")
		}}
	}
	suite.Register(suite.Workload{Name: "zz-test-procs", Title: "throughput by Ps", Metric: "tasks/s",
		HigherIsBetter: true, Procs: []int{1, 2, 3},
		Impls: []suite.Impl{procsImpl("schedkit", 100), procsImpl("peer", 25)}})
	suite.Register(suite.Workload{Name: "zz-test-fail", Title: "a peer fails",
		Impls: []suite.Impl{fixed("schedkit", 10, 10), {Name: "broken", Bench: func(b *testing.B) {
			b.Fatal("a task ran twice")
		}}}})
	suite.Register(suite.Workload{Name: "zz-test-panic", Title: "a peer panics",
		Impls: []suite.Impl{fixed("schedkit", 10, 10), {Name: "panicky", Bench: func(b *testing.B) {
			panic("boom")
		}}}})
	suite.Register(suite.Workload{Name: "zz-test-nometric", Title: "a peer reports nothing",
		Impls: []suite.Impl{fixed("schedkit", 10, 10), {Name: "silent", Bench: func(b *testing.B) {
			for b.Loop() {
			}
		}}}})
	suite.Register(suite.Workload{Name: "zz-test-basefail", Title: "the base fails",
		Impls: []suite.Impl{{Name: "schedkit", Bench: func(b *testing.B) { b.Error("lost a task") }}, fixed("peer", 10, 10)}})
}

// Per-round ratios, hand-computed. The rounds are chosen so that the
// median of the per-round ratios (3) differs from the ratio of the
// medians (30/20 = 1.5) and from the inverted ratio: each of those
// mistakes fails here.
func TestRatioHandComputed(t *testing.T) {
	r, ok := ratio(10, 30, false)
	require.True(t, ok)
	assert.Equal(t, 3.0, r, "lower is better: peer/base, above 1 when schedkit is faster")
	r, ok = ratio(10, 30, true)
	require.True(t, ok)
	assert.InDelta(t, 1.0/3, r, 1e-12, "higher is better: base/peer")
	_, ok = ratio(0, 30, false)
	assert.False(t, ok, "a zero base has no ratio")
	_, ok = ratio(10, math.Inf(1), false)
	assert.False(t, ok, "an infinite figure has no ratio")

	rounds := func(vs ...float64) []sample {
		var ss []sample
		for _, v := range vs {
			ss = append(ss, sample{Value: v})
		}
		return ss
	}
	s := ratioSpread(rounds(10, 20, 30), rounds(30, 20, 90), false)
	assert.Equal(t, spread{Median: 3, Min: 1, Max: 3, OK: true}, s)
	s = ratioSpread(rounds(10, 20, 30), rounds(30, 20, 90), true)
	assert.Equal(t, spread{Median: 1.0 / 3, Min: 1.0 / 3, Max: 1, OK: true}, s)

	// A failed round of either side drops that round only.
	base, peer := rounds(10, 20, 30, 40), rounds(20, 100, 60, 40)
	peer[1].Fail = "failed"
	assert.Equal(t, spread{Median: 2, Min: 1, Max: 2, OK: true}, ratioSpread(base, peer, false))
	assert.False(t, ratioSpread(rounds(10), []sample{{Fail: "x"}}, false).OK)
}

// Scaling, hand-computed: the gain is taken per round against the same
// impl at the smallest GOMAXPROCS, cost at From over cost at To for a
// lower-is-better metric, so a swapped quotient or a ratio of medians
// fails here.
func TestScalingHandComputed(t *testing.T) {
	w := suite.Workload{Name: "w", Impls: []suite.Impl{{Name: "a"}, {Name: "b"}}}
	rounds := func(vs ...float64) []sample {
		var ss []sample
		for _, v := range vs {
			ss = append(ss, sample{Value: v})
		}
		return ss
	}
	one := &group{W: w, Procs: 1, Runs: [][]sample{rounds(100, 90, 300), rounds(10, 10, 10)}}
	two := &group{W: w, Procs: 2, Runs: [][]sample{rounds(50, 90, 100), rounds(20, 20, 20)}}
	sc := scaling([]*group{one, two})
	require.Len(t, sc, 2)
	assert.Equal(t, scaleRow{Impl: "a", From: 1, To: 2, Gain: spread{Median: 2, Min: 1, Max: 3, OK: true}}, sc[0])
	assert.Equal(t, scaleRow{Impl: "b", From: 1, To: 2, Gain: spread{Median: 0.5, Min: 0.5, Max: 0.5, OK: true}}, sc[1])
	w.HigherIsBetter = true
	one.W, two.W = w, w
	assert.Equal(t, spread{Median: 0.5, Min: 1.0 / 3, Max: 1, OK: true}, scaling([]*group{one, two})[0].Gain)
	assert.Nil(t, scaling([]*group{one}), "one GOMAXPROCS: nothing to scale over")
}

func TestSummarise(t *testing.T) {
	assert.Equal(t, spread{Median: 2.5, Min: 1, Max: 4, OK: true}, summarise([]float64{4, 1, 3, 2}), "even count: mean of the middle two")
	assert.Equal(t, spread{Median: 3, Min: 1, Max: 7, OK: true}, summarise([]float64{7, 3, 1}))
	assert.False(t, summarise(nil).OK)
}

func TestMakePlanPicksProcs(t *testing.T) {
	ws := []suite.Workload{
		{Name: "a", Impls: []suite.Impl{{Name: "schedkit"}}},
		{Name: "b", Procs: []int{1, 2, 4, 8}, Impls: []suite.Impl{{Name: "schedkit"}, {Name: "go"}}},
		{Name: "c", Procs: []int{16}, Impls: []suite.Impl{{Name: "schedkit"}}},
	}
	procs := func(p plan) []string {
		var out []string
		for _, g := range p.Groups {
			out = append(out, g.W.Name+"@"+string(rune('0'+g.Procs%10)))
		}
		return out
	}
	p := makePlan(ws, nil, nil, nil, 2, 3)
	assert.Equal(t, []string{"a@3", "b@1", "b@2"}, procs(p), "no -cpu: Procs up to NumCPU; no Procs: the current GOMAXPROCS")
	require.Len(t, p.Skipped, 1)
	assert.Contains(t, p.Skipped[0], "c: none of its Procs [16] is at most NumCPU 2")
	assert.Equal(t, 5, p.runs(), "a run per impl and GOMAXPROCS value")

	p = makePlan(ws, nil, nil, []int{4, 2, 4}, 2, 3)
	assert.Equal(t, []string{"a@2", "a@4", "b@2", "b@4"}, procs(p),
		"-cpu picks Procs values even above NumCPU, and runs a workload without Procs at each of its values, in order, once")
	assert.Contains(t, p.Skipped[0], "is in -cpu [4 2 4]")

	p = makePlan(ws, regexp.MustCompile("^b$").MatchString, nil, nil, 8, 1)
	assert.Equal(t, []string{"b@1", "b@2", "b@4", "b@8"}, procs(p))

	// -impl keeps the matching impls and always the base (Impls[0]).
	p = makePlan(ws, regexp.MustCompile("^b$").MatchString, regexp.MustCompile("^nomatch$").MatchString, []int{1}, 8, 1)
	require.Len(t, p.Groups, 1)
	assert.Equal(t, ws[1].Impls[0].Name, p.Groups[0].W.Impls[0].Name)
	assert.Len(t, p.Groups[0].W.Impls, 1, "no peer matches: the base alone")
	assert.Len(t, p.Groups[0].Runs, 1)
	p = makePlan(ws, regexp.MustCompile("^b$").MatchString, regexp.MustCompile("^go$").MatchString, []int{1}, 8, 1)
	require.Len(t, p.Groups, 1)
	assert.Len(t, p.Groups[0].W.Impls, 2)
	assert.Equal(t, "go", p.Groups[0].W.Impls[1].Name)
	assert.Len(t, ws[1].Impls, 2, "the suite's workload is not changed")
	assert.Len(t, p.Groups[0].Runs, 2)
}

// The runner end to end on fixed figures: three rounds, the table and
// RESULTS.md hold the expected medians and ratios, GOMAXPROCS was set per
// run, the charts parse as XML, and RESULTS.md around the markers is kept
// byte for byte.
func TestRunWritesTablesChartsAndSection(t *testing.T) {
	dir := t.TempDir()
	before := "# Results\r\n\nhand-written text | with a pipe\n\n<!-- schedkit bench: begin -->\nold generated text\n"
	after := "<!-- schedkit bench: end -->\n\n## Notes kept\ntrailing text without newline"
	res := filepath.Join(dir, "RESULTS.md")
	require.NoError(t, os.WriteFile(res, []byte(before+after), 0o600))

	var stdout, stderr bytes.Buffer
	js := filepath.Join(t.TempDir(), "r.json")
	code := run([]string{"-run", "^zz-test-(ok|procs)$", "-count", "3", "-benchtime", "1x", "-cpu", "1,2",
		"-out", dir, "-json", js, "-cmdline", "go run ./cmd/schedkit bench -run x|y"}, &stdout, &stderr)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())

	out := stdout.String()
	assert.Contains(t, out, "command: go run ./cmd/schedkit bench -run x|y")
	assert.Contains(t, out, "machine: "+runtime.GOOS+"/"+runtime.GOARCH)
	assert.Contains(t, out, "3 round(s)")
	assert.Regexp(t, `(?m)^  schedkit +10\.0 +10\.0\.\.10\.0 +base`, out)
	assert.Regexp(t, `(?m)^  slow +30\.0 +30\.0\.\.30\.0 +3\.00x +3\.00\.\.3\.00$`, out)
	assert.Regexp(t, `(?m)^  fast +5\.00 +5\.00\.\.5\.00 +0\.50x +0\.50\.\.0\.50$`, out)
	// tasks/s = k * GOMAXPROCS: 100 and 200 for schedkit, and a ratio of
	// schedkit/peer = 4 (higher is better) at each.
	assert.Regexp(t, `(?s)zz-test-procs: throughput by Ps, GOMAXPROCS 1\n.*higher is better.*\n.*\n  schedkit +100 .*\n  peer +25\.0 +25\.0\.\.25\.0 +4\.00x`, out)
	assert.Regexp(t, `(?s)zz-test-procs: throughput by Ps, GOMAXPROCS 2\n.*\n.*\n  schedkit +200 .*\n  peer +50\.0 +50\.0\.\.50\.0 +4\.00x`, out)
	assert.NotContains(t, out, "GOMAXPROCS 3", "3 is not in -cpu")
	// Its scaling: tasks/s doubles from 1 to 2 Ps for both impls.
	assert.Regexp(t, `(?s)zz-test-procs: throughput over GOMAXPROCS 1, per round.*\n  schedkit +2 +2\.00x +2\.00\.\.2\.00\n  peer +2 +2\.00x`, out)
	// zz-test-ok has no Procs: it runs at each -cpu value, with its
	// scaling (the same figure at both: 1.00x).
	assert.Regexp(t, `(?s)zz-test-ok: fixed figures, GOMAXPROCS 1\n.*zz-test-ok: fixed figures, GOMAXPROCS 2\n`, out)
	assert.Regexp(t, `(?s)zz-test-ok: throughput over GOMAXPROCS 1, per round.*\n  schedkit +2 +1\.00x +1\.00\.\.1\.00\n`, out)
	assert.Contains(t, stderr.String(), "[30/30] round 3/3 zz-test-procs procs=2 impl=peer", "a line per run when stderr is no terminal")

	doc, err := os.ReadFile(res)
	require.NoError(t, err)
	text := string(doc)
	require.True(t, strings.HasPrefix(text, before[:strings.Index(before, "old generated")]), "the text before the section changed:\n%s", text)
	require.True(t, strings.HasSuffix(text, after), "the text after the section changed:\n%s", text)
	assert.NotContains(t, text, "old generated text")
	assert.Contains(t, text, "| command | `go run ./cmd/schedkit bench -run x\\|y` |")
	assert.Contains(t, text, " | slow | 30.0 | 30.0..30.0 | 3.00x | 3.00..3.00 |")
	assert.Contains(t, text, "| 2 | peer | 50.0 | 50.0..50.0 | 4.00x | 4.00..4.00 |")
	assert.Contains(t, text, "About text of the fake.")
	assert.Contains(t, text, "Throughput over GOMAXPROCS 1, the ratio taken per round")
	assert.Contains(t, text, "| schedkit | 2 | 2.00x | 2.00..2.00 |")
	for _, c := range []string{"zz-test-ok.svg", "zz-test-ok-procs.svg", "zz-test-procs.svg", "zz-test-procs-procs.svg"} {
		assert.Contains(t, text, "](charts/"+c+")")
		assertSVG(t, filepath.Join(dir, "charts", c))
	}
	assert.Regexp(t, `\n30 runs \(2 workload\(s\), 3 round\(s\)\) in [0-9.]+m?s; wrote `+regexp.QuoteMeta(res)+` and 4 chart\(s\) in `, out)

	// The JSON holds the same figures: every group, sample and ratio.
	b, err := os.ReadFile(js)
	require.NoError(t, err)
	var rep jsonReport
	require.NoError(t, json.Unmarshal(b, &rep))
	assert.Equal(t, "go run ./cmd/schedkit bench -run x|y", rep.Command)
	assert.Equal(t, 3, rep.Rounds)
	require.Len(t, rep.Groups, 4)
	g := rep.Groups[3]
	assert.Equal(t, "zz-test-procs", g.Workload)
	assert.Equal(t, 2, g.GOMAXPROCS)
	assert.True(t, g.HigherIsBetter)
	require.Len(t, g.Impls, 2)
	assert.Equal(t, 200.0, g.Impls[0].Value.Median)
	assert.Len(t, g.Impls[0].Samples, 3)
	assert.Nil(t, g.Impls[0].Ratio, "the base has no ratio")
	assert.Equal(t, 4.0, g.Impls[1].Ratio.Median)
	require.Len(t, g.Scaling, 2)
	assert.Equal(t, jsonScale{Impl: "schedkit", From: 1, Gain: &jsonSpread{2, 2, 2}}, g.Scaling[0])
	assert.Empty(t, rep.Groups[2].Scaling, "the first GOMAXPROCS has no gain")

	// A second run replaces the section, not appends another.
	stdout.Reset()
	require.Equal(t, 0, run([]string{"-run", "^zz-test-ok$", "-benchtime", "1x", "-count", "1", "-out", dir}, &stdout, io.Discard))
	doc, err = os.ReadFile(res)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(doc), beginMarker))
	assert.NotContains(t, string(doc), "zz-test-procs", "the old section is gone")
	assert.NotContains(t, stdout.String(), "zz-test-ok: throughput over", "one GOMAXPROCS value: no scaling table")
	assert.True(t, strings.HasSuffix(string(doc), after))
}

// assertSVG checks that path is a well-formed XML document whose root is
// an svg element.
func assertSVG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	d := xml.NewDecoder(f)
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "%s is not well-formed XML", path)
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	assert.Equal(t, "svg", root, path)
}

// Every way a run can fail is reported, gets no figure or ratio, makes
// the exit status 1 and writes nothing.
func TestFailedRunExitsNonZeroAndWritesNothing(t *testing.T) {
	for _, tc := range []struct{ name, impl, want string }{
		{"fail", "broken", "FAILED (2 of 2 rounds): the benchmark failed; cd bench && go test -run '^$' -bench 'Suite/^zz-test-fail$/^impl=broken$' -cpu "},
		{"panic", "panicky", "FAILED (2 of 2 rounds): panicked: boom"},
		{"nometric", "silent", "FAILED (2 of 2 rounds): did not report its metric ns/task"},
		{"basefail", "schedkit (base)", "FAILED (2 of 2 rounds): the benchmark failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			code := run([]string{"-run", "^zz-test-" + tc.name + "$", "-count", "2", "-benchtime", "1x", "-out", dir}, &stdout, &stderr)
			assert.Equal(t, 1, code)
			line := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(tc.impl) + ` .*$`).FindString(stdout.String())
			assert.Contains(t, line, tc.want, "stdout:\n%s", stdout.String())
			assert.NotRegexp(t, `\d\.\d\dx`, line, "a failed impl got a ratio")
			assert.Contains(t, stdout.String(), "2 run(s) failed:")
			assert.Contains(t, stderr.String(), "2 run(s) failed (listed above); wrote nothing")
			ents, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, ents, "a failed run wrote files")
		})
	}
	// -json writes even then: a run on a lent machine keeps what it got.
	js := filepath.Join(t.TempDir(), "r.json")
	assert.Equal(t, 1, run([]string{"-run", "^zz-test-fail$", "-count", "1", "-benchtime", "1x", "-no-write", "-json", js}, io.Discard, io.Discard))
	var rep jsonReport
	b, err := os.ReadFile(js)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rep))
	require.Len(t, rep.Groups, 1)
	require.Len(t, rep.Groups[0].Impls, 2)
	assert.Equal(t, 10.0, rep.Groups[0].Impls[0].Value.Median)
	assert.Contains(t, rep.Groups[0].Impls[1].Fail, "FAILED (1 of 1 rounds)")
	assert.Nil(t, rep.Groups[0].Impls[1].Value)
	assert.Nil(t, rep.Groups[0].Impls[1].Samples[0].Value)

	// With the base failed, no peer gets a ratio either.
	var stdout bytes.Buffer
	run([]string{"-run", "^zz-test-basefail$", "-count", "1", "-benchtime", "1x", "-no-write"}, &stdout, io.Discard)
	assert.Regexp(t, `(?m)^  peer +10\.0 +10\.0\.\.10\.0 +no ratio`, stdout.String())
}

// -quick writes nothing unless -out is given: shrunk workloads must not
// replace recorded results.
func TestQuickWritesOnlyWithOut(t *testing.T) {
	t.Chdir(t.TempDir())
	var stdout bytes.Buffer
	require.Equal(t, 0, run([]string{"-quick", "-run", "^zz-test-ok$", "-benchtime", "1x"}, &stdout, io.Discard))
	assert.Contains(t, stdout.String(), "; wrote nothing: -quick's shrunk workloads are no measurement (-out DIR writes them)")
	ents, err := os.ReadDir(".")
	require.NoError(t, err)
	assert.Empty(t, ents)

	stdout.Reset()
	require.Equal(t, 0, run([]string{"-quick", "-run", "^zz-test-ok$", "-benchtime", "1x", "-out", "."}, &stdout, io.Discard))
	assert.FileExists(t, "RESULTS.md")
	assert.FileExists(t, filepath.Join("charts", "zz-test-ok.svg"))
	doc, err := os.ReadFile("RESULTS.md")
	require.NoError(t, err)
	assert.Contains(t, string(doc), "-quick (shrunk workloads: a check that the suite runs, not a measurement)")

	stdout.Reset()
	require.Equal(t, 0, run([]string{"-run", "^zz-test-ok$", "-benchtime", "1x", "-count", "1", "-no-write"}, &stdout, io.Discard))
	assert.Contains(t, stdout.String(), "; wrote nothing (-no-write)")
}

func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-count", "0"}, "-count 0: want at least 1"},
		{[]string{"-cpu", "1,x"}, `-cpu "1,x": want a comma-separated list`},
		{[]string{"-cpu", "0"}, `-cpu "0"`},
		{[]string{"-run", "("}, "-run: error parsing regexp"},
		{[]string{"-impl", "("}, "-impl: error parsing regexp"},
		{[]string{"-benchtime", "soon"}, `-benchtime "soon"`},
		{[]string{"-timeout", "0s"}, "-timeout 0s"},
		{[]string{"-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"stray"}, `unexpected argument "stray"`},
		{[]string{"-run", "^no-such-workload$"}, `no workload to run (-run "^no-such-workload$"); the workloads: `},
	} {
		var stdout, stderr bytes.Buffer
		// Should the check miss, the run stays one fake workload long.
		args := append([]string{"-run", "^zz-test-ok$", "-benchtime", "1x", "-count", "1", "-no-write"}, tc.args...)
		assert.Equal(t, 2, run(args, &stdout, &stderr), "%v", tc.args)
		assert.Contains(t, stderr.String(), tc.want, "%v", tc.args)
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "%v: one line: %q", tc.args, stderr.String())
		assert.Empty(t, stdout.String())
	}
	var stdout bytes.Buffer
	assert.Equal(t, 0, run([]string{"-h"}, &stdout, io.Discard))
	assert.Contains(t, stdout.String(), "example (in bench/):")
	assert.Contains(t, stdout.String(), "-quick")
}

// Misplaced markers make the write fail and leave the file alone.
func TestReplaceSection(t *testing.T) {
	out, err := replaceSection([]byte("# R\n\nkept"), "new\n")
	require.NoError(t, err)
	assert.Equal(t, "# R\n\nkept\n"+beginMarker+"\nnew\n"+endMarker+"\n", string(out), "no markers: appended at the end")
	out, err = replaceSection(out, "newer")
	require.NoError(t, err)
	assert.Equal(t, "# R\n\nkept\n"+beginMarker+"\nnewer\n"+endMarker+"\n", string(out))
	out, err = replaceSection(nil, "x\n")
	require.NoError(t, err)
	assert.Equal(t, beginMarker+"\nx\n"+endMarker+"\n", string(out))
	// A marker inside a line is text, not a marker.
	out, err = replaceSection([]byte("see `"+beginMarker+"`\n"), "x\n")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(out), "see `"+beginMarker+"`\n"+beginMarker+"\n"))

	for name, doc := range map[string]string{
		"begin only": "a\n" + beginMarker + "\nb\n",
		"end only":   "a\n" + endMarker + "\n",
		"reversed":   endMarker + "\n" + beginMarker + "\n",
		"two begins": beginMarker + "\n" + beginMarker + "\n" + endMarker + "\n",
	} {
		_, err := replaceSection([]byte(doc), "x\n")
		assert.ErrorIs(t, err, errMarkers, name)
		path := filepath.Join(t.TempDir(), "RESULTS.md")
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
		assert.Error(t, writeResults(path, "x\n"), name)
		got, _ := os.ReadFile(path)
		assert.Equal(t, doc, string(got), "%s: file touched", name)
	}
}

func TestNumAndShellArgs(t *testing.T) {
	for v, want := range map[float64]string{12345.6: "12346", 183.4: "183", 53.84: "53.8", 5: "5.00", 0.5: "0.5", 0.01234: "0.0123", 0: "0"} {
		assert.Equal(t, want, num(v), "%v", v)
	}
	assert.Equal(t, " -quick -run 'tiny|chain$' -cpu 1,2 'it'\\''s'", cmdline.Quote([]string{"-quick", "-run", "tiny|chain$", "-cpu", "1,2", "it's"}))
}

func TestLoadAverage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loadavg")
	require.NoError(t, os.WriteFile(path, []byte("2.61 4.66 4.10 3/512 1234\n"), 0o644))
	assert.Equal(t, "2.61", loadAverage(path))
	assert.Equal(t, "", loadAverage(filepath.Join(t.TempDir(), "none")))
	h := header{LoadStart: "2.61", LoadEnd: "3.00"}
	assert.Equal(t, "1-minute load average 2.61 before the run, 3.00 after", h.loadLine())
	assert.Equal(t, "", header{LoadStart: "1"}.loadLine(), "unknown at one end: not stated")
}

func TestCPUModel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpuinfo")
	require.NoError(t, os.WriteFile(path, []byte("processor\t: 0\nmodel name\t: Fancy CPU 9000\nmodel name\t: other\n"), 0o644))
	assert.Equal(t, "Fancy CPU 9000", cpuModel(path))
	assert.Equal(t, "CPU model unknown", cpuModel(filepath.Join(t.TempDir(), "none")))
}

// recorder is a progress that keeps the runs' descriptions in order.
type recorder struct{ started, ended []string }

func (r *recorder) start(desc string) { r.started = append(r.started, desc) }
func (r *recorder) done()             { r.ended = append(r.ended, r.started[len(r.started)-1]) }

// Rounds are interleaved: round r runs every workload, GOMAXPROCS value
// and impl once before round r+1 starts, each run ends before the next
// starts, and GOMAXPROCS is put back after each run.
func TestRoundsInterleave(t *testing.T) {
	restore, err := setTestingFlags(options{benchtime: "1x"})
	require.NoError(t, err)
	defer restore()
	before := runtime.GOMAXPROCS(0)
	p := makePlan(suite.All(), regexp.MustCompile(`^zz-test-(ok|procs)$`).MatchString, nil, []int{1, 2}, 2, before)
	var r recorder
	measureRounds(p, 2, time.Minute, &r)
	var want []string
	for round := 1; round <= 2; round++ {
		for _, procs := range []int{1, 2} { // no Procs: at each -cpu value
			for _, s := range []string{"zz-test-ok procs=%d impl=schedkit", "zz-test-ok procs=%d impl=slow", "zz-test-ok procs=%d impl=fast"} {
				want = append(want, fmt.Sprintf("round %d/2 "+s, round, procs))
			}
		}
		for _, procs := range []int{1, 2} {
			for _, im := range []string{"schedkit", "peer"} {
				want = append(want, fmt.Sprintf("round %d/2 zz-test-procs procs=%d impl=%s", round, procs, im))
			}
		}
	}
	assert.Equal(t, want, r.started)
	assert.Equal(t, want, r.ended)
	assert.Equal(t, before, runtime.GOMAXPROCS(0))
	for _, g := range p.Groups {
		for i := range g.Runs {
			assert.Len(t, g.Runs[i], 2, "%s impl %d: a sample per round", g.W.Name, i)
		}
	}
}
