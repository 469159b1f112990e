//go:build schedmutant

package timers

import mutations "github.com/schedkit/schedkit/internal/mutation"

// mutant is the seeded fault every heap and timer runs with. Set it only
// while no timer is in use: it is read without synchronization.
var mutant = noMutation

// Mutations lists the seeded faults a schedmutant build can select.
func Mutations() []string { return append([]string(nil), mutationNames[1:]...) }

// SetMutation makes every heap and timer run with the named seeded fault
// ("none" for the real algorithm) and returns a function that restores the
// previous one.
func SetMutation(name string) (restore func(), err error) {
	return mutations.Select("timers", mutationNames[:], &mutant, name)
}
