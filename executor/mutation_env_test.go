//go:build schedmutant

package executor_test

import (
	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/mutation"
)

// SCHEDKIT_MUTATION=<name> runs the whole test binary with that seeded fault,
// to watch a checker catch it, e.g.:
//
//	SCHEDKIT_MUTATION=WaitBlocksP go test -tags schedmutant -run '^TestForkJoinNestedOnEveryP$' ./executor/
func init() { mutation.FromEnv(executor.SetMutation) }
