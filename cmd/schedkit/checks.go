package main

import "regexp"

// A goCheck names the rung of the ladder that a group of tests forms. A test
// belongs to the first goCheck whose package and name pattern match it; a
// test no goCheck claims is counted as its package's unit tests.
type goCheck struct {
	tags      string // the build tags of the pass it belongs to
	component string
	check     string
	pkg       string         // package path relative to the module
	tests     *regexp.Regexp // top-level test names
	count     *regexp.Regexp // what it explored, read from its log; nil counts tests or seeds
	unit      string         // what count counts
}

var goChecks = []goCheck{
	{"", "lfq", "property (rapid vs model)", "lfq", regexp.MustCompile(`^TestRingModel$`),
		regexp.MustCompile(`lfq model: (\d+) checks passed`), "cases"},
	{"", "lfq", "property catches broken ring", "lfq", regexp.MustCompile(`^TestRingModelCatches`), nil, "tests"},
	{"", "lfq", "race stress, exactly once", "lfq", regexp.MustCompile(`^TestStressExactlyOnce$`),
		regexp.MustCompile(`lfq stress: (\d+) items consumed exactly once`), "items"},
	{"", "lfq", "stress checker catches loss", "lfq", regexp.MustCompile(`^TestStress.*Catches`), nil, "tests"},
	{"", "lfq", "linearizability (porcupine)", "lfq", regexp.MustCompile(`^TestLinearizable$`),
		regexp.MustCompile(`lfq linearizability: (\d+) histories`), "histories"},
	{"", "lfq", "linearizability catches broken ring", "lfq", regexp.MustCompile(`^TestLinearizeCatches`), nil, "tests"},
	{"schedcheck", "explore", "finds seeded bugs, replays them", "internal/explore", regexp.MustCompile(`^Test`),
		regexp.MustCompile(`explore \S+: (\d+) executions`), "executions"},
	{"schedcheck,schedmutant", "lfq", "interleavings (explorer, bound 2)", "lfq", regexp.MustCompile(`^TestExploreRing$`),
		regexp.MustCompile(`explore \S+: (\d+) executions`), "executions"},
	{"schedcheck,schedmutant", "lfq", "seeded mutants killed by >= 2 checkers", "lfq", regexp.MustCompile(`^TestKillMatrix$`),
		regexp.MustCompile(`lfq kill matrix: (\d+) mutants`), "mutants"},
	{"", "lfq", "fuzz seeds vs model", "fuzz", regexp.MustCompile(`^FuzzRing$`), nil, "seeds"},
	{"", "lfq", "fuzz oracle catches broken ring", "fuzz", regexp.MustCompile(`^TestFuzzRingCatches`), nil, "tests"},
}

// components names the component whose unit tests a package holds.
// A goPass is one `go test` run of verify.
type goPass struct {
	tags string
	race bool
	run  string // -run pattern; "" runs every test
	pkgs []string
}

// goPasses: the normal build under the race detector (proofs/tla is left
// out: verify runs TLC itself), then the explorer and the kill matrix, which
// need the schedcheck and schedmutant builds.
var goPasses = []goPass{
	{race: true, pkgs: []string{"./internal/...", "./lfq/...", "./fuzz/...", "./cmd/..."}},
	{tags: "schedcheck", pkgs: []string{"./internal/explore/"}},
	{tags: "schedcheck,schedmutant", run: "^(TestExploreRing|TestKillMatrix)$", pkgs: []string{"./lfq/"}},
}

var components = map[string]string{
	"internal/atomicx":   "atomicx",
	"internal/explore":   "explore",
	"internal/linearize": "linearize",
	"internal/tlc":       "tlc runner",
	"fuzz":               "fuzz decoder",
	"lfq":                "lfq",
	"cmd/schedkit":       "schedkit verify",
}

// componentOrder is the order of the table: the tools first, then the
// components as they are built up.
var componentOrder = []string{"all", "atomicx", "explore", "linearize", "tlc runner", "fuzz decoder",
	"schedkit verify", "lfq"}
