//go:build schedmutant

package lfq_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/internal/explore"
	"github.com/schedkit/schedkit/internal/tlc"
	"github.com/schedkit/schedkit/lfq"
)

// Bar item 8: every seeded mutation of the ring (lfq/mutation.go) against
// every checker. Each cell runs in a child process of this test binary, so
// that a mutant that crashes a goroutine or spins forever (a steal without
// CAS can leave head past tail, and then grab never returns) is counted as
// caught without taking the parent down or leaking a spinning goroutine.
//
// Run it with go test -tags schedcheck,schedmutant -run TestKillMatrix ./lfq/
// (without schedcheck the explorer column reads n/a).

// killCheckers are the Go checkers, each run against the real ring with the
// mutation selected. TLC is the fifth column, run in the parent.
var killCheckers = []struct {
	name string
	run  func(t *testing.T) error // an error means the mutant was caught
}{
	{"explorer", killByExplorer},
	{"model", killByModel},
	{"stress", killByStress},
	{"linearize", killByLinearize},
}

const (
	killCellEnv  = "SCHEDKIT_KILL_CELL" // "<mutation>/<checker>" in a child
	killTimeout  = 40 * time.Second     // per cell; longer counts as hung
	killMinKills = 2
)

var errNotApplicable = errors.New("n/a")

func killByExplorer(t *testing.T) error {
	if _, err := explore.Explore(explore.Options{}, func() explore.Run { return explore.Run{} }); errors.Is(err, explore.ErrNoSchedcheck) {
		return errNotApplicable
	}
	return exploreRing(t)
}

func killByModel(t *testing.T) error {
	var stats ringModelStats
	rec := runExpectingFailure(t, func(rt *rapid.T) { checkRingModel(rt, newRealRingUT, &stats) })
	if rec.Failed() {
		first, _, _ := strings.Cut(strings.Join(rec.errs, "\n"), "\n")
		return errors.New(first)
	}
	return nil
}

func killByStress(*testing.T) error {
	for seed := range uint64(3) {
		res := runStress(stressConfig{items: 50_000, thieves: stressThieves, seed: seed, newRing: newRealRingUT})
		if err := checkExactlyOnce(res.counts); err != nil {
			return err
		}
	}
	return nil
}

func killByLinearize(t *testing.T) error {
	cfg := linDefaultConfig()
	cfg.histories = 300
	cfg.seed = 1
	var st linStats
	for h := range cfg.histories {
		if _, err := runLinHistory(fmt.Sprintf("%s-h%d", t.Name(), h), cfg, h, &st); err != nil {
			return err
		}
	}
	return nil
}

// TestKillMatrixCell is one cell, run only as a child of TestKillMatrix.
func TestKillMatrixCell(t *testing.T) {
	cell := os.Getenv(killCellEnv)
	if cell == "" {
		t.Skip("runs only as a child of TestKillMatrix")
	}
	mutation, checker, _ := strings.Cut(cell, "/")
	restore, err := lfq.SetMutation(mutation)
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	for _, c := range killCheckers {
		if c.name != checker {
			continue
		}
		switch err := c.run(t); {
		case errors.Is(err, errNotApplicable):
			t.Skip("n/a: build with -tags schedcheck")
		case err != nil:
			t.Fatalf("caught: %v", err)
		}
		return
	}
	t.Fatalf("no checker %q", checker)
}

// killVerdict is what one cell came to.
type killVerdict string

const (
	killed   killVerdict = "killed"
	crashed  killVerdict = "crashed" // killed: the harness panicked
	hung     killVerdict = "hung"    // killed: no end within killTimeout
	survived killVerdict = "survived"
	notRun   killVerdict = "n/a"
)

func (v killVerdict) caught() bool { return v == killed || v == crashed || v == hung }

func runKillCell(t *testing.T, mutation, checker string) (killVerdict, string) {
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	args := []string{"-test.run=^TestKillMatrixCell$", "-test.count=1", "-test.v"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), killCellEnv+"="+mutation+"/"+checker,
		"SCHEDKIT_LINEARIZE_DIR="+t.TempDir(), "GOTRACEBACK=single")
	out, err := cmd.CombinedOutput()
	text := string(out)
	switch {
	case ctx.Err() != nil:
		return hung, fmt.Sprintf("no end within %v", killTimeout)
	case strings.Contains(text, "--- SKIP: TestKillMatrixCell"):
		return notRun, ""
	case err == nil:
		return survived, ""
	case strings.Contains(text, "caught: "):
		_, why, _ := strings.Cut(text, "caught: ")
		return killed, firstLine(why)
	case strings.Contains(text, "panic: "):
		_, why, _ := strings.Cut(text, "panic: ")
		return crashed, firstLine(why)
	}
	return killed, firstLine(text)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(l) > 120 {
		l = l[:120] + "…"
	}
	return l
}

// killByTLC checks the spec's mutant of the same name (for "none", the spec
// itself): a rejection catches the mutant.
func killByTLC(t *testing.T, mutation string) (killVerdict, string) {
	c, err := tlc.NewChecker(2)
	if err != nil {
		return notRun, err.Error()
	}
	models, err := tlc.Models(filepath.Join("..", "proofs", "tla"))
	if err != nil {
		t.Fatal(err)
	}
	want := "Ring"
	if mutation != "none" {
		want = "Ring_mutant_" + mutation
	}
	for _, m := range models {
		if m.Name == want {
			r := c.Run(context.Background(), m)
			if r.Outcome.Rejects() {
				return killed, "violates " + r.Violated
			}
			if r.Outcome != tlc.OutcomeOK {
				t.Fatalf("TLC could not check %s: %s", m.Name, r.String())
			}
			return survived, ""
		}
	}
	return notRun, "no " + want + ".cfg"
}

func TestKillMatrix(t *testing.T) {
	if os.Getenv(killCellEnv) != "" {
		t.Skip("a child runs only its cell")
	}
	columns := []string{"TLC"}
	for _, c := range killCheckers {
		columns = append(columns, c.name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-20s", "mutation")
	for _, c := range columns {
		fmt.Fprintf(&b, " %-10s", c)
	}
	b.WriteString(" kills\n")
	for _, mutation := range append([]string{"none"}, lfq.Mutations()...) {
		verdicts := map[string]killVerdict{}
		var notes []string
		v, why := killByTLC(t, mutation)
		verdicts["TLC"] = v
		if why != "" && v.caught() {
			notes = append(notes, "TLC: "+why)
		}
		for _, c := range killCheckers {
			v, why := runKillCell(t, mutation, c.name)
			verdicts[c.name] = v
			if why != "" {
				notes = append(notes, c.name+": "+why)
			}
		}
		kills := 0
		fmt.Fprintf(&b, "%-20s", mutation)
		for _, c := range columns {
			fmt.Fprintf(&b, " %-10s", verdicts[c])
			if verdicts[c].caught() {
				kills++
			}
		}
		fmt.Fprintf(&b, " %d\n", kills)
		for _, n := range notes {
			fmt.Fprintf(&b, "    %s\n", n)
		}
		t.Logf("kill matrix row: %s killed by %d of %d", mutation, kills, len(columns))
		switch {
		case mutation == "none" && kills > 0:
			t.Errorf("the real ring fails a checker: a false alarm (%v)", verdicts)
		case mutation != "none" && kills < killMinKills:
			t.Errorf("mutation %s caught by %d checkers, want at least %d (%v)", mutation, kills, killMinKills, verdicts)
		}
	}
	t.Logf("lfq kill matrix: %d mutants\n%s", len(lfq.Mutations()), b.String())
}
