package tlc

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for n, s := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644))
	}
}

func TestParseName(t *testing.T) {
	for _, tc := range []struct {
		name, spec, mutant string
		long               bool
	}{
		{"Ring", "Ring", "", false},
		{"Ring_mutant_StealNoCAS", "Ring", "StealNoCAS", false},
		{"Ring_long", "Ring", "", true},
		{"Ring_long_mutant_StealNoCAS", "Ring", "StealNoCAS", true},
		{"RunnextFine", "RunnextFine", "", false},
		{"RunnextFine_long_mutant_X", "RunnextFine", "X", true},
		{"Ring_mutant_X_long", "Ring", "X_long", false}, // _long belongs to the spec part only
	} {
		spec, mutant, long, err := parseName(tc.name)
		require.NoError(t, err, tc.name)
		assert.Equal(t, []any{tc.spec, tc.mutant, tc.long}, []any{spec, mutant, long}, tc.name)
	}
	for _, bad := range []string{"_long", "_mutant_X", "Ring_mutant_", "Ring_long_mutant_", "_long_mutant_X"} {
		_, _, _, err := parseName(bad)
		assert.Error(t, err, bad)
	}
}

func TestParseExpect(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"\\* Expect: Conservation\nINVARIANT Conservation\n", "Conservation"},
		{"SPECIFICATION Spec\n  \\*   Expect:   WorkConserving  \r\nPROPERTY WorkConserving\n", "WorkConserving"},
		{"INVARIANT Conservation \\* Expect: Conservation (not a line of its own)\n", ""},
		{"\\* a mutant with no Expect line\nINVARIANT Conservation\n", ""},
		{"", ""},
	} {
		got, err := ParseExpect(tc.text)
		require.NoError(t, err, tc.text)
		assert.Equal(t, tc.want, got, tc.text)
	}
	for _, bad := range []string{
		"\\* Expect:\n",
		"\\* Expect: A B\n",
		"\\* Expect: A\n\\* Expect: B\n",
	} {
		_, err := ParseExpect(bad)
		assert.Error(t, err, bad)
	}
}

func TestModelsLongAndExpect(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"Ring.tla":                    "",
		"Ring.cfg":                    "INVARIANT Conservation\n",
		"Ring_long.cfg":               "INVARIANT Conservation\n",
		"Ring_mutant_A.cfg":           "\\* Expect: Conservation\nINVARIANT TypeOK Conservation\n",
		"Ring_mutant_B.cfg":           "INVARIANT Conservation\n",
		"Ring_mutant_C.cfg":           "\\* Long only: the test command's budget\nINVARIANT Conservation\n",
		"Ring_long_mutant_A.cfg":      "\\* Expect: Live\nINVARIANT TypeOK\nPROPERTY Live\n",
		"RunnextFine.tla":             "",
		"RunnextFine.cfg":             "INVARIANT Inv\n",
		"RunnextFine_mutant_Skip.cfg": "(* Expect: Inv *)\nINVARIANT Inv\n", // not a \* line: no Expect
	})
	ms, err := Models(dir)
	require.NoError(t, err)
	var got []string
	for _, m := range ms {
		got = append(got, strings.Join([]string{m.Name, m.Spec, m.Mutant, m.Expect, map[bool]string{true: "long"}[m.Long]}, "|"))
	}
	assert.Equal(t, []string{
		"Ring|Ring|||",
		"Ring_long|Ring|||long",
		"Ring_long_mutant_A|Ring|A|Live|long",
		"Ring_mutant_A|Ring|A|Conservation|",
		"Ring_mutant_B|Ring|B||",
		"Ring_mutant_C|Ring|C||long",
		"RunnextFine|RunnextFine|||",
		"RunnextFine_mutant_Skip|RunnextFine|Skip||",
	}, got)

	var short, long []string
	for _, m := range Select(ms, false) {
		short = append(short, m.Name)
	}
	for _, m := range Select(ms, true) {
		long = append(long, m.Name)
	}
	assert.Equal(t, []string{"Ring", "Ring_mutant_A", "Ring_mutant_B", "RunnextFine", "RunnextFine_mutant_Skip"}, short)
	assert.Len(t, long, len(ms), "long mode runs every model")
}

