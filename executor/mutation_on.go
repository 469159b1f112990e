//go:build schedmutant

package executor

import (
	mutations "github.com/schedkit/schedkit/internal/mutation"
	"github.com/schedkit/schedkit/spinning"
)

// mutant is the seeded fault every Executor runs with. Set it only while no
// Executor is in use: it is read without synchronization.
var mutant = noMutation

// Mutations lists the seeded faults a schedmutant build can select.
func Mutations() []string { return append([]string(nil), mutationNames[1:]...) }

// componentFaults are the executor's mutations that are a component's
// seeded fault (the Go bug it re-introduces is in the component's mirror of
// the runtime function), selected with it so that the executor's suite is
// checked against it.
var componentFaults = map[mutation]func() (func(), error){
	spinNoNeedSpinning:      func() (func(), error) { return spinning.SetMutation("NoNeedSpinning") },
	spinDropNoNeedSpinning:  func() (func(), error) { return spinning.SetMutation("DropNoNeedSpinning") },
	spinNoWakeOnLastSpinner: func() (func(), error) { return spinning.SetMutation("NoWakeOnLastSpinner") },
}

// SetMutation makes every Executor run with the named seeded fault ("none"
// for the real scheduler) and returns a function that restores the previous
// one.
func SetMutation(name string) (restore func(), err error) {
	own, err := mutations.Select("executor", mutationNames[:], &mutant, name)
	if err != nil {
		return nil, err
	}
	if set := componentFaults[mutant]; set != nil {
		undo, err := set()
		if err != nil {
			own()
			return nil, err
		}
		return func() { undo(); own() }, nil
	}
	return own, nil
}
