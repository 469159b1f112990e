//go:build schedmutant

package resp

import mutations "github.com/schedkit/schedkit/internal/mutation"

// mutant is the seeded fault the parser and the commands run with. Set it
// only while no server runs: it is read without synchronization.
var mutant = noMutation

// Mutations lists the seeded faults a schedmutant build can select.
func Mutations() []string { return append([]string(nil), mutationNames[1:]...) }

// SetMutation makes the parser and the commands run with the named seeded
// fault ("none" for the real code) and returns a function that restores the
// previous one.
func SetMutation(name string) (restore func(), err error) {
	return mutations.Select("resp", mutationNames[:], &mutant, name)
}
