package seqlock

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/exampletest"
)

// plainPair is Pair with its data in plain memory, as a C seqlock keeps
// it: the sequence still brackets the reads, and no torn pair is ever
// returned, but a reader's loads overlap the writer's stores, a data race
// that Go's memory model leaves undefined (the package comment's reason
// for atomic data words).
type plainPair struct {
	seq  atomicx.Uint32
	a, b atomicx.Plain[uint64]
}

func (p *plainPair) Write(a, b uint64) {
	p.seq.Add(1)
	p.a.Store(a)
	p.b.Store(b)
	p.seq.Add(1)
}

func (p *plainPair) Read() (a, b uint64) {
	for {
		s1 := p.seq.Load()
		if s1&1 != 0 {
			atomicx.Sleep(0)
			continue
		}
		a, b = p.a.Load(), p.b.Load()
		if p.seq.Load() == s1 {
			return a, b
		}
	}
}

// TestPlainDataIsADataRace: the explorer reports the overlap of a read
// and a write of the plain data as a data race.
func TestPlainDataIsADataRace(t *testing.T) {
	_, dr := exampletest.DataRace(t, explore.Options{Name: "seqlock-plain-data", Mode: explore.DPOR},
		func() explore.Run { return writerAndReader(new(plainPair)) })
	require.Contains(t, []string{"p.a", "p.b"}, dr.Cell)
}
