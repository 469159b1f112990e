package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// row is one line of verify's table.
type row struct {
	component string
	check     string
	result    string // "pass", "FAIL" or "skipped: why"
	explored  string
}

func (r row) failed() bool { return r.result == "FAIL" }

// matrix is a component's kill matrix, as its test logged it.
type matrix struct {
	component string
	lines     []string
}

const verifyAbout = `usage: schedkit verify [-long] [-run PATTERN] [-list] [-json] [-race=false] [-tla=false] [-workers n]

Runs every check of the ladder (go vet, the unit and property tests under
the race detector, the explorer and the kill matrices, TLC on every spec
and mutant) and prints one row per check: COMPONENT CHECK RESULT EXPLORED,
then the kill matrices. A line per step and per package goes to stderr as
it finishes. Exits 1 when a check fails.

-run PATTERN keeps the rows whose "component check" matches the regexp,
and runs only the packages, tests and TLC models that can make such a row
(read from the test sources: -run '^lfq unit' runs lfq's unit tests, not
its stress tests, the fuzz package, the explorer or the kill matrix).
-list prints the rows, one "component check" a line (what -run matches),
and exits without building or running anything.
-json writes the rows to stdout as JSON Lines, one object a row:
{"component":"lfq","check":"unit","result":"pass","explored":"12 tests"}
("result" is "pass", "FAIL" or "skipped: why"); no table, no matrices.`

const verifyExample = `  go run ./cmd/schedkit verify                         # everything (minutes)
  go run ./cmd/schedkit verify -list                   # the rows, for -run
  go run ./cmd/schedkit verify -run '^lfq ' -tla=false  # lfq's rows only
  go run ./cmd/schedkit verify -run 'TLA\+ Ring\b' -json  # the Ring spec's TLC rows, for machines`

// rowJSON is a row as -json writes it.
type rowJSON struct {
	Component string `json:"component"`
	Check     string `json:"check"`
	Result    string `json:"result"`
	Explored  string `json:"explored"`
}

// selector is -run: which rows, packages and TLC models verify keeps.
type selector struct{ re *regexp.Regexp }

func (s selector) row(r row) bool { return s.match(r.component, r.check) }

func (s selector) match(component, check string) bool {
	return s.re == nil || s.re.MatchString(component+" "+check)
}

// failures keeps the failed tests whose row -run keeps: a package runs
// whole, and a failure in a row not asked about is not shown.
func (s selector) failures(fs []*testResult, tags string) []*testResult {
	var kept []*testResult
	for _, f := range fs {
		if fr, _ := testRows([]*testResult{f}, tags); len(fr) == 1 && s.row(fr[0]) {
			kept = append(kept, f)
		}
	}
	return kept
}

