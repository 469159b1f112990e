//go:build !schedmutant

package netpoll

// mutant is constant in a normal build: the faulty branches are dead code.
const mutant = noMutation
