//go:build schedcheck

package executor

import (
	"errors"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/netpoll"
)

// pollSys under the explorer: a fake kernel, so that scenarios explore the
// poller's own code (the Desc handshake, findRunnable's and sysmon's polls,
// the blocking poll and its break) on the explorer's threads. A scenario
// makes a descriptor ready with pollInject; a poll takes the pending
// events, as epoll_wait returns them; the eventfd is a flag. The blocking
// wait sleeps on a note that an injection or a break wakes: a level, as
// epoll_wait's, since the note keeps a wakeup given before the sleep.
type pollSys struct {
	mu      atomicx.Mutex
	tags    map[int]uint64 // registered descriptors
	pending []fakeEvent
	evfd    atomicx.Uint32 // the eventfd's counter, as a flag
	note    atomicx.Note   // the blocking wait's
	kicked  atomicx.Uint32 // 1 while note holds a wakeup not yet taken: a note is woken once
	broken  atomicx.Uint32 // blocking waits a break ended (the explorer's reach)
	// fake is set by an explorer scenario (pollFake, a test helper) before
	// it registers a descriptor: only there is a descriptor's readiness
	// injected. Elsewhere add refuses (errNoRealPoll), so that real I/O in
	// a schedcheck build fails at OpenFD instead of parking forever.
	fake bool
}

// errNoRealPoll is OpenFD's error in a schedcheck build outside an
// explorer scenario.
var errNoRealPoll = errors.New("executor: built with -tags schedcheck: the poller is the explorer's fake kernel and polls no real descriptor; run I/O without the tag")

type fakeEvent struct {
	tag uint64
	m   netpoll.Mode
}

func (s *pollSys) init() error {
	s.tags = make(map[int]uint64)
	return nil
}

func (s *pollSys) add(fd int, tag uint64) error {
	if !s.fake {
		return errNoRealPoll
	}
	s.mu.Lock()
	s.tags[fd] = tag
	s.mu.Unlock()
	return nil
}

func (s *pollSys) del(fd int) {
	s.mu.Lock()
	delete(s.tags, fd)
	s.mu.Unlock()
}

// inject is the kernel reporting fd ready for m: an event with fd's tag
// (nothing if fd is not registered, as an event after EPOLL_CTL_DEL).
func (s *pollSys) inject(fd int, m netpoll.Mode) {
	s.mu.Lock()
	tag, ok := s.tags[fd]
	if ok {
		s.pending = append(s.pending, fakeEvent{tag, m})
	}
	s.mu.Unlock()
	if ok {
		s.kick()
	}
}

// kick wakes the blocking wait, at most once until it takes the wakeup:
// epoll_wait's readiness is a level, a note's wakeup a single token.
func (s *pollSys) kick() {
	if s.kicked.CompareAndSwap(0, 1) {
		s.note.Wakeup()
	}
}

func (s *pollSys) wakeup() {
	s.evfd.Store(1)
	s.kick()
}

func (s *pollSys) wait(np *poller, d time.Duration) {
	if d != 0 && !s.ready() {
		if d < 0 {
			s.note.Sleep()
		} else {
			s.note.SleepFor(d)
		}
	}
	if d != 0 {
		// Take the wakeup, then look: a kick from now on is for events
		// still to come (one between the two finds kicked set and is seen
		// by the look below).
		s.note.Clear()
		s.kicked.Store(0)
		if s.evfd.Swap(0) != 0 {
			s.broken.Add(1)
			np.brk.Drained()
		}
	}
	s.mu.Lock()
	evs := s.pending
	s.pending = nil
	s.mu.Unlock()
	np.lastPoll.Store(np.e.now())
	for _, ev := range evs {
		np.event(ev.tag, ev.m, false)
	}
}

// ready reports whether a wait would return at once.
func (s *pollSys) ready() bool {
	s.mu.Lock()
	n := len(s.pending)
	s.mu.Unlock()
	return n != 0 || s.evfd.Load() != 0
}

func (s *pollSys) close() {}

func closeFD(int) {}