// pkg reports whether a package tested in a pass built with tags can make
// a row -run keeps: some component it reports under, with the unit row or
// a rung that applies to it.
func (s selector) pkg(pkg, tags string) bool {
	if s.re == nil {
		return true
	}
	comps := []string{components[pkg]}
	switch {
	case isComponentPkg(pkg):
		comps = []string{pkg}
	case pkg == "fuzz":
		comps = []string{"fuzz decoder"}
		for _, p := range componentPrefixes {
			comps = append(comps, p.component)
		}
	case comps[0] == "":
		comps = []string{pkg}
	}
	checks := []string{"unit"}
	if tags != "" {
		checks = []string{"unit (-tags " + tags + ")"}
	}
	for _, c := range goChecks {
		if c.tags == tags && (c.pkg == pkg || c.pkg == "*" && isComponentPkg(pkg)) {
			checks = append(checks, c.check)
		}
	}
	for _, comp := range comps {
		for _, check := range checks {
			if s.match(comp, check) {
				return true
			}
		}
	}
	return false
}

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify", verifyAbout, verifyExample, stdout)
	long := fs.Bool("long", false, "long mode: stress tests of a million items each; minutes of the executor's real-time checks; TLC's _long models and the only-it re-run of mutants")
	race := fs.Bool("race", true, "run the tests under the race detector")
	tla := fs.Bool("tla", true, "run TLC on every spec and mutant when tla2tools.jar is found")
	workers := fs.Int("workers", 2, "TLC worker threads")
	runPat := fs.String("run", "", "keep only the rows whose \"component check\" matches this regexp (and run only what can make them)")
	asJSON := fs.Bool("json", false, "write the rows as JSON Lines (one object a row) instead of the table")
	list := fs.Bool("list", false, "print the rows verify can make (with -run: those it keeps), one \"component check\" a line, and exit: nothing is built or run")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *workers < 0 {
		fmt.Fprintf(stderr, "schedkit verify: -workers %d: want 1 or more TLC worker threads, or 0 for one per CPU\n", *workers)
		return 2
	}
	var sel selector
	if *runPat != "" {
		re, err := regexp.Compile(*runPat)
		if err != nil {
			fmt.Fprintf(stderr, "schedkit verify: -run %q: %v (a Go regexp, matched against \"component check\")\n", *runPat, err)
			return 2
		}
		sel.re = re
	}

	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(stderr, "schedkit verify:", err)
		return 1
	}
	ctx := context.Background()
	var rows []row
	say := func(format string, args ...any) { fmt.Fprintf(stderr, "verify: "+format+"\n", args...) }

	if sel.match("all", "go vet") && !*list {
		say("go vet ./...")
		vet := row{component: "all", check: "go vet", result: "pass"}
		if out, err := goCmd(ctx, root, nil, "vet", "./..."); err != nil {
			vet.result = "FAIL"
			stderr.Write(out)
		}
		say("  go vet: %s", vet.result)
		rows = append(rows, vet)
	}

	pkgs, err := listPackages(ctx, root)
	if err != nil {
		fmt.Fprintln(stderr, "schedkit verify:", err)
		return 1
	}
	plans := planPasses(root, pkgs, sel, *race)
	if *list {
		return listRows(stdout, stderr, filepath.Join(root, tlaDir), plans, sel, *tla, *long, *runPat)
	}
	var failures []*testResult
	var matrices []matrix
	for k, p := range plans {
		sel2 := p.pkgs
		args := []string{"test", "-json", "-count=1", "-timeout", verifyTimeout}
		if p.race && *race {
			args = append(args, "-race")
		}
		if p.tags != "" {
			args = append(args, "-tags", p.tags)
		}
		if p.run != "" {
			args = append(args, "-run", p.run)
		}
		if !*long {
			args = append(args, "-short")
		}
		what := strings.Join(sel2, " ")
		if len(sel2) > 3 {
			what = strconv.Itoa(len(sel2)) + " packages"
		}
		say("%s", passLine(k, len(plans), args, what))
		pp := &passProgress{total: len(sel2), say: say, now: time.Now}
		stop := pp.heartbeat(30 * time.Second)
		out, _ := goCmd(ctx, root, pp.line, append(args, sel2...)...) // failures show up in the events
		stop()
		tests, _, err := parseTestJSON(bytes.NewReader(out))
		if err != nil {
			fmt.Fprintln(stderr, "schedkit verify:", err)
			return 1
		}
		passRows, passFailures := testRows(tests, p.tags)
		for _, r := range passRows {
			if sel.row(r) {
				rows = append(rows, r)
			}
		}
		failures = append(failures, sel.failures(passFailures, p.tags)...)
		for _, m := range killMatrices(tests) {
			if sel.match(m.component, "seeded mutants killed by >= 2 deterministic checkers") {
				matrices = append(matrices, m)
			}
		}
	}

	if *tla {
		o := tlaOptions{workers: *workers, long: *long, only: onlyDefault(*long), sel: sel,
			progress: func(format string, args ...any) { say(format, args...) }}
		for _, r := range tlaRows(ctx, root, o) {
			if sel.row(r) {
				rows = append(rows, r)
			}
		}
	}

	slices.SortStableFunc(rows, func(a, b row) int { return rank(a.component) - rank(b.component) })
	if len(rows) == 0 {
		fmt.Fprintf(stderr, "schedkit verify: -run %q matches no check: try a component (lfq, executor) or a check (unit, TLA+)\n", *runPat)
		return 2
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range rows {
			_ = enc.Encode(rowJSON{r.component, r.check, r.result, r.explored})
		}
	} else {
		printTable(stdout, rows)
		for _, m := range matrices {
			fmt.Fprintf(stdout, "\n%s kill matrix (a mutant is caught when killed, crashed or hung; only the columns marked * count\n"+
				"towards the two kills it needs, TLC and the other columns are extras):\n", m.component)
			for _, l := range m.lines {
				fmt.Fprintln(stdout, "  "+l)
			}
		}
		if len(matrices) > 0 {
			fmt.Fprintln(stdout)
		}
	}
	failed := 0
	for _, r := range rows {
		if r.failed() {
			failed++
		}
	}
	for _, f := range failures {
		fmt.Fprintf(stderr, "\n--- %s %s\n%s", f.Package, f.Test, strings.Join(f.Output, ""))
	}
	summary := stdout
	if *asJSON {
		summary = stderr // stdout holds only JSON
	}
	if failed > 0 {
		fmt.Fprintf(summary, "verify: %d of %d checks failed\n", failed, len(rows))
		return 1
	}
	fmt.Fprintf(summary, "verify: all %d checks passed\n", len(rows))
	return 0
}

