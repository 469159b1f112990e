package killmatrix_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/internal/tlc"
)

// A fake component: "strong" is caught by both deterministic checkers,
// "weak" by one, "flaky" by one deterministic checker and the timing-dependent
// one (not enough), and "crash" panics in the harness. TLADir has no specs, so
// TLC reads n/a.
var current = "none"

func set(name string) (func(), error) {
	switch name {
	case "none", "strong", "weak", "flaky", "crash", "hang":
		old := current
		current = name
		return func() { current = old }, nil
	}
	return nil, fmt.Errorf("no mutation %q", name)
}

func cfg(mutations ...string) killmatrix.Config {
	return killmatrix.Config{
		Component: "fake",
		CellTest:  "TestFakeCell",
		Spec:      "Fake",
		TLADir:    "no-specs-here",
		Mutations: mutations,
		Set:       set,
		Checkers: []killmatrix.Checker{
			{Name: "a", Deterministic: true, Run: func(*testing.T) error {
				logCell("a")
				switch current {
				case "crash":
					panic("harness broke")
				case "hang":
					for { // spins past the cell's timeout
						time.Sleep(10 * time.Millisecond)
					}
				}
				if current != "none" {
					return errors.New("a saw it")
				}
				return nil
			}},
			{Name: "b", Deterministic: true, Run: func(*testing.T) error {
				logCell("b")
				if current == "strong" {
					return errors.New("b saw it")
				}
				return nil
			}},
			// alarm fails the real code when the parent asks it to, through
			// the environment a cell inherits.
			{Name: "alarm", Run: func(*testing.T) error {
				if os.Getenv("FAKE_KILLMATRIX_ALARM") != "" {
					return errors.New("alarm rang")
				}
				return nil
			}},
			{Name: "timing", Run: func(*testing.T) error {
				if current == "flaky" {
					return errors.New("timing saw it")
				}
				return nil
			}},
		},
	}
}

// logCell appends a deterministic checker's name to the file named by
// FAKE_KILLMATRIX_LOG, if set, so a test can see the order cells ran in.
func logCell(name string) {
	if p := os.Getenv("FAKE_KILLMATRIX_LOG"); p != "" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s/%s\n", current, name)
			f.Close()
		}
	}
}

func TestFakeCell(t *testing.T) { killmatrix.Cell(t, cfg()) }

// recorder keeps what Run reports instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
	logs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func TestRunPassesWhenEveryMutantIsCaughtTwice(t *testing.T) {
	t.Setenv(killmatrix.FullEnv, "1")
	rec := &recorder{TB: t}
	killmatrix.Run(rec, cfg("strong"))
	assert.Empty(t, rec.errs)
	assert.Contains(t, strings.Join(rec.logs, ""), "fake kill matrix: 1 mutants")
}

func TestRunFailsAMutantCaughtOnce(t *testing.T) {
	t.Setenv(killmatrix.FullEnv, "1")
	rec := &recorder{TB: t}
	killmatrix.Run(rec, cfg("strong", "weak"))
	assert.Len(t, rec.errs, 1)
	assert.Contains(t, strings.Join(rec.errs, ""), "mutation weak caught by 1 deterministic checkers")
}

func TestRunDoesNotCountATimingDependentKill(t *testing.T) {
	t.Setenv(killmatrix.FullEnv, "1")
	rec := &recorder{TB: t}
	killmatrix.Run(rec, cfg("flaky"))
	assert.Len(t, rec.errs, 1)
	assert.Contains(t, strings.Join(rec.errs, ""), "mutation flaky caught by 1 deterministic checkers")
	assert.Contains(t, strings.Join(rec.logs, ""), "2 (1)")
}

func TestRunCountsACrashAsCaught(t *testing.T) {
	t.Setenv(killmatrix.FullEnv, "1")
	rec := &recorder{TB: t}
	killmatrix.Run(rec, cfg("crash"))
	assert.Len(t, rec.errs, 1, "crash is caught by a only: once")
	matrix := strings.Join(rec.logs, "")
	assert.Contains(t, matrix, "crashed")
	assert.Contains(t, matrix, "harness broke")
}

func TestRunMarksTLCAsAnExtra(t *testing.T) {
	t.Setenv(killmatrix.FullEnv, "1")
	rec := &recorder{TB: t}
	killmatrix.Run(rec, cfg("strong"))
	matrix := strings.Join(rec.logs, "")
	assert.Contains(t, matrix, "TLC(extra)")
	assert.Contains(t, matrix, "a*")
	assert.Contains(t, matrix, "only these columns count towards the 2 kills")
	assert.NotContains(t, matrix, "timing*", "an unmarked checker is no deterministic column")
}

// fakeSpec is a spec whose mutant config "weak" TLC rejects.
const fakeSpec = `---- MODULE Fake ----
EXTENDS Naturals
CONSTANT Limit
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % Limit
Small == x < 2
====
`