// TestModelsLongOnlyNeedsAMutant: a "\* Long only:" line on a model that
// must pass is refused (it would leave the spec unchecked in default mode).
func TestModelsLongOnlyNeedsAMutant(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"S.tla": "", "S.cfg": "\\* Long only: slow\nINVARIANT Inv\n"})
	_, err := Models(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Long only")
}

func TestModelsRejectsABadExpect(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"a misspelt name":          {"S_mutant_M.cfg": "\\* Expect: Conservaton\nINVARIANT Conservation\n"},
		"a name only in a comment": {"S_mutant_M.cfg": "\\* Expect: Other\nINVARIANT Conservation \\* Other\n"},
		"a model that must pass":   {"S.cfg": "\\* Expect: Conservation\nINVARIANT Conservation\n"},
		"two Expect lines":         {"S_mutant_M.cfg": "\\* Expect: A\n\\* Expect: B\nINVARIANT A B\n"},
		"a long spec not there":    {"Other_long.cfg": "INVARIANT A\n"},
	} {
		dir := t.TempDir()
		write(t, dir, map[string]string{"S.tla": ""})
		write(t, dir, files)
		_, err := Models(dir)
		assert.Error(t, err, name)
	}
}

func TestInvariantsAndPropertiesSkipComments(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "M.cfg")
	write(t, dir, map[string]string{"M.cfg": "INVARIANTS TypeOK (* Gone *) Conservation\n(* INVARIANT Hidden\n*)\nINVARIANT Bound \\* Nope\nPROPERTY Live\n"})
	assert.Equal(t, []string{"TypeOK", "Conservation", "Bound"}, Invariants(cfg))
	assert.Equal(t, []string{"Live"}, Properties(cfg))
	assert.Nil(t, Invariants(filepath.Join(dir, "missing.cfg")))
}

func TestWithout(t *testing.T) {
	cfg := "\\* Expect: B\nSPECIFICATION Spec\nCONSTANTS N = 2\n  Items = {1, 2}\nINVARIANTS A B (* c *) C\nPROPERTY B\nPROPERTY Live\n"
	got, err := Without(cfg, "B")
	require.NoError(t, err)
	assert.Equal(t, "SPECIFICATION Spec\nCONSTANTS N = 2\nItems = {1, 2}\nINVARIANTS A C\nPROPERTY Live\n", got,
		"B leaves both kinds of section; a PROPERTY left empty goes with it")

	got, err = Without("INIT Init\nNEXT Next\nINVARIANT Only\nCHECK_DEADLOCK FALSE\n", "Only")
	require.NoError(t, err)
	assert.Equal(t, "INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n", got)

	got, err = Without("SPECIFICATION Spec\nPROPERTY\n  Live\n", "Live")
	require.NoError(t, err)
	assert.Equal(t, "SPECIFICATION Spec\n", got, "an empty section at the end goes too")

	_, err = Without("INIT Init\nNEXT Next\nINVARIANT A\n", "Init")
	assert.Error(t, err, "a name outside INVARIANT and PROPERTY sections is not removed")
	_, err = Without("INVARIANT A \\* B\n", "B")
	assert.Error(t, err, "a name in a comment is not there")
}

func TestExpectMet(t *testing.T) {
	props := []string{"Live", "Fair"}
	for _, tc := range []struct {
		name, expect string
		o            Outcome
		named        string
		ok           bool
		reason       string
	}{
		{"no Expect: any rejection", "", OutcomeSafety, "Other", true, ""},
		{"the invariant named", "Conservation", OutcomeSafety, "Conservation", true, ""},
		{"another invariant named", "Conservation", OutcomeSafety, "TypeOK", false, "rejected by TypeOK, want Conservation"},
		{"an action property named", "Step", OutcomeLiveness, "Step", true, ""},
		{"a temporal property the config checks", "Live", OutcomeLiveness, "", true, ""},
		{"a temporal property it does not check", "Conservation", OutcomeLiveness, "", false, "not among the config's properties"},
		{"a deadlock names nothing", "Conservation", OutcomeDeadlock, "", false, "deadlock violation that names nothing"},
		{"an Assert names nothing", "Conservation", OutcomeAssert, "", false, "assert violation"},
	} {
		ok, reason := ExpectMet(tc.expect, tc.o, tc.named, props)
		assert.Equal(t, tc.ok, ok, tc.name)
		if tc.ok {
			assert.Empty(t, reason, tc.name)
		} else {
			assert.Contains(t, reason, tc.reason, tc.name)
		}
	}
}

