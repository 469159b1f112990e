package tlc

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// The naming conventions of a config, beside <Spec>.cfg and
// <Spec>_mutant_<Name>.cfg.
const (
	mutantSep  = "_mutant_"
	longSuffix = "_long" // <Spec>_long.cfg, <Spec>_long_mutant_<Name>.cfg: long mode only
)

// LongEnv is the environment variable that puts `go test ./proofs/tla/` in
// long mode: set to 1, it runs the <Spec>_long*.cfg models too.
const LongEnv = "SCHEDKIT_TLC_LONG"

// LongFromEnv reports whether LongEnv asks for long mode.
func LongFromEnv() bool {
	switch os.Getenv(LongEnv) {
	case "", "0", "false":
		return false
	}
	return true
}

// parseName splits a config's base name into its spec, mutant and whether
// it runs only in long mode.
func parseName(name string) (spec, mutant string, long bool, err error) {
	spec, mutant, isMutant := strings.Cut(name, mutantSep)
	if s, ok := strings.CutSuffix(spec, longSuffix); ok {
		spec, long = s, true
	}
	if spec == "" || (isMutant && mutant == "") {
		return "", "", false, fmt.Errorf("want <Spec>.cfg, <Spec>%s<Name>.cfg, <Spec>%s.cfg or <Spec>%s%s<Name>.cfg",
			mutantSep, longSuffix, longSuffix, mutantSep)
	}
	return spec, mutant, long, nil
}

// longOnlyRE matches a mutant config's `\* Long only: <why>` line: the
// mutant runs in long mode alone, as a <Spec>_long_mutant_ config does, but
// keeps its name (the kill matrices and the README find it by that name).
// The test command has a time budget; a spec's mutants beyond the few it
// keeps in default mode carry this line.
var longOnlyRE = regexp.MustCompile(`(?m)^[ \t]*\\\*[ \t]*Long only:[ \t]*\S`)

// expectRE matches a config's `\* Expect: <Name>` line.
var expectRE = regexp.MustCompile(`(?m)^[ \t]*\\\*[ \t]*Expect:[ \t]*(.*?)[ \t]*\r?$`)

// ParseExpect returns the name on the config's `\* Expect: <Name>` line, or
// "" when it has none. More than one such line, or one without a single
// name, is an error: the mutant would be judged on a guess.
func ParseExpect(cfgText string) (string, error) {
	ms := expectRE.FindAllStringSubmatch(cfgText, -1)
	switch {
	case len(ms) == 0:
		return "", nil
	case len(ms) > 1:
		return "", errors.New(`more than one "\* Expect:" line`)
	}
	name := ms[0][1]
	if name == "" || strings.ContainsAny(name, " \t") {
		return "", fmt.Errorf(`"\* Expect: %s": want exactly one invariant or property name`, name)
	}
	return name, nil
}

// cfgKeywords are the section keywords of a TLC config, which end a list
// of names.
var cfgKeywords = map[string]bool{"SPECIFICATION": true, "INIT": true, "NEXT": true, "CONSTANT": true,
	"CONSTANTS": true, "INVARIANT": true, "INVARIANTS": true, "PROPERTY": true, "PROPERTIES": true,
	"CONSTRAINT": true, "CONSTRAINTS": true, "ACTION_CONSTRAINT": true, "ACTION_CONSTRAINTS": true,
	"SYMMETRY": true, "VIEW": true, "CHECK_DEADLOCK": true, "POSTCONDITION": true, "ALIAS": true}

func isInvariantKw(f string) bool { return f == "INVARIANT" || f == "INVARIANTS" }
func isPropertyKw(f string) bool  { return f == "PROPERTY" || f == "PROPERTIES" }

// cfgToken is one whitespace-separated word of a config, comments removed.
type cfgToken struct {
	text string
	line int
}

var blockCommentRE = regexp.MustCompile(`(?s)\(\*.*?\*\)`)

// cfgTokens splits a config into words, dropping `\*` and `(* *)` comments
// and keeping each word's line.
func cfgTokens(text string) []cfgToken {
	text = blockCommentRE.ReplaceAllStringFunc(text, func(c string) string {
		return strings.Repeat("\n", strings.Count(c, "\n")) // keep the line numbers
	})
	var toks []cfgToken
	for i, line := range strings.Split(text, "\n") {
		if j := strings.Index(line, `\*`); j >= 0 {
			line = line[:j]
		}
		for _, f := range strings.Fields(line) {
			toks = append(toks, cfgToken{f, i})
		}
	}
	return toks
}

// sectionNames lists the names in the sections whose keyword in selects.
func sectionNames(text string, in func(keyword string) bool) []string {
	var names []string
	inside := false
	for _, t := range cfgTokens(text) {
		switch {
		case cfgKeywords[t.text]:
			inside = in(t.text)
		case inside:
			names = append(names, t.text)
		}
	}
	return names
}

