//go:build !schedmutant

package explore

// dporMutant is constant in a normal build: the faulty branch is dead code.
const dporMutant = ""
