// Package tlc runs the TLC model checker on the TLA+ specs in proofs/tla and
// judges each run: a model must pass, a mutant must be rejected.
//
// A directory holds specs and configs named by convention:
//
//	<Spec>.tla                      the spec
//	<Spec>.cfg                      a model that TLC must pass (exit code 0)
//	<Spec>_mutant_<Name>.cfg        a mutant that TLC must reject with a violation
//	<Spec>_long.cfg                 a model run only in long mode (larger constants)
//	<Spec>_long_mutant_<Name>.cfg   a mutant run only in long mode
//
// A rejection is a deadlock, safety, liveness or Assert violation (TLC exit
// codes 11 to 14). An assumption failure (10) is not one: TLC exits 10 when
// an ASSUME is false or cannot be evaluated, before any behaviour is explored,
// so a misspelt mutant name would look rejected. Every other exit code (a
// parse or semantic error, an evaluation error, 75 and up) is an error and
// never counts as a rejection.
//
// A mutant config may carry a line `\* Expect: <Name>` naming one of its
// invariants or properties. Then "it, and only it, rejects" the mutant: TLC
// must name that one as violated (for a temporal property, which TLC does not
// name, it must be one the config checks), and the same config with that name
// removed (Without) must pass, so no other invariant or property rejects it.
// A mutant without the line is judged by the old rule: any rejection. The
// re-run (Checker.OnlyRerun) about doubles a mutant's time; the callers do it
// in long mode, and Check does it in any mode where TLC reported a temporal
// violation without naming which of several properties failed.
//
// Long mode (Checker.Long; LongEnv for `go test ./proofs/tla/`) runs the
// _long configs beside the others.
//
// A run that makes no progress for Checker.Stall (DefaultStall, 10
// minutes: no new output line, or only progress lines with the same state
// counts) is stopped and fails with StallReason: TLC 2.18 with one worker
// can deadlock (fixed upstream in tlaplus PR 1438), and the caller must
// get a verdict, not a hang.
//
// The package needs Java and tla2tools.jar; FindJar and FindJava say where
// they are or why not, and Installer downloads a pinned jar. It uses only
// the standard library.
//
// Each rule and the test that fails when it breaks:
//
//	exit codes: only 11-14 reject; 10, parse/eval errors never do   TestOutcomeOf, TestJudge, TestCheckAllTiny
//	final counts, not progress lines; the violated name             TestParse, TestParseSeparators
//	config names, _long, a missing spec fails the listing           TestParseName, TestModels, TestModelsBadNames, TestModelsLongAndExpect
//	Expect: one name, one line, only on a mutant, one it checks     TestParseExpect, TestModelsRejectsABadExpect
//	Expect judged: the name TLC reports, or a checked property      TestExpectMet, TestCheckOnlyItRejectsWithTLC
//	only it: the config without the name must pass                  TestWithout, TestJudgeOnly, TestCheckOnlyItRejectsWithTLC
//	an unnamed temporal violation among several is re-run anyway     TestCheckOnlyItRejectsWithTLC
//	long mode runs _long configs, default mode leaves them out      TestModelsLongAndExpect, TestLongFromEnv, TestCheckOnlyItRejectsWithTLC
//	  and mutants with a "\* Long only: <why>" line (none passes)   TestModelsLongAndExpect, TestModelsLongOnlyNeedsAMutant
//	comments are not names                                          TestInvariantsAndPropertiesSkipComments, TestPropertiesReadsTheConfigsTemporalProperties
//	nothing is written beside the spec; a runaway run is stopped    TestCheckAllTiny, TestRunTimeout
//	a TLC with no progress (no new line, same counts) is stopped    TestRunStopsAStalledTLC, TestWatchProgress
//	FindJar: $TLA2TOOLS_JAR, then ~/.cache/tla                      TestFindJar
//	a jar that is not a jar, or not TLC, is said so (as ErrNoJar)   TestCheckJar
//	a missing specs' directory is said missing, not empty           TestModelsOfAMissingDirectory
//	install: from http(s), a file:// URL or a local path            TestInstallFromALocalFile
//	install: renamed only after a TLC >= 2.18 version line          TestInstallRenamesOnlyAfterTheVersionCheck, TestInstallRunsTheRealJavaPath
//	install: every failure one line saying what to do, no leftovers TestInstallFailsInOneLine, TestInstallRunsTheRealJavaPath
//	install: URL from $SCHEDKIT_TLA2TOOLS_URL, jar where FindJar looks TestInstallURLFromEnv
//
// The tests that need java and the jar skip without them.
package tlc
