package bench

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/lfq"
)

// The global run queue against what a user would pick instead: a buffered
// channel, and a slice under a sync.Mutex. Every benchmark here has one
// sub-benchmark per implementation, named impl=NAME, the globalq.Queue
// column first; the batch and put/get benchmarks also have impl=floor, the
// least locked work the operation needs (floor_test.go). Identifiers of
// this file start with gq.

const (
	gqBatch  = lfq.Size / 2 // what findRunnable asks GetBatch for: 128
	gqQueued = 1024         // items kept queued in the batch benchmark
	gqChan   = 4096         // channel capacity: never full here
)

// gqMutexSlice is the queue a user would write with a lock: a slice with a
// head index under one sync.Mutex. Batches take the lock once; taken slots
// are cleared, and the live part is copied down once the head passes half
// the capacity, so a steady queue allocates nothing. Not a strawman.
type gqMutexSlice struct {
	mu    sync.Mutex
	items []*task
	head  int
}

func (q *gqMutexSlice) put(t *task) {
	q.mu.Lock()
	q.items = append(q.items, t)
	q.mu.Unlock()
}

func (q *gqMutexSlice) putBatch(ts []*task) {
	q.mu.Lock()
	q.items = append(q.items, ts...)
	q.mu.Unlock()
}

// getBatch appends up to n of the oldest items to dst.
func (q *gqMutexSlice) getBatch(n int, dst []*task) []*task {
	q.mu.Lock()
	n = min(n, len(q.items)-q.head)
	seg := q.items[q.head : q.head+n]
	dst = append(dst, seg...)
	clear(seg)
	q.head += n
	q.compact()
	q.mu.Unlock()
	return dst
}

func (q *gqMutexSlice) get() *task {
	q.mu.Lock()
	if q.head == len(q.items) {
		q.mu.Unlock()
		return nil
	}
	t := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	q.compact()
	q.mu.Unlock()
	return t
}

// compact resets an empty queue and copies the live part down once the head
// passes half the capacity. q.mu must be held.
func (q *gqMutexSlice) compact() {
	switch {
	case q.head == len(q.items):
		q.items, q.head = q.items[:0], 0
	case q.head > cap(q.items)/2:
		m := copy(q.items, q.items[q.head:])
		clear(q.items[m:len(q.items)])
		q.items, q.head = q.items[:m], 0
	}
}

// BenchmarkGlobalQBatch measures a batch of 128 taken from a queue of 1024
// and put back, one goroutine: per op one GetBatch(128, procs 1) and one
// PutBatch of the same 128 (as an idle P takes a batch and a full ring
// overflows one). The peers move the same 128: 128 receives and 128 sends
// on a channel; one locked copy out of and one locked append to a slice.
// ns/item is ns/op / 128.
func BenchmarkGlobalQBatch(b *testing.B) {
	ts := newTasks(gqQueued)
	buf := make([]*task, 0, gqBatch)
	perItem := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*gqBatch), "ns/item")
	}

	b.Run("impl=globalq.Queue", func(b *testing.B) {
		b.ReportAllocs()
		q := new(globalq.Queue[task])
		q.PutBatch(ts)
		var run *task
		cpu := startCPU()
		for b.Loop() {
			run, buf = q.GetBatch(gqBatch, 1, buf[:0])
			buf = append(buf, run) // the batch goes back in: order does not matter here
			q.PutBatch(buf)
		}
		cpu.report(b)
		perItem(b)
		if q.Len() != gqQueued {
			b.Fatalf("queue holds %d, want %d", q.Len(), gqQueued)
		}
		sink += run.id
	})

	// The floor: two critical sections, each a lock (CAS), the length's
	// store (XCHG: Len reads it without the lock) and an unlock (locked
	// add), around one copy of the 128 out (clearing their slots) and one
	// copy in (see floor_test.go).
	b.Run("impl=floor", func(b *testing.B) {
		b.ReportAllocs()
		q := new(flLocked)
		q.putBatch(ts)
		cpu := startCPU()
		for b.Loop() {
			buf = q.getBatch(gqBatch, buf[:0])
			q.putBatch(buf)
		}
		cpu.report(b)
		perItem(b)
		flCheck(b, "queued", int(q.n.Load()), gqQueued)
		sink += buf[0].id
	})

	b.Run("impl=chan", func(b *testing.B) {
		b.ReportAllocs()
		ch := make(chan *task, gqChan)
		for _, t := range ts {
			ch <- t
		}
		cpu := startCPU()
		for b.Loop() {
			buf = buf[:0]
			for range gqBatch {
				buf = append(buf, <-ch)
			}
			for _, t := range buf {
				ch <- t
			}
		}
		cpu.report(b)
		perItem(b)
		sink += buf[0].id
	})

	b.Run("impl=mutex-slice", func(b *testing.B) {
		b.ReportAllocs()
		q := new(gqMutexSlice)
		q.putBatch(ts)
		cpu := startCPU()
		for b.Loop() {
			buf = q.getBatch(gqBatch, buf[:0])
			q.putBatch(buf)
		}
		cpu.report(b)
		perItem(b)
		sink += buf[0].id
	})
}

