//go:build schedcheck

package explore_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/watchdog"
)

// DPOR against unbounded DFS on the components' own scenarios, compared on
// the end states they reach (Result.States and StateHash: every cell's
// final value, the outcome labels, the failure), not only on their
// verdicts. Each search runs the components' TestExplore* tests in a child
// go test, switched with ModeEnv, capped with MaxExecutionsEnv, and
// recorded with RecordEnv; a scenario either DFS search finishes is
// enumerable, and there DPOR must finish too and reach the same states. A
// scenario neither DFS search finishes is not enumerable: the test lists
// those and which of them DPOR finishes.

// componentSearch is one child run: a search over some scenarios.
type componentSearch struct {
	search string   // ModeEnv's value
	tags   string   // build tags
	mutant string   // the explorer's seeded fault (schedmutant builds)
	run    string   // -run pattern
	max    int      // MaxExecutionsEnv; 0 leaves each scenario's own
	pkgs   []string // packages, relative to the module
}

// componentSuite is what TestDPORMatchesDFSOnComponents runs: in -short,
// the scenarios whose DFS searches end in well under a second each (the
// test command's explorer step); in long mode every TestExplore* of the
// components and the executor, and DPOR once more with a seeded fault.
func componentSuite(long bool) []componentSearch {
	if !long {
		// One package, so that one test binary is linked: runnext's
		// scenarios that plain unbounded DFS finishes within 1000
		// executions (its slot's), and a few more that DFS with sleep sets
		// finishes within 600.
		small := "^(TestExploreSlot|TestExploreRunnext)$/^(take-vs-steal|take-vs-steal-no-delay|fill-empty-vs-steal-delay|replace-during-wait|aba-same-pointer-reput"
		more := "|thief-waits-delay|empty-vs-putnext-get)$"
		pkgs := []string{"runnext"}
		return []componentSearch{
			{search: "unbounded", run: small + ")$", max: 1000, pkgs: pkgs},
			{search: "reduce", run: small + more, max: 1000, pkgs: pkgs},
			{search: "dpor", run: small + more, max: 1000, pkgs: pkgs},
		}
	}
	// Plain unbounded DFS finishes none past 17199 executions, DFS with
	// sleep sets none past 88369: caps of 20000 and 100000 keep it to about
	// an hour here. The executor's scenarios (bound 1 in its own tests) run
	// capped at 20000 in every search.
	pkgs := []string{"lfq", "runnext", "globalq", "stealing", "spinning"}
	exec := []string{"executor"}
	return []componentSearch{
		{search: "reduce", run: "^TestExplore", max: 100000, pkgs: pkgs},
		{search: "dpor", run: "^TestExplore", pkgs: pkgs},
		{search: "dpor", tags: "schedmutant", mutant: "dpor-skips-load-race", run: "^TestExplore", pkgs: pkgs},
		{search: "unbounded", run: "^TestExplore", max: 20000, pkgs: pkgs},
		{search: "unbounded", run: "^TestExplore", max: 20000, pkgs: exec},
		{search: "reduce", run: "^TestExplore", max: 20000, pkgs: exec},
		{search: "dpor", run: "^TestExplore", max: 20000, pkgs: exec},
	}
}

// buildTests builds the packages' test binaries with tags into a temporary
// folder, once for every search that uses them, and returns the folder.
func buildTests(t *testing.T, root, tags string, pkgs []string, limit time.Duration) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"test", "-c", "-tags", tags, "-o", dir + string(filepath.Separator)}
	for _, p := range pkgs {
		args = append(args, "./"+p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s (within %v): %v\n%s", strings.Join(args, " "), limit, err, out)
	}
	return dir
}

