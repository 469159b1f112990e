//go:build schedmutant

package stealing

import mutations "github.com/schedkit/schedkit/internal/mutation"

// mutant is the seeded fault every Order and Stealer runs with. Set it only
// while none is in use: it is read without synchronization. An Order keeps
// the strides it was Reset with, so select StrideNotCoprime before New.
var mutant = noMutation

// Mutations lists the seeded faults a schedmutant build can select.
func Mutations() []string { return append([]string(nil), mutationNames[1:]...) }

// SetMutation makes every Order and Stealer run with the named seeded fault
// ("none" for the real algorithm) and returns a function that restores the
// previous one.
func SetMutation(name string) (restore func(), err error) {
	return mutations.Select("stealing", mutationNames[:], &mutant, name)
}
