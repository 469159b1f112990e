package tasknet

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/schedkit/schedkit/executor"
)

// sock is a socket on the executor's poller: its FD and its addresses.
type sock struct {
	fd           *executor.FD
	net          string
	laddr, raddr net.Addr
}

// opErr wraps a failed operation as package net does, so callers that
// test for net.Error, os.ErrDeadlineExceeded or net.ErrClosed find them.
func (s *sock) opErr(op string, err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		err = os.NewSyscallError(op, errno)
	}
	return &net.OpError{Op: op, Net: s.net, Source: s.laddr, Addr: s.raddr, Err: err}
}

// read reads once into b for t, parking it while the socket has nothing:
// the loop of internal/poll's FD.Read.
func (s *sock) read(t executor.Task, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	f := s.fd
	if err := f.Acquire(); err != nil {
		return 0, err
	}
	defer f.Release()
	for {
		if err := f.PrepareRead(); err != nil {
			return 0, err
		}
		n, err := syscall.Read(f.Fd(), b)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			if err := f.WaitRead(t); err != nil {
				return 0, err
			}
			continue
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// write writes all of b for t, parking it while the socket's buffer is
// full: internal/poll's FD.Write.
func (s *sock) write(t executor.Task, b []byte) (int, error) {
	f := s.fd
	if err := f.Acquire(); err != nil {
		return 0, err
	}
	defer f.Release()
	done := 0
	for done < len(b) {
		if err := f.PrepareWrite(); err != nil {
			return done, err
		}
		n, err := syscall.Write(f.Fd(), b[done:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			if err := f.WaitWrite(t); err != nil {
				return done, err
			}
			continue
		case err != nil:
			return done, err
		}
		done += n
	}
	return done, nil
}

// accept takes one connection for t, parking it while none is pending.
func (s *sock) accept(t executor.Task) (int, syscall.Sockaddr, error) {
	f := s.fd
	if err := f.Acquire(); err != nil {
		return -1, nil, err
	}
	defer f.Release()
	for {
		if err := f.PrepareRead(); err != nil {
			return -1, nil, err
		}
		nfd, sa, err := syscall.Accept4(f.Fd(), syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
		switch err {
		case nil:
			return nfd, sa, nil
		case syscall.EINTR, syscall.ECONNABORTED:
			continue // a connection reset while queued: take the next
		case syscall.EAGAIN:
			if err := f.WaitRead(t); err != nil {
				return -1, nil, err
			}
			continue
		}
		return -1, nil, err
	}
}

// shutdown half-closes the socket (shutdown(2)).
func (s *sock) shutdown(how int) error {
	f := s.fd
	if err := f.Acquire(); err != nil {
		return err
	}
	defer f.Release()
	return syscall.Shutdown(f.Fd(), how)
}

// sockaddr converts a TCP address to the kernel's form and its family.
func sockaddr(network string, a *net.TCPAddr) (syscall.Sockaddr, int, error) {
	ip := a.IP
	if network == "tcp6" || ip.To4() == nil && ip != nil && len(ip) == net.IPv6len {
		sa := &syscall.SockaddrInet6{Port: a.Port}
		copy(sa.Addr[:], ip.To16())
		return sa, syscall.AF_INET6, nil
	}
	if ip == nil {
		ip = net.IPv4zero
	}
	ip4 := ip.To4()
	if ip4 == nil {
		return nil, 0, &net.AddrError{Err: "not an IPv4 address", Addr: ip.String()}
	}
	sa := &syscall.SockaddrInet4{Port: a.Port}
	copy(sa.Addr[:], ip4)
	return sa, syscall.AF_INET, nil
}

// tcpAddr converts the kernel's address back.
func tcpAddr(sa syscall.Sockaddr) net.Addr {
	switch sa := sa.(type) {
	case *syscall.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(append([]byte(nil), sa.Addr[:]...)), Port: sa.Port}
	case *syscall.SockaddrInet6:
		return &net.TCPAddr{IP: net.IP(append([]byte(nil), sa.Addr[:]...)), Port: sa.Port}
	}
	return nil
}

// newSocket makes a non-blocking TCP socket of family fam.
func newSocket(fam int) (int, error) {
	fd, err := syscall.Socket(fam, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, syscall.IPPROTO_TCP)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	return fd, nil
}

func checkNetwork(network string) error {
	switch network {
	case "tcp", "tcp4", "tcp6":
		return nil
	}
	return net.UnknownNetworkError(network)
}
