package suite

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/netload"
)

// The network workloads (issue 24): servers/http1 and servers/resp on the
// executor's poller (tasknet) against the same servers on goroutines and
// package net, driven by bench/netload's in-process load generator. The
// Debian tools (wrk, ab, redis-benchmark) and net/http's and redis-server's
// rows are cmd/netbench's, which RESULTS.md's issue 24 section records.

// NetConns is the keep-alive connections a network workload opens: 50, or
// 8 under Quick.
func NetConns() int {
	if Quick {
		return 8
	}
	return 50
}

// NetRequests is the requests one op sends over them: 5,000, or 200 under
// Quick.
func NetRequests() int {
	if Quick {
		return 200
	}
	return 5000
}

// netBench is one impl of a network workload: the server started once
// (with GOMAXPROCS Ps on the executor), NetConns connections opened and
// each served once before the timer, then NetRequests requests per op.
// It reports req/s (the metric), the round trips' p50-µs and p99-µs over
// every op, and, for the executor, Ms (Stats.Ms at the end: Procs plus the
// few that sysmon's handoffs made, however many connections there are).
func netBench(impl string, proto netload.Proto) func(b *testing.B) {
	return func(b *testing.B) {
		srv, err := netload.Start(impl, proto, runtime.GOMAXPROCS(0))
		if err != nil {
			b.Fatal(err)
		}
		defer func() {
			if err := srv.Close(); err != nil {
				b.Error(err)
			}
		}()
		l, err := netload.Open(srv.Addr, proto, NetConns())
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		if _, err := l.Run(2 * NetConns()); err != nil {
			b.Fatal(err)
		}
		var (
			reqs int
			lats []time.Duration
		)
		for b.Loop() {
			r, err := l.Run(NetRequests())
			if err != nil {
				b.Fatal(err)
			}
			reqs += r.Requests
			lats = append(lats, r.Latencies...)
		}
		slices.Sort(lats)
		b.ReportMetric(float64(reqs)/b.Elapsed().Seconds(), "req/s")
		b.ReportMetric(float64(netload.Percentile(lats, 50).Nanoseconds())/1e3, "p50-µs")
		b.ReportMetric(float64(netload.Percentile(lats, 99).Nanoseconds())/1e3, "p99-µs")
		if impl == netload.Executor {
			b.ReportMetric(float64(srv.Ms()), "Ms")
		}
	}
}

const netAbout = `One op is %s over %d keep-alive connections (8 and 200 with -quick)
opened before the timer, each connection sending its share one request at a time
and checking every response (bench/netload, in this process, on goroutines and
package net). schedkit: the server of servers/ on the executor with GOMAXPROCS Ps:
Server.Serve on a tasknet listener with SpawnConn tasknet.SpawnConn(ex), so each
connection's loop is a task parked on the poller while its socket is not ready.
go: the same server on goroutines with package net (Server.Serve). req/s is requests
over the timed ops' wall time; p50-µs and p99-µs are the round trips'. wrk, ab,
redis-benchmark, net/http and redis-server rows: go run ./cmd/netbench.`

func init() {
	for _, w := range []struct {
		proto netload.Proto
		title string
		what  string
	}{
		{netload.HTTPHello, "HTTP/1.1 keep-alive hello (servers/http1: GET /)", "5,000 GET / (\"Hello, World!\")"},
		{netload.HTTPEcho, "HTTP/1.1 keep-alive echo (servers/http1: POST /echo, 128 bytes)", "5,000 POST /echo of 128 bytes"},
		{netload.RESP, "RESP (servers/resp: PING, SET, GET, INCR in turn)", "5,000 commands, PING, SET, GET and INCR in turn on each connection,"},
	} {
		Register(Workload{
			Name:           w.proto.String(),
			Title:          w.title,
			About:          fmt.Sprintf(netAbout, w.what, 50),
			Metric:         "req/s",
			HigherIsBetter: true,
			Procs:          []int{1, 2},
			Impls: []Impl{
				{netload.Executor, netBench(netload.Executor, w.proto)},
				{netload.Goroutines, netBench(netload.Goroutines, w.proto)},
			},
		})
	}
}
