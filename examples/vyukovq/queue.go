// Package vyukovq is Dmitry Vyukov's bounded multi-producer multi-consumer
// queue (1024cores.net, "Bounded MPMC queue"): a ring of slots, each with a
// sequence number that says whose turn the slot is. A producer claims the
// slot at its position with a CAS on the enqueue position when the slot's
// sequence equals the position, writes the value, then publishes it by
// setting the sequence to position+1; a consumer claims a slot whose
// sequence is position+1, reads the value, then hands the slot to the
// producer of the next lap by setting the sequence to position+capacity.
// The two sequence stores are what order each value between its producer
// and its consumer: the value is a plain field (atomicx.Plain), and under
// the explorer a store of it that the sequence does not order is reported
// as a data race (TestPublishBeforeValueIsADataRace).
package vyukovq

import "github.com/schedkit/schedkit/atomicx"

type slot struct {
	seq   atomicx.Uint64
	value atomicx.Plain[uint64] // plain memory, as in Vyukov's queue: the seq stores order it
}

// Queue is a bounded lock-free FIFO of uint64s. The zero value is not
// usable: call New.
type Queue struct {
	slots    []slot
	mask     uint64
	enqueuer atomicx.Uint64 // next position to enqueue at
	dequeuer atomicx.Uint64 // next position to dequeue from
}

// New returns an empty queue of capacity size, a power of two of at least 2.
// It panics otherwise.
func New(size int) *Queue {
	if size < 2 || size&(size-1) != 0 {
		panic("vyukovq: New: size must be a power of two of at least 2")
	}
	q := &Queue{slots: make([]slot, size), mask: uint64(size - 1)}
	for i := range q.slots {
		q.slots[i].seq.Store(uint64(i)) // slot i is free for position i
	}
	return q
}

// Enqueue appends v, or reports false if the queue is full.
func (q *Queue) Enqueue(v uint64) bool {
	pos := q.enqueuer.Load()
	for {
		s := &q.slots[pos&q.mask]
		switch seq := s.seq.Load(); {
		case seq == pos: // free for this lap: claim it
			if q.enqueuer.CompareAndSwap(pos, pos+1) {
				s.value.Store(v)
				s.seq.Store(pos + 1) // publish: after the value
				return true
			}
			pos = q.enqueuer.Load()
		case seq < pos: // the consumer of the last lap has not freed it: full
			return false
		default: // another producer claimed pos: catch up
			pos = q.enqueuer.Load()
		}
	}
}

// Dequeue removes the first value, or reports false if the queue is empty.
func (q *Queue) Dequeue() (uint64, bool) {
	pos := q.dequeuer.Load()
	for {
		s := &q.slots[pos&q.mask]
		switch seq := s.seq.Load(); {
		case seq == pos+1: // published for this lap: claim it
			if q.dequeuer.CompareAndSwap(pos, pos+1) {
				v := s.value.Load()
				s.seq.Store(pos + q.mask + 1) // free for the next lap: after the read
				return v, true
			}
			pos = q.dequeuer.Load()
		case seq < pos+1: // not published yet: empty
			return 0, false
		default:
			pos = q.dequeuer.Load()
		}
	}
}
