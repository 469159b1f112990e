// Package exactlyonce judges a stress test's tally: counts[id] is how many
// times item id was consumed, and every item must have been consumed exactly
// once (docs/DESIGN.md, rung 4). Every component's stress test uses it.
package exactlyonce

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// Check reports every id not consumed exactly once (the first ten of each
// kind and how many in all) and a total that differs from len(counts), or
// nil when the tally is exact.
func Check(counts []atomic.Int32) error {
	var lost, dup []int
	nLost, nDup, total := 0, 0, 0
	for id := range counts {
		c := int(counts[id].Load())
		total += c
		switch {
		case c == 0:
			nLost++
			if len(lost) < 10 {
				lost = append(lost, id)
			}
		case c > 1:
			nDup++
			if len(dup) < 10 {
				dup = append(dup, id)
			}
		}
	}
	var errs []error
	if nLost > 0 {
		errs = append(errs, fmt.Errorf("%d items never consumed, first ids %v", nLost, lost))
	}
	if nDup > 0 {
		errs = append(errs, fmt.Errorf("%d items consumed more than once, first ids %v", nDup, dup))
	}
	if total != len(counts) {
		errs = append(errs, fmt.Errorf("%d consumptions of %d items", total, len(counts)))
	}
	return errors.Join(errs...)
}
