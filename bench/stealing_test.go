package bench

import (
	"fmt"
	"sync"
	"testing"

	"github.com/schedkit/schedkit/runnext"
	"github.com/schedkit/schedkit/stealing"
)

// Who steals from whom: the stealing.Stealer's four passes over the Ps in
// random coprime order, against what a user would write instead. Every
// benchmark has one sub-benchmark per implementation, named impl=NAME, the
// stealing.Stealer column first; identifiers of this file start with st.
//
//	BenchmarkStealOneVictim  ps Ps, the work (64 tasks) in one of them, the
//	                         middle one; one op: P 0 steals, then gives the
//	                         stolen half back (Drain, PutBatch) for the next op
//	BenchmarkStealEmpty      ps Ps, all empty: one op is a Steal that finds
//	                         nothing (every pass, every P)
//
// The peers:
//
//	index-scan   the same runnext queues, the same four passes with runnext
//	             on the last, but every pass in index order from P 0 (what a
//	             user writes first; every thief then hits the same Ps first)
//	floor        the physical floor (floor_test.go): the same passes in the
//	             same order over private padded Ps, with only the loads, and
//	             for the victim the locked instructions, that the work needs
//	mutex-queue  no per-P queues: one slice under a sync.Mutex holds all the
//	             work; a thief takes half of it under the lock (and, for the
//	             next op, puts it back under the lock)

const stQueued = 64 // tasks in the busy P

// stRand is a xorshift32 random source for Steal: cheap, as cheaprand is.
func stRand() func() uint32 {
	x := uint32(2463534242)
	return func() uint32 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		return x
	}
}

// stPs returns n empty runnext queues.
func stPs(n int) []*runnext.Queue[task] {
	ps := make([]*runnext.Queue[task], n)
	for i := range ps {
		ps[i] = new(runnext.Queue[task])
	}
	return ps
}

// stIndexScan is the naive stealer: StealTries passes over ps in index
// order from P 0, runnext on the last.
func stIndexScan(ps []*runnext.Queue[task], self int) *task {
	for try := range stealing.StealTries {
		last := try == stealing.StealTries-1
		for i, p := range ps {
			if i == self {
				continue
			}
			if t := p.StealHalf(ps[self], last); t != nil {
				return t
			}
		}
	}
	return nil
}

// stMutexQueue is the shared queue a user would write with a lock: a slice
// whose live part starts at head, under one sync.Mutex.
type stMutexQueue struct {
	mu    sync.Mutex
	items []*task
	head  int
}

// stealHalf appends the older half of the queue, rounded up, to dst.
func (q *stMutexQueue) stealHalf(dst []*task) []*task {
	q.mu.Lock()
	n := len(q.items) - q.head
	n -= n / 2
	seg := q.items[q.head : q.head+n]
	dst = append(dst, seg...)
	clear(seg)
	q.head += n
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	q.mu.Unlock()
	return dst
}

// putBatch appends ts, moving the live part down first if it reached the
// end of the storage, so a steady queue allocates nothing.
func (q *stMutexQueue) putBatch(ts []*task) {
	q.mu.Lock()
	if q.head > 0 && len(q.items)+len(ts) > cap(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, ts...)
	q.mu.Unlock()
}

