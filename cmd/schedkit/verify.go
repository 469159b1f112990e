package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

func runVerify(args []string) int {
	fs := flag.NewFlagSet("verify", flag.ExitOnError)
	long := fs.Bool("long", false, "long mode: stress tests of a million items each; TLC's _long models and the only-it re-run of mutants")
	race := fs.Bool("race", true, "run the tests under the race detector")
	tla := fs.Bool("tla", true, "run TLC on every spec and mutant when tla2tools.jar is found")
	workers := fs.Int("workers", 2, "TLC worker threads")
	_ = fs.Parse(args)

	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "schedkit verify:", err)
		return 1
	}
	ctx := context.Background()
	var rows []row

	vet := row{component: "all", check: "go vet", result: "pass"}
	if out, err := goCmd(ctx, root, "vet", "./..."); err != nil {
		vet.result = "FAIL"
		os.Stderr.Write(out)
	}
	rows = append(rows, vet)

	pkgs, err := listPackages(ctx, root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "schedkit verify:", err)
		return 1
	}
	var failures []*testResult
	var matrices []matrix
	for _, p := range goPasses {
		var sel []string
		for _, pkg := range pkgs {
			if p.pkgs(pkg) {
				sel = append(sel, "./"+pkg)
			}
		}
		if len(sel) == 0 {
			continue
		}
		args := []string{"test", "-json", "-count=1"}
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
		out, _ := goCmd(ctx, root, append(args, sel...)...) // failures show up in the events
		tests, _, err := parseTestJSON(bytes.NewReader(out))
		if err != nil {
			fmt.Fprintln(os.Stderr, "schedkit verify:", err)
			return 1
		}
		passRows, passFailures := testRows(tests, p.tags)
		rows = append(rows, passRows...)
		failures = append(failures, passFailures...)
		matrices = append(matrices, killMatrices(tests)...)
	}

	if *tla {
		rows = append(rows, tlaRows(ctx, root, tlaOptions{workers: *workers, long: *long, only: onlyDefault(*long)})...)
	}

	slices.SortStableFunc(rows, func(a, b row) int { return rank(a.component) - rank(b.component) })
	printTable(os.Stdout, rows)
	for _, m := range matrices {
		fmt.Printf("\n%s kill matrix (a mutant is caught when killed, crashed or hung; only the columns marked * count\n"+
			"towards the two kills it needs, TLC and the other columns are extras):\n", m.component)
		for _, l := range m.lines {
			fmt.Println("  " + l)
		}
	}
	if len(matrices) > 0 {
		fmt.Println()
	}
	failed := 0
	for _, r := range rows {
		if r.failed() {
			failed++
		}
	}
	for _, f := range failures {
		fmt.Fprintf(os.Stderr, "\n--- %s %s\n%s", f.Package, f.Test, strings.Join(f.Output, ""))
	}
	if failed > 0 {
		fmt.Printf("verify: %d of %d checks failed\n", failed, len(rows))
		return 1
	}
	fmt.Printf("verify: all %d checks passed\n", len(rows))
	return 0
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
	out, err := goCmd(ctx, root, "list", "-e", "-f", "{{.ImportPath}}", "./...")
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

// goCmd runs the go command in dir and returns its combined output.
func goCmd(ctx context.Context, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return buf.Bytes(), err
}
