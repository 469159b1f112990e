package bench

import (
	"container/heap"
	"sync"
	"testing"

	"github.com/schedkit/schedkit/timers"
)

// The per-P timer heap against what a user would write instead: a
// container/heap of timer records (each knowing its index, so a stop
// removes it) under one sync.Mutex, whose funcs run after the unlock, as
// timers.Heap's do. Each benchmark has impl=timers.Heap first and
// impl=container-heap beside it, in the same run. Identifiers of this file
// start with tm.

const tmQueued = 1024 // timers kept armed in the steady-state benchmarks

// tmPeerTimer is one timer of the peer.
type tmPeerTimer struct {
	when int64
	f    func(arg any, delay int64)
	arg  any
	idx  int // in the heap, -1 when in none
}

// tmPeerHeap is container/heap's Interface over the records.
type tmPeerHeap []*tmPeerTimer

func (h tmPeerHeap) Len() int           { return len(h) }
func (h tmPeerHeap) Less(i, j int) bool { return h[i].when < h[j].when }
func (h tmPeerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
func (h *tmPeerHeap) Push(x any) { t := x.(*tmPeerTimer); t.idx = len(*h); *h = append(*h, t) }
func (h *tmPeerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.idx = -1
	return t
}

// tmPeer is the peer's per-P heap.
type tmPeer struct {
	mu sync.Mutex
	h  tmPeerHeap
}

func (p *tmPeer) add(t *tmPeerTimer, when int64) {
	p.mu.Lock()
	t.when = when
	heap.Push(&p.h, t)
	p.mu.Unlock()
}

func (p *tmPeer) stop(t *tmPeerTimer) bool {
	p.mu.Lock()
	ok := t.idx >= 0
	if ok {
		heap.Remove(&p.h, t.idx)
	}
	p.mu.Unlock()
	return ok
}

func (p *tmPeer) run(now int64, max int) int {
	ran := 0
	for ran < max {
		p.mu.Lock()
		if len(p.h) == 0 || p.h[0].when > now {
			p.mu.Unlock()
			break
		}
		t := heap.Pop(&p.h).(*tmPeerTimer)
		p.mu.Unlock()
		t.f(t.arg, now-t.when)
		ran++
	}
	return ran
}

func (p *tmPeer) next() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.h) == 0 {
		return 0
	}
	return p.h[0].when
}

func tmNop(any, int64) {}

// BenchmarkTimersAddRun is a P's steady state: tmQueued timers armed at
// scattered whens; each op arms one more and runs the one that expired.
func BenchmarkTimersAddRun(b *testing.B) {
	b.Run("impl=timers.Heap", func(b *testing.B) {
		var h timers.Heap
		free := make([]*timers.Timer, 0, tmQueued+1) // fired timers, armed again
		fire := func(arg any, _ uint64, _ int64) { free = append(free, arg.(*tmTimer).t) }
		for i := range tmQueued + 1 {
			r := &tmTimer{}
			r.t = timers.NewTimer(fire, r)
			if i == tmQueued {
				free = append(free, r.t)
				break
			}
			h.Add(r.t, int64(1+i*7919%tmQueued))
		}
		now := int64(0)
		b.ReportAllocs()
		cpu := startCPU()
		for b.Loop() {
			now++
			t := free[len(free)-1]
			free = free[:len(free)-1]
			h.Add(t, now+tmQueued)
			if h.Run(now, 1) != 1 {
				b.Fatal("nothing expired")
			}
		}
		cpu.report(b)
	})
	b.Run("impl=container-heap", func(b *testing.B) {
		var p tmPeer
		free := make([]*tmPeerTimer, 0, tmQueued+1)
		fire := func(arg any, _ int64) { free = append(free, arg.(*tmPeerTimer)) }
		for i := range tmQueued + 1 {
			t := &tmPeerTimer{f: fire, idx: -1}
			t.arg = t
			if i == tmQueued {
				free = append(free, t)
				break
			}
			p.add(t, int64(1+i*7919%tmQueued))
		}
		now := int64(0)
		b.ReportAllocs()
		cpu := startCPU()
		for b.Loop() {
			now++
			t := free[len(free)-1]
			free = free[:len(free)-1]
			p.add(t, now+tmQueued)
			if p.run(now, 1) != 1 {
				b.Fatal("nothing expired")
			}
		}
		cpu.report(b)
	})
}

// tmTimer is a record holding its timer, as the executor's task will.
type tmTimer struct{ t *timers.Timer }

// BenchmarkTimersAddStop is a deadline that the task beats: arm, then stop
// before it fires, beside tmQueued armed timers.
func BenchmarkTimersAddStop(b *testing.B) {
	b.Run("impl=timers.Heap", func(b *testing.B) {
		var h timers.Heap
		for i := range tmQueued {
			h.Add(timers.NewTimer(func(any, uint64, int64) {}, nil), int64(1<<40+i))
		}
		t := timers.NewTimer(func(any, uint64, int64) {}, nil)
		now := int64(0)
		b.ReportAllocs()
		cpu := startCPU()
		for b.Loop() {
			now++
			h.Add(t, now+1000)
			if !t.Stop() {
				b.Fatal("Stop found it fired")
			}
		}
		cpu.report(b)
	})
	b.Run("impl=container-heap", func(b *testing.B) {
		var p tmPeer
		for i := range tmQueued {
			p.add(&tmPeerTimer{f: tmNop, idx: -1}, int64(1<<40+i))
		}
		t := &tmPeerTimer{f: tmNop, idx: -1}
		now := int64(0)
		b.ReportAllocs()
		cpu := startCPU()
		for b.Loop() {
			now++
			p.add(t, now+1000)
			if !p.stop(t) {
				b.Fatal("stop found it fired")
			}
		}
		cpu.report(b)
	})
}

// BenchmarkTimersStealCheck is an idle P's steal pass over the other Ps'
// heaps, none expired: timers.Heap's Next is one load, the peer's a lock.
// Run in parallel: every idle P checks the same busy P's heap.
func BenchmarkTimersStealCheck(b *testing.B) {
	b.Run("impl=timers.Heap", func(b *testing.B) {
		var h timers.Heap
		h.Add(timers.NewTimer(func(any, uint64, int64) {}, nil), 1<<40)
		cpu := startCPU()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if w := h.Next(); w != 0 && w <= 1000 {
					h.Run(1000, 64)
				}
			}
		})
		cpu.report(b)
	})
	b.Run("impl=container-heap", func(b *testing.B) {
		var p tmPeer
		p.add(&tmPeerTimer{f: tmNop, idx: -1}, 1<<40)
		cpu := startCPU()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if w := p.next(); w != 0 && w <= 1000 {
					p.run(1000, 64)
				}
			}
		})
		cpu.report(b)
	})
}
