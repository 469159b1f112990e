package bench

import (
	"sync/atomic"
	"testing"

	"github.com/schedkit/schedkit/lfq"
	"github.com/schedkit/schedkit/runnext"
)

// BenchmarkRunnextPutTake measures the owner's fast path for a task that
// runs next: one put and one take of the same task per op, one goroutine.
// It is the cost of a spawn that the spawner's P runs next, the pattern the
// runnext slot exists for, against the same pair on the lfq ring it sits in
// front of (the target: PutNext+Get within 1.2x of it):
//
//   - impl=runnext.Queue: Queue.PutNext then Queue.Get, with 64 tasks queued
//     in the ring behind the slot (the slot is empty before each PutNext, so
//     nothing is displaced): a load, a store of the task and a CAS of the
//     version; a load of each and a CAS. The owner reads no clock: thieves
//     wait the steal delay on their side.
//   - impl=runnext.Slot: Slot.Put then Slot.Take, the slot alone.
//   - impl=floor and impl=floor-1word: the physical floors (floor_test.go).
//   - impl=lfq.Ring: lfq.Ring.Put then Get with 64 tasks queued: the task
//     gets to run only after those 64 (FIFO), where runnext runs it at once.
//
// None allocates.
func BenchmarkRunnextPutTake(b *testing.B) {
	ts := newTasks(occupancy + 1)

	b.Run("impl=runnext.Queue", func(b *testing.B) {
		b.ReportAllocs()
		q := new(runnext.Queue[task])
		q.PutBatch(ts[:occupancy])
		t := ts[occupancy]
		inherit := false
		cpu := startCPU()
		for b.Loop() {
			if q.PutNext(t, nil) != nil {
				b.Fatal("ring overflowed")
			}
			t, inherit = q.Get()
		}
		cpu.report(b)
		if !inherit {
			b.Fatal("Get did not take the runnext task")
		}
		sink += t.id
	})

	b.Run("impl=runnext.Slot", func(b *testing.B) {
		b.ReportAllocs()
		var s runnext.Slot[task]
		t := ts[occupancy]
		cpu := startCPU()
		for b.Loop() {
			if s.Put(t) != nil {
				b.Fatal("the slot was not empty")
			}
			t = s.Take()
		}
		cpu.report(b)
		sink += t.id
	})

	// The floor of the versioned slot that runnext.Slot and Queue are: the
	// task's XCHG, the version's XCHG that publishes it, the task's load and
	// the version's CAS that claims it; three locked instructions on private
	// lines (see floor_test.go).
	b.Run("impl=floor", func(b *testing.B) {
		b.ReportAllocs()
		s := new(flSlot)
		t := ts[occupancy]
		var v uint64 // only the owner fills: it knows the version
		cpu := startCPU()
		for b.Loop() {
			// The fill: a store of the version does what Slot's CAS does,
			// at the same cost (both locked), as no one else fills.
			s.task.Store(t)
			s.ver.Store(v + 1)
			// The take: the CAS claims the task against thieves.
			t = s.task.Load()
			if !s.ver.CompareAndSwap(v+1, v+2) {
				b.Fatal("floor: the version moved on a private slot")
			}
			v += 2
		}
		cpu.report(b)
		flCheck(b, "version", int(s.ver.Load()), int(2*b.N))
		sink += t.id
	})

	// The runtime's own runnext is one pointer, no version: a CAS to fill
	// it and a CAS to take it, two locked instructions. It cannot tell a
	// task taken and put back from one that stayed, which runnext's steal
	// delay needs; the row shows what the version costs.
	b.Run("impl=floor-1word", func(b *testing.B) {
		b.ReportAllocs()
		var p struct {
			_    [flLine]byte
			next atomic.Pointer[task]
			_    [flLine - 8]byte
		}
		t := ts[occupancy]
		cpu := startCPU()
		for b.Loop() {
			if !p.next.CompareAndSwap(nil, t) {
				b.Fatal("floor-1word: the slot was not empty")
			}
			if !p.next.CompareAndSwap(t, nil) {
				b.Fatal("floor-1word: the slot lost its task")
			}
		}
		cpu.report(b)
		sink += t.id
	})

	b.Run("impl=lfq.Ring", func(b *testing.B) {
		b.ReportAllocs()
		r := new(lfq.Ring[task])
		r.PutBatch(ts[:occupancy])
		t := ts[occupancy]
		cpu := startCPU()
		for b.Loop() {
			if r.Put(t, nil) != nil {
				b.Fatal("ring overflowed")
			}
			t = r.Get()
		}
		cpu.report(b)
		sink += t.id
	})
}
