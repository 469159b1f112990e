// Command benchsuite runs every workload of package suite against the
// pools users know and turns the runs into ratios: a table on stdout and,
// unless -no-write, the generated section of RESULTS.md and an SVG chart
// per workload. `go run ./cmd/schedkit bench` (from the repository root)
// runs it; from bench/, `go run ./cmd/benchsuite` does the same.
//
// -count rounds run interleaved in one process: round 1 runs every
// workload, GOMAXPROCS value and impl once, then round 2 does it again,
// and so on, so that a busy spell of a shared machine lands on the impls
// of a round alike. Each run is one testing.Benchmark at -benchtime. A
// ratio is taken per round and its median and range reported (see
// ratioSpread).
//
// Exit codes: 0 when every run succeeded and every file was written; 1
// when a run failed (its impl gets no figure and no ratio, and nothing is
// written, so recorded results are never replaced by a broken run) or a
// file could not be written; 2 for a bad flag or a -run that matches no
// workload.
//
// What the comments here state, and the test that fails when it breaks:
//   - rounds interleave; GOMAXPROCS is set per run and put back:
//     TestRoundsInterleave, TestRunWritesTablesChartsAndSection
//   - a ratio is the median of per-round ratios, peer/schedkit or
//     schedkit/peer by the metric's direction: TestRatioHandComputed (hand
//     computed; the ratio of medians and the inverted ratio fail it)
//   - the Procs a workload runs at: TestMakePlanPicksProcs
//   - RESULTS.md outside the markers is kept byte for byte, misplaced
//     markers refuse the write: TestReplaceSection,
//     TestRunWritesTablesChartsAndSection
//   - every chart is an SVG document: TestRunWritesTablesChartsAndSection
//   - a failed, panicking or metric-less run gets no figure or ratio,
//     exits 1 and writes nothing: TestFailedRunExitsNonZeroAndWritesNothing
//   - -quick writes nothing unless -out is given: TestQuickWritesOnlyWithOut
//   - a bad flag is one line and exit 2: TestFlagErrors
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/schedkit/schedkit/bench/suite"
	"github.com/schedkit/schedkit/internal/cmdline"
)

const about = `usage: benchsuite [-quick] [-count N] [-run REGEXP] [-impl REGEXP] [-cpu LIST] [-benchtime D] [-out DIR] [-no-write] [-json FILE]

Runs every workload of bench/suite (schedkit's executor and each peer)
-count rounds, interleaved, and prints per workload and GOMAXPROCS the
median of the metric over the rounds with its range, and the ratio of
schedkit to each impl (median of the per-round ratios, with its range).
Writes DIR/RESULTS.md's section between the lines
` + beginMarker + ` and ` + endMarker + `
(the rest of the file is kept byte for byte), DIR/charts/NAME.svg per
workload and, for one run at several GOMAXPROCS, NAME-procs.svg (the
metric against GOMAXPROCS). A workload with Procs runs at each of them
that is in -cpu (default: those at most NumCPU); one without, at each
-cpu value (default: the current GOMAXPROCS). -impl keeps the impls whose
name matches, and always the first, the base of every ratio. -json FILE
also writes every sample and summary as JSON, whatever -no-write and
-quick say and also when a run failed (its fail field says why), for
figures taken on another machine. A progress bar goes to stderr when it is a terminal,
a line per run otherwise. A failed run makes the exit status 1 and writes
nothing. The section written holds the workloads of this run only: with
-run, the others' tables are gone. -quick writes nothing unless -out is
given: its shrunk workloads are a check, not a measurement.`

const example = `  go run ./cmd/benchsuite -quick                    # a check that every workload runs (under a minute; writes nothing)
  go run ./cmd/benchsuite -count 10 -benchtime 500ms  # the recorded run
  go run ./cmd/benchsuite -run '^chain$' -cpu 1,2,4,8,16 -count 5
  go run ./cmd/benchsuite -run '^(chain|forkjoin)$' -impl '^(go|chanpool)$' -cpu 1,2 -json /tmp/b.json`

// options are the parsed flags.
type options struct {
	quick     bool
	count     int
	run       *regexp.Regexp
	impl      *regexp.Regexp
	json      string
	cpu       []int
	benchtime string
	out       string
	noWrite   bool
	// quickNoWrite is a noWrite that -quick implied.
	quickNoWrite bool
	timeout      time.Duration
	cmdline      string
}

