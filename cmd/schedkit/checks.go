package main

import "regexp"

// A goCheck names the rung of the ladder that a group of tests forms. A test
// belongs to the first goCheck whose package and name pattern match it; a
// test no goCheck claims is counted as its package's unit tests.
type goCheck struct {
	component string
	check     string
	pkg       string         // package path relative to the module
	tests     *regexp.Regexp // top-level test names
	count     *regexp.Regexp // what it explored, read from its log; nil counts tests or seeds
	unit      string         // what count counts
}

var goChecks = []goCheck{
	{"lfq", "property (rapid vs model)", "lfq", regexp.MustCompile(`^TestRingModel$`),
		regexp.MustCompile(`lfq model: (\d+) checks passed`), "cases"},
	{"lfq", "property catches broken ring", "lfq", regexp.MustCompile(`^TestRingModelCatches`), nil, "tests"},
	{"lfq", "race stress, exactly once", "lfq", regexp.MustCompile(`^TestStressExactlyOnce$`),
		regexp.MustCompile(`lfq stress: (\d+) items consumed exactly once`), "items"},
	{"lfq", "stress checker catches loss", "lfq", regexp.MustCompile(`^TestStress.*Catches`), nil, "tests"},
	{"lfq", "linearizability (porcupine)", "lfq", regexp.MustCompile(`^TestLinearizable$`),
		regexp.MustCompile(`lfq linearizability: (\d+) histories`), "histories"},
	{"lfq", "linearizability catches broken ring", "lfq", regexp.MustCompile(`^TestLinearizeCatches`), nil, "tests"},
	{"lfq", "fuzz seeds vs model", "fuzz", regexp.MustCompile(`^FuzzRing$`), nil, "seeds"},
	{"lfq", "fuzz oracle catches broken ring", "fuzz", regexp.MustCompile(`^TestFuzzRingCatches`), nil, "tests"},
}

// components names the component whose unit tests a package holds.
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
