//go:build schedmutant

package taskchan

import mutations "github.com/schedkit/schedkit/internal/mutation"

// mutant is the seeded fault every channel runs with. Set it only while no
// channel is in use: it is read without synchronization on every operation.
var mutant = noMutation

// Mutations lists the seeded faults a schedmutant build can select.
func Mutations() []string { return append([]string(nil), mutationNames[1:]...) }

// SetMutation makes every channel run with the named seeded fault ("none" for
// the real algorithm) and returns a function that restores the previous one.
func SetMutation(name string) (restore func(), err error) {
	return mutations.Select("taskchan", mutationNames[:], &mutant, name)
}
