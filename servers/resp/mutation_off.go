//go:build !schedmutant

package resp

// mutant is constant in a normal build: the faulty branches are dead code.
const mutant = noMutation
