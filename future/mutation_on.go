//go:build schedmutant

package future

import mutations "github.com/schedkit/schedkit/internal/mutation"

// mutant is the seeded fault every Future runs with. Set it only while no
// Future is in use: it is read without synchronization on every operation.
var mutant = noMutation

// Mutations lists the seeded faults a schedmutant build can select.
func Mutations() []string { return append([]string(nil), mutationNames[1:]...) }

// SetMutation makes every Future run with the named seeded fault ("none" for
// the real code) and returns a function that restores the previous one.
func SetMutation(name string) (restore func(), err error) {
	return mutations.Select("future", mutationNames[:], &mutant, name)
}
