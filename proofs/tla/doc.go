// Package tla holds schedkit's TLA+ specs, one per component, and the Go test
// that runs TLC on them (internal/tlc says how each run is judged):
//
//	<Spec>.cfg                      must pass
//	<Spec>_mutant_<Name>.cfg        must be rejected; a `\* Expect: <Inv>` line in it
//	                                names the one invariant or property that must reject it
//	<Spec>_long.cfg, <Spec>_long_mutant_<Name>.cfg
//	                                the same, run only in long mode
//
// Long mode is SCHEDKIT_TLC_LONG=1 for `go test ./proofs/tla/`, and -long for
// `schedkit tlc` and `schedkit verify`. It also does the second half of an
// Expect line, "only it rejects": the mutant's config without that name must
// pass. README.md beside this file maps each action to the Go method and
// runtime function it models and records the states explored.
package tla