// parseArgs parses the command line. ok is false when the command must
// stop with code: 0 after -h, 2 after a bad flag, having said why in one
// line.
func parseArgs(args []string, stdout, stderr io.Writer) (o options, code int, ok bool) {
	fs := flag.NewFlagSet("benchsuite", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.BoolVar(&o.quick, "quick", false, "shrink every workload and run each impl briefly, once: checks that the suite runs (under a minute)")
	fs.IntVar(&o.count, "count", 0, "rounds, run interleaved in one process (default 5, or 1 with -quick)")
	runRE := fs.String("run", "", "run only the workloads whose name matches this regexp")
	implRE := fs.String("impl", "", "run only the impls whose name matches this regexp, and each workload's base (schedkit)")
	cpuList := fs.String("cpu", "", "comma-separated GOMAXPROCS values: a workload with Procs runs at those of them listed (default: its values up to NumCPU), one without at each (default: the current GOMAXPROCS)")
	fs.StringVar(&o.json, "json", "", "also write every sample and summary as JSON to this file (even with -no-write or a failed run)")
	fs.StringVar(&o.benchtime, "benchtime", "", "time (or Nx count) per run, as go test's -benchtime (default 300ms, or 30ms with -quick)")
	fs.StringVar(&o.out, "out", ".", "directory of RESULTS.md and charts/ (-quick writes only where -out is given)")
	fs.BoolVar(&o.noWrite, "no-write", false, "print the tables only; write no file")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "a run that takes longer is ended with every goroutine's stack")
	fs.StringVar(&o.cmdline, "cmdline", "", "the command line to record in RESULTS.md (set by schedkit bench)")
	bad := func(format string, a ...any) (options, int, bool) {
		fmt.Fprintf(stderr, "benchsuite: "+format+" (benchsuite -h lists the flags)\n", a...)
		return o, 2, false
	}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(stdout, "%s\n\nflags:\n", about)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fmt.Fprintf(stdout, "\nexample (in bench/):\n%s\n", example)
		return o, 0, false
	case err != nil:
		return bad("%v", err)
	case fs.NArg() > 0:
		return bad("unexpected argument %q: every input is a flag", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["count"] {
		o.count = 5
		if o.quick {
			o.count = 1
		}
	}
	if o.count < 1 {
		return bad("-count %d: want at least 1", o.count)
	}
	if o.quick && !set["out"] && !o.noWrite {
		// Shrunk workloads are no measurement: keep them out of
		// RESULTS.md unless asked.
		o.noWrite, o.quickNoWrite = true, true
	}
	if !set["benchtime"] {
		o.benchtime = "300ms"
		if o.quick {
			o.benchtime = "30ms"
		}
	}
	if *runRE != "" {
		re, err := regexp.Compile(*runRE)
		if err != nil {
			return bad("-run: %v", err)
		}
		o.run = re
	}
	if *implRE != "" {
		re, err := regexp.Compile(*implRE)
		if err != nil {
			return bad("-impl: %v", err)
		}
		o.impl = re
	}
	if *cpuList != "" {
		for f := range strings.SplitSeq(*cpuList, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return bad("-cpu %q: want a comma-separated list of positive counts such as 1,2,4", *cpuList)
			}
			o.cpu = append(o.cpu, n)
		}
	}
	if o.timeout <= 0 {
		return bad("-timeout %v: want a positive duration", o.timeout)
	}
	if o.cmdline == "" {
		o.cmdline = "cd bench && go run ./cmd/benchsuite" + cmdline.Quote(args)
	}
	return o, 0, true
}

// setTestingFlags sets testing's flags for the run (benchtime, and short
// with -quick, for workloads that ask testing.Short) and returns a func
// that puts them back.
func setTestingFlags(o options) (restore func(), err error) {
	testing.Init()
	if !flag.Parsed() {
		flag.CommandLine.Parse(nil) // testing.Short panics before a Parse
	}
	oldBT := flag.Lookup("test.benchtime").Value.String()
	oldShort := flag.Lookup("test.short").Value.String()
	oldQuick := suite.Quick
	restore = func() {
		flag.Set("test.benchtime", oldBT)
		flag.Set("test.short", oldShort)
		suite.Quick = oldQuick
	}
	if err := flag.Set("test.benchtime", o.benchtime); err != nil {
		return restore, fmt.Errorf("-benchtime %q: %v", o.benchtime, err)
	}
	if o.quick {
		flag.Set("test.short", "true")
		suite.Quick = true
	}
	return restore, nil
}

