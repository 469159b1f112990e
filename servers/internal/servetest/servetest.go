// Package servetest holds what the servers' tests share: the transports
// every server test runs on, plain goroutines with package net and the
// executor with tasknet; Serve, which starts a server and checks how it
// ends; OnExecutor and OnProcs, the tasknet tests' executor of 1 or 2 Ps.
package servetest

import (
	"fmt"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/watchdog"
	"github.com/schedkit/schedkit/servers/internal/serve"
	"github.com/schedkit/schedkit/tasknet"
)

// A Transport is what a server runs on: a listener and a way to start a
// loop (the accept loop and each connection's).
type Transport struct {
	Name   string
	Listen func(t testing.TB) net.Listener
	Spawn  func(func())
	// SpawnConn, if set, starts each connection's loop (Server.SpawnConn)
	// for a listener Listen made.
	SpawnConn func(l net.Listener) func(net.Conn, func(net.Conn))
}

// Transports are goroutines and the executor: a tasknet listener (its
// accept loop on a goroutine), each connection's loop a task whose reads
// and writes park it.
var Transports = []Transport{
	{Name: "goroutines", Listen: TCPListener, Spawn: func(f func()) { go f() }},
	{Name: "executor", Listen: TaskListener, Spawn: func(f func()) { go f() }, SpawnConn: func(l net.Listener) func(net.Conn, func(net.Conn)) {
		return tasknet.SpawnConn(l.(*tasknet.Listener).Executor())
	}},
}

// ForEach runs f as a subtest for each transport.
func ForEach(t *testing.T, f func(t *testing.T, tr Transport)) {
	for _, tr := range Transports {
		t.Run(tr.Name, func(t *testing.T) { f(t, tr) })
	}
}

// TaskListener is a tasknet listener on an executor of 2 Ps of the test's
// own, closed after the server (cleanups run last first). It skips t under
// -tags schedcheck (NeedRealPoller).
func TaskListener(t testing.TB) net.Listener {
	NeedRealPoller(t)
	ex, err := executor.New(executor.Config{Procs: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ex.Close(); err != nil {
			t.Error(err)
		}
	})
	l, err := tasknet.Listen(ex, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// NeedRealPoller skips t in a schedcheck build (explore.Available), whose
// executor poller is the explorer's fake kernel: OpenFD, and so a tasknet
// listener, fails there. The goroutines transport runs in every build.
func NeedRealPoller(t testing.TB) {
	t.Helper()
	if explore.Available() {
		t.Skip("built with -tags schedcheck: the executor's poller is the explorer's fake kernel (executor/poll_schedcheck.go) and polls no real socket; run this test without the tag")
	}
}

// TCPListener is a package net listener on loopback.
func TCPListener(t testing.TB) net.Listener {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Spawners are a server's Spawn and SpawnConn for a listener tr.Listen
// made: SpawnConn is nil where tr starts each connection's loop with Spawn.
func (tr Transport) Spawners(l net.Listener) (spawn func(func()), spawnConn func(net.Conn, func(net.Conn))) {
	if tr.SpawnConn != nil {
		spawnConn = tr.SpawnConn(l)
	}
	return tr.Spawn, spawnConn
}

// A Server is a server under test (http1.Server, resp.Server): it serves
// a listener until Close, after which Serve returns serve.ErrClosed (the
// servers' ErrServerClosed).
type Server interface {
	Serve(l net.Listener) error
	Close() error
}

// Serve starts s.Serve(l) with spawn and returns l's address. The test's
// cleanup closes s and checks that Serve returned ErrServerClosed, and so
// that every connection loop has ended (Close waits for them); cleanups
// registered before Serve run after it.
func Serve(t testing.TB, s Server, l net.Listener, spawn func(func())) string {
	done := make(chan error, 1)
	spawn(func() { done <- s.Serve(l) })
	t.Cleanup(func() {
		s.Close()
		if err := <-done; err != serve.ErrClosed {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	return l.Addr().String()
}

// OnExecutor makes a fresh executor of procs Ps and a tasknet listener on
// it, under a watchdog of two minutes named for the test and what (the
// server). The test's cleanups close the executor (checking that no task
// panicked) and then stop the watchdog, after any cleanup registered later
// (Serve's). It skips t under -tags schedcheck (NeedRealPoller).
func OnExecutor(t *testing.T, procs int, what string) (net.Listener, *executor.Executor) {
	t.Helper()
	NeedRealPoller(t)
	stop := watchdog.Start(t.Name()+": "+what+" on the executor", 2*time.Minute, nil)
	t.Cleanup(stop)
	ex, err := executor.New(executor.Config{Procs: procs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ex.Close(); err != nil {
			t.Errorf("executor Close: %v", err)
		}
	})
	l, err := tasknet.Listen(ex, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l, ex
}

// OnProcs runs f at GOMAXPROCS 1 and 2, the executor with as many Ps.
func OnProcs(t *testing.T, f func(t *testing.T, procs int)) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("P%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			f(t, procs)
		})
	}
}
