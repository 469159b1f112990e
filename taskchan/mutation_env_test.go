//go:build schedmutant

package taskchan_test

import (
	"github.com/schedkit/schedkit/internal/mutation"
	"github.com/schedkit/schedkit/taskchan"
)

// SCHEDKIT_MUTATION=<name> runs the whole test binary with that seeded fault,
// to watch a checker catch it, e.g.:
//
//	SCHEDKIT_MUTATION=CloseSkipsSenders go test -tags schedcheck,schedmutant -run '^TestExplore$' ./taskchan/
func init() { mutation.FromEnv(taskchan.SetMutation) }
