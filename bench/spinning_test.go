package bench

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/schedkit/schedkit/spinning"
)

// spinning.Sched.Wakep, the submitter's wakeup, against what a user would
// write to wake a worker instead: sync.Cond.Signal and a channel.
//
//	BenchmarkSpinningWakepFast          the common fast path: a worker is already awake
//	                                    (spinning), so the wakeup must cost next to nothing;
//	                                    one goroutine
//	BenchmarkSpinningWakepFastParallel  the same from GOMAXPROCS submitters at once
//	BenchmarkSpinningWakepParked        the slow path: the only worker is parked; per op,
//	                                    submit one empty task, wake the worker, wait until
//	                                    it has run the task and is parked (or waiting) again
//
// Each also has impl=floor (floor_test.go): in the fast path the one load
// of the spinning count a submitter needs, in the slow path two goroutine
// wakeups through channels, the least the round trip can cost in Go.
//
// In the fast path the peers are a sync.Cond with no waiter (Signal) and a
// cap-1 notification channel that is already full (a select with default),
// the usual "kick the worker" idiom. In the slow path they are a worker
// waiting on a sync.Cond for a flag under its mutex, and a worker ranging
// over an unbuffered channel (a one-worker pool).
//
// The slow path's round trip is not the same work for all: the spinning M
// acknowledges only once it has parked again (Config.CheckDead), after its
// whole way down (look, spin, ReleaseP, DropSpinning with its re-check,
// StopM), so that every op really wakes a parked M; the peers acknowledge
// from the task and may find the next wakeup before they block again.

// spinWorkerSched returns a Sched of one P whose only M spins holding it.
func spinWorkerSched(b *testing.B) *spinning.Sched {
	s, err := spinning.New(spinning.Config{Procs: 1, Work: func() bool { return false }})
	if err != nil {
		b.Fatal(err)
	}
	m := s.NewM()
	if !m.AcquireP() || !m.BecomeSpinning() {
		b.Fatal("could not make a spinning M")
	}
	return s
}

func BenchmarkSpinningWakepFast(b *testing.B) {
	b.Run("impl=spinning.Wakep", func(b *testing.B) {
		b.ReportAllocs()
		s := spinWorkerSched(b)
		cpu := startCPU()
		for b.Loop() {
			s.Wakep()
		}
		cpu.report(b)
		sink += s.NMSpinning()
	})
	// The floor: the one load of the spinning count that tells a
	// submitter a spinner will find its work (see floor_test.go).
	b.Run("impl=floor", func(b *testing.B) {
		b.ReportAllocs()
		var spinners flWord
		spinners.Store(1)
		woke := 0
		cpu := startCPU()
		for b.Loop() {
			if spinners.Load() == 0 {
				woke++
			}
		}
		cpu.report(b)
		flCheck(b, "wakeups", woke, 0)
	})
	b.Run("impl=cond-Signal", func(b *testing.B) {
		b.ReportAllocs()
		c := sync.NewCond(new(sync.Mutex))
		cpu := startCPU()
		for b.Loop() {
			c.Signal()
		}
		cpu.report(b)
	})
	b.Run("impl=chan-notify", func(b *testing.B) {
		b.ReportAllocs()
		kick := make(chan struct{}, 1)
		kick <- struct{}{} // the worker has a wakeup pending already
		cpu := startCPU()
		for b.Loop() {
			select {
			case kick <- struct{}{}:
			default:
			}
		}
		cpu.report(b)
		sink += len(kick)
	})
}

func BenchmarkSpinningWakepFastParallel(b *testing.B) {
	b.Run("impl=spinning.Wakep", func(b *testing.B) {
		b.ReportAllocs()
		s := spinWorkerSched(b)
		cpu := startCPU()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				s.Wakep()
			}
		})
		cpu.report(b)
	})
	b.Run("impl=floor", func(b *testing.B) {
		b.ReportAllocs()
		var spinners flWord
		spinners.Store(1)
		var woke atomic.Int64
		cpu := startCPU()
		b.RunParallel(func(pb *testing.PB) {
			n := int64(0)
			for pb.Next() {
				if spinners.Load() == 0 {
					n++
				}
			}
			woke.Add(n)
		})
		cpu.report(b)
		flCheck(b, "wakeups", int(woke.Load()), 0)
	})
	b.Run("impl=cond-Signal", func(b *testing.B) {
		b.ReportAllocs()
		c := sync.NewCond(new(sync.Mutex))
		cpu := startCPU()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				c.Signal()
			}
		})
		cpu.report(b)
	})
	b.Run("impl=chan-notify", func(b *testing.B) {
		b.ReportAllocs()
		kick := make(chan struct{}, 1)
		kick <- struct{}{}
		cpu := startCPU()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				select {
				case kick <- struct{}{}:
				default:
				}
			}
		})
		cpu.report(b)
	})
}

