package http1

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ErrServerClosed is what Serve returns after Close.
var ErrServerClosed = errors.New("http1: server closed")

// A Server serves HTTP/1.1 with keep-alive on the listeners given to Serve.
// Its zero value serves Routes on goroutines with DefaultLimits.
type Server struct {
	Handler Handler      // nil: Routes
	Limits  Limits       // zero fields: DefaultLimits
	Spawn   func(func()) // starts each connection's loop; nil: a goroutine

	accepted atomic.Int64
	mu       sync.Mutex
	closed   bool
	lns      map[net.Listener]struct{}
	conns    map[net.Conn]struct{}
	loops    sync.WaitGroup
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
func (s *Server) Accepted() int64 { return s.accepted.Load() }

// Serve accepts connections on l until l fails or the server is closed, and
// serves each on its own loop (Server.Spawn). It closes l before it returns.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	if s.lns == nil {
		s.lns, s.conns = map[net.Listener]struct{}{}, map[net.Conn]struct{}{}
	}
	s.lns[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.lns, l)
		s.mu.Unlock()
		l.Close()
	}()
	spawn := s.Spawn
	if spawn == nil {
		spawn = func(f func()) { go f() }
	}
	backoff := time.Duration(0)
	for {
		c, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return ErrServerClosed
			}
			if retryAccept(err) { // out of fds or a peer gone before Accept: wait, as net/http does
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		s.accepted.Add(1)
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return ErrServerClosed
		}
		s.conns[c] = struct{}{}
		s.loops.Add(1)
		s.mu.Unlock()
		spawn(func() { s.serveConn(c) })
	}
}

func retryAccept(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.ENOBUFS)
}

// Close closes every listener and connection and waits for the connections'
// loops to end.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for l := range s.lns {
		l.Close()
	}
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.loops.Wait()
	return nil
}

// connIO is a connection's reader for bufio with the responses not yet
// written: it writes them before it reads, that is before bufio would block,
// so pipelined requests get their responses in one write and a client that
// waits for a response before it sends more is never kept waiting.
type connIO struct {
	c   net.Conn
	out []byte
}

func (x *connIO) Read(b []byte) (int, error) {
	if err := x.flush(); err != nil {
		return 0, err
	}
	return x.c.Read(b)
}

func (x *connIO) flush() error {
	if len(x.out) == 0 {
		return nil
	}
	_, err := x.c.Write(x.out)
	x.out = x.out[:0]
	if cap(x.out) > 64<<10 { // an echo of a large body: keep no large buffer on an idle connection
		x.out = nil
	}
	return err
}

// serveConn is one connection's loop: read a request, answer it, until the
// peer leaves, a request asks to close, or a request is refused.
func (s *Server) serveConn(c net.Conn) {
	defer s.loops.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	h := s.Handler
	if h == nil {
		h = Routes
	}
	x := &connIO{c: c, out: make([]byte, 0, 512)}
	p := parser{br: newReader(x), lim: s.Limits.orDefault()}
	var req Request
	for {
		err := p.readHead(&req)
		if err == nil && req.Expect100 && req.Minor >= 1 && p.br.Buffered() == 0 &&
			(req.Chunked || req.contentLength > 0 && req.contentLength <= p.lim.MaxBody) {
			x.out = append(x.out, "HTTP/1.1 100 Continue\r\n\r\n"...) // flushed by the read below
		}
		if err == nil {
			err = p.readBody(&req)
		}
		var pe *ParseError
		if errors.As(err, &pe) {
			resp := Response{Status: pe.Status, Header: textPlain, Body: []byte(pe.Reason + "\n")}
			x.out = AppendResponse(x.out, &resp, true, false, false)
			if x.flush() == nil {
				lingerClose(c)
			}
			return
		}
		if err != nil { // the peer left, or the connection failed
			x.flush()
			return
		}
		resp := h(&req)
		x.out = AppendResponse(x.out, &resp, req.Close, req.Minor == 0 && !req.Close, req.Method == "HEAD")
		if cap(req.Body) > 64<<10 {
			req.Body = nil
		}
		if req.Close {
			x.flush()
			return
		}
		if len(x.out) >= 32<<10 {
			if x.flush() != nil {
				return
			}
		}
	}
}

// lingerClose closes the write side and reads what the peer still sends for
// a while (at most 1 MiB, 1 s) so that a refused request's unread body does not
// make the kernel reset the connection before the client reads the response.
func lingerClose(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
		if c.SetReadDeadline(time.Now().Add(time.Second)) == nil {
			io.CopyN(io.Discard, c, 1<<20)
		}
	}
}
