// Package killmatrix runs every checker of a component against every seeded
// mutation of it and asserts that each mutation is caught by at least two
// deterministic code-level checkers and the real code by none (docs/DESIGN.md,
// rung 8). TLC and the timing-dependent checkers (stress, histories from
// real goroutines) are shown beside them as extra kills: a verdict that
// depends on the machine or on a jar being present cannot carry the bar.
//
// A component names its mutations (compiled in under -tags schedmutant) and
// its checkers; Run is its TestKillMatrix. Each cell runs in a child process
// of the test binary, re-running the component's cell test (Cell) with the
// cell in an environment variable, so a mutant that crashes a harness or
// spins forever is counted as caught without taking the parent down or
// leaving a spinning goroutine behind. TLC's column checks the spec's mutant
// config of the same name (<Spec>_mutant_<Name>.cfg), in the parent, judged
// by its Expect line where it has one; its header says it is an extra.
//
// Under -short (the test command) Run checks the same bar at less cost: every
// deterministic checker on the real code, and on each mutant the
// deterministic checkers in order until two have caught it; the rest of the
// row reads "-". The whole table, extras and TLC included, is the long
// mode's (schedkit verify -long), or SCHEDKIT_KILL_FULL=1.
//
// Each rule and the test that fails when it breaks:
//
//	a mutant caught by two deterministic checkers passes    TestRunPassesWhenEveryMutantIsCaughtTwice
//	one deterministic kill fails                            TestRunFailsAMutantCaughtOnce
//	a timing-dependent kill does not count                  TestRunDoesNotCountATimingDependentKill
//	a TLC kill does not count; TLC is marked an extra       TestRunDoesNotCountATLCKill, TestRunMarksTLCAsAnExtra
//	a crash or a hang in a cell catches the mutant          TestRunCountsACrashAsCaught, TestRunCountsAHangAsCaught
//	any checker failing the real code fails the matrix      TestRunFailsAFalseAlarmOnTheRealCode
//	-short stops at two kills and still judges the bar      TestShortStopsAtTheKillsTheBarNeeds
//	-short tries a mutant's expected killers first          TestShortTriesTheExpectedKillersFirst
//	-short spares a RealCodeElsewhere checker on the real   TestShortTriesTheExpectedKillersFirst
//	  code only
//	ByExplorer: n/a without the explorer, else its verdict  TestByExplorerRunsOnlyWithTheExplorer
//	ByModel: a refuted property kills, first line as why    TestByModelCatchesAFailingProperty
//	ModelCatch: caught for the expected reason, or an error TestModelCatchWantsTheReason
//	Ladder: each rung's column, only three deterministic    TestLadderMarksEachRung
//	cells run at once report as one at a time               TestParallelRowsReportAsSequential
//
// ByExplorer and ByModel are the bodies of the "explorer" and "model"
// checkers every component has; RunScenarios is the "scenarios" one's.
// ModelCatch is ByModel for a model test's own proof that it can fail.
// Ladder lists a component's checkers with the determinism each rung has.
package killmatrix

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/tlc"
)

// A Checker is one rung of the ladder run against the mutated code. Run
// returns an error when it catches the mutant, ErrNotApplicable when it
// cannot run in this build, and nil when the mutant survives it.
//
// Deterministic marks a checker whose verdict on given code is the same on
// every run and machine (the explorer's DFS, rapid with a fixed seed, fixed
// scenarios); only those count towards the two kills a mutant needs.
type Checker struct {
	Name          string
	Run           func(t *testing.T) error
	Deterministic bool

	// RealCodeElsewhere marks a checker whose verdict on the real code the
	// test command already has from another step (the explorer's cell runs
	// the scenarios the explorer step's TestExplore* runs): under -short the
	// "none" row spares it. The full table runs it.
	RealCodeElsewhere bool
}

// ErrNotApplicable marks a checker that cannot run in this build.
var ErrNotApplicable = errors.New("not applicable in this build")

