//go:build schedmutant

package netpoll

import mutations "github.com/schedkit/schedkit/internal/mutation"

// mutant is the seeded fault every Desc, Table and Breaker runs with. Set it only
// while no Desc is in use: it is read without synchronization.
var mutant = noMutation

// Mutations lists the seeded faults a schedmutant build can select.
func Mutations() []string { return append([]string(nil), mutationNames[1:]...) }

// SetMutation makes every Desc, Table and Breaker run with the named seeded fault
// ("none" for the real algorithm) and returns a function that restores the
// previous one.
func SetMutation(name string) (restore func(), err error) {
	return mutations.Select("netpoll", mutationNames[:], &mutant, name)
}
