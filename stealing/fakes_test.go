package stealing_test

import (
	"fmt"
	"slices"

	"github.com/schedkit/schedkit/stealing"
)

// fakeP is a P's run queue as a slice, for the unit and model tests: a
// ring (oldest first) and a runnext task. Its StealHalf does what
// runnext.Queue.StealHalf does sequentially (the older half of the ring,
// rounded up, into dst, returning the newest of it; else, with stealNext,
// the runnext task) and appends the call to a log shared by all the fake Ps
// of a test, so tests see every victim a pass visited, in order.
type fakeP struct {
	id   int
	ring []*int
	next *int
	log  *[]stealCall
}

// stealCall is one StealHalf a pass made: from victim into thief's queue.
type stealCall struct {
	victim, thief int
	stealNext     bool
}

func (c stealCall) String() string {
	if c.stealNext {
		return fmt.Sprintf("%d->%d+next", c.victim, c.thief)
	}
	return fmt.Sprintf("%d->%d", c.victim, c.thief)
}

// StealHalf makes fakeP a stealing.Queue.
func (p *fakeP) StealHalf(dst *fakeP, stealNext bool) *int {
	*p.log = append(*p.log, stealCall{victim: p.id, thief: dst.id, stealNext: stealNext})
	if n := len(p.ring); n > 0 {
		k := n - n/2
		taken := p.ring[:k]
		p.ring = slices.Clone(p.ring[k:])
		dst.ring = append(dst.ring, taken[:k-1]...)
		return taken[k-1]
	}
	if stealNext && p.next != nil {
		t := p.next
		p.next = nil
		return t
	}
	return nil
}

var _ stealing.Queue[*fakeP, int] = (*fakeP)(nil)

// newFakePs returns n empty fake Ps sharing one call log.
func newFakePs(n int) ([]*fakeP, *[]stealCall) {
	log := new([]stealCall)
	ps := make([]*fakeP, n)
	for i := range ps {
		ps[i] = &fakeP{id: i, log: log}
	}
	return ps, log
}

// intsFrom returns n distinct items numbered from first.
func intsFrom(first, n int) []*int {
	out := make([]*int, n)
	for i := range out {
		v := first + i
		out[i] = &v
	}
	return out
}

func itemID(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func itemIDs(ps []*int) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = itemID(p)
	}
	return out
}

// fixedRand returns a random source that hands out rs in turn (then
// zeros), and a count of its calls.
func fixedRand(rs ...uint32) (func() uint32, *int) {
	calls := new(int)
	return func() uint32 {
		*calls++
		if *calls <= len(rs) {
			return rs[*calls-1]
		}
		return 0
	}, calls
}
