package seqlock

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// readerWaitsForSecondWrite: T0 writes (1, 1) then (2, 2); T1 reads until it
// sees the second pair, yielding between reads (Read itself yields while
// the sequence is odd). Every pair it reads must be whole.
func readerWaitsForSecondWrite(p pair) explore.Run {
	explore.Name(p, "p")
	var torn string
	return explore.Run{
		Threads: []func(){
			func() { p.Write(1, 1); p.Write(2, 2) },
			func() {
				for {
					a, b := p.Read()
					if a != b && torn == "" {
						torn = fmt.Sprintf("(%d, %d)", a, b)
					}
					if a == 2 {
						return
					}
					atomicx.Sleep(0)
				}
			},
		},
		Check: func() error {
			if torn != "" {
				return fmt.Errorf("torn read: %s", torn)
			}
			return nil
		},
	}
}

// TestSpinningReaderSeesWholePairs: the spinning reader always gets out, and
// never reads half of one pair, in DFS and DPOR.
func TestSpinningReaderSeesWholePairs(t *testing.T) {
	build := func() explore.Run { return readerWaitsForSecondWrite(new(Pair)) }
	explore.Check(t, explore.Options{Name: "seqlock-spin"}, build)
	explore.Check(t, explore.Options{Name: "seqlock-spin-dpor", Mode: explore.DPOR}, build)
}

// TestSpinningOddBlindReaderTears: the reader that does not wait out an odd
// sequence tears a pair while it spins for the second write.
func TestSpinningOddBlindReaderTears(t *testing.T) {
	build := func() explore.Run { return readerWaitsForSecondWrite(new(oddBlind)) }
	explore.CheckFails(t, explore.Options{Name: "seqlock-spin-odd-ignored"}, build)
	explore.CheckFails(t, explore.Options{Name: "seqlock-spin-odd-ignored-dpor", Mode: explore.DPOR}, build)
}
