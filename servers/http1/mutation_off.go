//go:build !schedmutant

package http1

// mutant is constant in a normal build: the faulty branches are dead code.
const mutant = noMutation
