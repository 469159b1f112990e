//go:build schedmutant

package netpoll_test

import (
	"github.com/schedkit/schedkit/internal/mutation"
	"github.com/schedkit/schedkit/netpoll"
)

// SCHEDKIT_MUTATION=<name> runs the whole test binary with that seeded fault,
// to watch a checker catch it, e.g.:
//
//	SCHEDKIT_MUTATION=CommitNoCAS go test -tags schedcheck,schedmutant -run '^TestExploreNetpoll$' ./netpoll/
func init() { mutation.FromEnv(netpoll.SetMutation) }
