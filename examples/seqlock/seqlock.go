// Package seqlock is a sequence lock (as Linux's seqlock_t): one writer
// updates a pair of words while readers read them without locking and
// retry when a write overlapped. The sequence is odd while a write is in
// progress and moves on with every write, so a reader that saw the same
// even sequence before and after its reads saw no write in between.
//
// Every word is an atomic cell, as Go's memory model requires of data read
// while being written; their sequentially consistent order is what makes
// the two sequence loads bracket the data loads.
package seqlock

import "github.com/schedkit/schedkit/atomicx"

// Pair is a pair of values written together and read consistently. Write
// must not be called by two goroutines at once; Read may be called by any
// number. The zero value holds (0, 0).
type Pair struct {
	seq  atomicx.Uint32
	a, b atomicx.Uint64
}

// Write stores (a, b).
func (p *Pair) Write(a, b uint64) {
	p.seq.Add(1) // odd: readers that start now wait, those reading retry
	p.a.Store(a)
	p.b.Store(b)
	p.seq.Add(1) // even again, and different from before the write
}

// Read returns the latest pair written, never half of one and half of
// another.
func (p *Pair) Read() (a, b uint64) {
	for {
		s1 := p.seq.Load()
		if s1&1 != 0 {
			atomicx.Sleep(0) // a write is in progress: let it finish
			continue
		}
		a, b = p.a.Load(), p.b.Load()
		if p.seq.Load() == s1 {
			return a, b // no write started since s1
		}
	}
}
