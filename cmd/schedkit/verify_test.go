package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sampleJSON = `{"Action":"start","Package":"github.com/schedkit/schedkit/lfq"}
{"Action":"run","Package":"github.com/schedkit/schedkit/lfq","Test":"TestPutGetIsFIFO"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/lfq","Test":"TestPutGetIsFIFO"}
{"Action":"run","Package":"github.com/schedkit/schedkit/lfq","Test":"TestZeroRingIsEmptyAndUsable"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/lfq","Test":"TestZeroRingIsEmptyAndUsable"}
{"Action":"run","Package":"github.com/schedkit/schedkit/lfq","Test":"TestRingModel"}
{"Action":"output","Package":"github.com/schedkit/schedkit/lfq","Test":"TestRingModel","Output":"    model_test.go:9: lfq model: 20 checks passed\n"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/lfq","Test":"TestRingModel"}
{"Action":"run","Package":"github.com/schedkit/schedkit/lfq","Test":"TestStressExactlyOnce"}
{"Action":"output","Package":"github.com/schedkit/schedkit/lfq","Test":"TestStressExactlyOnce","Output":"    stress_test.go:1: lfq stress: 50000 items consumed exactly once by 4 goroutines\n"}
{"Action":"fail","Package":"github.com/schedkit/schedkit/lfq","Test":"TestStressExactlyOnce"}
{"Action":"fail","Package":"github.com/schedkit/schedkit/lfq"}
{"Action":"run","Package":"github.com/schedkit/schedkit/fuzz","Test":"FuzzRing"}
{"Action":"run","Package":"github.com/schedkit/schedkit/fuzz","Test":"FuzzRing/seed#0"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/fuzz","Test":"FuzzRing/seed#0"}
{"Action":"run","Package":"github.com/schedkit/schedkit/fuzz","Test":"FuzzRing/seed#1"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/fuzz","Test":"FuzzRing/seed#1"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/fuzz","Test":"FuzzRing"}
{"Action":"run","Package":"github.com/schedkit/schedkit/internal/tlc","Test":"TestNeedsJar"}
{"Action":"output","Package":"github.com/schedkit/schedkit/internal/tlc","Test":"TestNeedsJar","Output":"    tlc_test.go:3: no jar here\n"}
{"Action":"skip","Package":"github.com/schedkit/schedkit/internal/tlc","Test":"TestNeedsJar"}
{"Action":"output","Package":"github.com/schedkit/schedkit/internal/atomicx","Output":"FAIL: leaked goroutines\n"}
{"Action":"fail","Package":"github.com/schedkit/schedkit/internal/atomicx"}
`

func rowsByCheck(rows []row) map[string]row {
	m := map[string]row{}
	for _, r := range rows {
		m[r.component+"/"+r.check] = r
	}
	return m
}

func TestTestRowsGroupsTestsIntoTheLadder(t *testing.T) {
	tests, _, err := parseTestJSON(strings.NewReader(sampleJSON))
	require.NoError(t, err)
	rows, failures := testRows(tests, "")
	m := rowsByCheck(rows)

	assert.Equal(t, row{"lfq", "unit", "pass", "2 tests"}, m["lfq/unit"])
	assert.Equal(t, row{"lfq", "property (rapid vs model)", "pass", "20 cases"}, m["lfq/property (rapid vs model)"])
	assert.Equal(t, "FAIL", m["lfq/race stress, exactly once"].result, "a failed test fails its row")
	assert.Equal(t, row{"lfq", "fuzz seeds vs model", "pass", "2 seeds"}, m["lfq/fuzz seeds vs model"])
	assert.Equal(t, "skipped: no jar here", m["tlc runner/unit"].result)
	assert.Equal(t, "FAIL", m["atomicx/unit"].result, "a package failing outside its tests is not green")

	var names []string
	for _, f := range failures {
		names = append(names, f.Test)
	}
	assert.ElementsMatch(t, []string{"TestStressExactlyOnce", "(package)"}, names)
}

func TestParseTestJSONRejectsGarbledEvents(t *testing.T) {
	_, _, err := parseTestJSON(strings.NewReader("{not json\n"))
	assert.Error(t, err)
}

func TestRowFailed(t *testing.T) {
	assert.True(t, row{result: "FAIL"}.failed())
	assert.False(t, row{result: "skipped: no jar"}.failed())
	assert.False(t, row{result: "pass"}.failed())
}

func TestFindCountSumsEveryMatch(t *testing.T) {
	re := goChecks[0].count // "lfq model: N checks passed"
	assert.Equal(t, "30", findCount([]string{"lfq model: 10 checks passed\n", "x\n", "lfq model: 20 checks passed\n"}, re))
	assert.Equal(t, "", findCount([]string{"nothing here\n"}, re))
}

func TestLogBlockTakesTheIndentedLinesAfterTheMarker(t *testing.T) {
	out := []string{
		"=== RUN   TestKillMatrix\n",
		"    killmatrix_test.go:248: lfq kill matrix: 5 mutants\n",
		"        mutation   TLC\n",
		"        none       survived\n",
		"--- PASS: TestKillMatrix (1.00s)\n",
	}
	assert.Equal(t, []string{"mutation   TLC", "none       survived"}, logBlock(out, "lfq kill matrix:"))
	assert.Empty(t, logBlock(out, "no such marker"))
}

func TestEveryComponentSharesTheRungs(t *testing.T) {
	const events = `{"Action":"run","Package":"github.com/schedkit/schedkit/runnext","Test":"TestRunnextModel"}
{"Action":"output","Package":"github.com/schedkit/schedkit/runnext","Test":"TestRunnextModel","Output":"    m.go:1: runnext model: 100 checks passed\n"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/runnext","Test":"TestRunnextModel"}
{"Action":"run","Package":"github.com/schedkit/schedkit/fuzz","Test":"TestFuzzGlobalQCatchesBrokenQueue"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/fuzz","Test":"TestFuzzGlobalQCatchesBrokenQueue"}
{"Action":"run","Package":"github.com/schedkit/schedkit/internal/atomicx","Test":"TestModelless"}
{"Action":"pass","Package":"github.com/schedkit/schedkit/internal/atomicx","Test":"TestModelless"}
`
	tests, _, err := parseTestJSON(strings.NewReader(events))
	require.NoError(t, err)
	rows, failures := testRows(tests, "")
	assert.Empty(t, failures)
	m := rowsByCheck(rows)
	assert.Equal(t, row{"runnext", "property (rapid vs model)", "pass", "100 cases"}, m["runnext/property (rapid vs model)"])
	assert.Equal(t, "1 test", m["globalq/fuzz oracle catches broken variant"].explored)
	assert.Equal(t, "1 test", m["atomicx/unit"].explored, "component rungs apply to component packages only")
	assert.Equal(t, "fuzz decoder", fuzzComponent("TestReaderIntn"))
}
