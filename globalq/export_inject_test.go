package globalq

import "fmt"

// InjectClaimOnly claims q's next position as Put does and returns the
// function that publishes v into it: between the two, q holds a producer
// that has taken its position and not yet published (a submitter preempted
// between its CAS and its store). It panics if q is full.
func InjectClaimOnly[V any](q *Inject[V]) (publish func(v V)) {
	for {
		pos := q.tail.Load()
		sl := &q.slot[pos&injMask]
		lap := pos &^ injMask
		st := sl.seq.Load()
		if st < lap {
			panic("globalq: InjectClaimOnly on a full Inject")
		}
		if st == lap && q.tail.CompareAndSwap(pos, pos+1) {
			return func(v V) { q.publish(sl, lap, v) }
		}
	}
}

// InjectCheck reports a slot of q whose sequence word is not what its
// position says (published for a position not yet drained, free for the
// next lap otherwise). Call it only while no goroutine uses q.
func InjectCheck[V any](q *Inject[V]) error {
	h, t := q.head.Load(), q.tail.Load()
	for pos := h; pos < h+InjectCap; pos++ {
		want := pos &^ injMask // free for pos
		if pos < t {
			want++ // published
		}
		if got := q.slot[pos&injMask].seq.Load(); got != want {
			return fmt.Errorf("globalq: inject slot %d (position %d, head %d, tail %d) has sequence word %d, want %d",
				pos&injMask, pos, h, t, got, want)
		}
	}
	return nil
}
