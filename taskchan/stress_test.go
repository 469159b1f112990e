package taskchan_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/exactlyonce"
	"github.com/schedkit/schedkit/taskchan"
)

// Bar item 4: a race-detector stress test. Producers (tasks and outside
// goroutines) send unique ids over an unbuffered and a buffered channel,
// by Send, TrySend and a select's send; consumers (tasks and goroutines)
// take them by Recv, TryRecv and a select over both; the channels close
// when the producers are done. Every id must be received exactly once
// (internal/exactlyonce), and no waiter may be left. A million ids in long
// mode, 10,000 under -short (at 1 P and at 2).

// stressConfig is one stress run.
type stressConfig struct {
	items, producers, consumers, procs int
}

func stressDefault() stressConfig {
	n := 10_000
	if long() {
		n = 1_000_000
	}
	return stressConfig{items: n, producers: 4, consumers: 4, procs: 2}
}

// runStress runs one stress and returns the tally's verdict.
func runStress(cfg stressConfig) error {
	e, err := executor.New(executor.Config{Procs: cfg.procs})
	if err != nil {
		return err
	}
	a, b := taskchan.Make[int](0), taskchan.Make[int](8)
	counts := make([]atomic.Int32, cfg.items)
	var next atomic.Int64
	var producers, consumers sync.WaitGroup
	panics := make(chan any, cfg.producers+cfg.consumers)
	run := func(wg *sync.WaitGroup, onTask bool, f func(t executor.Task)) {
		wg.Add(1)
		body := func(t executor.Task) {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					panics <- r
				}
			}()
			f(t)
		}
		if !onTask {
			go body(executor.Task{})
			return
		}
		if err := e.Go(body); err != nil {
			panic(err)
		}
	}
	for p := range cfg.producers {
		run(&producers, p%2 == 0, func(t executor.Task) {
			for k := 0; ; k++ {
				id := int(next.Add(1) - 1)
				if id >= cfg.items {
					return
				}
				switch k % 4 {
				case 0:
					a.Send(t, id)
				case 1:
					b.Send(t, id)
				case 2:
					if !b.TrySend(id) {
						a.Send(t, id)
					}
				default:
					taskchan.Select(t, a.SendCase(id), b.SendCase(id))
				}
			}
		})
	}
	for c := range cfg.consumers {
		run(&consumers, c%2 == 1, func(t executor.Task) {
			aOpen, bOpen := true, true
			for k := 0; aOpen || bOpen; k++ {
				var v int
				var ok bool
				switch {
				case k%3 == 0 && aOpen:
					if v, ok = a.Recv(t); !ok {
						aOpen = false
						continue
					}
				case k%3 == 1 && bOpen:
					var ready bool
					if v, ok, ready = b.TryRecv(); !ready {
						continue
					} else if !ok {
						bOpen = false
						continue
					}
				default:
					var ca, cb *taskchan.Chan[int]
					if aOpen {
						ca = a
					}
					if bOpen {
						cb = b
					}
					var i int
					if i, ok = taskchan.Select(t, ca.RecvCase(&v), cb.RecvCase(&v)); !ok {
						if i == 0 {
							aOpen = false
						} else {
							bOpen = false
						}
						continue
					}
				}
				counts[v].Add(1)
			}
		})
	}
	producers.Wait()
	a.Close()
	b.Close()
	consumers.Wait()
	if err := e.Close(); err != nil {
		return err
	}
	close(panics)
	for r := range panics {
		return fmt.Errorf("a party panicked: %v", r)
	}
	for name, c := range map[string]*taskchan.Chan[int]{"a": a, "b": b} {
		if s, r := c.Waiting(); s+r != 0 {
			return fmt.Errorf("channel %s still queues %d senders and %d receivers", name, s, r)
		}
	}
	return exactlyonce.Check(counts)
}

func TestStressExactlyOnce(t *testing.T) {
	items := 0
	for _, procs := range []int{1, 2} {
		cfg := stressDefault()
		cfg.procs = procs
		if err := runStress(cfg); err != nil {
			t.Fatalf("%d Ps: %v", procs, err)
		}
		items += cfg.items
	}
	t.Logf("taskchan stress: %d items consumed exactly once", items)
}