func BenchmarkStealOneVictim(b *testing.B) {
	for _, n := range []int{8, 64} {
		b.Run(fmt.Sprintf("ps=%d/impl=stealing.Stealer", n), func(b *testing.B) {
			ps := stPs(n)
			s, err := stealing.New(ps, nil)
			if err != nil {
				b.Fatal(err)
			}
			rnd := stRand()
			stOneVictim(b, ps, func() *task { return s.Steal(0, rnd) })
		})
		b.Run(fmt.Sprintf("ps=%d/impl=index-scan", n), func(b *testing.B) {
			ps := stPs(n)
			stOneVictim(b, ps, func() *task { return stIndexScan(ps, 0) })
		})
		// The floor: the same passes in the same random order, two loads
		// per empty P, the ring floor's steal of half from the victim, and
		// the ring floor's drain and batch put to give it back (see
		// floor_test.go).
		b.Run(fmt.Sprintf("ps=%d/impl=floor", n), func(b *testing.B) {
			b.ReportAllocs()
			ps, order := flStealPs(b, n)
			victim, thief := &ps[n/2].own, &ps[0].own
			victim.putBatch(newTasks(stQueued))
			rnd := stRand()
			buf := make([]*task, 0, stQueued)
			cpu := startCPU()
			for b.Loop() {
				t := flSteal(ps, order, 0, rnd)
				if t == nil {
					b.Fatal("floor: found nothing")
				}
				buf = append(thief.drain(buf[:0]), t)
				if len(buf) != stQueued/2 {
					b.Fatalf("floor: stole %d", len(buf))
				}
				victim.putBatch(buf)
			}
			cpu.report(b)
			sink += buf[0].id
		})
		b.Run(fmt.Sprintf("ps=%d/impl=mutex-queue", n), func(b *testing.B) {
			b.ReportAllocs()
			q := &stMutexQueue{items: make([]*task, 0, 4*stQueued)}
			q.putBatch(newTasks(stQueued))
			buf := make([]*task, 0, stQueued)
			cpu := startCPU()
			for b.Loop() {
				buf = q.stealHalf(buf[:0])
				if len(buf) != stQueued/2 {
					b.Fatalf("took %d", len(buf))
				}
				q.putBatch(buf)
			}
			cpu.report(b)
			sink += buf[0].id
		})
	}
}

// stOneVictim runs the one-victim benchmark: the middle P holds stQueued
// tasks; steal is P 0's steal, whose half goes back to the victim after
// each op.
func stOneVictim(b *testing.B, ps []*runnext.Queue[task], steal func() *task) {
	b.ReportAllocs()
	victim := ps[len(ps)/2]
	if victim.PutBatch(newTasks(stQueued)) != stQueued {
		b.Fatal("victim full")
	}
	buf := make([]*task, 0, stQueued)
	cpu := startCPU()
	for b.Loop() {
		t := steal()
		if t == nil {
			b.Fatal("found nothing")
		}
		buf = append(ps[0].Drain(buf[:0]), t)
		if len(buf) != stQueued/2 || victim.PutBatch(buf) != len(buf) {
			b.Fatalf("stole %d", len(buf))
		}
	}
	cpu.report(b)
	sink += buf[0].id
}

func BenchmarkStealEmpty(b *testing.B) {
	for _, n := range []int{8, 64} {
		b.Run(fmt.Sprintf("ps=%d/impl=stealing.Stealer", n), func(b *testing.B) {
			b.ReportAllocs()
			ps := stPs(n)
			s, err := stealing.New(ps, nil)
			if err != nil {
				b.Fatal(err)
			}
			rnd := stRand()
			cpu := startCPU()
			for b.Loop() {
				if s.Steal(0, rnd) != nil {
					b.Fatal("found a task")
				}
			}
			cpu.report(b)
		})
		// The floor: the same four passes in the same random order over
		// empty Ps: two loads per P, five on the last pass (see
		// flEmptyWithNext).
		b.Run(fmt.Sprintf("ps=%d/impl=floor", n), func(b *testing.B) {
			b.ReportAllocs()
			ps, order := flStealPs(b, n)
			rnd := stRand()
			cpu := startCPU()
			for b.Loop() {
				if flSteal(ps, order, 0, rnd) != nil {
					b.Fatal("floor: found a task")
				}
			}
			cpu.report(b)
		})
		b.Run(fmt.Sprintf("ps=%d/impl=index-scan", n), func(b *testing.B) {
			b.ReportAllocs()
			ps := stPs(n)
			cpu := startCPU()
			for b.Loop() {
				if stIndexScan(ps, 0) != nil {
					b.Fatal("found a task")
				}
			}
			cpu.report(b)
		})
		b.Run(fmt.Sprintf("ps=%d/impl=mutex-queue", n), func(b *testing.B) {
			b.ReportAllocs()
			q := &stMutexQueue{items: make([]*task, 0, stQueued)}
			buf := make([]*task, 0, stQueued)
			cpu := startCPU()
			for b.Loop() {
				if buf = q.stealHalf(buf[:0]); len(buf) != 0 {
					b.Fatal("found a task")
				}
			}
			cpu.report(b)
		})
	}
}

// flStealPs returns n empty floor Ps and the victim order for them.
func flStealPs(b *testing.B, n int) ([]*flP, *stealing.Order) {
	var order stealing.Order
	if err := order.Reset(n); err != nil {
		b.Fatal(err)
	}
	return flPs(n), &order
}
