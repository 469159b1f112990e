//go:build schedmutant

package lfq_test

import (
	"github.com/schedkit/schedkit/internal/mutation"
	"github.com/schedkit/schedkit/lfq"
)

// SCHEDKIT_MUTATION=<name> runs the whole test binary with that seeded fault,
// to watch a checker catch it, e.g.:
//
//	SCHEDKIT_MUTATION=GetNoRetry go test -tags schedcheck,schedmutant -run '^TestExploreRing$' ./lfq/
func init() { mutation.FromEnv(lfq.SetMutation) }
