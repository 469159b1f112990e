//go:build schedmutant

package lfq_test

import (
	"fmt"
	"os"

	"github.com/schedkit/schedkit/lfq"
)

// SCHEDKIT_MUTATION=<name> runs the whole test binary with that seeded fault,
// to watch a checker catch it, e.g.:
//
//	SCHEDKIT_MUTATION=GetNoRetry go test -tags schedcheck,schedmutant -run TestExploreRing ./lfq/
func init() {
	if name := os.Getenv("SCHEDKIT_MUTATION"); name != "" {
		if _, err := lfq.SetMutation(name); err != nil {
			fmt.Fprintln(os.Stderr, err, "; have:", lfq.Mutations())
			os.Exit(2)
		}
	}
}
