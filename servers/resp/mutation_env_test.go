//go:build schedmutant

package resp_test

import (
	"github.com/schedkit/schedkit/internal/mutation"
	"github.com/schedkit/schedkit/servers/resp"
)

// SCHEDKIT_MUTATION=<name> runs the whole test binary with that seeded fault,
// to watch a checker catch it, e.g.:
//
//	SCHEDKIT_MUTATION=BulkLenShort go test -tags schedmutant -run '^TestReadCommand$' ./servers/resp/
func init() { mutation.FromEnv(resp.SetMutation) }
