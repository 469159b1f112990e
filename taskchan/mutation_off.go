//go:build !schedmutant

package taskchan

// mutant is constant in a normal build: the faulty branches are dead code.
const mutant = noMutation
