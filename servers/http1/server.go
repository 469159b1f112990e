package http1

import (
	"errors"
	"net"

	"github.com/schedkit/schedkit/servers/internal/serve"
)

// ErrServerClosed is what Serve returns after Close.
var ErrServerClosed = serve.ErrClosed

// A Server serves HTTP/1.1 with keep-alive on the listeners given to Serve.
// Its zero value serves Routes on goroutines with DefaultLimits.
type Server struct {
	Handler Handler      // nil: Routes
	Limits  Limits       // zero fields: DefaultLimits
	Spawn   func(func()) // starts each connection's loop; nil: a goroutine
	// SpawnConn, when set, starts each connection's loop instead of Spawn
	// and is given the connection: on the executor, tasknet.SpawnConn(ex)
	// runs the loop as a task with the connection bound to it.
	SpawnConn func(c net.Conn, loop func(net.Conn))

	loop serve.Loop
}

// Serve serves h on l, starting each connection's loop with spawn: spawn(f)
// must run f once, concurrently with Serve (`go f()` on goroutines; on the
// executor, submitting f as a task). It returns l.Accept's error, or
// ErrServerClosed when the server was closed.
func Serve(l net.Listener, spawn func(func()), h Handler) error {
	return (&Server{Handler: h, Spawn: spawn}).Serve(l)
}

// ServeGo is Serve with a goroutine per connection.
func ServeGo(l net.Listener, h Handler) error { return Serve(l, nil, h) }

// Accepted is the number of connections the server has accepted: a client
// that keeps its connection alive makes it grow by one for many requests.
func (s *Server) Accepted() int64 { return s.loop.Accepted() }

// Serve accepts connections on l until l fails or the server is closed, and
// serves each on its own loop (Server.Spawn). It closes l before it returns.
// Out of fds, it waits and tries again (5 ms doubling to 1 s), as net/http does.
func (s *Server) Serve(l net.Listener) error {
	return s.loop.Serve(l, serve.Spawner(s.Spawn, s.SpawnConn), s.serveConn)
}

// Close closes every listener and connection and waits for the connections'
// loops to end.
func (s *Server) Close() error {
	s.loop.Close()
	return nil
}

// serveConn is one connection's loop: read a request, answer it, until the
// peer leaves, a request asks to close, or a request is refused.
func (s *Server) serveConn(c net.Conn) {
	h := s.Handler
	if h == nil {
		h = Routes
	}
	x := &serve.Conn{Conn: c, Out: make([]byte, 0, 512)}
	p := parser{br: newReader(x), lim: s.Limits.orDefault()}
	var req Request
	for {
		err := p.readHead(&req)
		if err == nil && req.Expect100 && req.Minor >= 1 && p.br.Buffered() == 0 &&
			(req.Chunked || req.contentLength > 0 && req.contentLength <= p.lim.MaxBody) {
			x.Out = append(x.Out, "HTTP/1.1 100 Continue\r\n\r\n"...) // flushed by the read below
		}
		if err == nil {
			err = p.readBody(&req)
		}
		var pe *ParseError
		if errors.As(err, &pe) {
			resp := Response{Status: pe.Status, Header: textPlain, Body: []byte(pe.Reason + "\n")}
			x.Out = AppendResponse(x.Out, &resp, true, false, false)
			if x.Flush() == nil {
				serve.LingerClose(c)
			}
			return
		}
		if err != nil { // the peer left, or the connection failed
			x.Flush()
			return
		}
		resp := h(&req)
		x.Out = AppendResponse(x.Out, &resp, req.Close, req.Minor == 0 && !req.Close, req.Method == "HEAD")
		if cap(req.Body) > 64<<10 {
			req.Body = nil
		}
		if req.Close {
			if x.Flush() == nil {
				serve.LingerClose(c)
			}
			return
		}
		if len(x.Out) >= 32<<10 {
			if x.Flush() != nil {
				return
			}
		}
	}
}
