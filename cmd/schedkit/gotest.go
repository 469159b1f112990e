package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// testResult is one top-level test of a `go test -json` run.
type testResult struct {
	Package string
	Test    string
	Passed  bool
	Skipped bool
	Passes  int      // subtests that passed (a fuzz target's seeds)
	Output  []string // its lines, subtests' included
}

// event is the subset of test2json's record that verify reads.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// parseTestJSON reads a `go test -json` stream and returns its top-level
// tests in the order they started, plus the packages that failed to build
// or failed outside any test.
func parseTestJSON(r io.Reader) (tests []*testResult, brokenPkgs []string, err error) {
	byKey := map[string]*testResult{}
	pkgOut := map[string][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue // build output that is not an event
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, nil, fmt.Errorf("go test -json: %w", err)
		}
		if e.Test == "" {
			switch e.Action {
			case "output":
				pkgOut[e.Package] = append(pkgOut[e.Package], e.Output)
			case "fail":
				brokenPkgs = append(brokenPkgs, e.Package)
			}
			continue
		}
		top, _, _ := strings.Cut(e.Test, "/")
		key := e.Package + "\x00" + top
		tr := byKey[key]
		if tr == nil {
			tr = &testResult{Package: e.Package, Test: top}
			byKey[key] = tr
			tests = append(tests, tr)
		}
		switch {
		case e.Action == "output":
			tr.Output = append(tr.Output, e.Output)
		case e.Test == top && e.Action == "pass":
			tr.Passed = true
		case e.Test == top && e.Action == "skip":
			tr.Skipped = true
		case e.Action == "pass":
			tr.Passes++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	// A package that fails with every test passing broke elsewhere (a build
	// error, TestMain, a leak check): keep it so it is not reported green.
	for _, p := range brokenPkgs {
		failedTest := false
		for _, t := range tests {
			if t.Package == p && !t.Passed && !t.Skipped {
				failedTest = true
			}
		}
		if !failedTest {
			tests = append(tests, &testResult{Package: p, Test: "(package)", Output: pkgOut[p]})
		}
	}
	return tests, brokenPkgs, nil
}

// findCount returns the sum of the numbers re captures in the output, or ""
// when it captures none.
func findCount(out []string, re *regexp.Regexp) string {
	sum, found := 0, false
	for _, l := range out {
		for _, m := range re.FindAllStringSubmatch(l, -1) {
			if n, err := strconv.Atoi(m[1]); err == nil {
				sum += n
				found = true
			}
		}
	}
	if !found {
		return ""
	}
	return strconv.Itoa(sum)
}

// logBlock returns the lines that follow the log line holding marker,
// up to the next line that is not indented deeper than tests' log lines:
// a multi-line t.Logf such as the kill matrix.
func logBlock(out []string, marker string) []string {
	var block []string
	in := false
	for _, l := range out {
		switch {
		case strings.Contains(l, marker):
			in = true
		case in && strings.HasPrefix(l, "        "):
			block = append(block, strings.TrimPrefix(strings.TrimRight(l, "\n"), "        "))
		case in:
			return block
		}
	}
	return block
}