// runSearch runs s with the test binaries in bin, one package after
// another, and returns its records by name.
func runSearch(t *testing.T, root, bin string, s componentSearch, limit time.Duration) map[string]explore.Record {
	t.Helper()
	file := filepath.Join(t.TempDir(), "records.jsonl")
	env := append(os.Environ(), explore.ModeEnv+"="+s.search, explore.RecordEnv+"="+file,
		explore.MaxExecutionsEnv+"=", explore.ReplayEnv+"=", explore.LongEnv+"=", "SCHEDKIT_EXPLORE_MUTANT="+s.mutant)
	if s.max > 0 {
		env = append(env, explore.MaxExecutionsEnv+"="+strconv.Itoa(s.max))
	}
	what := fmt.Sprintf("%s=%s %s=%d on %s (-run %s)", explore.ModeEnv, s.search, explore.MaxExecutionsEnv, s.max, strings.Join(s.pkgs, " "), s.run)
	if s.mutant != "" {
		what += " with the seeded fault " + s.mutant
	}
	start := time.Now()
	var outs []byte
	for _, p := range s.pkgs {
		ctx, cancel := context.WithTimeout(context.Background(), limit+30*time.Second)
		cmd := exec.CommandContext(ctx, filepath.Join(bin, filepath.Base(p)+".test"),
			"-test.short", "-test.count=1", "-test.timeout="+limit.String(), "-test.run="+s.run)
		cmd.Dir = filepath.Join(root, p)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		late := ctx.Err() != nil
		cancel()
		if late {
			t.Fatalf("%s: %s did not end within %v; its output:\n%s", what, p, limit+30*time.Second, out)
		}
		// A cap cuts searches short, and a test that wants its search
		// complete or asserts its count then fails: the records count here.
		_ = err
		outs = append(outs, out...)
	}
	t.Logf("%s: %.1fs", what, time.Since(start).Seconds())
	recs := make(map[string]explore.Record)
	f, ferr := os.ReadFile(file)
	if ferr != nil {
		t.Fatalf("%s wrote no records (%v); its output:\n%s", what, ferr, outs)
	}
	sc := bufio.NewScanner(bytes.NewReader(f))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var r explore.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: a bad record: %v", what, err)
		}
		if r.Search != s.search {
			continue // a scenario that asked for another search itself
		}
		name := r.Name
		for k := 2; ; k++ { // a test that explores one name twice
			if _, dup := recs[name]; !dup {
				break
			}
			name = fmt.Sprintf("%s#%d", r.Name, k)
		}
		recs[name] = r
	}
	if len(recs) == 0 {
		t.Fatalf("%s ran no scenario; its output:\n%s", what, outs)
	}
	return recs
}

// sameStates reports whether a and b reached the same end states, and if
// not, how many of each side's the other lacks.
func sameStates(a, b explore.Record) (bool, string) {
	if a.States == b.States && a.StateHash == b.StateHash {
		return true, ""
	}
	onlyA, onlyB := 0, 0
	for _, fp := range a.Fingerprints {
		if _, ok := slices.BinarySearch(b.Fingerprints, fp); !ok {
			onlyA++
		}
	}
	for _, fp := range b.Fingerprints {
		if _, ok := slices.BinarySearch(a.Fingerprints, fp); !ok {
			onlyB++
		}
	}
	return false, fmt.Sprintf("%d states against %d: %d only under %s, %d only under %s", a.States, b.States, onlyA, a.Search, onlyB, b.Search)
}

func brief(r explore.Record, ok bool) string {
	if !ok {
		return "-"
	}
	c := "complete"
	if !r.Complete {
		c = "cut"
	}
	return fmt.Sprintf("%d execs %s, %d states, %.2fs", r.Executions, c, r.States, r.Seconds)
}

