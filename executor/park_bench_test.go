package executor_test

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/executor"
)

// BenchmarkParkPingPong: two tasks hand a value back and forth through
// two mailboxes (park_test.go), each wait a park and each handoff a
// ready into the waker's runnext; ns/op is one round trip (two parks).
// BenchmarkGoChanPingPong is the same shape on two goroutines over
// unbuffered Go channels, the runtime's gopark/goready, to compare with
// in the same run.
//
// Run both with -cpu 1,2: the executor has as many Ps as GOMAXPROCS.
func BenchmarkParkPingPong(b *testing.B) {
	{
		{
			e, err := executor.New(executor.Config{})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			var ab, ba mailbox
			g, _ := e.NewGroup(context.Background())
			g.Go(func(t executor.Task) error {
				for {
					v := ab.get(t)
					ba.put(t, v)
					if v < 0 {
						return nil
					}
				}
			})
			g.Go(func(t executor.Task) error {
				for b.Loop() {
					ab.put(t, 1)
					ba.get(t)
				}
				ab.put(t, -1)
				ba.get(t)
				return nil
			})
			if err := g.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkGoChanPingPong(b *testing.B) {
	{
		{
			ab, ba := make(chan int), make(chan int)
			go func() {
				for v := range ab {
					ba <- v
				}
				close(ba)
			}()
			for b.Loop() {
				ab <- 1
				<-ba
			}
			close(ab)
			<-ba
		}
	}
}
