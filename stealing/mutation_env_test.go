//go:build schedmutant

package stealing_test

import (
	"github.com/schedkit/schedkit/internal/mutation"
	"github.com/schedkit/schedkit/stealing"
)

// SCHEDKIT_MUTATION=<name> runs the whole test binary with that seeded fault,
// to watch a checker catch it, e.g.:
//
//	SCHEDKIT_MUTATION=RunnextEveryPass go test -tags schedcheck,schedmutant -run '^TestExploreStealing$' ./stealing/
func init() { mutation.FromEnv(stealing.SetMutation) }