func TestJudgeOnly(t *testing.T) {
	counted := Parse(samplePass)
	for _, tc := range []struct {
		name   string
		exit   int
		stats  Stats
		ok     bool
		reason string
	}{
		{"passes without it: only it rejects", 0, counted, true, ""},
		{"another invariant still rejects", 12, Parse(sampleInvariant), false, "not only X rejects it: without X, TLC still rejects it by Conservation"},
		{"a deadlock still rejects", 11, Parse(sampleDeadlock), false, "still rejects it by a deadlock violation"},
		{"a temporal property still rejects", 13, Stats{Counted: true}, false, "by a liveness violation"},
		{"the re-run does not parse", 150, Stats{}, false, "did not pass: TLC failed with exit code 150"},
		{"the re-run timed out", -1, Stats{}, false, "did not pass: TLC did not finish"},
		{"the re-run counted nothing", 0, Stats{}, false, "no state counts"},
	} {
		ok, reason := JudgeOnly("X", tc.exit, tc.stats)
		assert.Equal(t, tc.ok, ok, tc.name)
		if tc.ok {
			assert.Empty(t, reason, tc.name)
		} else {
			assert.Contains(t, reason, tc.reason, tc.name)
		}
	}
}

func TestLongFromEnv(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "false": false, "1": true, "true": true} {
		t.Setenv(LongEnv, v)
		assert.Equal(t, want, LongFromEnv(), "%s=%q", LongEnv, v)
	}
}

// twoInvSpec has two invariants that its mutants break alone or together.
const twoInvSpec = `---- MODULE Two ----
EXTENDS Naturals
CONSTANT Limit
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % Limit
Below3 == x < 3
Below4 == x < 4
Spec == Init /\ [][Next]_x
Reaches3 == <>(x = 3)
Reaches4 == <>(x = 4)
====
`

