package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/schedkit/schedkit/internal/tlc"
)

// testFuncs lists the top-level tests, fuzz targets and examples of the
// package pkg (relative to root) that a `go test` built with tags (and
// -race) compiles, by reading its _test.go files: verify plans with it
// which tests a -run pattern needs, and -list names the rows, before
// anything is built.
func testFuncs(root, pkg, tags string, race bool) ([]string, error) {
	ctx := build.Default
	ctx.BuildTags = nil
	if tags != "" {
		ctx.BuildTags = strings.Split(tags, ",")
	}
	if race {
		ctx.BuildTags = append(ctx.BuildTags, "race")
	}
	dir := filepath.Join(root, pkg)
	bp, err := ctx.ImportDir(dir, 0)
	var noGo *build.NoGoError
	if err != nil && !errors.As(err, &noGo) {
		return nil, err
	}
	var names []string
	fset := token.NewFileSet()
	for _, f := range append(slices.Clone(bp.TestGoFiles), bp.XTestGoFiles...) {
		file, err := parser.ParseFile(fset, filepath.Join(dir, f), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if ok && fn.Recv == nil && isTestFunc(fn.Name.Name) {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names, nil
}

// isTestFunc reports whether name is one go test runs: TestXxx, FuzzXxx or
// ExampleXxx, where Xxx does not start with a lower-case letter, but
// TestMain.
func isTestFunc(name string) bool {
	if name == "TestMain" {
		return false
	}
	for _, prefix := range []string{"Test", "Fuzz", "Example"} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			if rest == "" {
				return true // Test, Fuzz and Example alone are valid names too
			}
			r, _ := utf8.DecodeRuneInString(rest)
			return !unicode.IsLower(r)
		}
	}
	return false
}

// plannedPass is one `go test` run verify will make: a goPass narrowed to
// the packages and tests that can make a row -run keeps.
type plannedPass struct {
	goPass
	pkgs []string // "./lfq"
	run  string   // the -run pattern: the pass's own, or the tests a kept row needs
	rows []row    // the rows it can make (component and check; no result)
}

// planPasses decides, for each pass, which packages and tests to run: with
// no -run, every package the pass covers and its own -run; with one, only
// the tests whose row -run keeps (read from the sources by testFuncs), and
// no pass at all where none is left. A package whose sources cannot be read
// is run whole, as before planning, if it can make a kept row at all.
func planPasses(root string, pkgs []string, sel selector, race bool) []plannedPass {
	var plans []plannedPass
	for _, p := range goPasses {
		var within *regexp.Regexp
		if p.run != "" {
			within = regexp.MustCompile(p.run)
		}
		plan := plannedPass{goPass: p, run: p.run}
		var names []string
		whole := false
		seen := map[string]bool{}
		for _, pkg := range pkgs {
			if !p.pkgs(pkg) {
				continue
			}
			funcs, err := testFuncs(root, pkg, p.tags, p.race && race)
			if err != nil {
				if sel.pkg(pkg, p.tags) {
					plan.pkgs = append(plan.pkgs, "./"+pkg)
					whole = true
				}
				continue
			}
			kept := false
			for _, name := range funcs {
				if within != nil && !within.MatchString(name) {
					continue
				}
				importPath := modulePath + "/" + pkg
				if pkg == "." {
					importPath = modulePath
				}
				rs, _ := testRows([]*testResult{{Package: importPath, Test: name, Passed: true}}, p.tags)
				r := row{component: rs[0].component, check: rs[0].check}
				if !sel.row(r) {
					continue
				}
				kept = true
				if !slices.Contains(names, name) {
					names = append(names, name)
				}
				if key := r.component + "\x00" + r.check; !seen[key] {
					seen[key] = true
					plan.rows = append(plan.rows, r)
				}
			}
			if kept || sel.re == nil {
				plan.pkgs = append(plan.pkgs, "./"+pkg)
			}
		}
		if len(plan.pkgs) == 0 {
			continue
		}
		if sel.re != nil && !whole {
			slices.Sort(names)
			plan.run = "^(" + strings.Join(names, "|") + ")$"
		}
		plans = append(plans, plan)
	}
	return plans
}

// passLine is the progress line that starts pass k (from 0) of n: only the
// passes that run are counted.
func passLine(k, n int, args []string, what string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = a
		if strings.ContainsAny(a, "^$()|*\\ ") { // a -run pattern: paste-able into a shell
			quoted[i] = "'" + a + "'"
		}
	}
	return fmt.Sprintf("pass %d of %d: go %s %s", k+1, n, strings.Join(quoted, " "), what)
}

// listRows is verify -list: every row the plans, go vet and the TLC models
// of the mode in specs can make, -run applied, one "component check" a line in the
// table's order. 2 when -run keeps none, as verify does.
func listRows(stdout, stderr io.Writer, specs string, plans []plannedPass, sel selector, tla, long bool, pattern string) int {
	var rows []row
	code := 0
	if sel.match("all", "go vet") {
		rows = append(rows, row{component: "all", check: "go vet"})
	}
	for _, p := range plans {
		rows = append(rows, p.rows...)
	}
	if tla {
		ms, err := tlc.Models(specs)
		if err != nil { // verify would make a failed "all TLA+ (TLC)" row
			fmt.Fprintln(stderr, "schedkit verify: -list: the TLC models are left out:", err)
			code = 1
		}
		for _, m := range tlc.Select(ms, long) {
			r := tlaRow(tlc.Result{Spec: m.Spec, Mutant: m.Mutant, Long: m.Long, Expect: m.Expect,
				ExpectReject: m.ExpectReject(), OK: true})
			if m.ExpectReject() && m.Expect != "" && onlyDefault(long) {
				r.check += " only"
			}
			if sel.row(r) {
				rows = append(rows, r)
			}
		}
	}
	if len(rows) == 0 {
		fmt.Fprintf(stderr, "schedkit verify: -run %q matches no check: try a component (lfq, executor) or a check (unit, TLA+)\n", pattern)
		return 2
	}
	slices.SortStableFunc(rows, func(a, b row) int { return rank(a.component) - rank(b.component) })
	for _, r := range rows {
		fmt.Fprintln(stdout, r.component+" "+r.check)
	}
	return code
}
