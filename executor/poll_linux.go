//go:build !schedcheck

package executor

import (
	"time"

	"golang.org/x/sys/unix"

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
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	evfd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(epfd)
		return err
	}
	// Level-triggered: every poll sees a pending break, but only the
	// blocking one, which it was for, reads it (and calls Drained).
	ev := unix.EpollEvent{Events: unix.EPOLLIN}
	setTag(&ev, wakeTag)
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, evfd, &ev); err != nil {
		unix.Close(evfd)
		unix.Close(epfd)
		return err
	}
	s.epfd, s.evfd = epfd, evfd
	return nil
}

// setTag stores a Table tag in the event's 8 bytes of user data.
func setTag(ev *unix.EpollEvent, tag uint64) {
	ev.Fd = int32(uint32(tag))
	ev.Pad = int32(uint32(tag >> 32))
}

func tagOf(ev *unix.EpollEvent) uint64 {
	return uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
}

// add registers fd edge-triggered for both directions and peer hang-ups,
// once for its whole life, as netpollopen.
func (s *pollSys) add(fd int, tag uint64) error {
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET}
	setTag(&ev, tag)
	return unix.EpollCtl(s.epfd, unix.EPOLL_CTL_ADD, fd, &ev)
}

// del takes fd out of epoll (netpollclose). An event already queued for
// it carries a tag its Table no longer knows.
func (s *pollSys) del(fd int) {
	var ev unix.EpollEvent
	_ = unix.EpollCtl(s.epfd, unix.EPOLL_CTL_DEL, fd, &ev)
}

// wakeup is the Breaker's write (netpollBreak): the eventfd's counter
// goes up, and a blocking epoll_wait returns.
func (s *pollSys) wakeup() {
	one := [8]byte{1}
	for {
		_, err := unix.Write(s.evfd, one[:])
		if err != unix.EINTR {
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
	var evs [128]unix.EpollEvent
	n, err := unix.EpollWait(s.epfd, evs[:], ms)
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
				_, _ = unix.Read(s.evfd, buf[:])
				np.brk.Drained()
			}
			continue
		}
		var m netpoll.Mode
		if ev.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			m |= netpoll.Read
		}
		if ev.Events&(unix.EPOLLOUT|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			m |= netpoll.Write
		}
		if m != 0 {
			// An error alone, with no data or hang-up to read (netpoll's
			// "ev.Events == EPOLLERR"): a read would not say more.
			np.event(tag, m, ev.Events == unix.EPOLLERR)
		}
	}
}

func closeFD(fd int) { _ = unix.Close(fd) }

// close releases the epoll instance and the eventfd, once nothing polls.
func (s *pollSys) close() {
	_ = unix.Close(s.evfd)
	_ = unix.Close(s.epfd)
}
