package serve

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ErrClosed is what Serve returns after Close.
var ErrClosed = errors.New("server closed")

// A Loop accepts connections and runs each on its own loop. Its zero value
// is ready; a Loop closed stays closed.
type Loop struct {
	accepted atomic.Int64
	mu       sync.Mutex
	closed   bool
	lns      map[net.Listener]struct{}
	conns    map[net.Conn]struct{}
	loops    sync.WaitGroup
}

// Accepted is the number of connections accepted so far.
func (s *Loop) Accepted() int64 { return s.accepted.Load() }

// Spawner is how a server starts each connection's loop: spawn(f) runs f
// once, concurrently with Serve (nil: a goroutine); spawnConn, when set, is
// used instead and is given the connection too, so that it can pass the
// loop a view of it bound to the task it starts (tasknet.Conn.In).
func Spawner(spawn func(func()), spawnConn func(c net.Conn, loop func(net.Conn))) func(net.Conn, func(net.Conn)) {
	if spawnConn != nil {
		return spawnConn
	}
	if spawn == nil {
		return func(c net.Conn, loop func(net.Conn)) { go loop(c) }
	}
	return func(c net.Conn, loop func(net.Conn)) { spawn(func() { loop(c) }) }
}

// Serve accepts connections on l until l fails or the loop is closed, and
// starts serveConn for each with spawn (a Spawner's); c is closed after
// serveConn returns. Serve closes l before it returns l.Accept's
// error, or ErrClosed after Close. Out of fds (EMFILE, ENFILE, ENOBUFS) or a
// connection aborted before Accept, it waits 5 ms, doubling to 1 s, and
// tries again, as net/http's Serve does.
func (s *Loop) Serve(l net.Listener, spawn func(net.Conn, func(net.Conn)), serveConn func(net.Conn)) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		l.Close()
		return ErrClosed
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
	if spawn == nil {
		spawn = Spawner(nil, nil)
	}
	backoff := time.Duration(0)
	for {
		c, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return ErrClosed
			}
			if retryAccept(err) {
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
			return ErrClosed
		}
		s.conns[c] = struct{}{}
		s.loops.Add(1)
		s.mu.Unlock()
		spawn(c, func(bound net.Conn) {
			defer s.loops.Done()
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				c.Close()
			}()
			serveConn(bound)
		})
	}
}

func retryAccept(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.ENOBUFS)
}

// Close closes every listener and connection and waits for the
// connections' loops to end.
func (s *Loop) Close() {
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
}

// A Conn is a connection's reader for bufio with the responses not yet
// written (Out): it writes them before it reads, that is just before bufio
// would block, so pipelined requests get their responses in one write and a
// client that waits for a response before it sends more is never kept
// waiting.
type Conn struct {
	net.Conn
	Out []byte
}

func (x *Conn) Read(b []byte) (int, error) {
	if err := x.Flush(); err != nil {
		return 0, err
	}
	return x.Conn.Read(b)
}

// Flush writes Out. It keeps no buffer over 64 KiB (an echo of a large
// body) for an idle connection.
func (x *Conn) Flush() error {
	if len(x.Out) == 0 {
		return nil
	}
	_, err := x.Conn.Write(x.Out)
	x.Out = x.Out[:0]
	if cap(x.Out) > 64<<10 {
		x.Out = nil
	}
	return err
}

// LingerClose closes the write side and reads what the peer still sends, for
// at most 1 s and 1 MiB, before the caller closes c: closing a socket with
// unread bytes makes the kernel send a reset, which can reach the client
// before it has read the last response (net/http's closeWriteAndWait). A
// client that reads to the end and closes ends the wait at once.
func LingerClose(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
		if c.SetReadDeadline(time.Now().Add(time.Second)) == nil {
			io.CopyN(io.Discard, c, 1<<20)
		}
	}
}
