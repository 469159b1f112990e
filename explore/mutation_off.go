//go:build !schedmutant

package explore

// dporMutant is constant in a normal build: the faulty branch is dead code.
const dporMutant = ""

// mutantBuild reports a schedmutant build.
const mutantBuild = false
