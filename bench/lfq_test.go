package bench

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Workiva/go-datastructures/queue"

	"github.com/schedkit/schedkit/internal/cputime"
	"github.com/schedkit/schedkit/lfq"
)

// task stands in for a goroutine descriptor: the queues only move pointers.
type task struct{ id int }

const (
	ringSize  = lfq.Size // every peer gets the same capacity: 256
	occupancy = 64       // items kept queued in the owner benchmarks
	burst     = 128      // puts, then gets, per op in BenchmarkOwnerPutGetBurst
)

// sink keeps results observable so the compiler cannot drop the work.
var sink int

func newTasks(n int) []*task {
	ts := make([]*task, n)
	for i := range ts {
		ts[i] = &task{id: i}
	}
	return ts
}

// cpuMeter measures the CPU time the whole process spends between start and
// report, as a second view of the cost beside wall time: on a shared machine
// ns/op grows whenever other processes take the CPU, cpu-ns/op much less.
// For RunParallel benchmarks it is the CPU of all goroutines per op.
type cpuMeter struct {
	start time.Duration
	ok    bool
}

func startCPU() cpuMeter {
	d, ok := cputime.Process()
	return cpuMeter{d, ok}
}

func (m cpuMeter) report(b *testing.B) {
	end, ok := cputime.Process()
	if !m.ok || !ok || b.N == 0 {
		return
	}
	b.ReportMetric(float64((end-m.start).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// mutexRing is the queue a user would write with a lock: a 256-slot circular
// buffer with free-running head and tail indices under one sync.Mutex. It
// does no more work than lfq.Ring (no slot clearing, no resizing), and its
// batch operations take the lock once, so it is not a strawman.
type mutexRing struct {
	mu         sync.Mutex
	head, tail uint32
	buf        [ringSize]*task
}

// put appends t and reports false, leaving the queue as it was, when full.
func (q *mutexRing) put(t *task) bool {
	q.mu.Lock()
	if q.tail-q.head == ringSize {
		q.mu.Unlock()
		return false
	}
	q.buf[q.tail%ringSize] = t
	q.tail++
	q.mu.Unlock()
	return true
}

// putBatch appends as many of ts as fit under one lock and returns how many.
func (q *mutexRing) putBatch(ts []*task) int {
	q.mu.Lock()
	n := min(len(ts), int(ringSize-(q.tail-q.head)))
	for _, t := range ts[:n] {
		q.buf[q.tail%ringSize] = t
		q.tail++
	}
	q.mu.Unlock()
	return n
}

// get removes and returns the oldest item, or nil when empty.
func (q *mutexRing) get() *task {
	q.mu.Lock()
	if q.head == q.tail {
		q.mu.Unlock()
		return nil
	}
	t := q.buf[q.head%ringSize]
	q.head++
	q.mu.Unlock()
	return t
}

// drain appends every item to dst, oldest first, under one lock.
func (q *mutexRing) drain(dst []*task) []*task {
	q.mu.Lock()
	for ; q.head != q.tail; q.head++ {
		dst = append(dst, q.buf[q.head%ringSize])
	}
	q.mu.Unlock()
	return dst
}

// stealHalf moves the older half of q, rounded up, to dst and returns the
// newest moved item, as lfq.Ring.StealHalf does. It copies out under q's lock
// and in under dst's, never holding both, so two thieves cannot deadlock.
func (q *mutexRing) stealHalf(dst *mutexRing) *task {
	var tmp [ringSize / 2]*task
	q.mu.Lock()
	n := q.tail - q.head
	n -= n / 2
	for i := range n {
		tmp[i] = q.buf[(q.head+i)%ringSize]
	}
	q.head += n
	q.mu.Unlock()
	if n == 0 {
		return nil
	}
	if dst.putBatch(tmp[:n-1]) != int(n-1) {
		panic("mutexRing.stealHalf: destination full")
	}
	return tmp[n-1]
}

// BenchmarkOwnerPutGet measures the owner's hot path: one put and one get of
// the same item per op, on one goroutine, with 64 items queued so the queue
// is never empty or full. The item got back is the one put next.
func BenchmarkOwnerPutGet(b *testing.B) {
	ts := newTasks(occupancy + 1)

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

	// The floor: the three locked instructions a race-clean put+get needs
	// (the slot's XCHG, the tail's XCHG, the head's CAS) and the slot's
	// load, on a private ring (see floor_test.go).
	b.Run("impl=floor", func(b *testing.B) {
		b.ReportAllocs()
		o := flOwner{r: new(flRing)}
		o.putBatch(ts[:occupancy])
		r, hd, tl := o.r, o.hd, o.tl // the owner's registers: see flOwner
		t := ts[occupancy]
		cpu := startCPU()
		for b.Loop() {
			if tl-hd == ringSize {
				b.Fatal("floor: ring full")
			}
			r.slots[tl%ringSize].Store(t)
			tl++
			r.tail.Store(tl)
			t = r.slots[hd%ringSize].Load()
			if !r.head.CompareAndSwap(hd, hd+1) {
				b.Fatal("floor: head moved on a private ring")
			}
			hd++
		}
		cpu.report(b)
		flCheck(b, "queued", int(tl-hd), occupancy)
		flCheck(b, "head", int(r.head.Load()), int(hd))
		sink += t.id
	})

	b.Run("impl=chan", func(b *testing.B) {
		b.ReportAllocs()
		ch := make(chan *task, ringSize)
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

	b.Run("impl=mutex-ring", func(b *testing.B) {
		b.ReportAllocs()
		q := new(mutexRing)
		q.putBatch(ts[:occupancy])
		t := ts[occupancy]
		cpu := startCPU()
		for b.Loop() {
			if !q.put(t) {
				b.Fatal("mutex ring full")
			}
			t = q.get()
		}
		cpu.report(b)
		sink += t.id
	})

	b.Run("impl=workiva-RingBuffer", func(b *testing.B) {
		b.ReportAllocs()
		rb := queue.NewRingBuffer(ringSize)
		for _, t := range ts[:occupancy] {
			if err := rb.Put(t); err != nil {
				b.Fatal(err)
			}
		}
		t := ts[occupancy]
		cpu := startCPU()
		for b.Loop() {
			if err := rb.Put(t); err != nil {
				b.Fatal(err)
			}
			v, err := rb.Get()
			if err != nil {
				b.Fatal(err)
			}
			t = v.(*task)
		}
		cpu.report(b)
		sink += t.id
	})
}

// BenchmarkOwnerPutGetBurst measures 128 puts followed by 128 gets per op on
// one goroutine, over 64 items already queued (so 64 to 192 are queued): the
// owner spawning a burst of work and then running it. ns/item is ns/op / 128.
func BenchmarkOwnerPutGetBurst(b *testing.B) {
	ts := newTasks(occupancy + burst)
	pre, in := ts[:occupancy], ts[occupancy:]
	out := make([]*task, burst)
	perItem := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*burst), "ns/item")
	}

	b.Run("impl=lfq.Ring", func(b *testing.B) {
		b.ReportAllocs()
		r := new(lfq.Ring[task])
		r.PutBatch(pre)
		cpu := startCPU()
		for b.Loop() {
			for _, t := range in {
				if r.Put(t, nil) != nil {
					b.Fatal("ring overflowed")
				}
			}
			for i := range out {
				out[i] = r.Get()
			}
		}
		cpu.report(b)
		perItem(b)
		sink += out[burst-1].id
	})

	// The floor: per item the put's two XCHGs and the get's load and CAS,
	// as in BenchmarkOwnerPutGet (each put publishes its item; one room
	// check per burst is enough, since thieves can only free room).
	b.Run("impl=floor", func(b *testing.B) {
		b.ReportAllocs()
		o := flOwner{r: new(flRing)}
		o.putBatch(pre)
		r, hd, tl := o.r, o.hd, o.tl
		cpu := startCPU()
		for b.Loop() {
			if tl-hd+burst > ringSize {
				b.Fatal("floor: ring full")
			}
			for _, t := range in {
				r.slots[tl%ringSize].Store(t)
				tl++
				r.tail.Store(tl)
			}
			for i := range out {
				out[i] = r.slots[hd%ringSize].Load()
				if !r.head.CompareAndSwap(hd, hd+1) {
					b.Fatal("floor: head moved on a private ring")
				}
				hd++
			}
		}
		cpu.report(b)
		perItem(b)
		flCheck(b, "queued", int(tl-hd), occupancy)
		flCheck(b, "head", int(r.head.Load()), int(hd))
		sink += out[burst-1].id
	})

	b.Run("impl=chan", func(b *testing.B) {
		b.ReportAllocs()
		ch := make(chan *task, ringSize)
		for _, t := range pre {
			ch <- t
		}
		cpu := startCPU()
		for b.Loop() {
			for _, t := range in {
				ch <- t
			}
			for i := range out {
				out[i] = <-ch
			}
		}
		cpu.report(b)
		perItem(b)
		sink += out[burst-1].id
	})

	b.Run("impl=mutex-ring", func(b *testing.B) {
		b.ReportAllocs()
		q := new(mutexRing)
		q.putBatch(pre)
		cpu := startCPU()
		for b.Loop() {
			for _, t := range in {
				if !q.put(t) {
					b.Fatal("mutex ring full")
				}
			}
			for i := range out {
				out[i] = q.get()
			}
		}
		cpu.report(b)
		perItem(b)
		sink += out[burst-1].id
	})

	b.Run("impl=workiva-RingBuffer", func(b *testing.B) {
		b.ReportAllocs()
		rb := queue.NewRingBuffer(ringSize)
		for _, t := range pre {
			if err := rb.Put(t); err != nil {
				b.Fatal(err)
			}
		}
		cpu := startCPU()
		for b.Loop() {
			for _, t := range in {
				if err := rb.Put(t); err != nil {
					b.Fatal(err)
				}
			}
			for i := range out {
				v, err := rb.Get()
				if err != nil {
					b.Fatal(err)
				}
				out[i] = v.(*task)
			}
		}
		cpu.report(b)
		perItem(b)
		sink += out[burst-1].id
	})
}

// BenchmarkStealHalf measures one steal of half a full queue, on one
// goroutine (no contention), together with what has to happen around it:
// per op the victim is refilled with 256 items, a thief moves the older 128
// into its own empty queue (keeping one to run, publishing 127), and both
// queues are drained. ns/stolen is ns/op / 128; the refill and the drains
// are in it for every peer alike.
//
// The peers are what a user would write for "move half my backlog to an
// idle worker": receive 128 from one buffered channel and send them to
// another; the mutex ring's batch copy (one lock on each side); and
// Get/Put on Workiva's RingBuffer.
func BenchmarkStealHalf(b *testing.B) {
	const stolen = ringSize - ringSize/2
	ts := newTasks(ringSize)
	buf := make([]*task, 0, ringSize)
	report := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*stolen), "ns/stolen")
	}

	b.Run("impl=lfq.Ring", func(b *testing.B) {
		b.ReportAllocs()
		victim, thief := new(lfq.Ring[task]), new(lfq.Ring[task])
		var got *task
		cpu := startCPU()
		for b.Loop() {
			if victim.PutBatch(ts) != ringSize {
				b.Fatal("short refill")
			}
			got = victim.StealHalf(thief)
			buf = victim.Drain(buf[:0])
			buf = thief.Drain(buf)
		}
		cpu.report(b)
		report(b)
		if len(buf) != ringSize-1 {
			b.Fatalf("drained %d items, want %d", len(buf), ringSize-1)
		}
		sink += got.id
	})

	// The floor: the refill's 256 slot XCHGs and one tail XCHG; the steal's
	// two loads, 128 slot loads and XCHGs, the victim's CAS and the thief's
	// tail XCHG; each drain's head load, CAS and an XCHG per slot (it must
	// clear them).
	b.Run("impl=floor", func(b *testing.B) {
		b.ReportAllocs()
		victim, thief := flOwner{r: new(flRing)}, flOwner{r: new(flRing)}
		var got *task
		cpu := startCPU()
		for b.Loop() {
			victim.putBatch(ts)
			got = thief.stealHalf(victim.r)
			buf = victim.drain(buf[:0])
			buf = thief.drain(buf)
		}
		cpu.report(b)
		report(b)
		flCheck(b, "drained", len(buf), ringSize-1)
		sink += got.id
	})

	b.Run("impl=chan", func(b *testing.B) {
		b.ReportAllocs()
		victim, thief := make(chan *task, ringSize), make(chan *task, ringSize)
		var got *task
		cpu := startCPU()
		for b.Loop() {
			for _, t := range ts {
				victim <- t
			}
			n := len(victim)
			n -= n / 2
			for range n - 1 {
				thief <- <-victim
			}
			got = <-victim
			buf = buf[:0]
			for len(victim) > 0 {
				buf = append(buf, <-victim)
			}
			for len(thief) > 0 {
				buf = append(buf, <-thief)
			}
		}
		cpu.report(b)
		report(b)
		if len(buf) != ringSize-1 {
			b.Fatalf("drained %d items, want %d", len(buf), ringSize-1)
		}
		sink += got.id
	})

	b.Run("impl=mutex-ring", func(b *testing.B) {
		b.ReportAllocs()
		victim, thief := new(mutexRing), new(mutexRing)
		var got *task
		cpu := startCPU()
		for b.Loop() {
			if victim.putBatch(ts) != ringSize {
				b.Fatal("short refill")
			}
			got = victim.stealHalf(thief)
			buf = victim.drain(buf[:0])
			buf = thief.drain(buf)
		}
		cpu.report(b)
		report(b)
		if len(buf) != ringSize-1 {
			b.Fatalf("drained %d items, want %d", len(buf), ringSize-1)
		}
		sink += got.id
	})

	b.Run("impl=workiva-RingBuffer", func(b *testing.B) {
		b.ReportAllocs()
		victim, thief := queue.NewRingBuffer(ringSize), queue.NewRingBuffer(ringSize)
		get := func(rb *queue.RingBuffer) *task {
			v, err := rb.Get()
			if err != nil {
				b.Fatal(err)
			}
			return v.(*task)
		}
		var got *task
		cpu := startCPU()
		for b.Loop() {
			for _, t := range ts {
				if err := victim.Put(t); err != nil {
					b.Fatal(err)
				}
			}
			n := victim.Len()
			n -= n / 2
			for range n - 1 {
				if err := thief.Put(get(victim)); err != nil {
					b.Fatal(err)
				}
			}
			got = get(victim)
			buf = buf[:0]
			for victim.Len() > 0 {
				buf = append(buf, get(victim))
			}
			for thief.Len() > 0 {
				buf = append(buf, get(thief))
			}
		}
		cpu.report(b)
		report(b)
		if len(buf) != ringSize-1 {
			b.Fatalf("drained %d items, want %d", len(buf), ringSize-1)
		}
		sink += got.id
	})
}