// passProgress says, for one `go test -json` pass, each package as it
// ends, and which are still running when none ended for a while: a pass
// takes minutes, and a newcomer should not wait in silence.
type passProgress struct {
	mu      sync.Mutex
	total   int
	done    int
	running map[string]time.Time // started, not ended
	last    time.Time            // the last line said
	say     func(format string, args ...any)
	now     func() time.Time
}

// line reads one line of the stream.
func (p *passProgress) line(b []byte) {
	pkg, action, secs, ok := packageEvent(b)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running == nil {
		p.running = map[string]time.Time{}
	}
	if action == "start" {
		p.running[pkg] = p.now()
		return
	}
	delete(p.running, pkg)
	p.done++
	p.last = p.now()
	p.say("  [%d/%d] %-22s %s %.1fs", p.done, p.total, pkg, action, secs)
}

// tick says which packages are still running if nothing was said for
// quiet.
func (p *passProgress) tick(quiet time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if len(p.running) == 0 || now.Sub(p.last) < quiet {
		return
	}
	names := make([]string, 0, len(p.running))
	for pkg, since := range p.running {
		names = append(names, fmt.Sprintf("%s (%ds)", pkg, int(now.Sub(since).Seconds())))
	}
	slices.Sort(names)
	p.last = now
	p.say("  still running: %s", strings.Join(names, ", "))
}

// heartbeat calls tick every period until the returned func is called.
func (p *passProgress) heartbeat(period time.Duration) (stop func()) {
	p.mu.Lock()
	p.last = p.now()
	p.mu.Unlock()
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.tick(period)
			}
		}
	}()
	return func() { close(done); <-ended }
}

// packageEvent reads a package's start or end (pass, fail, skip) from a
// `go test -json` line: action is "start", "ok", "FAIL" or "no tests".
func packageEvent(line []byte) (pkg, action string, secs float64, ok bool) {
	var e struct {
		Action  string
		Package string
		Test    string
		Elapsed float64
	}
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil || e.Test != "" {
		return "", "", 0, false
	}
	switch e.Action {
	case "pass":
		action = "ok"
	case "fail":
		action = "FAIL"
	case "skip":
		action = "no tests"
	case "start":
		action = "start"
	default:
		return "", "", 0, false
	}
	return strings.TrimPrefix(e.Package, modulePath+"/"), action, e.Elapsed, true
}

// testRows groups the tests of one pass, built with tags, into the
// ladder's rows and returns the tests that failed.
func testRows(tests []*testResult, tags string) ([]row, []*testResult) {
	type acc struct {
		row
		n      int
		counts []string
	}
	var order []string
	accs := map[string]*acc{}
	var failures []*testResult
	for _, t := range tests {
		pkg := strings.TrimPrefix(t.Package, modulePath+"/")
		if pkg == t.Package && t.Package == modulePath {
			pkg = "."
		}
		comp, check, unit, count := components[pkg], "unit", "tests", ""
		if isComponentPkg(pkg) {
			comp = pkg
		}
		if comp == "" {
			comp = pkg
		}
		if tags != "" {
			check = "unit (-tags " + tags + ")"
		}
		for _, c := range goChecks {
			if c.tags != tags || !c.tests.MatchString(t.Test) ||
				!(c.pkg == pkg || c.pkg == "*" && isComponentPkg(pkg)) {
				continue
			}
			check, unit = c.check, c.unit
			if pkg == "fuzz" {
				comp = fuzzComponent(t.Test)
			}
			if c.count != nil {
				count = findCount(t.Output, c.count)
			} else if c.unit == "seeds" {
				count = strconv.Itoa(t.Passes)
			}
			break
		}
		key := comp + "\x00" + check
		a := accs[key]
		if a == nil {
			a = &acc{row: row{component: comp, check: check, result: "pass", explored: unit}}
			accs[key] = a
			order = append(order, key)
		}
		switch {
		case t.Skipped && !t.Passed:
			if a.result == "pass" && a.n == 0 {
				a.result = "skipped: " + skipReason(t.Output)
			}
			continue
		case !t.Passed:
			a.result = "FAIL"
			failures = append(failures, t)
		case strings.HasPrefix(a.result, "skipped"):
			a.result = "pass"
		}
		a.n++
		if count != "" {
			a.counts = append(a.counts, count)
		}
	}
	rows := make([]row, 0, len(order))
	for _, k := range order {
		a := accs[k]
		switch {
		case len(a.counts) > 0:
			a.explored = plural(strings.Join(a.counts, "+"), a.explored)
		default:
			a.explored = plural(strconv.Itoa(a.n), a.explored)
		}
		rows = append(rows, a.row)
	}
	return rows, failures
}

