package seqlock

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

type pair interface {
	Write(a, b uint64)
	Read() (a, b uint64)
}

// writerAndReader: T0 writes (1, 1) then (2, 2) while T1 reads once; the
// read must be one of the pairs written, (0, 0) included. Outcomes count
// which pair the reader saw; MustReach requires that some interleaving
// shows it a completed write, so the scenario keeps testing the overlap.
func writerAndReader(p pair) explore.Run {
	explore.Name(p, "p")
	var a, b uint64
	return explore.Run{
		Threads: []func(){
			func() { p.Write(1, 1); p.Write(2, 2) },
			func() { a, b = p.Read() },
		},
		Check: func() error {
			if a != b {
				return fmt.Errorf("torn read: (%d, %d)", a, b)
			}
			return nil
		},
		Outcome: func() string { return fmt.Sprintf("read (%d, %d)", a, b) },
	}
}

func TestReadIsNeverTorn(t *testing.T) {
	opts := explore.Options{Name: "seqlock", MustReach: []string{"read (0, 0)", "read (1, 1)", "read (2, 2)"}}
	explore.Check(t, opts, func() explore.Run { return writerAndReader(new(Pair)) })
	opts.Name, opts.Mode = "seqlock-dpor", explore.DPOR
	explore.Check(t, opts, func() explore.Run { return writerAndReader(new(Pair)) })
}

// TestReaderIgnoringOddSequenceTears: a reader that does not wait out an
// odd sequence reads during a write; the sequence is the same odd value
// after its reads, so it returns half of each pair.
func TestReaderIgnoringOddSequenceTears(t *testing.T) {
	explore.CheckFails(t, explore.Options{Name: "seqlock-odd-ignored"}, func() explore.Run { return writerAndReader(new(oddBlind)) })
}

// oddBlind is Pair with a reader that skips the odd check.
type oddBlind struct{ Pair }

func (p *oddBlind) Read() (a, b uint64) {
	for {
		s1 := p.seq.Load() // the bug: s1 may be odd, a write half done
		a, b = p.a.Load(), p.b.Load()
		if p.seq.Load() == s1 {
			return a, b
		}
		atomicx.Sleep(0)
	}
}
