//go:build schedmutant

package executor

import mutations "github.com/schedkit/schedkit/internal/mutation"

// mutant is the seeded fault every Executor runs with. Set it only while no
// Executor is in use: it is read without synchronization.
var mutant = noMutation

// Mutations lists the seeded faults a schedmutant build can select.
func Mutations() []string { return append([]string(nil), mutationNames[1:]...) }

// SetMutation makes every Executor run with the named seeded fault ("none"
// for the real scheduler) and returns a function that restores the previous
// one.
func SetMutation(name string) (restore func(), err error) {
	return mutations.Select("executor", mutationNames[:], &mutant, name)
}