// fuzzComponent names the component a fuzz target or its checker test
// exercises, by the target's name: FuzzRing, FuzzRingSchedule and
// TestFuzzRingCatches... are lfq's.
func fuzzComponent(test string) string {
	name := strings.TrimPrefix(strings.TrimPrefix(test, "Test"), "Fuzz")
	if comp := componentOf(name); comp != "" {
		return comp
	}
	return "fuzz decoder"
}

// killMatrixRE finds the line a kill matrix starts with in a test's log.
var killMatrixRE = regexp.MustCompile(`(\w+) kill matrix: \d+ mutants`)

// killMatrices returns every kill matrix the tests logged, whichever
// component (or new column) it is: the table is printed as logged.
func killMatrices(tests []*testResult) []matrix {
	var ms []matrix
	for _, t := range tests {
		for _, l := range t.Output {
			m := killMatrixRE.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			if b := logBlock(t.Output, m[1]+" kill matrix:"); len(b) > 0 {
				ms = append(ms, matrix{m[1], b})
			}
		}
	}
	return ms
}

// listPackages lists the module's packages relative to its root, broken
// ones included (go test then reports them as failures).
func listPackages(ctx context.Context, root string) ([]string, error) {
	out, err := goCmd(ctx, root, nil, "list", "-e", "-f", "{{.ImportPath}}", "./...")
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, out)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if rel, ok := strings.CutPrefix(p, modulePath+"/"); ok {
			pkgs = append(pkgs, rel)
		} else if p == modulePath {
			pkgs = append(pkgs, ".")
		}
	}
	return pkgs, nil
}

// rank orders components as componentOrder does, unknown ones last.
func rank(component string) int {
	if i := slices.Index(componentOrder, component); i >= 0 {
		return i
	}
	return len(componentOrder)
}

// plural writes "1 test", "2 tests": units are given in the plural.
func plural(n string, unit string) string {
	if n == "1" {
		unit = strings.TrimSuffix(unit, "s")
	}
	return n + " " + unit
}

func skipReason(out []string) string {
	for _, l := range out {
		if _, after, ok := strings.Cut(l, ": "); ok && !strings.HasPrefix(strings.TrimSpace(l), "---") && !strings.HasPrefix(l, "=== ") {
			return strings.TrimSpace(after)
		}
	}
	return "no reason given"
}

func printTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COMPONENT\tCHECK\tRESULT\tEXPLORED")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.component, r.check, r.result, r.explored)
	}
	tw.Flush()
}

const modulePath = "github.com/schedkit/schedkit"

// moduleRoot finds the schedkit module's directory through the go command,
// so verify works from any directory inside the checkout.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", modulePath).Output()
	if err != nil {
		return "", fmt.Errorf("run verify inside the schedkit checkout (go list -m: %v)", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// goCmd runs the go command in dir and returns its combined output. If
// line is not nil, it sees each line of stdout as it comes.
func goCmd(ctx context.Context, dir string, line func([]byte), args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Hour) // long mode: kill matrices in full, bound-3 exploration
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var buf lockedBuffer
	cmd.Stderr = &buf
	if line == nil {
		cmd.Stdout = &buf
		err := cmd.Run()
		return buf.Bytes(), err
	}
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			b := sc.Bytes()
			line(b)
			buf.Write(append(b, '\n'))
		}
		_, _ = io.Copy(&buf, pr) // a line past the scanner's limit: keep the rest
	}()
	err := cmd.Run()
	pw.Close()
	<-scanned
	return buf.Bytes(), err
}

// lockedBuffer is a bytes.Buffer that stdout's reader and the command's
// stderr may write at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Bytes()
}

// verifyTimeout is go test's -timeout for verify's passes: a kill matrix
// runs many child processes and long mode explores at bound 3, and
// compares DPOR with unbounded DFS on every component scenario (43 minutes
// in one run on 2 vCPUs under load): go test's 10-minute default is too
// short for any of them.
const verifyTimeout = "150m"
