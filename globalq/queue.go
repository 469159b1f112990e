package globalq

import (
	"slices"

	"github.com/schedkit/schedkit/atomicx"
)

// ChunkLen is how many items one chunk of a queue's storage holds. On a
// 64-bit machine 254 pointers and the link to the next chunk take 2,040
// bytes, and the 8-byte header the allocator puts before every object over
// 512 bytes that holds pointers makes 2,048: exactly one of its size
// classes, so a chunk wastes nothing (255 slots would land in the 2,304-byte
// class; TestBytesPerItem logs the bytes per item).
const ChunkLen = 254

// CachedChunks bounds the empty chunks a queue keeps for reuse. A chunk
// emptied while the cache is full is left to the garbage collector, so a
// drained queue holds at most CachedChunks chunks (8 KiB on 64-bit) however
// long it was. A queue that never needs more than CachedChunks chunks at
// once (no length up to 3*ChunkLen+1 = 763 items does) allocates nothing
// once it has reached its peak: a chunk is dropped only while CachedChunks
// others are cached.
const CachedChunks = 4

// cacheLine keeps the length cell, which every idle P reads without the
// lock, off the line that lockers write.
const cacheLine = 64

// chunk is one fixed-size piece of a queue's storage. The queue links its
// chunks oldest first; a slot holds an item or nil, and every slot of a
// chunk in the cache is nil.
type chunk[T any] struct {
	slots [ChunkLen]*T
	next  *chunk[T]
}

// Queue is the scheduler-wide run queue: an unbounded FIFO of *T guarded by
// a lock, with a length that any goroutine reads without the lock. The zero
// value is an empty queue ready to use. A Queue must not be copied after
// first use.
type Queue[T any] struct {
	n  atomicx.Int64 // the length; stored only while mu is held
	_  [cacheLine - 8]byte
	mu atomicx.Mutex

	// Guarded by mu. The items, oldest first, run from head.slots[hi] along
	// the next links to tail.slots[ti-1]; head and tail are nil exactly when
	// size is 0.
	head, tail *chunk[T]
	hi, ti     int
	size       int
	free       [CachedChunks]*chunk[T] // free[:nfree] are empty chunks to reuse
	nfree      int
}

// Put appends t at the tail. Any goroutine may call it. It mirrors
// globrunqput (with the lock/unlock of sched.lock around it).
//
// Put panics if t is nil.
func (q *Queue[T]) Put(t *T) {
	if t == nil {
		panic("globalq: Queue.Put called with a nil item")
	}
	q.mu.Lock()
	q.push(t)
	q.unlock()
}

// PutBatch appends every item of ts, in order, under one lock: the overflow
// batch of an lfq ring (lfq.Ring.Put hands back lfq.OverflowLen items) goes
// in whole, as runqputslow hands its batch to globrunqputbatch. The caller
// may reuse ts afterwards; the queue keeps only the items. An empty batch
// takes no lock. It mirrors globrunqputbatch.
//
// PutBatch panics, having put nothing, if any item of ts is nil.
func (q *Queue[T]) PutBatch(ts []*T) {
	if len(ts) == 0 {
		return
	}
	if hasNil(ts) {
		panic("globalq: Queue.PutBatch called with a nil item")
	}
	if mutant == putBatchDropsLast {
		ts = ts[:len(ts)-1]
	}
	if mutant == putBatchSwapsTwo && len(ts) >= 2 {
		ts = append([]*T{ts[1], ts[0]}, ts[2:]...)
	}
	q.mu.Lock()
	q.pushBatch(ts)
	q.unlock()
}

// Get removes and returns the oldest item, or nil if the queue is empty.
// Any goroutine may call it. An empty queue is seen by one atomic load,
// without the lock, as findRunnable checks sched.runq.empty() before it
// locks. It mirrors globrunqget; a P calls it first on every
// FairnessPeriod-th schedule tick (see FairnessTick).
func (q *Queue[T]) Get() *T {
	if q.looksEmpty() {
		return nil
	}
	q.mu.Lock()
	if mutant == getSkipsLast && q.size == 1 {
		q.unlock()
		return nil
	}
	t := q.pop()
	q.unlock()
	return t
}

// GetBatch takes a P's share of the queue in one lock: n = min(requested,
// Len, Len/procs + 1) of the oldest items. It returns the oldest of them,
// for the P to run, and appends the other n-1, oldest first, to rest, which
// it returns; the P puts them in its own ring. With rest = buf[:0] and
// cap(buf) >= requested-1 nothing is allocated, and the result goes straight
// to lfq.Ring.PutBatch:
//
//	run, buf = q.GetBatch(lfq.Size/2, procs, buf[:0]) // as findRunnable does
//	ring.PutBatch(buf)                               // the ring was empty: all fit
//
// If the queue is empty it returns nil and rest unchanged. procs is the
// number of Ps (the runtime's gomaxprocs): the Len/procs + 1 cap leaves work
// for the other Ps. Any goroutine may call it. It mirrors globrunqgetbatch.
//
// GetBatch panics if requested or procs is not positive.
func (q *Queue[T]) GetBatch(requested, procs int, rest []*T) (*T, []*T) {
	if requested <= 0 {
		panic("globalq: Queue.GetBatch called with a non-positive requested count")
	}
	if procs <= 0 {
		panic("globalq: Queue.GetBatch called with a non-positive procs")
	}
	if q.looksEmpty() {
		return nil, rest
	}
	q.mu.Lock()
	if q.size == 0 {
		q.unlock()
		return nil, rest
	}
	share := q.size/procs + 1
	if mutant == batchSizeOffByOne {
		share++
	}
	n := min(requested, q.size, share)
	var run *T
	if mutant == getBatchOutOfOrder {
		rest = q.popN(rest, n)
		last := len(rest) - 1
		run, rest = rest[last], rest[:last]
	} else {
		run = q.pop()
		rest = q.popN(rest, n-1)
	}
	q.unlock()
	return run, rest
}

