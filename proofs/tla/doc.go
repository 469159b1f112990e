// Package tla holds schedkit's TLA+ specs, one per component, and the Go test
// that runs TLC on them: every <Spec>.cfg must pass and every
// <Spec>_mutant_<Name>.cfg must be rejected (see internal/tlc and README.md
// beside this file, which maps each action to the Go method and runtime
// function it models and records the states explored).
package tla