// Config describes one component's matrix.
type Config struct {
	Component string                                        // "lfq"; names the log lines
	CellTest  string                                        // the test that calls Cell, e.g. "TestKillMatrixCell"
	Spec      string                                        // the TLA+ spec in TLADir, e.g. "Ring"
	TLADir    string                                        // relative to the package directory
	Mutations []string                                      // every seeded mutation
	Set       func(name string) (restore func(), err error) // selects one ("none": the real code)
	Checkers  []Checker
	Timeout   time.Duration // per cell; default 40s; longer counts as hung

	// Killers names, per mutation, the checkers expected to catch it.
	// Under -short they are tried first, so a mutant usually costs two
	// cells instead of every column before its killers; the verdict is the
	// same (two deterministic kills, the rest tried in order if an
	// expected killer misses). The full table ignores it.
	Killers map[string][]string

	// Jobs is how many rows run at once; 0 means $SCHEDKIT_KILL_JOBS, else
	// GOMAXPROCS. A row's cells still run one after another (-short's
	// early stop needs the row's earlier verdicts).
	Jobs int
}

// JobsEnv overrides the rows run at once when Config.Jobs is 0.
const JobsEnv = "SCHEDKIT_KILL_JOBS"

func (cfg Config) jobs() int {
	if cfg.Jobs > 0 {
		return cfg.Jobs
	}
	if n, err := strconv.Atoi(os.Getenv(JobsEnv)); err == nil && n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// FullEnv set to 1 makes Run fill the whole table even under -short.
const FullEnv = "SCHEDKIT_KILL_FULL"

const (
	cellEnv  = "SCHEDKIT_KILL_CELL" // "<mutation>/<checker>" in a child
	minKills = 2
)

// Verdict is what one cell came to.
type Verdict string

// The verdicts. Killed, Crashed and Hung catch the mutant.
const (
	Killed   Verdict = "killed"
	Crashed  Verdict = "crashed" // the harness panicked
	Hung     Verdict = "hung"    // no end within the timeout
	Survived Verdict = "survived"
	NotRun   Verdict = "n/a"
	Spared   Verdict = "-" // not run: -short stops at the kills the bar needs
)

// Caught reports whether the verdict catches the mutant.
func (v Verdict) Caught() bool { return v == Killed || v == Crashed || v == Hung }

// Cell is the body of the component's cell test: in a child it runs the one
// cell it was started for; otherwise it skips.
func Cell(t *testing.T, cfg Config) {
	cell := os.Getenv(cellEnv)
	if cell == "" {
		t.Skip("runs only as a child of the kill matrix")
	}
	mutation, checker, _ := strings.Cut(cell, "/")
	restore, err := cfg.Set(mutation)
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	for _, c := range cfg.Checkers {
		if c.Name != checker {
			continue
		}
		switch err := c.Run(t); {
		case errors.Is(err, ErrNotApplicable):
			t.Skip("n/a: " + err.Error())
		case err != nil:
			t.Fatalf("caught: %v", err)
		}
		return
	}
	t.Fatalf("no checker %q", checker)
}

// Run is the component's TestKillMatrix: every mutation (and "none") against
// TLC and every checker. It fails the test when a mutation is caught by
// fewer than two deterministic checkers or the real code by any checker, and
// logs the matrix as "<component> kill matrix: N mutants" followed by the
// table; a deterministic checker's column is marked with '*'.
func Run(t testing.TB, cfg Config) {
	if os.Getenv(cellEnv) != "" {
		t.Skip("a child runs only its cell")
	}
	// In -short mode (the test command's) the matrix runs what the bar
	// needs and no more: every deterministic checker on the real code (no
	// false alarm), and on each mutant the deterministic checkers in order
	// until two have caught it. TLC's mutant configs are the tlc step's; the
	// timing-dependent extras and the full table are the long mode's.
	// SCHEDKIT_KILL_FULL=1 asks for the whole table in -short too.
	short := testing.Short() && os.Getenv(FullEnv) != "1"
	columns := []string{"TLC"}
	det := map[string]bool{}
	for _, c := range cfg.Checkers {
		columns = append(columns, c.Name)
		det[c.Name] = c.Deterministic
	}
	var b strings.Builder
	fmt.Fprintf(&b, "* deterministic: only these columns count towards the %d kills a mutant needs; TLC and the rest are extras\n", minKills)
	if short {
		b.WriteString("- not run in -short: a mutant stops at the kills it needs, extras run in long mode\n")
	}
	fmt.Fprintf(&b, "%-24s", "mutation")
	for _, c := range columns {
		switch {
		case det[c]:
			c += "*"
		case c == "TLC":
			c += "(extra)"
		}
		fmt.Fprintf(&b, " %-11s", c)
	}
	b.WriteString(" kills (deterministic*)\n")
	// The cells run in parallel, Config.Jobs at once: each is a child
	// process whose verdict does not depend on the time it takes, so only
	// the step's wall time changes. A mutant's row runs its cells one after
	// another (-short stops at the kills the bar needs); the rows where
	// every cell runs (the real code's, every row in the full table) run
	// theirs at once. The table and the failures are reported in row
	// order, from this goroutine.
	rows := append([]string{"none"}, cfg.Mutations...)
	results := make([]rowResult, len(rows))
	times := &cellTimes{}
	cells := make(chan struct{}, cfg.jobs())
	var wg sync.WaitGroup
	for i, mutation := range rows {
		if cap(cells) == 1 { // one at a time, in the table's order
			results[i] = runRow(t, cfg, mutation, short, columns, det, cells, times)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = runRow(t, cfg, mutation, short, columns, det, cells, times)
		}()
	}
	wg.Wait()
	for _, r := range results {
		b.WriteString(r.table)
		for _, e := range r.errs {
			t.Errorf("%s", e)
		}
	}
	t.Logf("%s kill matrix: %d mutants\n%s", cfg.Component, len(cfg.Mutations), b.String())
	t.Logf("%s kill matrix: slowest cells (for the test command's budget; no verdict rests on them): %s",
		cfg.Component, times.slowest(5))
}

// cellTimes collects how long each cell's child process took, so that the
// matrix's log names the cells worth a cheaper killer (Config.Killers).
type cellTimes struct {
	mu sync.Mutex
	d  []cellTime
}

type cellTime struct {
	name string // "<mutation>/<checker>"
	d    time.Duration
}

func (c *cellTimes) add(name string, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.d = append(c.d, cellTime{name, d})
}

// slowest lists the n slowest cells, slowest first, and the total.
func (c *cellTimes) slowest(n int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ts := slices.Clone(c.d)
	slices.SortFunc(ts, func(a, b cellTime) int { return cmp.Compare(b.d, a.d) })
	var total time.Duration
	for _, x := range ts {
		total += x.d
	}
	var parts []string
	for _, x := range ts[:min(n, len(ts))] {
		parts = append(parts, fmt.Sprintf("%s %.1fs", x.name, x.d.Seconds()))
	}
	return fmt.Sprintf("%s (%d cells, %.1fs in all)", strings.Join(parts, ", "), len(ts), total.Seconds())
}

// rowResult is one row of the table and the failures it calls for.
type rowResult struct {
	table string
	errs  []string
}

// runRow runs mutation's row: TLC (outside -short) and the checkers, in
// -short only until the bar is met.
func runRow(t testing.TB, cfg Config, mutation string, short bool, columns []string, det map[string]bool, cells chan struct{}, times *cellTimes) rowResult {
	var r rowResult
	verdicts := map[string]Verdict{}
	var notes []string
	if short {
		verdicts["TLC"] = Spared
	} else {
		v, why, err := byTLC(cfg, mutation)
		if err != nil {
			r.errs = append(r.errs, err.Error())
		}
		verdicts["TLC"] = v
		if why != "" && v != NotRun { // n/a says only that no jar is here
			notes = append(notes, "TLC: "+why)
		}
	}
	order := cfg.Checkers
	if short {
		var errs []string
		order, errs = tryOrder(cfg, mutation)
		r.errs = append(r.errs, errs...)
	}
	// cell runs one cell when a slot is free and notes its verdict.
	var mu sync.Mutex
	caught := 0
	cell := func(name string) {
		cells <- struct{}{}
		start := time.Now()
		v, why := runCell(t, cfg, mutation, name)
		times.add(mutation+"/"+name, time.Since(start))
		<-cells
		mu.Lock()
		defer mu.Unlock()
		verdicts[name] = v
		if v.Caught() {
			caught++
		}
		if why != "" {
			notes = append(notes, name+": "+why)
		}
	}
	var wg sync.WaitGroup
	for _, c := range order {
		mu.Lock()
		spared := short && (!c.Deterministic || (mutation != "none" && caught >= minKills) ||
			(mutation == "none" && c.RealCodeElsewhere))
		if spared {
			verdicts[c.Name] = Spared
		}
		mu.Unlock()
		if spared {
			continue
		}
		if cap(cells) == 1 || short && mutation != "none" {
			cell(c.Name) // in -short, the next cell depends on this one's verdict
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); cell(c.Name) }()
	}
	wg.Wait()
	slices.SortStableFunc(notes, func(a, b string) int { return columnIndex(columns, a) - columnIndex(columns, b) })
	var b strings.Builder
	kills, detKills := 0, 0
	fmt.Fprintf(&b, "%-24s", mutation)
	for _, c := range columns {
		fmt.Fprintf(&b, " %-11s", verdicts[c])
		if verdicts[c].Caught() {
			kills++
			if det[c] {
				detKills++
			}
		}
	}
	fmt.Fprintf(&b, " %d (%d)\n", kills, detKills)
	for _, n := range notes {
		fmt.Fprintf(&b, "    %s\n", n)
	}
	r.table = b.String()
	switch {
	case mutation == "none" && kills > 0:
		r.errs = append(r.errs, fmt.Sprintf("the real %s fails a checker: a false alarm (%v)", cfg.Component, verdicts))
	case mutation != "none" && detKills < minKills:
		r.errs = append(r.errs, fmt.Sprintf("mutation %s caught by %d deterministic checkers, want at least %d (%v)", mutation, detKills, minKills, verdicts))
	}
	return r
}

