package tasknet

import (
	"errors"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/schedkit/schedkit/executor"
)

// listenBacklog is listen(2)'s backlog; the kernel caps it at somaxconn.
const listenBacklog = 4096

// A Listener is a TCP listener on an executor's poller. Its Accept parks
// the task it is bound to (In) while no connection is pending; unbound, it
// blocks the calling goroutine. It implements net.Listener.
type Listener struct {
	s *sock
	t executor.Task
}

// Listen announces on the local TCP address (network "tcp", "tcp4" or
// "tcp6"; a host that is not an IP address is resolved first). A "tcp"
// address with no host listens on IPv4's 0.0.0.0.
func Listen(ex *executor.Executor, network, address string) (*Listener, error) {
	if err := checkNetwork(network); err != nil {
		return nil, err
	}
	a, err := net.ResolveTCPAddr(network, address)
	if err != nil {
		return nil, err
	}
	sa, fam, err := sockaddr(network, a)
	if err != nil {
		return nil, err
	}
	fd, err := newSocket(fam)
	if err != nil {
		return nil, err
	}
	fail := func(op string, err error) (*Listener, error) {
		syscall.Close(fd)
		return nil, &net.OpError{Op: "listen", Net: network, Addr: a, Err: os.NewSyscallError(op, err)}
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		return fail("setsockopt", err)
	}
	if err := syscall.Bind(fd, sa); err != nil {
		return fail("bind", err)
	}
	if err := syscall.Listen(fd, listenBacklog); err != nil {
		return fail("listen", err)
	}
	lsa, err := syscall.Getsockname(fd)
	if err != nil {
		return fail("getsockname", err)
	}
	f, err := ex.OpenFD(fd)
	if err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return &Listener{s: &sock{fd: f, net: network, laddr: tcpAddr(lsa)}}, nil
}

// In returns l bound to task t: its Accept parks t. Use it only while t
// runs (a Task whose func has returned panics, naming the call).
func (l *Listener) In(t executor.Task) *Listener { return &Listener{s: l.s, t: t} }

// Accept waits for the next connection and returns it, unbound: hand it
// to the task that serves it with Conn.In. It implements net.Listener.
func (l *Listener) Accept() (net.Conn, error) { return l.AcceptConn() }

// AcceptConn is Accept returning the *Conn.
func (l *Listener) AcceptConn() (*Conn, error) {
	for {
		nfd, rsa, err := l.s.accept(l.t)
		if err != nil {
			return nil, l.s.opErr("accept", err)
		}
		c, err := newConn(l.s.fd.Executor(), nfd, l.s.net, tcpAddr(rsa))
		if err != nil {
			syscall.Close(nfd)
			if errors.Is(err, executor.ErrClosed) {
				return nil, l.s.opErr("accept", err)
			}
			continue
		}
		return c, nil
	}
}

// Close stops listening: a parked Accept returns net.ErrClosed.
func (l *Listener) Close() error { return l.s.opErr("close", l.s.fd.Close()) }

// Addr is the listening address (the port the kernel chose for ":0").
func (l *Listener) Addr() net.Addr { return l.s.laddr }

// Serve accepts connections in task t until l is closed, and runs
// handle(t2, c) for each in a task of its own (t.Go: the new task runs
// next on t's P), with c bound to it. It returns the error that ended the
// accept loop (net.ErrClosed once l is closed).
func (l *Listener) Serve(t executor.Task, handle func(t executor.Task, c *Conn)) error {
	bound := l.In(t)
	for {
		c, err := bound.AcceptConn()
		if err != nil {
			return err
		}
		t.Go(func(t2 executor.Task) { handle(t2, c.In(t2)) })
	}
}

// A Conn is a TCP connection on an executor's poller. Its Read and Write
// park the task it is bound to (In) while the socket is not ready;
// unbound, they block the calling goroutine. It implements net.Conn: one
// reader and one writer at a time, as the poller has one waiter per
// direction.
type Conn struct {
	s *sock
	t executor.Task
}

func newConn(ex *executor.Executor, fd int, network string, raddr net.Addr) (*Conn, error) {
	_ = syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1) // as package net does
	f, err := ex.OpenFD(fd)
	if err != nil {
		return nil, err
	}
	var laddr net.Addr
	if lsa, err := syscall.Getsockname(fd); err == nil {
		laddr = tcpAddr(lsa)
	}
	return &Conn{s: &sock{fd: f, net: network, laddr: laddr, raddr: raddr}}, nil
}