// TestRunDoesNotCountATLCKill gives "weak" (one deterministic kill) a TLC
// kill too: the matrix still fails it, because TLC is an extra. Skipped
// without the jar or java.
func TestRunDoesNotCountATLCKill(t *testing.T) {
	t.Setenv(killmatrix.FullEnv, "1")
	if _, err := tlc.NewChecker(1); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	for name, body := range map[string]string{
		"Fake.tla":             fakeSpec,
		"Fake.cfg":             "CONSTANT Limit = 2\nINIT Init\nNEXT Next\nINVARIANT Small\n",
		"Fake_mutant_weak.cfg": "\\* Expect: Small\nCONSTANT Limit = 3\nINIT Init\nNEXT Next\nINVARIANT Small\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := cfg("weak")
	c.TLADir = dir
	rec := &recorder{TB: t}
	killmatrix.Run(rec, c)
	matrix := strings.Join(rec.logs, "")
	t.Log(matrix)
	assert.Contains(t, matrix, "TLC: violates Small")
	assert.Contains(t, matrix, "2 (1)", "two kills, one of them deterministic")
	assert.Len(t, rec.errs, 1)
	assert.Contains(t, strings.Join(rec.errs, ""), "mutation weak caught by 1 deterministic checkers")
}

func TestRunCountsAHangAsCaught(t *testing.T) {
	c := cfg("hang")
	c.Timeout = 3 * time.Second
	rec := &recorder{TB: t}
	killmatrix.Run(rec, c)
	matrix := strings.Join(rec.logs, "")
	assert.Contains(t, matrix, "hung")
	assert.Contains(t, matrix, "no end within 3s")
	assert.Len(t, rec.errs, 1, "hang is caught by a only: once")
}

func TestRunFailsAFalseAlarmOnTheRealCode(t *testing.T) {
	t.Setenv(killmatrix.FullEnv, "1")
	t.Setenv("FAKE_KILLMATRIX_ALARM", "1")
	rec := &recorder{TB: t}
	killmatrix.Run(rec, cfg())
	assert.Len(t, rec.errs, 1)
	assert.Contains(t, strings.Join(rec.errs, ""), "the real fake fails a checker: a false alarm")
}

// In -short mode a mutant stops at its second deterministic kill and the
// extras are spared, while the real code still meets every deterministic
// checker; the bar is judged the same.
func TestShortStopsAtTheKillsTheBarNeeds(t *testing.T) {
	if !testing.Short() {
		t.Skip("-short mode only")
	}
	rec := &recorder{TB: t}
	killmatrix.Run(rec, cfg("strong", "weak"))
	matrix := strings.Join(rec.logs, "")
	assert.Len(t, rec.errs, 1, matrix)
	assert.Contains(t, strings.Join(rec.errs, ""), "mutation weak caught by 1 deterministic checkers")
	assert.Regexp(t, `strong\s+-\s+killed\s+killed\s+-\s+-\s+2 \(2\)`, matrix)
	assert.Regexp(t, `none\s+-\s+survived\s+survived\s+-\s+-\s+0 \(0\)`, matrix)
}

// Under -short a mutant's expected killers (Config.Killers) run before the
// other columns; the real code still meets every deterministic checker in
// order, and a name that is no checker is an error.
func TestShortTriesTheExpectedKillersFirst(t *testing.T) {
	if !testing.Short() {
		t.Skip("-short mode only")
	}
	log := filepath.Join(t.TempDir(), "cells")
	t.Setenv("FAKE_KILLMATRIX_LOG", log)
	c := cfg("strong")
	c.Jobs = 1 // one row at a time: the log's order is the rows' too
	c.Killers = map[string][]string{"strong": {"b", "a"}}
	rec := &recorder{TB: t}
	killmatrix.Run(rec, c)
	assert.Empty(t, rec.errs)
	got, err := os.ReadFile(log)
	assert.NoError(t, err)
	assert.Equal(t, "none/a\nnone/b\nstrong/b\nstrong/a\n", string(got))

	// b's verdict on the real code is had elsewhere: -short spares it there
	// only, and still tries it on the mutant.
	assert.NoError(t, os.Remove(log))
	c.Checkers[1].RealCodeElsewhere = true
	rec = &recorder{TB: t}
	killmatrix.Run(rec, c)
	assert.Empty(t, rec.errs)
	got, err = os.ReadFile(log)
	assert.NoError(t, err)
	assert.Equal(t, "none/a\nstrong/b\nstrong/a\n", string(got))
	c.Checkers[1].RealCodeElsewhere = false

	c.Killers = map[string][]string{"strong": {"nosuch"}}
	rec = &recorder{TB: t}
	killmatrix.Run(rec, c)
	assert.Contains(t, strings.Join(rec.errs, ""), `Killers[strong] names no checker "nosuch"`)
}

// Rows run in parallel give the table and the failures of one row at a
// time, in the same order.
func TestParallelRowsReportAsSequential(t *testing.T) {
	if !testing.Short() {
		t.Skip("-short mode only")
	}
	run := func(jobs int) (errs, logs []string) {
		c := cfg("strong", "weak", "flaky", "crash")
		c.Jobs = jobs
		rec := &recorder{TB: t}
		killmatrix.Run(rec, c)
		return rec.errs, rec.logs
	}
	errs1, logs1 := run(1)
	errs4, logs4 := run(4)
	assert.Equal(t, errs1, errs4)
	logs1, times1 := cellTimesLog(t, logs1)
	logs4, times4 := cellTimesLog(t, logs4)
	assert.Equal(t, logs1, logs4) // the table, row by row; the times differ run to run
	assert.Contains(t, times1, "(10 cells, ")
	assert.Contains(t, times4, "(10 cells, ")
	assert.Len(t, errs4, 3, strings.Join(logs4, "")) // weak, flaky and crash: each caught once
}

// cellTimesLog splits the log of the slowest cells from the rest of logs:
// its times are the clock's, unlike the rest of the log.
func cellTimesLog(t *testing.T, logs []string) (rest []string, times string) {
	t.Helper()
	for _, l := range logs {
		if strings.Contains(l, "slowest cells") {
			times = l
		} else {
			rest = append(rest, l)
		}
	}
	if times == "" {
		t.Errorf("no log of the slowest cells in %q", logs)
	}
	return rest, times
}