// TestDPORMatchesDFSOnComponents: on every component scenario that
// unbounded DFS, plain or with sleep sets, finishes, DPOR finishes and
// reaches the same end states; the scenarios neither finishes are listed,
// with those DPOR finishes. In long mode, DPOR with a seeded fault (it
// skips the reversal of races that begin with a load) must differ on at
// least one scenario.
func TestDPORMatchesDFSOnComponents(t *testing.T) {
	long := explore.Long()
	suite := componentSuite(long)
	limit := 3 * time.Minute
	if long {
		limit = 40 * time.Minute // one search of one package
	}
	defer watchdog.Start("the children of TestDPORMatchesDFSOnComponents", time.Duration(len(suite))*(limit+time.Minute), nil)()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bins := make(map[string]string)                   // tags → test binaries
	got := make(map[string]map[string]explore.Record) // search → name → record
	var mutant map[string]explore.Record
	for _, s := range suite {
		tags := "schedcheck"
		if s.tags != "" {
			tags += "," + s.tags
		}
		if bins[tags] == "" {
			var pkgs []string
			for _, s2 := range suite {
				if s2.tags == s.tags {
					pkgs = append(pkgs, s2.pkgs...)
				}
			}
			slices.Sort(pkgs)
			bins[tags] = buildTests(t, root, tags, slices.Compact(pkgs), limit)
		}
		recs := runSearch(t, root, bins[tags], s, limit)
		if s.mutant != "" {
			mutant = recs
			continue
		}
		if got[s.search] == nil {
			got[s.search] = recs
			continue
		}
		for n, r := range recs {
			got[s.search][n] = r
		}
	}
	var names []string
	for n := range got["dpor"] {
		names = append(names, n)
	}
	slices.Sort(names)
	compared, notEnumerable, dporOnly := 0, []string{}, []string{}
	failing := make(map[string]bool)
	for _, n := range names {
		d := got["dpor"][n]
		u, uok := got["unbounded"][n]
		r, rok := got["reduce"][n]
		t.Logf("%-52s unbounded: %s | sleep sets: %s | dpor: %s", n, brief(u, uok), brief(r, rok), brief(d, true))
		enumerable := false
		for _, ref := range []struct {
			rec explore.Record
			ok  bool
		}{{u, uok}, {r, rok}} {
			if ref.ok && ref.rec.Failure != "" {
				// A scenario that must fail (a seeded fault's catcher):
				// each search stops at its first failure; DPOR's must read
				// the same.
				failing[n] = true
				if d.Failure != ref.rec.Failure {
					t.Errorf("%s: %s failed with %q, DPOR with %q", n, ref.rec.Search, ref.rec.Failure, d.Failure)
				}
				continue
			}
			if !ref.ok || !ref.rec.Complete {
				continue
			}
			enumerable = true
			if !d.Complete {
				t.Errorf("%s: %s finished in %d executions, DPOR did not in %d", n, ref.rec.Search, ref.rec.Executions, d.Executions)
				continue
			}
			if ok, why := sameStates(ref.rec, d); !ok {
				t.Errorf("%s: DPOR reached other end states than %s: %s", n, ref.rec.Search, why)
			}
			if ref.rec.Failure != "" || d.Failure != "" {
				t.Errorf("%s: failures: %s %q, dpor %q", n, ref.rec.Search, ref.rec.Failure, d.Failure)
			}
		}
		switch {
		case failing[n]:
		case enumerable:
			compared++
		case d.Complete:
			dporOnly = append(dporOnly, n)
			notEnumerable = append(notEnumerable, n)
		default:
			notEnumerable = append(notEnumerable, n)
		}
	}
	t.Logf("explore components: %d scenarios, %d compared (DPOR's end states equal unbounded DFS's: %v), %d that must fail (the same failure: %v), %d not enumerable by DFS, %d of those complete under DPOR: %s",
		len(names), compared, !t.Failed(), len(failing), !t.Failed(), len(notEnumerable), len(dporOnly), strings.Join(dporOnly, ", "))
	t.Logf("not enumerable by DFS: %s", strings.Join(notEnumerable, ", "))
	if compared == 0 {
		t.Error("no scenario was compared: every DFS search was cut short (or the -run patterns match no scenario)")
	}
	if long && len(dporOnly) == 0 {
		t.Error("no scenario that DFS cannot finish completes under DPOR")
	}
	if mutant != nil {
		caught := 0
		for _, n := range names {
			m, ok := mutant[n]
			if !ok || !m.Complete {
				continue
			}
			for _, ref := range []explore.Record{got["unbounded"][n], got["reduce"][n]} {
				if ref.Complete {
					if same, why := sameStates(ref, m); !same {
						caught++
						t.Logf("seeded fault dpor-skips-load-race: %s: %s", n, why)
						break
					}
				}
			}
		}
		t.Logf("seeded fault dpor-skips-load-race: caught on %d scenarios", caught)
		if caught == 0 {
			t.Error("the comparison missed DPOR's seeded fault dpor-skips-load-race on every scenario")
		}
	}
}