// Dial connects to the TCP address from task t, parked while the
// connection is being made (t may be the zero Task: the calling goroutine
// blocks). The Conn is bound to t.
func Dial(ex *executor.Executor, t executor.Task, network, address string) (*Conn, error) {
	if err := checkNetwork(network); err != nil {
		return nil, err
	}
	a, err := net.ResolveTCPAddr(network, address)
	if err != nil {
		return nil, err
	}
	if a.IP == nil {
		a.IP = net.IPv4(127, 0, 0, 1)
	}
	sa, fam, err := sockaddr(network, a)
	if err != nil {
		return nil, err
	}
	fd, err := newSocket(fam)
	if err != nil {
		return nil, err
	}
	c, err := newConn(ex, fd, network, a)
	if err != nil {
		syscall.Close(fd)
		return nil, err
	}
	c = c.In(t)
	if err := c.connect(sa); err != nil {
		c.Close()
		return nil, &net.OpError{Op: "dial", Net: network, Addr: a, Err: err}
	}
	if lsa, err := syscall.Getsockname(fd); err == nil {
		c.s.laddr = tcpAddr(lsa)
	}
	return c, nil
}

// connect is a non-blocking connect(2): EINPROGRESS, then a wait for
// writability and SO_ERROR, as package net's connect.
func (c *Conn) connect(sa syscall.Sockaddr) error {
	f := c.s.fd
	if err := f.Acquire(); err != nil {
		return err
	}
	defer f.Release()
	err := syscall.Connect(f.Fd(), sa)
	for err == syscall.EINTR {
		err = syscall.Connect(f.Fd(), sa)
	}
	if err == nil {
		return nil
	}
	if err != syscall.EINPROGRESS && err != syscall.EALREADY {
		return os.NewSyscallError("connect", err)
	}
	for {
		if err := f.WaitWrite(c.t); err != nil {
			return err
		}
		v, err := syscall.GetsockoptInt(f.Fd(), syscall.SOL_SOCKET, syscall.SO_ERROR)
		if err != nil {
			return os.NewSyscallError("getsockopt", err)
		}
		switch e := syscall.Errno(v); e {
		case 0, syscall.EISCONN:
			return nil
		case syscall.EINPROGRESS, syscall.EALREADY, syscall.EINTR:
			continue
		default:
			return os.NewSyscallError("connect", e)
		}
	}
}

// In returns c bound to task t: its Read and Write park t. Use it only
// while t runs.
func (c *Conn) In(t executor.Task) *Conn { return &Conn{s: c.s, t: t} }

// Read reads up to len(b) bytes; io.EOF once the peer has closed its side.
func (c *Conn) Read(b []byte) (int, error) {
	n, err := c.s.read(c.t, b)
	return n, c.s.opErr("read", err)
}

// Write writes all of b, parking while the socket's buffer is full.
func (c *Conn) Write(b []byte) (int, error) {
	n, err := c.s.write(c.t, b)
	return n, c.s.opErr("write", err)
}

// Close closes the connection: a parked Read or Write returns
// net.ErrClosed; the descriptor is closed once none is in progress.
func (c *Conn) Close() error { return c.s.opErr("close", c.s.fd.Close()) }

// CloseWrite shuts down the writing side (the peer reads io.EOF).
func (c *Conn) CloseWrite() error { return c.s.opErr("close", c.s.shutdown(syscall.SHUT_WR)) }

// CloseRead shuts down the reading side.
func (c *Conn) CloseRead() error { return c.s.opErr("close", c.s.shutdown(syscall.SHUT_RD)) }

// LocalAddr is the connection's local address.
func (c *Conn) LocalAddr() net.Addr { return c.s.laddr }

// RemoteAddr is the peer's address.
func (c *Conn) RemoteAddr() net.Addr { return c.s.raddr }

// SetDeadline sets both deadlines; see SetReadDeadline.
func (c *Conn) SetDeadline(t time.Time) error {
	c.s.fd.SetDeadline(t)
	return nil
}

// SetReadDeadline makes reads past t (the one in progress included) fail
// with an error wrapping os.ErrDeadlineExceeded; the zero t clears it.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.s.fd.SetReadDeadline(t)
	return nil
}

// SetWriteDeadline is SetReadDeadline for writes.
func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.s.fd.SetWriteDeadline(t)
	return nil
}

// Executor is the executor whose poller l is on.
func (l *Listener) Executor() *executor.Executor { return l.s.fd.Executor() }

// SpawnConn returns a spawner for servers written for net.Conn (the
// SpawnConn field of servers/http1's and servers/resp's Server): it runs
// each connection's loop as a task of ex, with the connection, a *Conn
// from a Listener, bound to that task, so its reads and writes park the
// task. Any other net.Conn is handed to the loop as it is.
func SpawnConn(ex *executor.Executor) func(c net.Conn, loop func(net.Conn)) {
	return func(c net.Conn, loop func(net.Conn)) {
		err := ex.Go(func(t executor.Task) {
			if tc, ok := c.(*Conn); ok {
				loop(tc.In(t))
				return
			}
			loop(c)
		})
		if err != nil { // closed: the loop runs on a goroutine, and finds the connection evicted
			go loop(c)
		}
	}
}