// columnIndex is the column a note ("<checker>: why") is about, so that
// notes of cells run at once print in the table's order.
func columnIndex(columns []string, note string) int {
	name, _, _ := strings.Cut(note, ": ")
	return slices.Index(columns, name)
}

// tryOrder is the order -short tries the checkers in for mutation: its
// expected killers (Config.Killers) first, then the rest as listed.
func tryOrder(cfg Config, mutation string) (order []Checker, errs []string) {
	var first, rest []Checker
	want := map[string]bool{}
	for _, name := range cfg.Killers[mutation] {
		want[name] = true
	}
	for _, name := range cfg.Killers[mutation] {
		found := false
		for _, c := range cfg.Checkers {
			if c.Name == name {
				first, found = append(first, c), true
			}
		}
		if !found {
			errs = append(errs, fmt.Sprintf("%s kill matrix: Killers[%s] names no checker %q", cfg.Component, mutation, name))
		}
	}
	for _, c := range cfg.Checkers {
		if !want[c.Name] {
			rest = append(rest, c)
		}
	}
	return append(first, rest...), errs
}

func runCell(t testing.TB, cfg Config, mutation, checker string) (Verdict, string) {
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = 40 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := []string{"-test.run=^" + cfg.CellTest + "$", "-test.count=1", "-test.v"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), cellEnv+"="+mutation+"/"+checker,
		"SCHEDKIT_LINEARIZE_DIR="+t.TempDir(), "GOTRACEBACK=single")
	out, err := cmd.CombinedOutput()
	text := string(out)
	switch {
	case ctx.Err() != nil:
		return Hung, fmt.Sprintf("no end within %v", timeout)
	case strings.Contains(text, "--- SKIP: "+cfg.CellTest):
		return NotRun, ""
	case err == nil:
		return Survived, ""
	case strings.Contains(text, "caught: "):
		_, why, _ := strings.Cut(text, "caught: ")
		return Killed, firstLine(why)
	case strings.Contains(text, "panic: "):
		_, why, _ := strings.Cut(text, "panic: ")
		return Crashed, firstLine(why)
	}
	return Killed, firstLine(text)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(l) > 120 {
		l = l[:120] + "…"
	}
	return l
}