// contendedBatch is how many items a goroutine produces when it finds no
// work: it queues contendedBatch-1 and runs the last itself.
const contendedBatch = 32

// BenchmarkContended runs GOMAXPROCS goroutines (b.RunParallel) over one
// pool of work. One op is one item taken and "run" by one goroutine; a
// goroutine that finds no work at all produces a batch of 32 items (31
// queued with one put each, the last run at once), so every item is put once
// and got once, and puts race with gets and steals.
//
//   - impl=lfq.Ring: each goroutine owns a ring and takes from it; when its
//     ring is empty it steals half of another ring (victims in order from
//     its neighbour), and only when every ring is empty it produces into its
//     own ring. This is the executor's pattern: contention only on a steal.
//   - impl=chan and impl=mutex-ring: one shared queue of 256 that every
//     goroutine takes from and produces into (the worker-pool pattern), with
//     a non-blocking receive/send (select with default) so that an empty or
//     full queue never blocks a goroutine whose peers have finished.
//
// Workiva's RingBuffer is left out: it has no non-blocking Get, and a
// blocking Get can wait forever once the other goroutines have finished.
//
// steal/op (lfq) and refill/op report how often a goroutine found its queue
// empty; ns/op is wall time over all goroutines' ops, so it falls as
// goroutines are added if the queue scales. Run it with -cpu 1,2,... to see
// that; on a shared 2-core machine only -cpu 2 means much.
func BenchmarkContended(b *testing.B) {
	items := newTasks(contendedBatch)

	b.Run("impl=lfq.Ring", func(b *testing.B) {
		b.ReportAllocs()
		n := runtime.GOMAXPROCS(0)
		rings := make([]lfq.Ring[task], n)
		var ids, steals, refills atomic.Int64
		cpu := startCPU()
		b.RunParallel(func(pb *testing.PB) {
			id := int(ids.Add(1) - 1)
			if id >= n {
				panic("BenchmarkContended: more goroutines than rings")
			}
			own := &rings[id]
			var stole, refilled int64
			s := 0
			for pb.Next() {
				t := own.Get()
				if t == nil {
					for k := 1; k < n && t == nil; k++ {
						t = rings[(id+k)%n].StealHalf(own)
					}
					if t != nil {
						stole++
					}
				}
				if t == nil {
					refilled++
					for _, p := range items[:contendedBatch-1] {
						if own.Put(p, nil) != nil {
							panic("BenchmarkContended: ring overflowed")
						}
					}
					t = items[contendedBatch-1]
				}
				s += t.id
			}
			steals.Add(stole)
			refills.Add(refilled)
			sinkMu.Lock()
			sink += s
			sinkMu.Unlock()
		})
		cpu.report(b)
		b.ReportMetric(float64(steals.Load())/float64(b.N), "steal/op")
		b.ReportMetric(float64(refills.Load())/float64(b.N), "refill/op")
	})

	b.Run("impl=chan", func(b *testing.B) {
		b.ReportAllocs()
		ch := make(chan *task, ringSize)
		var refills atomic.Int64
		cpu := startCPU()
		b.RunParallel(func(pb *testing.PB) {
			var refilled int64
			s := 0
			for pb.Next() {
				var t *task
				select {
				case t = <-ch:
				default:
				}
				if t == nil {
					refilled++
				produce:
					for _, p := range items[:contendedBatch-1] {
						select {
						case ch <- p:
						default:
							break produce
						}
					}
					t = items[contendedBatch-1]
				}
				s += t.id
			}
			refills.Add(refilled)
			sinkMu.Lock()
			sink += s
			sinkMu.Unlock()
		})
		cpu.report(b)
		b.ReportMetric(float64(refills.Load())/float64(b.N), "refill/op")
	})

	b.Run("impl=mutex-ring", func(b *testing.B) {
		b.ReportAllocs()
		q := new(mutexRing)
		var refills atomic.Int64
		cpu := startCPU()
		b.RunParallel(func(pb *testing.PB) {
			var refilled int64
			s := 0
			for pb.Next() {
				t := q.get()
				if t == nil {
					refilled++
					for _, p := range items[:contendedBatch-1] {
						if !q.put(p) {
							break
						}
					}
					t = items[contendedBatch-1]
				}
				s += t.id
			}
			refills.Add(refilled)
			sinkMu.Lock()
			sink += s
			sinkMu.Unlock()
		})
		cpu.report(b)
		b.ReportMetric(float64(refills.Load())/float64(b.N), "refill/op")
	})
}

// sinkMu guards sink where RunParallel goroutines add to it.
var sinkMu sync.Mutex
