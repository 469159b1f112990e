package taskchan_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/taskchan"
)

// BenchmarkPingPong is issue 23's target: a round trip (a send and a
// receive each way) between two tasks over unbuffered task channels,
// against two goroutines over unbuffered Go channels, at 1 and 2 Ps (the
// executor's Procs and GOMAXPROCS both), in one run so that the ratio is
// of one machine's state. ns/op is one round trip.
//
//	go test -run '^$' -bench PingPong -count 5 ./taskchan/
func BenchmarkPingPong(b *testing.B) {
	for _, procs := range []int{1, 2} {
		b.Run(fmt.Sprintf("impl=taskchan/procs=%d", procs), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			e, err := executor.New(executor.Config{Procs: procs})
			if err != nil {
				b.Fatal(err)
			}
			ping, pong := taskchan.Make[int](0), taskchan.Make[int](0)
			done := make(chan struct{})
			_ = e.Go(func(t executor.Task) {
				for {
					v, ok := ping.Recv(t)
					if !ok {
						return
					}
					pong.Send(t, v)
				}
			})
			_ = e.Go(func(t executor.Task) {
				defer close(done)
				for b.Loop() {
					ping.Send(t, 1)
					pong.Recv(t)
				}
				ping.Close()
			})
			<-done
			if err := e.Close(); err != nil {
				b.Fatal(err)
			}
		})
		b.Run(fmt.Sprintf("impl=gochan/procs=%d", procs), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			ping, pong := make(chan int), make(chan int)
			done := make(chan struct{})
			go func() {
				for v := range ping {
					pong <- v
				}
			}()
			go func() {
				defer close(done)
				for b.Loop() {
					ping <- 1
					<-pong
				}
				close(ping)
			}()
			<-done
		})
	}
}
