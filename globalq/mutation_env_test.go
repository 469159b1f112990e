//go:build schedmutant

package globalq_test

import (
	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/internal/mutation"
)

// SCHEDKIT_MUTATION=<name> runs the whole test binary with that seeded fault,
// to watch a checker catch it, e.g.:
//
//	SCHEDKIT_MUTATION=LenNotUnderLock go test -tags schedcheck,schedmutant -run '^TestExploreGlobalQ$' ./globalq/
func init() { mutation.FromEnv(globalq.SetMutation) }
