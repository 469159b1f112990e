//go:build schedmutant

package spinning_test

import (
	"github.com/schedkit/schedkit/internal/mutation"
	"github.com/schedkit/schedkit/spinning"
)

// SCHEDKIT_MUTATION=<name> runs the whole test binary with that seeded fault,
// to watch a checker catch it, e.g.:
//
//	SCHEDKIT_MUTATION=DropWithoutRecheck go test -tags schedcheck,schedmutant -run '^TestExploreSpinning$/^drop-vs-submit$' ./spinning/
func init() { mutation.FromEnv(spinning.SetMutation) }
