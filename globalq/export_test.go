package globalq

import "fmt"

// Chunks returns how many chunks q holds items in and how many empty ones
// it keeps in its cache. Tests only, with no concurrent caller.
func Chunks[T any](q *Queue[T]) (inUse, cached int) {
	for c := q.head; c != nil; c = c.next {
		if inUse++; inUse > q.size+1 {
			panic(fmt.Sprintf("globalq.Chunks: more chunks in the chain than its %d items fill (a cycle?)", q.size))
		}
	}
	return inUse, q.nfree
}

// Contents returns the items, oldest first, without taking them. Tests
// only, with no concurrent caller.
func Contents[T any](q *Queue[T]) []*T {
	out := make([]*T, 0, q.size)
	for c, i, k := q.head, q.hi, 0; c != nil; c, i, k = c.next, 0, k+1 {
		if k > q.size {
			panic(fmt.Sprintf("globalq.Contents: more chunks in the chain than its %d items fill (a cycle?)", q.size))
		}
		end := ChunkLen
		if c == q.tail {
			end = q.ti
		}
		out = append(out, c.slots[i:end]...)
	}
	return out
}

// CheckInvariants reports the first broken invariant of q's storage: the
// chain from head to tail holds exactly size items and no nil, no other slot
// of it holds anything, head and tail are nil exactly when it is empty, the
// length cell equals size, and every cached chunk is clear. Tests only,
// with no concurrent caller.
func CheckInvariants[T any](q *Queue[T]) error {
	if got := q.n.Load(); got != int64(q.size) {
		return fmt.Errorf("length cell %d, size %d", got, q.size)
	}
	if (q.head == nil) != (q.size == 0) || (q.tail == nil) != (q.size == 0) {
		return fmt.Errorf("size %d with head %p, tail %p", q.size, q.head, q.tail)
	}
	if q.nfree < 0 || q.nfree > CachedChunks {
		return fmt.Errorf("%d cached chunks, bound %d", q.nfree, CachedChunks)
	}
	for i, c := range q.free[:q.nfree] {
		if c == nil || c.next != nil || c.slots != ([ChunkLen]*T{}) {
			return fmt.Errorf("cached chunk %d is not clear", i)
		}
	}
	if q.size == 0 {
		return nil
	}
	if q.hi < 0 || q.hi >= ChunkLen || q.ti < 1 || q.ti > ChunkLen || (q.head == q.tail && q.hi >= q.ti) {
		return fmt.Errorf("indices hi %d, ti %d (head == tail: %v)", q.hi, q.ti, q.head == q.tail)
	}
	n := 0
	for k, c := 0, q.head; ; k, c = k+1, c.next {
		if c == nil {
			return fmt.Errorf("the chain from head ends before tail")
		}
		if k >= q.size { // every chunk of the chain holds an item
			return fmt.Errorf("the chain from head has more than %d chunks for %d items without reaching tail (a cycle?)", k, q.size)
		}
		lo, hi := 0, ChunkLen
		if c == q.head {
			lo = q.hi
		}
		if c == q.tail {
			hi = q.ti
		}
		for i, t := range c.slots {
			if live := i >= lo && i < hi; live != (t != nil) {
				return fmt.Errorf("chunk %d slot %d: live %v, holds %p", k, i, live, t)
			}
		}
		n += hi - lo
		if c == q.tail {
			if c.next != nil {
				return fmt.Errorf("tail has a next chunk")
			}
			break
		}
	}
	if n != q.size {
		return fmt.Errorf("the chain holds %d items, size %d", n, q.size)
	}
	return nil
}

// Locked runs f while holding q's lock, so that a test under the explorer
// can show which calls take it (one that does deadlocks). Tests only.
func Locked[T any](q *Queue[T], f func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	f()
}
