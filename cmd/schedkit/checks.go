package main

import (
	"regexp"
	"strings"
)

// A goCheck names the rung of the ladder that a group of tests forms. A test
// belongs to the first goCheck whose pass, package and name pattern match
// it; a test no goCheck claims is counted as its package's unit tests.
// Every component's tests follow the same names and log lines, so one
// pattern serves them all.
type goCheck struct {
	tags  string         // the build tags of the pass it belongs to
	pkg   string         // package path relative to the module; "*" is any component's
	check string         // the rung
	tests *regexp.Regexp // top-level test names
	count *regexp.Regexp // what it explored, read from its log; nil counts tests or seeds
	unit  string         // what count counts
}

var goChecks = []goCheck{
	{"", "*", "property (rapid vs model)", regexp.MustCompile(`^Test\w*Model$`),
		regexp.MustCompile(`\w+ model: (\d+) checks passed`), "cases"},
	{"", "*", "property catches broken variant", regexp.MustCompile(`^Test\w*ModelCatches`), nil, "tests"},
	{"", "*", "race stress, exactly once", regexp.MustCompile(`^TestStressExactlyOnce$`),
		regexp.MustCompile(`\w+ stress: (\d+) items consumed exactly once`), "items"},
	{"", "*", "stress checker catches loss", regexp.MustCompile(`^TestStress\w*Catches`), nil, "tests"},
	{"", "*", "linearizability (porcupine)", regexp.MustCompile(`^TestLinearizable$`),
		regexp.MustCompile(`\w+ linearizability: (\d+) histories`), "histories"},
	{"", "*", "linearizability catches broken variant", regexp.MustCompile(`^TestLinearizeCatches`), nil, "tests"},
	{"", "executor", "real-time promises (GOMAXPROCS 1, 2; busy cores)", regexp.MustCompile(`^TestRealtime\w*$`),
		regexp.MustCompile(`realtime \S+: (\d+) rounds passed`), "rounds"},
	{"", "fuzz", "fuzz seeds vs model", regexp.MustCompile(`^Fuzz\w+$`), nil, "seeds"},
	{"", "fuzz", "fuzz oracle catches broken variant", regexp.MustCompile(`^TestFuzz\w+Catches`), nil, "tests"},
	// The components' scenarios under DPOR and unbounded DFS, compared by
	// end states: a handful in -short, all of them in long mode.
	{"schedcheck", "explore", "DPOR reaches unbounded DFS's end states (components)", regexp.MustCompile(`^TestDPORMatchesDFSOnComponents$`),
		regexp.MustCompile(`explore components: \d+ scenarios, (\d+) compared`), "scenarios compared"},
	{"schedcheck", "explore", "finds seeded bugs, replays them", regexp.MustCompile(`^Test`),
		regexp.MustCompile(`explore \S+: (\d+) executions`), "executions"},
	{"schedcheck,schedmutant", "*", "interleavings (explorer, bound 2)", regexp.MustCompile(`^TestExplore\w*$`),
		regexp.MustCompile(`explore \S+: (\d+) executions`), "executions"},
	{"schedcheck,schedmutant", "*", "seeded mutants killed by >= 2 deterministic checkers", regexp.MustCompile(`^TestKillMatrix$`),
		regexp.MustCompile(`\w+ kill matrix: (\d+) mutants`), "mutants"},
}

// isComponentPkg reports whether a package (relative to the module) is a
// component: a top-level package but fuzz, the explorer's two public
// packages (tools) and examples. A new component (executor/)
// needs no entry anywhere here.
func isComponentPkg(pkg string) bool {
	switch pkg {
	case "", ".", "fuzz", "atomicx", "explore", "examples": // tools and examples, not components
		return false
	}
	return !strings.Contains(pkg, "/")
}

// A goPass is one `go test` run of verify.
type goPass struct {
	tags string
	race bool
	run  string            // -run pattern; "" runs every test
	pkgs func(string) bool // which of the module's packages it tests
}

// goPasses: the normal build under the race detector (proofs/tla is left
// out: verify runs TLC itself), then the explorer and the kill matrices,
// which need the schedcheck and schedmutant builds. The packages are picked
// from `go list ./...`, so a new component or tool is tested with no entry.
var goPasses = []goPass{
	{race: true, pkgs: func(pkg string) bool { return pkg != "proofs/tla" }},
	{tags: "schedcheck", pkgs: func(pkg string) bool { return pkg == "explore" }},
	{tags: "schedcheck,schedmutant", run: `^(TestExplore\w*|TestKillMatrix)$`, pkgs: isComponentPkg},
}

// components names the component whose unit tests a package holds.
var components = map[string]string{
	"atomicx":               "atomicx",
	"explore":               "explore",
	"internal/linearize":    "linearize",
	"internal/tlc":          "tlc runner",
	"internal/killmatrix":   "killmatrix",
	"internal/mutation":     "mutation",
	"internal/realtime":     "realtime",
	"fuzz":                  "fuzz decoder",
	"cmd/schedkit":          "schedkit verify",
	"cmd/schedkit/demoprom": "schedkit verify", // schedkit demo -prom
	"metrics/prom":          "metrics",
	"metrics/expvars":       "metrics",
}

// componentOrder is the order of the table: the tools first, then the
// components as they are built up.
var componentOrder = []string{"all", "atomicx", "explore", "linearize", "tlc runner", "killmatrix", "mutation", "realtime",
	"fuzz decoder", "schedkit verify", "lfq", "runnext", "globalq", "stealing", "spinning", "timers", "executor", "future", "taskchan", "netpoll", "metrics"}
