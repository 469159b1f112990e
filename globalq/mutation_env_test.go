//go:build schedmutant

package globalq_test

import (
	"fmt"
	"os"

	"github.com/schedkit/schedkit/globalq"
)

// SCHEDKIT_MUTATION=<name> runs the whole test binary with that seeded fault,
// to watch a checker catch it, e.g.:
//
//	SCHEDKIT_MUTATION=LenNotUnderLock go test -tags schedcheck,schedmutant -run TestExploreGlobalQ ./globalq/
func init() {
	if name := os.Getenv("SCHEDKIT_MUTATION"); name != "" {
		if _, err := globalq.SetMutation(name); err != nil {
			fmt.Fprintln(os.Stderr, err, "; have:", globalq.Mutations())
			os.Exit(2)
		}
	}
}