// TestCheckOnlyItRejectsWithTLC runs the real TLC on the "it, and only it"
// rule, judged right and wrong, and on the long naming. Skipped without the
// jar or java.
func TestCheckOnlyItRejectsWithTLC(t *testing.T) {
	c, err := NewChecker(1)
	if isNoTLC(err) {
		t.Skip(err)
	}
	require.NoError(t, err)
	require.True(t, c.OnlyRerun, "NewChecker does the only-it re-run")
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"Two.tla": twoInvSpec,
		"Two.cfg": "CONSTANT Limit = 3\nINIT Init\nNEXT Next\nINVARIANTS Below3 Below4\n",
		// x reaches 3: Below3, and only Below3, rejects it.
		"Two_mutant_Only.cfg": "\\* Expect: Below3\nCONSTANT Limit = 4\nINIT Init\nNEXT Next\nINVARIANTS Below3 Below4\n",
		// x reaches 4: TLC names Below3 first, but Below4 rejects it too.
		"Two_mutant_NotOnly.cfg": "\\* Expect: Below3\nCONSTANT Limit = 5\nINIT Init\nNEXT Next\nINVARIANTS Below3 Below4\n",
		// TLC names Below3, not the expected Below4.
		"Two_mutant_Wrong.cfg": "\\* Expect: Below4\nCONSTANT Limit = 5\nINIT Init\nNEXT Next\nINVARIANTS Below3 Below4\n",
		// No Expect: any rejection, no re-run.
		"Two_mutant_Any.cfg": "CONSTANT Limit = 5\nINIT Init\nNEXT Next\nINVARIANTS Below3 Below4\n",
		// Long mode only.
		"Two_long.cfg":            "CONSTANT Limit = 3\nINIT Init\nNEXT Next\nINVARIANT Below3\n",
		"Two_long_mutant_Big.cfg": "\\* Expect: Below4\nCONSTANT Limit = 6\nINIT Init\nNEXT Next\nINVARIANT Below4\n",
		// Without fairness x may stay 0 forever: both properties fail, and
		// the liveness fallback alone would accept Reaches3; the re-run
		// finds it is not the only one.
		"Two_mutant_Temporal.cfg":  "\\* Expect: Reaches3\nCONSTANT Limit = 3\nSPECIFICATION Spec\nPROPERTY Reaches3\n",
		"Two_mutant_Temporal2.cfg": "\\* Expect: Reaches3\nCONSTANT Limit = 3\nSPECIFICATION Spec\nPROPERTIES Reaches3 Reaches4\n",
	})
	short := []string{"Two.tla", "Two_mutant_Only.cfg", "Two_mutant_NotOnly.cfg", "Two_mutant_Temporal2.cfg"}
	if testing.Short() { // the three that judge the re-run; each TLC run starts a JVM
		all, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range all {
			if !slices.Contains(short, filepath.Base(f)) {
				require.NoError(t, os.Remove(f))
			}
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c.Long = true
	var progress []string
	c.Progress = func(r Result) { progress = append(progress, r.Model) }
	rs, _ := c.CheckAll(ctx, dir)
	by := map[string]Result{}
	for _, r := range rs {
		t.Log(r)
		by[r.Model] = r
	}
	assert.Len(t, progress, len(rs), "Progress hears of every model")
	if testing.Short() {
		require.Len(t, by, 3)
	} else {
		require.Len(t, by, 9)
	}

	ok := by["Two_mutant_Only"]
	assert.True(t, ok.OK, ok.Reason)
	require.NotNil(t, ok.Only, "a rejected mutant with an Expect line is re-run")
	assert.Equal(t, OutcomeOK, ok.Only.Outcome)
	assert.Contains(t, ok.String(), "without Below3: ok")

	notOnly := by["Two_mutant_NotOnly"]
	assert.False(t, notOnly.OK)
	assert.Contains(t, notOnly.Reason, "not only Below3 rejects it: without Below3, TLC still rejects it by Below4")

	temporal2 := by["Two_mutant_Temporal2"]
	assert.False(t, temporal2.OK)
	assert.Contains(t, temporal2.Reason, "not only Reaches3 rejects it")

	// Without OnlyRerun the first run alone decides, and NotOnly looks
	// fine: the re-run is what catches it. Temporal2 is re-run all the
	// same: TLC did not say which of its two properties failed.
	c.OnlyRerun = false
	ms, err := Models(dir)
	require.NoError(t, err)
	for _, m := range ms {
		switch m.Name {
		case "Two_mutant_NotOnly":
			r := c.Check(ctx, m)
			assert.True(t, r.OK, r.Reason)
			assert.Nil(t, r.Only)
		case "Two_mutant_Temporal2":
			r := c.Check(ctx, m)
			assert.True(t, r.Unnamed)
			assert.NotNil(t, r.Only, "an unnamed temporal violation among two properties is re-run")
			assert.Contains(t, r.Reason, "not only Reaches3 rejects it")
		}
	}
	if testing.Short() {
		return
	}

	wrong := by["Two_mutant_Wrong"]
	assert.False(t, wrong.OK)
	assert.Contains(t, wrong.Reason, "rejected by Below3, want Below4")
	assert.Nil(t, wrong.Only, "no re-run once the first run is wrong")

	anyR := by["Two_mutant_Any"]
	assert.True(t, anyR.OK, anyR.Reason)
	assert.Nil(t, anyR.Only, "no Expect line: no re-run")

	assert.True(t, by["Two_long"].OK && by["Two_long"].Long, by["Two_long"].Reason)
	assert.True(t, by["Two_long_mutant_Big"].OK, by["Two_long_mutant_Big"].Reason)

	temporal := by["Two_mutant_Temporal"]
	assert.True(t, temporal.OK, temporal.Reason)
	require.NotNil(t, temporal.Only)

	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	assert.Len(t, left, 10, "nothing is written beside the spec")
}
