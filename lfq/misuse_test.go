//go:build !schedkit_checked

package lfq_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/lfq"
)

// What Ring's doc says misuse does in a normal build, shown under the
// explorer: two goroutines putting into one ring at once can lose an item
// with no panic and no report. (A schedkit_checked build panics instead:
// checked_test.go.)
func TestTwoOwnersSilentlyLoseAnItem(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "lfq-two-owners"}, func() explore.Run {
		r := new(lfq.Ring[int])
		a, b := 1, 2
		return explore.Run{
			Threads: []func(){func() { r.Put(&a, nil) }, func() { r.Put(&b, nil) }},
			Check: func() error {
				if got := vals(r.Drain(nil)); len(got) != 2 {
					return fmt.Errorf("two Puts, ring holds %v", got)
				}
				return nil
			},
		}
	})
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip("needs -tags schedcheck")
	}
	require.NoError(t, err)
	require.NotNil(t, res.Failure, "no interleaving of two concurrent Puts lost an item (%d executions)", res.Executions)
	var pe *explore.PanicError
	require.False(t, errors.As(res.Failure.Err, &pe), "a normal build must not panic: %v", res.Failure.Err)
	t.Logf("after %d executions: %v", res.Executions, res.Failure.Err)
}
