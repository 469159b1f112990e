// Package bench measures schedkit's components against what a user would
// pick instead, each comparison reported as a ratio taken in one run (bar
// rung 9 of docs/DESIGN.md).
//
// It is its own module (github.com/schedkit/schedkit/bench) so that the
// libraries it compares against never become dependencies of schedkit; the
// replace directive in go.mod points it at the checkout one directory up.
//
// # What is measured
//
// lfq_test.go compares lfq.Ring, the 256-slot SPMC ring a P owns, with a
// buffered channel of capacity 256, a sync.Mutex-guarded 256-slot ring, and
// Workiva's lock-free MPMC queue.RingBuffer(256):
//
//	BenchmarkOwnerPutGet       one put and one get per op, one goroutine, 64 items queued
//	BenchmarkOwnerPutGetBurst  128 puts then 128 gets per op, one goroutine, 64 items queued
//	BenchmarkStealHalf         refill a victim with 256, move half to an empty queue, drain both
//	BenchmarkContended         GOMAXPROCS goroutines consume one item per op: lfq with a ring
//	                           each and stealing when empty, the peers with one shared queue
//
// globalq_test.go (batch get of 128, put/get, the put path's allocations),
// runnext_test.go (a runnext put/take pair against an lfq put/get pair),
// stealing_test.go (a four-pass steal over 8 and 64 Ps against an index-order
// scan and one mutex queue), spinning_test.go (Wakep against a sync.Cond
// signal and a channel) and timers_test.go (arm and run, arm and stop, an idle
// P's check of a busy P's heap, against a container/heap under a sync.Mutex;
// no impl=floor row yet) do the same for the other components.
//
// The executor's workloads against go f() and the pools users know live in
// package bench/suite (BenchmarkSuite runs them under go test); the suite
// runner, bench/cmd/benchsuite (go run ./cmd/schedkit bench), interleaves
// their rounds and writes RESULTS.md's tables and the charts. Every
// component benchmark also has an impl=floor row: the least synchronized
// work its operation's contract needs, on private cache lines
// (floor_test.go), so each ratio to the floor says how close it is to what
// the hardware allows.
//
// The network workloads of issue 24 (http-hello, http-echo, resp:
// servers/http1 and servers/resp on the executor's poller through tasknet,
// against the same servers on goroutines and package net) are suite
// workloads too, driven by package netload's in-process load generator.
// cmd/netbench runs them against Debian's wrk, ab and redis-benchmark as
// well (found in PATH, or fetched with apt-get download and unpacked with
// dpkg -x into the user's cache, no root needed; a missing one is named
// with why, and the run goes on without it), with net/http's server and
// redis-server as further peers:
//
//	go run ./cmd/netbench -count 3 | tee netbench.md
//
// Every benchmark has one sub-benchmark per implementation, named impl=NAME,
// so benchstat can put them side by side: the lfq.Ring column is the base.
// Besides ns/op (wall time) each reports cpu-ns/op, the CPU time the process
// used per op (getrusage; omitted where that is not available): on a shared
// machine wall time grows whenever other processes take the CPU, CPU time
// much less. bench/RESULTS.md records a run and its ratios.
//
// # How to run
//
//	cd bench
//	go test -run '^$' -bench . -count 10 -benchtime 200ms | tee new.txt
//	benchstat -col /impl new.txt
//
// -count 10 takes the ten samples of one sub-benchmark back to back; on a
// machine shared with other work, ten rounds of -count 1 interleave the
// implementations so that a busy spell hits all of them alike:
//
//	for i in $(seq 10); do go test -run '^$' -bench . -count 1 -benchtime 200ms; done | tee new.txt
//
// benchstat is golang.org/x/perf/cmd/benchstat. CI only checks that every
// benchmark builds and runs once:
//
//	go vet ./... && go test -run '^$' -bench . -benchtime=1x ./...
//
// The wrapper cost of atomicx against raw sync/atomic is measured
// next to that package (BenchmarkWrapper in atomicx), since it is
// internal and cannot be imported from here.
package bench
