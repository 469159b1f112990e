//go:build schedmutant

package http1_test

import (
	"github.com/schedkit/schedkit/internal/mutation"
	"github.com/schedkit/schedkit/servers/http1"
)

// SCHEDKIT_MUTATION=<name> runs the whole test binary with that seeded fault,
// to watch a checker catch it, e.g.:
//
//	SCHEDKIT_MUTATION=ContentLengthShort go test -tags schedmutant -run '^TestReadRequest$' ./servers/http1/
func init() { mutation.FromEnv(http1.SetMutation) }