// byTLC checks the spec's mutant of the same name (for "none", the spec
// itself; <Spec>_long_mutant_<Name> where it is long mode's only): a
// mutant is caught when TLC rejects it, by its Expect name where it has
// one (the only-it re-run is the tlc step's, not this extra column's). No
// jar, or no such config, reads n/a.
func byTLC(cfg Config, mutation string) (Verdict, string, error) {
	c, err := tlc.NewChecker(2)
	if err != nil {
		return NotRun, err.Error(), nil
	}
	models, err := tlc.Models(filepath.FromSlash(cfg.TLADir))
	if err != nil {
		return NotRun, err.Error(), nil // the tlc step fails on a malformed config; this column is an extra
	}
	want, wantLong := cfg.Spec, ""
	if mutation != "none" {
		// A slow mutant's config may be long mode's only.
		want, wantLong = cfg.Spec+"_mutant_"+mutation, cfg.Spec+"_long_mutant_"+mutation
	}
	for _, m := range tlc.Select(models, true) {
		if m.Name != want && (wantLong == "" || m.Name != wantLong) {
			continue
		}
		r := c.Run(context.Background(), m)
		switch {
		case !r.ExpectReject && r.OK:
			return Survived, "", nil
		case !r.ExpectReject && r.Outcome.Rejects():
			return Killed, "violates " + r.Violated, nil // a false alarm on the real spec
		case r.OK:
			return Killed, "violates " + r.Violated, nil
		case r.Outcome.Rejects(): // by another name than its Expect line's
			return Survived, r.Reason, nil
		case r.Outcome == tlc.OutcomeOK:
			return Survived, "", nil
		}
		return NotRun, "", fmt.Errorf("TLC could not check %s: %s", m.Name, r.String())
	}
	return NotRun, "no " + want + ".cfg", nil
}