func BenchmarkSpinningWakepParked(b *testing.B) {
	b.Run("impl=spinning.Wakep", func(b *testing.B) {
		b.ReportAllocs()
		var mu sync.Mutex
		var queue []func()
		var queued atomic.Int32
		parked := make(chan struct{}, 1)
		s, err := spinning.New(spinning.Config{
			Procs: 1,
			Work:  func() bool { return queued.Load() > 0 },
			CheckDead: func(idle, total int) {
				if idle == total {
					parked <- struct{}{}
				}
			},
		})
		if err != nil {
			b.Fatal(err)
		}
		pop := func() func() {
			if queued.Load() == 0 {
				return nil
			}
			mu.Lock()
			defer mu.Unlock()
			t := queue[0]
			// Shift rather than reslice: a resliced queue runs out of
			// capacity and makes append allocate, which is the harness's
			// cost, not the wakeup's.
			queue = queue[:copy(queue, queue[1:])]
			queued.Add(-1)
			return t
		}
		m := s.NewM()
		var wg sync.WaitGroup
		wg.Go(func() {
			if !m.StopM() {
				return
			}
			for {
				t := pop()
				if t == nil && m.BecomeSpinning() {
					t = pop()
				}
				if t != nil {
					if m.Spinning() {
						m.ResetSpinning()
					}
					t()
					continue
				}
				if !m.ReleaseP() || m.DropSpinning() {
					continue
				}
				if !m.StopM() {
					return
				}
			}
		})
		<-parked
		n := 0
		task := func() { n++ }
		publish := func() {
			mu.Lock()
			queue = append(queue, task)
			queued.Add(1)
			mu.Unlock()
		}
		cpu := startCPU()
		for b.Loop() {
			s.Submit(publish)
			<-parked
		}
		cpu.report(b)
		s.Shutdown()
		wg.Wait()
		if n != b.N {
			b.Fatalf("ran %d tasks, want %d", n, b.N)
		}
	})
	// The floor: two goroutine wakeups, one each way, each a park and a
	// ready of a goroutine blocked on a channel, the cheapest the Go
	// runtime offers; the task itself travels in the message and runs on
	// the worker. The chan-pool peer is the same minimum.
	b.Run("impl=floor", func(b *testing.B) {
		b.ReportAllocs()
		wake, parked := make(chan func(), 1), make(chan struct{}, 1)
		var wg sync.WaitGroup
		wg.Go(func() {
			for t := range wake {
				t()
				parked <- struct{}{}
			}
		})
		n := 0
		task := func() { n++ }
		cpu := startCPU()
		for b.Loop() {
			wake <- task
			<-parked
		}
		cpu.report(b)
		close(wake)
		wg.Wait()
		flCheck(b, "tasks run", n, b.N)
	})
	b.Run("impl=cond-Signal", func(b *testing.B) {
		b.ReportAllocs()
		var mu sync.Mutex
		c := sync.NewCond(&mu)
		pending, stop := false, false
		ack := make(chan struct{}, 1)
		var wg sync.WaitGroup
		n := 0
		wg.Go(func() {
			for {
				mu.Lock()
				for !pending && !stop {
					c.Wait()
				}
				if stop {
					mu.Unlock()
					return
				}
				pending = false
				mu.Unlock()
				n++
				ack <- struct{}{}
			}
		})
		cpu := startCPU()
		for b.Loop() {
			mu.Lock()
			pending = true
			c.Signal()
			mu.Unlock()
			<-ack
		}
		cpu.report(b)
		mu.Lock()
		stop = true
		c.Signal()
		mu.Unlock()
		wg.Wait()
		if n != b.N {
			b.Fatalf("ran %d tasks, want %d", n, b.N)
		}
	})
	b.Run("impl=chan-pool", func(b *testing.B) {
		b.ReportAllocs()
		work := make(chan func())
		ack := make(chan struct{}, 1)
		var wg sync.WaitGroup
		wg.Go(func() {
			for t := range work {
				t()
				ack <- struct{}{}
			}
		})
		n := 0
		task := func() { n++ }
		cpu := startCPU()
		for b.Loop() {
			work <- task
			<-ack
		}
		cpu.report(b)
		close(work)
		wg.Wait()
		if n != b.N {
			b.Fatalf("ran %d tasks, want %d", n, b.N)
		}
	})
}
