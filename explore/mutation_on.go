//go:build schedmutant

package explore

import "os"

// mutantEnv selects a seeded fault of the explorer itself in a schedmutant
// build, so that the checks comparing DPOR with unbounded DFS can show they
// fail: "dpor-skips-load-race" makes DPOR leave out the reversal of every
// race whose first step is a load (the store is never tried before it).
const mutantEnv = "SCHEDKIT_EXPLORE_MUTANT"

// dporMutant is the seeded fault, read once.
var dporMutant = os.Getenv(mutantEnv)

// mutantBuild reports a schedmutant build.
const mutantBuild = true
