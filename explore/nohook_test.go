//go:build !schedcheck

package explore_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/explore"
)

// Without -tags schedcheck atomicx calls no hook: Explore says so and Check
// skips, so scenario tests need no build tag of their own.
func TestWithoutSchedcheckExploreRefusesAndCheckSkips(t *testing.T) {
	_, err := explore.Explore(explore.Options{}, func() explore.Run { return explore.Run{Threads: []func(){func() {}}} })
	require.ErrorIs(t, err, explore.ErrNoSchedcheck)
	assert.False(t, explore.Available())

	skipped := false
	t.Run("check", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		explore.Check(t, explore.Options{}, func() explore.Run { return explore.Run{Threads: []func(){func() {}}} })
	})
	assert.True(t, skipped)
}

// TestSkipIsSaidOncePerBinary: the skips are said on stderr, once per test
// binary and without -v, so that "go test" run in a package directory shows
// that the scenarios did not run. (Under "go test ./..." the go command
// hides a passing binary's output: SCHEDKIT_REQUIRE_SCHEDCHECK is for that.)
func TestSkipIsSaidOncePerBinary(t *testing.T) {
	if os.Getenv("EXPLORE_SKIP_CHILD") == "1" {
		t.Skip("the child runs the skipping tests only")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^(TestWithoutSchedcheckExploreRefusesAndCheckSkips|TestSkipIsSaidOncePerBinary)$", "-test.count=2")
	cmd.Env = append(os.Environ(), "EXPLORE_SKIP_CHILD=1", explore.RequireSchedcheckEnv+"=")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := 0
	for l := range strings.SplitSeq(string(out), "\n") {
		if strings.Contains(l, "has no -tags schedcheck: its explorer scenarios skip (SCHEDKIT_REQUIRE_SCHEDCHECK=1 fails them instead)") {
			lines++
		}
	}
	assert.Equal(t, 1, lines, "one line for two explorations and a skipped Check, twice over:\n%s", out)
	assert.NotContains(t, string(out), "=== RUN", "the child ran without -v")
}

// TestRequireSchedcheckFails: with SCHEDKIT_REQUIRE_SCHEDCHECK=1 a build
// without the tag fails where it would skip: Explore returns an error that
// is not ErrNoSchedcheck (so the tests that skip on that one fail), and
// Check and SkipWithoutSchedcheck fail their test.
func TestRequireSchedcheckFails(t *testing.T) {
	t.Setenv(explore.RequireSchedcheckEnv, "1")
	one := func() explore.Run { return explore.Run{Threads: []func(){func() {}}} }
	_, err := explore.Explore(explore.Options{}, one)
	require.ErrorIs(t, err, explore.ErrSchedcheckRequired)
	assert.NotErrorIs(t, err, explore.ErrNoSchedcheck)
	assert.ErrorContains(t, err, "SCHEDKIT_REQUIRE_SCHEDCHECK=1 and this build has no explorer: run the tests with -tags schedcheck")

	for name, f := range map[string]func(testing.TB){
		"Check":                 func(tb testing.TB) { explore.Check(tb, explore.Options{}, one) },
		"CheckFails":            func(tb testing.TB) { explore.CheckFails(tb, explore.Options{}, one) },
		"SkipWithoutSchedcheck": explore.SkipWithoutSchedcheck,
	} {
		rec := &skipRecorder{TB: t}
		rec.run(f)
		assert.Equal(t, []string{"fatal: " + explore.ErrSchedcheckRequired.Error()}, rec.calls, name)
	}
	t.Setenv(explore.RequireSchedcheckEnv, "")
	rec := &skipRecorder{TB: t}
	rec.run(explore.SkipWithoutSchedcheck)
	assert.Equal(t, []string{"skip: " + explore.ErrNoSchedcheck.Error()}, rec.calls)
}

// skipRecorder records Skip and Fatal instead of ending the test.
type skipRecorder struct {
	testing.TB
	calls []string
}

func (r *skipRecorder) Helper() {}
func (r *skipRecorder) Skip(args ...any) {
	r.calls = append(r.calls, "skip: "+fmt.Sprint(args...))
	panic(r)
}
func (r *skipRecorder) Fatal(args ...any) {
	r.calls = append(r.calls, "fatal: "+fmt.Sprint(args...))
	panic(r)
}
func (r *skipRecorder) run(f func(testing.TB)) {
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
	}()
	f(r)
}