// BenchmarkGlobalQPutGet measures the single-item path, one goroutine: per
// op one Put and one Get, with 64 items queued, so the put path runs over
// chunk boundaries (every 254 puts) with no allocation once warm.
func BenchmarkGlobalQPutGet(b *testing.B) {
	ts := newTasks(occupancy + 1)

	b.Run("impl=globalq.Queue", func(b *testing.B) {
		b.ReportAllocs()
		q := new(globalq.Queue[task])
		q.PutBatch(ts[:occupancy])
		t := ts[occupancy]
		cpu := startCPU()
		for b.Loop() {
			q.Put(t)
			t = q.Get()
		}
		cpu.report(b)
		sink += t.id
	})

	// The floor: two critical sections (lock, the slot's write or read and
	// clear, the length's store, unlock) on a private circular buffer.
	b.Run("impl=floor", func(b *testing.B) {
		b.ReportAllocs()
		q := new(flLocked)
		q.putBatch(ts[:occupancy])
		t := ts[occupancy]
		cpu := startCPU()
		for b.Loop() {
			q.mu.Lock()
			q.slots[q.tail%flLockedSize] = t
			q.tail++
			q.n.Store(int64(q.tail - q.head))
			q.mu.Unlock()

			q.mu.Lock()
			i := q.head % flLockedSize
			t = q.slots[i]
			q.slots[i] = nil
			q.head++
			q.n.Store(int64(q.tail - q.head))
			q.mu.Unlock()
		}
		cpu.report(b)
		flCheck(b, "queued", int(q.n.Load()), occupancy)
		sink += t.id
	})

	b.Run("impl=chan", func(b *testing.B) {
		b.ReportAllocs()
		ch := make(chan *task, gqChan)
		for _, t := range ts[:occupancy] {
			ch <- t
		}
		t := ts[occupancy]
		cpu := startCPU()
		for b.Loop() {
			ch <- t
			t = <-ch
		}
		cpu.report(b)
		sink += t.id
	})

	b.Run("impl=mutex-slice", func(b *testing.B) {
		b.ReportAllocs()
		q := new(gqMutexSlice)
		q.putBatch(ts[:occupancy])
		t := ts[occupancy]
		cpu := startCPU()
		for b.Loop() {
			q.put(t)
			t = q.get()
		}
		cpu.report(b)
		sink += t.id
	})
}

