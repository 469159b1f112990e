package killmatrix_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/schedkit/schedkit/internal/killmatrix"
)

// A fake component: "strong" is caught by both deterministic checkers,
// "weak" by one, "flaky" by one deterministic checker and the timing-dependent
// one (not enough), and "crash" panics in the harness. TLADir has no specs, so
// TLC reads n/a.
var current = "none"

func set(name string) (func(), error) {
	switch name {
	case "none", "strong", "weak", "flaky", "crash":
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
				if current == "crash" {
					panic("harness broke")
				}
				if current != "none" {
					return errors.New("a saw it")
				}
				return nil
			}},
			{Name: "b", Deterministic: true, Run: func(*testing.T) error {
				if current == "strong" {
					return errors.New("b saw it")
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
	rec := &recorder{TB: t}
	killmatrix.Run(rec, cfg("strong"))
	assert.Empty(t, rec.errs)
	assert.Contains(t, strings.Join(rec.logs, ""), "fake kill matrix: 1 mutants")
}

func TestRunFailsAMutantCaughtOnce(t *testing.T) {
	rec := &recorder{TB: t}
	killmatrix.Run(rec, cfg("strong", "weak"))
	assert.Len(t, rec.errs, 1)
	assert.Contains(t, strings.Join(rec.errs, ""), "mutation weak caught by 1 deterministic checkers")
}

func TestRunDoesNotCountATimingDependentKill(t *testing.T) {
	rec := &recorder{TB: t}
	killmatrix.Run(rec, cfg("flaky"))
	assert.Len(t, rec.errs, 1)
	assert.Contains(t, strings.Join(rec.errs, ""), "mutation flaky caught by 1 deterministic checkers")
	assert.Contains(t, strings.Join(rec.logs, ""), "2 (1)")
}

func TestRunCountsACrashAsCaught(t *testing.T) {
	rec := &recorder{TB: t}
	killmatrix.Run(rec, cfg("crash"))
	assert.Len(t, rec.errs, 1, "crash is caught by a only: once")
	matrix := strings.Join(rec.logs, "")
	assert.Contains(t, matrix, "crashed")
	assert.Contains(t, matrix, "harness broke")
}
