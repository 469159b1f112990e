//go:build schedmutant

package runnext_test

import (
	"github.com/schedkit/schedkit/internal/mutation"
	"github.com/schedkit/schedkit/runnext"
)

// SCHEDKIT_MUTATION=<name> runs the whole test binary with that seeded fault,
// to watch a checker catch it, e.g.:
//
//	SCHEDKIT_MUTATION=TakeWithoutCAS go test -tags schedcheck,schedmutant -run '^TestExploreRunnext$' ./runnext/
func init() { mutation.FromEnv(runnext.SetMutation) }
