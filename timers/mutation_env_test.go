//go:build schedmutant

package timers_test

import (
	"github.com/schedkit/schedkit/internal/mutation"
	"github.com/schedkit/schedkit/timers"
)

// SCHEDKIT_MUTATION=<name> runs the whole test binary with that seeded fault,
// to watch a checker catch it, e.g.:
//
//	SCHEDKIT_MUTATION=StopAfterFire go test -tags schedcheck,schedmutant -run '^TestExploreTimers$' ./timers/
func init() { mutation.FromEnv(timers.SetMutation) }