// BenchmarkGlobalQPutPath measures the put path alone for its allocations:
// per op one Put, and every cycle puts the queue is drained by batches
// (inside the loop, so its cost is in ns/op too). With cycle=1000 the queue
// never needs more than globalq.CachedChunks chunks, which it reuses, so
// the put path allocates nothing once warm; with cycle=100000 it needs 394
// chunks, so about 390 are allocated per cycle (8 B/op) and given back to
// the garbage collector when it drains. The slice queue keeps its largest
// backing array forever instead (800 KB or more after cycle=100000), so it
// allocates nothing once warm in both. A channel is left out: its buffer is
// fixed.
func BenchmarkGlobalQPutPath(b *testing.B) {
	for _, cycle := range []int{1000, 100_000} {
		ts := newTasks(cycle)
		buf := make([]*task, 0, cycle)

		b.Run(fmt.Sprintf("cycle=%d/impl=globalq.Queue", cycle), func(b *testing.B) {
			b.ReportAllocs()
			q := new(globalq.Queue[task])
			i := 0
			cpu := startCPU()
			for b.Loop() {
				q.Put(ts[i])
				if i++; i == cycle {
					for i = 0; !q.Empty(); {
						_, buf = q.GetBatch(cycle, 1, buf[:0])
					}
				}
			}
			cpu.report(b)
		})

		b.Run(fmt.Sprintf("cycle=%d/impl=mutex-slice", cycle), func(b *testing.B) {
			b.ReportAllocs()
			q := new(gqMutexSlice)
			i := 0
			cpu := startCPU()
			for b.Loop() {
				q.put(ts[i])
				if i++; i == cycle {
					i = 0
					buf = q.getBatch(cycle, buf[:0])
				}
			}
			cpu.report(b)
		})
	}
}

// BenchmarkGlobalQContended runs GOMAXPROCS goroutines (b.RunParallel) on one
// queue: per op a goroutine puts one item and takes one (Put and Get), and
// every 32nd op it moves a batch of 32 instead (PutBatch and GetBatch for
// globalq; 32 sends and 32 receives; one locked append and one locked copy),
// so that puts, takes and lock-free empty checks all race. The channel's
// receives are non-blocking (select with default).
func BenchmarkGlobalQContended(b *testing.B) {
	const batch = 32
	items := newTasks(batch)

	b.Run("impl=globalq.Queue", func(b *testing.B) {
		b.ReportAllocs()
		q := new(globalq.Queue[task])
		cpu := startCPU()
		var total atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			buf := make([]*task, 0, batch)
			s, n := 0, 0
			for pb.Next() {
				if n++; n%batch == 0 {
					q.PutBatch(items)
					var run *task
					run, buf = q.GetBatch(batch, 1, buf[:0])
					if run != nil {
						s += run.id
					}
					continue
				}
				q.Put(items[0])
				if t := q.Get(); t != nil {
					s += t.id
				}
			}
			total.Add(int64(s))
		})
		cpu.report(b)
		sink += int(total.Load())
	})

	b.Run("impl=chan", func(b *testing.B) {
		b.ReportAllocs()
		ch := make(chan *task, 1<<16)
		cpu := startCPU()
		var total atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			s, n := 0, 0
			recv := func() {
				select {
				case t := <-ch:
					s += t.id
				default:
				}
			}
			for pb.Next() {
				if n++; n%batch == 0 {
					for _, t := range items {
						ch <- t
					}
					for range batch {
						recv()
					}
					continue
				}
				ch <- items[0]
				recv()
			}
			total.Add(int64(s))
		})
		cpu.report(b)
		sink += int(total.Load())
	})

	b.Run("impl=mutex-slice", func(b *testing.B) {
		b.ReportAllocs()
		q := new(gqMutexSlice)
		cpu := startCPU()
		var total atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			buf := make([]*task, 0, batch)
			s, n := 0, 0
			for pb.Next() {
				if n++; n%batch == 0 {
					q.putBatch(items)
					buf = q.getBatch(batch, buf[:0])
					for _, t := range buf {
						s += t.id
					}
					continue
				}
				q.put(items[0])
				if t := q.get(); t != nil {
					s += t.id
				}
			}
			total.Add(int64(s))
		})
		cpu.report(b)
		sink += int(total.Load())
	})
}
