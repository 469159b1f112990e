//go:build schedcheck

package explore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/explore"
)

// TestReplayThatDivergesFails: a replayed schedule that is not the one the
// scenario runs fails with ErrReplayDiverged, whatever way it differs: it
// names a thread that cannot run, it ends while the execution goes on, or
// it outlasts the execution (with or without a failure on the way). None of
// them passes by running some other schedule.
func TestReplayThatDivergesFails(t *testing.T) {
	cases := []struct {
		name, schedule string
		build          func() explore.Run
		want           []string
	}{
		// lostUpdate(false) fails on 0.1x2.0 (4 steps); the fixed one takes two.
		{"foreign thread", "0.2", lostUpdate(true), []string{"at step 2 the schedule runs thread 2"}},
		{"ends early", "0.1", lostUpdate(false), []string{"the schedule ends after 2 steps, but the execution goes on (runnable: "}},
		{"outlasts a passing execution", "0.1.0x3", lostUpdate(true), []string{"ended after 2 of the schedule's 5 steps, every thread done and every check passed"}},
		{"outlasts a failing execution", "0.1x2.0.1", lostUpdate(false), []string{"ended after 4 of the schedule's 5 steps, with a failure not where the schedule recorded one", "lost update: counter = 1"}},
	}
	for _, c := range cases {
		res, err := explore.Explore(explore.Options{Name: "diverge", Replay: c.schedule}, c.build)
		require.NoError(t, err, c.name)
		assert.True(t, res.Replayed, c.name)
		require.NotNil(t, res.Failure, "%s: the replay of %s passed", c.name, c.schedule)
		assert.ErrorIs(t, res.Failure.Err, explore.ErrReplayDiverged, c.name)
		for _, w := range c.want {
			assert.ErrorContains(t, res.Failure.Err, w, c.name)
		}
	}

	// The same through SCHEDKIT_REPLAY and Check: the test fails, and
	// CheckFails does not take a divergence for the bug it wants.
	t.Setenv(explore.ReplayEnv, "diverge:0.1")
	rec := &recordingTB{TB: t}
	rec.run(func() { explore.Check(rec, explore.Options{Name: "diverge"}, lostUpdate(false)) })
	assert.Contains(t, strings.Join(rec.fatal, "\n"), "replay diverged from its schedule: the schedule ends after 2 steps")
	rec = &recordingTB{TB: t}
	rec.run(func() { explore.CheckFails(rec, explore.Options{Name: "diverge"}, lostUpdate(false)) })
	assert.Contains(t, strings.Join(rec.fatal, "\n"), "the exploration went wrong before it found the bug")
}

// TestReplayThatPassesFailsCheck: a schedule from SCHEDKIT_REPLAY that runs
// to its end with every check passing did not reproduce a failure: Check
// fails the test and says so, where before it logged "replayed" and passed.
// A schedule given in Options.Replay may pass: the test chose it.
func TestReplayThatPassesFailsCheck(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "passes", Replay: "0.1"}, lostUpdate(true))
	require.NoError(t, err)
	assert.True(t, res.Replayed)
	assert.Nil(t, res.Failure, "the fixed counter passes on the whole schedule")

	rec := &recordingTB{TB: t}
	rec.run(func() { explore.Check(rec, explore.Options{Name: "passes", Replay: "0.1"}, lostUpdate(true)) })
	assert.Empty(t, rec.fatal, "a schedule the test gives may pass")

	t.Setenv(explore.ReplayEnv, "passes:0.1")
	rec = &recordingTB{TB: t}
	rec.run(func() { explore.Check(rec, explore.Options{Name: "passes"}, lostUpdate(true)) })
	require.Len(t, rec.fatal, 1)
	assert.Contains(t, rec.fatal[0], "the replay of SCHEDKIT_REPLAY='passes:0.1' ran its whole schedule and every check passed: it does not reproduce a failure here")

	// The failing schedule still replays to its failure, as before.
	t.Setenv(explore.ReplayEnv, "passes:0.1x2.0")
	rec = &recordingTB{TB: t}
	rec.run(func() { explore.Check(rec, explore.Options{Name: "passes"}, lostUpdate(false)) })
	require.Len(t, rec.fatal, 1)
	assert.Contains(t, rec.fatal[0], "explore passes: execution 1 failed: lost update: counter = 1")
	assert.NotContains(t, rec.fatal[0], "diverged")
}

// TestReplayOfAnotherNameSaysSo: a SCHEDKIT_REPLAY key that names another
// scenario (a stale name, or a -run that selects the wrong test) fails every
// scenario Check runs, saying which name it wanted, instead of letting them
// run their searches and pass as if the replay had happened.
func TestReplayOfAnotherNameSaysSo(t *testing.T) {
	t.Setenv(explore.ReplayEnv, "no-such-scenario:0.1x2.0")
	rec := &recordingTB{TB: t}
	res := explore.Check(rec, explore.Options{Name: "the real one"}, lostUpdate(true))
	assert.False(t, res.Replayed)
	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], `SCHEDKIT_REPLAY='no-such-scenario:0.1x2.0' names scenario "no-such-scenario", and this one is "the_real_one"`)
	assert.Empty(t, rec.fatal, "the scenario's own search still runs and passes")

	t.Setenv(explore.ReplayEnv, "the_real_one:0.1")
	rec = &recordingTB{TB: t}
	rec.run(func() { explore.Check(rec, explore.Options{Name: "the real one"}, lostUpdate(true)) })
	assert.Empty(t, rec.errors, "a key for this scenario is no mismatch")
}

// TestReplayCommandCarriesTheBuild: the replay line carries the build tags
// and the SCHEDKIT_ settings the failing run had (a mutant selected by
// SCHEDKIT_MUTATION replays only with it), and -short if it was set.
func TestReplayCommandCarriesTheBuild(t *testing.T) {
	t.Setenv("SCHEDKIT_MUTATION", "SomeMutant")
	t.Setenv(explore.MaxExecutionsEnv, "1000") // left out: a replay runs one execution
	rec := &recordingTB{TB: t}
	rec.run(func() { explore.Check(rec, explore.Options{Name: "carry"}, lostUpdate(false)) })
	msg := strings.Join(rec.fatal, "\n")
	tags := "schedcheck"
	if explore.MutantBuild {
		tags = "schedcheck,schedmutant"
	}
	short := ""
	if testing.Short() {
		short = " -short"
	}
	assert.Contains(t, msg, fmt.Sprintf("in the package directory: SCHEDKIT_MUTATION='SomeMutant' SCHEDKIT_REPLAY='carry:0.1x2.0' go test -tags %s%s -count=1 -run '^TestReplayCommandCarriesTheBuild$' .", tags, short))
	assert.NotContains(t, msg, explore.MaxExecutionsEnv)
}

// run calls f, which ends early if it calls Fatalf.
func (r *recordingTB) run(f func()) {
	defer func() {
		if p := recover(); p != nil && p != "fatal" {
			panic(p)
		}
	}()
	f()
}
