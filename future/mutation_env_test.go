//go:build schedmutant

package future_test

import (
	"github.com/schedkit/schedkit/future"
	"github.com/schedkit/schedkit/internal/mutation"
)

// SCHEDKIT_MUTATION=<name> runs the whole test binary with that seeded fault,
// to watch a checker catch it, e.g.:
//
//	SCHEDKIT_MUTATION=WakeFirstOnly go test -tags schedmutant -run '^TestManyWaiters$' ./future/
func init() { mutation.FromEnv(future.SetMutation) }
