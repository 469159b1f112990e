// Package servetest holds what the servers' tests share: the transports
// every server test runs on, plain goroutines with package net and the
// executor with tasknet.
package servetest

import (
	"net"
	"testing"

	"github.com/schedkit/schedkit/executor"
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
// own, closed after the server (cleanups run last first).
func TaskListener(t testing.TB) net.Listener {
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

// TCPListener is a package net listener on loopback.
func TCPListener(t testing.TB) net.Listener {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}