// Properties lists the temporal properties a config asks TLC to check (its
// PROPERTY and PROPERTIES sections), or nil if it cannot be read.
func Properties(cfg string) []string {
	b, err := os.ReadFile(cfg)
	if err != nil {
		return nil
	}
	return sectionNames(string(b), isPropertyKw)
}

// Invariants lists the invariants a config asks TLC to check (its
// INVARIANT and INVARIANTS sections), or nil if it cannot be read.
func Invariants(cfg string) []string {
	b, err := os.ReadFile(cfg)
	if err != nil {
		return nil
	}
	return sectionNames(string(b), isInvariantKw)
}

// Without returns the config with name removed from its INVARIANT(S) and
// PROPERTY(IES) sections, and a section left empty removed with it:
// the config that "only name rejects the mutant" requires to pass. Comments
// are dropped. It fails when name is in neither kind of section.
func Without(cfgText, name string) (string, error) {
	toks := cfgTokens(cfgText)
	kept := make([]cfgToken, 0, len(toks))
	inside, removed := false, 0
	for _, t := range toks {
		switch {
		case cfgKeywords[t.text]:
			inside = isInvariantKw(t.text) || isPropertyKw(t.text)
		case inside && t.text == name:
			removed++
			continue
		}
		kept = append(kept, t)
	}
	if removed == 0 {
		return "", fmt.Errorf("%s is not among the config's invariants or properties", name)
	}
	// An INVARIANT or PROPERTY keyword with no name after it is dropped.
	out := make([]cfgToken, 0, len(kept))
	for i, t := range kept {
		if isInvariantKw(t.text) || isPropertyKw(t.text) {
			if i+1 == len(kept) || cfgKeywords[kept[i+1].text] {
				continue
			}
		}
		out = append(out, t)
	}
	var b strings.Builder
	line := -1
	for _, t := range out {
		switch {
		case line < 0:
		case t.line != line:
			b.WriteString("\n")
		default:
			b.WriteString(" ")
		}
		b.WriteString(t.text)
		line = t.line
	}
	b.WriteString("\n")
	return b.String(), nil
}

// checkExpect validates a config's Expect line against its kind and its
// sections, so that a misspelt name fails when the models are listed rather
// than after TLC has run.
func checkExpect(m Model, cfgText string) error {
	if m.Expect == "" {
		return nil
	}
	if m.Mutant == "" {
		return fmt.Errorf(`"\* Expect: %s" on a model that must pass: only a mutant config names what rejects it`, m.Expect)
	}
	names := sectionNames(cfgText, func(k string) bool { return isInvariantKw(k) || isPropertyKw(k) })
	if !slices.Contains(names, m.Expect) {
		return fmt.Errorf(`"\* Expect: %s": not among the config's INVARIANT(S) or PROPERTY(IES) %v`, m.Expect, names)
	}
	return nil
}

// ExpectMet decides whether a rejection was by the expected name. TLC names
// a violated invariant or action property; for a temporal property it names
// none, and then expect must be one of the config's properties (props),
// which the only-it re-run (JudgeOnly) makes exact.
func ExpectMet(expect string, o Outcome, named string, props []string) (ok bool, reason string) {
	switch {
	case expect == "":
		return true, ""
	case named == expect:
		return true, ""
	case named != "":
		return false, fmt.Sprintf("rejected by %s, want %s", named, expect)
	case o == OutcomeLiveness && slices.Contains(props, expect):
		return true, ""
	case o == OutcomeLiveness:
		return false, fmt.Sprintf("a temporal property was violated, and %s is not among the config's properties %v", expect, props)
	}
	return false, fmt.Sprintf("rejected by a %s violation that names nothing, want %s", o, expect)
}

// JudgeOnly decides the second half of "it, and only it, rejects": the
// mutant's config with expect removed (Without) must pass, so no other
// invariant or property rejects the mutant.
func JudgeOnly(expect string, exitCode int, s Stats) (ok bool, reason string) {
	ok, why := Judge(false, exitCode, s)
	if ok {
		return true, ""
	}
	if o := OutcomeOf(exitCode); o.Rejects() {
		by := s.Violated
		if by == "" {
			by = "a " + string(o) + " violation"
		}
		return false, fmt.Sprintf("not only %s rejects it: without %s, TLC still rejects it by %s", expect, expect, by)
	}
	return false, fmt.Sprintf("the re-run without %s did not pass: %s", expect, why)
}

// Select returns the models that run in the given mode: every model in long
// mode, the ones not named _long otherwise.
func Select(ms []Model, long bool) []Model {
	var out []Model
	for _, m := range ms {
		if long || !m.Long {
			out = append(out, m)
		}
	}
	return out
}
