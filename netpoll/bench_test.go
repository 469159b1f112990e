package netpoll_test

import (
	"sync"
	"testing"

	"github.com/schedkit/schedkit/netpoll"
)

// Benchmarks of the three paths the poller takes most, each beside a peer
// in the same run (compare the pair, not across runs or machines):
//
//	WaitPending  Ready, then a Wait that consumes the event without
//	             parking (a read that found EAGAIN, an edge already in)
//	             against a buffered channel's send then receive
//	ReadyParked  a round trip between two goroutines, each readying the
//	             other's Desc and waiting on its own (a parked waiter
//	             readied, twice per op, when the waits park) against two
//	             unbuffered channels' ping-pong
//	Lookup       Table.Lookup of 1,024 live tags against a map under a
//	             sync.RWMutex, what a table without slots would need
//
// go test -run '^$' -bench . ./netpoll/

// reuseParker parks on one buffered channel, reused by every wait.
type reuseParker struct {
	ch    chan struct{}
	parks int
}

func newReuseParker() *reuseParker { return &reuseParker{ch: make(chan struct{}, 1)} }

func (p *reuseParker) Waiter() chan struct{} { return p.ch }

func (p *reuseParker) Park(w chan struct{}, committed bool) {
	if committed {
		p.parks++
		<-w
	}
}

func BenchmarkWaitPending(b *testing.B) {
	b.Run("netpoll", func(b *testing.B) {
		var d netpoll.Desc[chan struct{}]
		p := newReuseParker()
		for b.Loop() {
			d.Ready(netpoll.Read, false, wake)
			if err := d.Wait(netpoll.Read, p); err != nil {
				b.Fatal(err)
			}
		}
		if p.parks != 0 {
			b.Fatalf("%d waits parked: the event was pending", p.parks)
		}
	})
	b.Run("chan", func(b *testing.B) {
		ch := make(chan struct{}, 1)
		for b.Loop() {
			ch <- struct{}{}
			<-ch
		}
	})
}

func BenchmarkReadyParked(b *testing.B) {
	b.Run("netpoll", func(b *testing.B) {
		var ping, pong netpoll.Desc[chan struct{}]
		mine, theirs := newReuseParker(), newReuseParker()
		var wg sync.WaitGroup
		wg.Go(func() {
			for ping.Wait(netpoll.Read, theirs) == nil {
				pong.Ready(netpoll.Read, false, wake)
			}
		})
		for b.Loop() {
			ping.Ready(netpoll.Read, false, wake)
			if err := pong.Wait(netpoll.Read, mine); err != nil {
				b.Fatal(err)
			}
		}
		ping.Close(wake)
		wg.Wait()
		b.ReportMetric(float64(mine.parks+theirs.parks)/float64(b.N), "parks/op")
	})
	b.Run("chan", func(b *testing.B) {
		ping, pong := make(chan struct{}), make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			for range ping {
				pong <- struct{}{}
			}
		})
		for b.Loop() {
			ping <- struct{}{}
			<-pong
		}
		close(ping)
		wg.Wait()
	})
}

func BenchmarkLookup(b *testing.B) {
	const n = 1024
	b.Run("netpoll", func(b *testing.B) {
		var tab netpoll.Table[chan struct{}]
		tags := make([]uint64, n)
		for i := range tags {
			tags[i] = tab.Open(new(netpoll.Desc[chan struct{}]))
		}
		i := 0
		for b.Loop() {
			if tab.Lookup(tags[i&(n-1)]) == nil {
				b.Fatal("a live tag looked up nothing")
			}
			i += 7
		}
	})
	b.Run("map+rwmutex", func(b *testing.B) {
		var mu sync.RWMutex
		m := make(map[uint64]*netpoll.Desc[chan struct{}], n)
		tags := make([]uint64, n)
		for i := range tags {
			tags[i] = uint64(i+1)<<32 | uint64(i)
			m[tags[i]] = new(netpoll.Desc[chan struct{}])
		}
		i := 0
		for b.Loop() {
			mu.RLock()
			d := m[tags[i&(n-1)]]
			mu.RUnlock()
			if d == nil {
				b.Fatal("a live tag looked up nothing")
			}
			i += 7
		}
	})
}
