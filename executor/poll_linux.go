//go:build !schedcheck

package executor

import (
	"syscall"
	"time"

	"github.com/schedkit/schedkit/netpoll"
)

// pollSys is the poller's epoll instance and the eventfd that breaks a
// blocking wait (netpoll_epoll.go: netpollinit, netpollopen, netpollclose,
// netpollBreak, netpoll).
type pollSys struct {
	epfd, evfd int
}

// wakeTag is the eventfd's tag: a Table never hands out 0.
const wakeTag = 0

func (s *pollSys) init() error {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	evfd, err := eventfd()
	if err != nil {
		syscall.Close(epfd)
		return err
	}
	// Level-triggered: every poll sees a pending break, but only the
	// blocking one, which it was for, reads it (and calls Drained).
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN}
	setTag(&ev, wakeTag)
	if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, evfd, &ev); err != nil {
		syscall.Close(evfd)
		syscall.Close(epfd)
		return err
	}
	s.epfd, s.evfd = epfd, evfd
	return nil
}

// eventfd makes the non-blocking, close-on-exec eventfd that breaks a
// blocking wait (the syscall package has no wrapper for it).
func eventfd() (int, error) {
	const efdCloexec, efdNonblock = 0o2000000, 0o4000 // EFD_CLOEXEC, EFD_NONBLOCK
	fd, _, errno := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, efdCloexec|efdNonblock, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// setTag stores a Table tag in the event's 8 bytes of user data.
func setTag(ev *syscall.EpollEvent, tag uint64) {
	ev.Fd = int32(uint32(tag))
	ev.Pad = int32(uint32(tag >> 32))
}

func tagOf(ev *syscall.EpollEvent) uint64 {
	return uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
}

// add registers fd edge-triggered for both directions and peer hang-ups,
// once for its whole life, as netpollopen.
func (s *pollSys) add(fd int, tag uint64) error {
	const et = 1 << 31 // EPOLLET: syscall's constant is a negative int
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLOUT | syscall.EPOLLRDHUP | et}
	setTag(&ev, tag)
	return syscall.EpollCtl(s.epfd, syscall.EPOLL_CTL_ADD, fd, &ev)
}

// del takes fd out of epoll (netpollclose). An event already queued for
// it carries a tag its Table no longer knows.
func (s *pollSys) del(fd int) {
	var ev syscall.EpollEvent
	_ = syscall.EpollCtl(s.epfd, syscall.EPOLL_CTL_DEL, fd, &ev)
}

// wakeup is the Breaker's write (netpollBreak): the eventfd's counter
// goes up, and a blocking epoll_wait returns.
func (s *pollSys) wakeup() {
	one := [8]byte{1}
	for {
		_, err := syscall.Write(s.evfd, one[:])
		if err != syscall.EINTR {
			return // EAGAIN: the counter is full, a wakeup is pending anyway
		}
	}
}

// wait is one epoll_wait of up to d (0: none, d < 0: until an event or a
// break), readying the waiters of what it reports (netpoll). Only a
// blocking wait drains the eventfd.
func (s *pollSys) wait(np *poller, d time.Duration) {
	ms := -1
	switch {
	case d == 0:
		ms = 0
	case d > 0:
		ms = int(min((d+time.Millisecond-1)/time.Millisecond, 1<<30))
	}
	var evs [128]syscall.EpollEvent
	n, err := syscall.EpollWait(s.epfd, evs[:], ms)
	np.lastPoll.Store(np.e.now())
	if err != nil {
		return // EINTR: the caller polls again when it must
	}
	for i := range evs[:n] {
		ev := &evs[i]
		tag := tagOf(ev)
		if tag == wakeTag {
			if ms != 0 {
				var buf [8]byte
				_, _ = syscall.Read(s.evfd, buf[:])
				np.brk.Drained()
			}
			continue
		}
		var m netpoll.Mode
		if ev.Events&(syscall.EPOLLIN|syscall.EPOLLRDHUP|syscall.EPOLLHUP|syscall.EPOLLERR) != 0 {
			m |= netpoll.Read
		}
		if ev.Events&(syscall.EPOLLOUT|syscall.EPOLLHUP|syscall.EPOLLERR) != 0 {
			m |= netpoll.Write
		}
		if m != 0 {
			// An error alone, with no data or hang-up to read (netpoll's
			// "ev.Events == EPOLLERR"): a read would not say more.
			np.event(tag, m, ev.Events == syscall.EPOLLERR)
		}
	}
}

func closeFD(fd int) { _ = syscall.Close(fd) }

// close releases the epoll instance and the eventfd, once nothing polls.
func (s *pollSys) close() {
	_ = syscall.Close(s.evfd)
	_ = syscall.Close(s.epfd)
}