// run runs the suite as the command line args says, writing the tables
// to stdout and progress to stderr, and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	o, code, ok := parseArgs(args, stdout, stderr)
	if !ok {
		return code
	}
	restore, err := setTestingFlags(o)
	defer restore()
	if err != nil {
		fmt.Fprintf(stderr, "benchsuite: %v (benchsuite -h lists the flags)\n", err)
		return 2
	}
	var match func(string) bool
	if o.run != nil {
		match = o.run.MatchString
	}
	var impl func(string) bool
	if o.impl != nil {
		impl = o.impl.MatchString
	}
	m := thisMachine()
	p := makePlan(suite.All(), match, impl, o.cpu, m.NumCPU, m.GOMAXPROCS)
	if len(p.Groups) == 0 {
		var names []string
		for _, w := range suite.All() {
			names = append(names, w.Name)
		}
		pat := ""
		if o.run != nil {
			pat = o.run.String()
		}
		fmt.Fprintf(stderr, "benchsuite: no workload to run (-run %q); the workloads: %s\n",
			pat, strings.Join(names, ", "))
		for _, s := range p.Skipped {
			fmt.Fprintf(stderr, "benchsuite: skipped %s\n", s)
		}
		return 2
	}
	h := header{Machine: m, Command: o.cmdline, Rounds: o.count, Benchtime: o.benchtime, Quick: o.quick, Date: time.Now(),
		LoadStart: loadAverage("/proc/loadavg")}

	pr := newProgress(stderr, o.count*p.runs())
	measureRounds(p, o.count, o.timeout, pr)
	pr.finish()
	h.LoadEnd = loadAverage("/proc/loadavg")
	if o.json != "" {
		if err := writeJSON(o.json, h, p); err != nil {
			fmt.Fprintf(stderr, "benchsuite: %v\n", err)
			return 1
		}
	}

	if err := writeText(stdout, h, p); err != nil {
		fmt.Fprintf(stderr, "benchsuite: %v\n", err)
		return 1
	}
	if fs := failures(p); len(fs) > 0 {
		fmt.Fprintf(stderr, "benchsuite: %d run(s) failed (listed above)", len(fs))
		if !o.noWrite {
			fmt.Fprintf(stderr, "; wrote nothing")
		}
		fmt.Fprintln(stderr)
		return 1
	}
	runs := fmt.Sprintf("\n%d runs (%d workload(s), %d round(s)) in %v", o.count*p.runs(), workloads(p), o.count,
		time.Since(h.Date).Round(100*time.Millisecond))
	switch {
	case o.quickNoWrite:
		fmt.Fprintf(stdout, "%s; wrote nothing: -quick's shrunk workloads are no measurement (-out DIR writes them)\n", runs)
		return 0
	case o.noWrite:
		fmt.Fprintf(stdout, "%s; wrote nothing (-no-write)\n", runs)
		return 0
	}
	charts, err := writeCharts(o.out, p, m)
	if err != nil {
		fmt.Fprintf(stderr, "benchsuite: %v\n", err)
		return 1
	}
	res := filepath.Join(o.out, "RESULTS.md")
	if err := writeResults(res, markdown(h, p, charts)); err != nil {
		fmt.Fprintf(stderr, "benchsuite: %v\n", err)
		return 1
	}
	n := 0
	for _, cs := range charts {
		n += len(cs)
	}
	fmt.Fprintf(stdout, "%s; wrote %s and %d chart(s) in %s\n", runs, res, n, filepath.Join(o.out, "charts"))
	return 0
}

// workloads is the number of workloads p runs.
func workloads(p plan) int {
	n := 0
	for i, g := range p.Groups {
		if i == 0 || g.W.Name != p.Groups[i-1].W.Name {
			n++
		}
	}
	return n
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// barProgress is a progress bar on a terminal.
type barProgress struct{ bar *progressbar.ProgressBar }

func (b *barProgress) start(desc string) { b.bar.Describe(desc) }
func (b *barProgress) done()             { b.bar.Add(1) }
func (b *barProgress) finish()           { b.bar.Finish() }

// lineProgress writes a line as each run starts, where a bar's carriage
// returns would pile up (a log, a pipe).
type lineProgress struct {
	w        io.Writer
	i, total int
}

func (l *lineProgress) start(desc string) {
	l.i++
	fmt.Fprintf(l.w, "benchsuite: [%d/%d] %s\n", l.i, l.total, desc)
}
func (l *lineProgress) done()   {}
func (l *lineProgress) finish() {}

// newProgress is a bar on stderr when stderr is a terminal, lines
// otherwise.
func newProgress(stderr io.Writer, total int) interface {
	progress
	finish()
} {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return &lineProgress{w: stderr, total: total}
	}
	return &barProgress{progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr),
		progressbar.OptionShowCount(), progressbar.OptionSetElapsedTime(true), progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(20), progressbar.OptionShowDescriptionAtLineEnd(), progressbar.OptionSetItsString("runs"))}
}