// A Scenario is one fixed, deterministic run aimed at the shape of one or
// more seeded mutations; a component's "scenarios" checker runs them all
// (RunScenarios) and its TestScenarios runs them against the real code.
type Scenario struct {
	Name    string
	Targets string       // the mutations whose shape it has
	Run     func() error // nil, or an error naming what broke
}

// ErrNeedsExplorer is what a scenario returns, wrapped or not, when it needs
// -tags schedcheck and the build lacks it: it is skipped, never failed.
var ErrNeedsExplorer = errors.New("needs -tags schedcheck")

// RunScenarios runs every scenario and returns the first failure, naming the
// scenario; one that needs the explorer in a build without it is skipped
// (and logged when t is not nil).
func RunScenarios(t testing.TB, ss []Scenario) error {
	for _, s := range ss {
		err := s.Run()
		if errors.Is(err, ErrNeedsExplorer) {
			if t != nil {
				t.Logf("scenario %s skipped: %v", s.Name, err)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("scenario %s: %w", s.Name, err)
		}
	}
	return nil
}

// TestScenarios runs each scenario as a subtest of t: the real code must
// pass every one.
func TestScenarios(t *testing.T, ss []Scenario) {
	for _, s := range ss {
		t.Run(s.Name, func(t *testing.T) {
			err := s.Run()
			if errors.Is(err, ErrNeedsExplorer) {
				t.Skip(err)
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