// Len returns the number of items in the queue at one instant during the
// call, by one atomic load and without the lock. Any goroutine may call it.
// It mirrors reading sched.runq.size.
func (q *Queue[T]) Len() int { return int(q.n.Load()) }

// Empty reports whether the queue was empty at one instant during the call,
// by one atomic load and without the lock. It mirrors sched.runq.empty().
func (q *Queue[T]) Empty() bool { return q.n.Load() == 0 }

// looksEmpty is the lock-free check of Get and GetBatch: one load of the
// length cell.
func (q *Queue[T]) looksEmpty() bool {
	n := q.n.Load()
	return n == 0 || (mutant == checkOneAsEmpty && n == 1)
}

// hasNil reports whether ts holds a nil. It tests eight items per
// iteration: on a batch of 129 that took about half the time of the plain
// loop here, which had been the largest part of BenchmarkGlobalQBatch.
func hasNil[T any](ts []*T) bool {
	i := 0
	for ; i+8 <= len(ts); i += 8 {
		s := ts[i : i+8 : i+8]
		if s[0] == nil || s[1] == nil || s[2] == nil || s[3] == nil ||
			s[4] == nil || s[5] == nil || s[6] == nil || s[7] == nil {
			return true
		}
	}
	for _, t := range ts[i:] {
		if t == nil {
			return true
		}
	}
	return false
}

// unlock stores the length and releases the lock. The store comes first: a
// store made after the unlock could land after that of a later critical
// section and leave the cell wrong (the LenNotUnderLock mutation).
func (q *Queue[T]) unlock() {
	n := int64(q.size)
	if mutant == lenNotUnderLock {
		q.mu.Unlock()
		q.n.Store(n)
		return
	}
	q.n.Store(n)
	q.mu.Unlock()
}

// push appends t at the tail. q.mu must be held.
func (q *Queue[T]) push(t *T) {
	q.room()
	q.tail.slots[q.ti] = t
	q.ti++
	q.size++
}

// pushBatch appends ts at the tail, one copy per chunk. q.mu must be held.
func (q *Queue[T]) pushBatch(ts []*T) {
	for len(ts) > 0 {
		q.room()
		m := copy(q.tail.slots[q.ti:], ts)
		q.ti += m
		q.size += m
		ts = ts[m:]
	}
}

// room makes sure the tail chunk has a free slot. q.mu must be held.
func (q *Queue[T]) room() {
	switch {
	case q.tail == nil:
		c := q.chunk()
		q.head, q.tail, q.hi, q.ti = c, c, 0, 0
	case q.ti == ChunkLen:
		c := q.chunk()
		q.tail.next = c
		q.tail, q.ti = c, 0
	}
}

// pop removes and returns the oldest item, or nil if there is none. q.mu
// must be held.
func (q *Queue[T]) pop() *T {
	if q.size == 0 {
		return nil
	}
	t := q.head.slots[q.hi]
	if mutant != popKeepsItem {
		q.head.slots[q.hi] = nil // the queue must not keep a taken item alive
	}
	q.hi++
	q.size--
	q.advance()
	return t
}

// popN removes the k oldest items (k <= size) and appends them to dst,
// oldest first, one copy per chunk. q.mu must be held.
func (q *Queue[T]) popN(dst []*T, k int) []*T {
	dst = slices.Grow(dst, k)
	for k > 0 {
		end := ChunkLen
		if q.head == q.tail {
			end = q.ti
		}
		seg := q.head.slots[q.hi:min(end, q.hi+k)]
		dst = append(dst, seg...)
		clear(seg)
		q.hi += len(seg)
		q.size -= len(seg)
		k -= len(seg)
		q.advance()
	}
	return dst
}

// advance retires the head chunk once it has no items left. q.mu must be
// held.
func (q *Queue[T]) advance() {
	switch {
	case q.size == 0: // then head == tail: this is the last chunk
		q.release(q.head)
		q.head, q.tail, q.hi, q.ti = nil, nil, 0, 0
	case q.hi == ChunkLen:
		c := q.head
		q.head, q.hi = c.next, 0
		q.release(c)
	}
}

// chunk returns an empty chunk: one from the cache, else a new one. This is
// the only allocation of a queue. q.mu must be held.
func (q *Queue[T]) chunk() *chunk[T] {
	if q.nfree == 0 {
		return new(chunk[T])
	}
	q.nfree--
	c := q.free[q.nfree]
	q.free[q.nfree] = nil
	return c
}

// release puts an empty chunk in the cache, or leaves it to the garbage
// collector when the cache is full. q.mu must be held.
func (q *Queue[T]) release(c *chunk[T]) {
	c.next = nil
	if q.nfree < CachedChunks {
		q.free[q.nfree] = c
		q.nfree++
	}
}

// One instantiation inside the package makes the compiler keep the inline
// bodies of the atomicx calls for instantiations in other packages.
var _ Queue[struct{}]
