package resp

import (
	"bufio"
	"errors"
	"net"

	"github.com/schedkit/schedkit/servers/internal/serve"
)

// ErrServerClosed is what Serve returns after Close.
var ErrServerClosed = serve.ErrClosed

// A Server serves RESP2 on the listeners given to Serve. Its zero value
// serves a store of its own on goroutines with DefaultLimits.
type Server struct {
	Store  *Store       // nil: a new store, made on the first Serve
	Limits Limits       // zero fields: DefaultLimits
	Spawn  func(func()) // starts each connection's loop; nil: a goroutine
	// SpawnConn, when set, starts each connection's loop instead of Spawn
	// and is given the connection: on the executor, tasknet.SpawnConn(ex)
	// runs the loop as a task with the connection bound to it.
	SpawnConn func(c net.Conn, loop func(net.Conn))

	loop serve.Loop
}

// Serve serves st on l, starting each connection's loop with spawn: spawn(f)
// must run f once, concurrently with Serve (`go f()` on goroutines; on the
// executor, submitting f as a task). It returns l.Accept's error, or
// ErrServerClosed when the server was closed.
func Serve(l net.Listener, spawn func(func()), st *Store) error {
	return (&Server{Store: st, Spawn: spawn}).Serve(l)
}

// ServeGo is Serve with a goroutine per connection.
func ServeGo(l net.Listener, st *Store) error { return Serve(l, nil, st) }

// Accepted is the number of connections the server has accepted.
func (s *Server) Accepted() int64 { return s.loop.Accepted() }

// Serve accepts connections on l until l fails or the server is closed, and
// serves each on its own loop (Server.Spawn). It closes l before it returns.
// Set Store before serving on more than one listener at once.
func (s *Server) Serve(l net.Listener) error {
	if s.Store == nil {
		s.Store = NewStore()
	}
	st := s.Store
	return s.loop.Serve(l, serve.Spawner(s.Spawn, s.SpawnConn), func(c net.Conn) { serveConn(c, st, s.Limits) })
}

// Close closes every listener and connection and waits for the connections'
// loops to end.
func (s *Server) Close() error {
	s.loop.Close()
	return nil
}

// serveConn is one connection's loop: read a command, append its reply,
// until the peer leaves, sends QUIT, or sends what is not RESP. Replies are
// written when the reader would block, so a pipeline's replies go out in
// one write.
func serveConn(c net.Conn, st *Store, lim Limits) {
	x := &serve.Conn{Conn: c, Out: make([]byte, 0, 512)}
	r := NewReader(bufio.NewReaderSize(x, 4096), lim)
	for {
		args, err := r.ReadCommand()
		var pe *ProtocolError
		if errors.As(err, &pe) {
			x.Out = AppendError(x.Out, pe.Error())
			if x.Flush() == nil {
				serve.LingerClose(c)
			}
			return
		}
		if err != nil {
			x.Flush()
			return
		}
		if equalFold(args[0], "QUIT") {
			x.Out = AppendSimple(x.Out, "OK")
			if x.Flush() == nil {
				serve.LingerClose(c)
			}
			return
		}
		x.Out = st.Exec(x.Out, args)
		if len(x.Out) >= 32<<10 {
			if x.Flush() != nil {
				return
			}
		}
	}
}
