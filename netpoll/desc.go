package netpoll

import (
	"errors"
	"net"
	"os"

	"github.com/schedkit/schedkit/atomicx"
)

// Mode is the direction of a wait: Read, Write, or both for a readiness
// event that reports both.
type Mode uint8

const (
	Read      Mode = 1
	Write     Mode = 2
	ReadWrite Mode = Read | Write
)

// The states of a direction's semaphore, the runtime's rg and wg. A waiter
// moves Nil to Wait, writes itself into the slot, then commits Wait to
// Parked by CAS; a readiness event moves any state to Ready, a deadline or
// Close moves any state to Nil; whoever moves Parked away owns the waiter
// in the slot and must ready it. The waiter consumes Ready by moving it to
// Nil. The runtime keeps the *g itself in the word; here the word says
// "parked" and the waiter is in a plain slot that only the parker writes,
// before its commit CAS, and only the one who moves Parked away reads.
const (
	pdNil    uint32 = iota // no event, no waiter
	pdReady                // an event no waiter has consumed yet
	pdWait                 // a waiter is about to park
	pdParked               // a waiter is parked; its W is in the slot
)

// The bits of a Desc's info word, the runtime's pollInfo: read by Err
// without the lock, written (publish) under it.
const (
	infoClosing uint32 = 1 << iota
	infoEventErr
	infoReadExpired
	infoWriteExpired
)

var (
	// ErrClosing is a wait's error once the descriptor is closed: the
	// net package's ErrClosed, so code written for net.Conn recognises it.
	ErrClosing = net.ErrClosed
	// ErrDeadline is a wait's error once its direction's deadline has
	// passed: os.ErrDeadlineExceeded, as a net.Conn's.
	ErrDeadline = os.ErrDeadlineExceeded
	// ErrEvent is a read wait's error once the poller reported an error
	// condition (EPOLLERR) on the descriptor.
	ErrEvent = errors.New("netpoll: the descriptor reported an error")
)

// Deadline is what SetDeadline makes of a direction's deadline.
type Deadline uint8

const (
	NoDeadline Deadline = iota // no deadline: waits wait for an event or Close
	Pending                    // in the future: the caller arms a timer that calls Expire
	Expired                    // passed: waits fail with ErrDeadline until reset
)

// A Parker is the waiting side of Wait: the executor's task (Task.Waker,
// Task.Park) or an outside goroutine (a Note).
type Parker[W any] interface {
	// Waiter starts a wait and returns the W that readies it.
	Waiter() W
	// Park sleeps until w is readied when committed is true; when it is
	// false an event, a deadline or Close came before the commit, nobody
	// will ready w, and Park must end the wait without sleeping.
	Park(w W, committed bool)
}

// A Desc is the per-descriptor state the runtime calls a pollDesc: one
// semaphore per direction, the waiter parked on it, and the closing,
// deadline and error bits. W is what readies a parked waiter. The zero
// Desc is open, with no deadline. A Desc must not be copied after first
// use.
type Desc[W any] struct {
	rg, wg atomicx.Uint32 // the semaphores: pdNil, pdReady, pdWait, pdParked
	rw, ww W              // the parked waiters, see pdParked

	// info is the published summary of the fields under mu and of the
	// event error bit (which the poller sets without mu).
	info atomicx.Uint32

	mu         atomicx.Mutex // Close and the deadlines: the runtime's pd.lock
	closing    bool
	rd, wd     Deadline
	rseq, wseq uint64 // deadline generations: a timer armed for an older one is stale

	tag atomicx.Uint64 // its Table tag, 0 while in none
}

// Tag is the tag the Table gave d, 0 if d is in none: what the kernel
// carries with d's events.
func (d *Desc[W]) Tag() uint64 { return d.tag.Load() }

func (d *Desc[W]) sem(m Mode) (*atomicx.Uint32, *W) {
	switch m {
	case Read:
		return &d.rg, &d.rw
	case Write:
		return &d.wg, &d.ww
	}
	panic("netpoll: a wait's mode must be Read or Write")
}

// Err is the error a wait in direction m would return now, nil if none:
// closing first, then an expired deadline, then (reads only) an event
// error. It mirrors netpollcheckerr.
func (d *Desc[W]) Err(m Mode) error {
	i := d.info.Load()
	switch {
	case i&infoClosing != 0:
		return ErrClosing
	case m == Read && i&infoReadExpired != 0, m == Write && i&infoWriteExpired != 0:
		return ErrDeadline
	case m == Read && i&infoEventErr != 0:
		return ErrEvent
	}
	return nil
}

// Reset forgets an unconsumed event in direction m before an I/O attempt,
// so that the wait after a failed attempt waits for a new edge, and
// returns Err(m). It mirrors poll_runtime_pollReset (pollDesc.prepare).
func (d *Desc[W]) Reset(m Mode) error {
	if err := d.Err(m); err != nil {
		return err
	}
	// Only a Ready is dropped: Reset is called by the direction's one
	// waiter, which is not parked, so the word is Nil or Ready.
	s, _ := d.sem(m)
	s.CompareAndSwap(pdReady, pdNil)
	return nil
}

// Wait parks the caller in direction m, through p, until an event, a
// deadline or Close; it returns nil for an event and the wait's error
// otherwise. One waiter per direction at a time: a second concurrent Wait
// in one direction panics, as the runtime's "double wait" throw. It mirrors
// poll_runtime_pollWait.
func (d *Desc[W]) Wait(m Mode, p Parker[W]) error {
	if err := d.Err(m); err != nil {
		return err
	}
	for !d.block(m, p) {
		if err := d.Err(m); err != nil {
			return err
		}
	}
	return nil
}

// block is netpollblock: it reports whether an event was consumed; false
// means a deadline, Close or a spurious wake, which Wait tells apart by Err.
func (d *Desc[W]) block(m Mode, p Parker[W]) bool {
	s, slot := d.sem(m)
	for {
		if s.CompareAndSwap(pdReady, pdNil) {
			return true
		}
		if s.CompareAndSwap(pdNil, pdWait) {
			break
		}
		if v := s.Load(); v != pdReady && v != pdNil {
			panic("netpoll: Desc.Wait called by two waiters at once in one direction")
		}
	}
	// Check again after Wait is published: Close and SetDeadline publish
	// their info bit before they look at the semaphore, so one of the two
	// sides sees the other.
	if mutant == parkSkipsErrRecheck || d.Err(m) == nil {
		w := p.Waiter()
		*slot = w
		if mutant == commitNoCAS {
			s.Store(pdParked)
			p.Park(w, true)
		} else {
			p.Park(w, s.CompareAndSwap(pdWait, pdParked)) // netpollblockcommit
		}
	}
	old := s.Swap(pdNil)
	if old > pdWait {
		panic("netpoll: semaphore corrupted: still parked after the wake")
	}
	return old == pdReady
}

// unblock moves direction m's semaphore on an event (ioready) or a
// deadline or Close (not ioready), and returns the parked waiter it must
// ready, if any. It mirrors netpollunblock.
func (d *Desc[W]) unblock(m Mode, ioready bool) (w W, ok bool) {
	s, slot := d.sem(m)
	for {
		old := s.Load()
		if old == pdReady {
			return w, false
		}
		if old == pdNil && !ioready {
			// Only an event leaves Ready behind: a deadline or Close
			// with nobody waiting has nothing to say to a later wait
			// but its info bit.
			return w, false
		}
		next := pdNil
		if ioready {
			next = pdReady
		}
		if mutant == eventLostOnWait && old == pdWait {
			next = pdNil
		}
		if mutant == unblockNoCAS {
			s.Store(next)
			if old == pdParked {
				return *slot, true
			}
			return w, false
		}
		if s.CompareAndSwap(old, next) {
			if old == pdParked {
				return *slot, true
			}
			return w, false
		}
	}
}

// Ready delivers a readiness event for the directions in m and calls ready
// for each waiter it woke (at most one per direction). With errEvent the
// poller saw an error condition: later read waits fail with ErrEvent. It
// mirrors netpollready (and setEventErr).
func (d *Desc[W]) Ready(m Mode, errEvent bool, ready func(W)) {
	for {
		i := d.info.Load()
		if i&infoEventErr != 0 == errEvent || d.info.CompareAndSwap(i, i^infoEventErr) {
			break
		}
	}
	d.wake(m, true, ready)
}

func (d *Desc[W]) wake(m Mode, ioready bool, ready func(W)) {
	if m&Read != 0 {
		if w, ok := d.unblock(Read, ioready); ok {
			ready(w)
		}
	}
	if m&Write != 0 {
		if w, ok := d.unblock(Write, ioready); ok {
			ready(w)
		}
	}
}

// publish stores the info word from the fields under mu. Called with mu
// held. It mirrors publishInfo.
func (d *Desc[W]) publish() {
	for {
		i := d.info.Load()
		n := i & infoEventErr
		if d.closing {
			n |= infoClosing
		}
		if d.rd == Expired {
			n |= infoReadExpired
		}
		if d.wd == Expired {
			n |= infoWriteExpired
		}
		if d.info.CompareAndSwap(i, n) {
			return
		}
	}
}

// Close marks the descriptor closing and wakes both directions' waiters,
// which return ErrClosing; every later wait returns it at once. It calls
// ready for each waiter it woke. Deadline timers armed before it are stale
// from now on. It mirrors poll_runtime_pollUnblock; closing twice panics,
// as there ("unblock on closing polldesc").
func (d *Desc[W]) Close(ready func(W)) {
	d.mu.Lock()
	if d.closing {
		d.mu.Unlock()
		panic("netpoll: Desc.Close called twice")
	}
	d.closing = true
	d.rseq++
	d.wseq++
	if mutant != closeWakesBeforePublish {
		d.publish()
	}
	r, rok := d.unblock(Read, false)
	w, wok := d.unblock(Write, false)
	if mutant == closeWakesBeforePublish {
		d.publish()
	}
	d.mu.Unlock()
	if rok {
		ready(r)
	}
	if wok {
		ready(w)
	}
}

// SetDeadline sets direction m's deadline state (m may be ReadWrite) and
// returns the generation a timer for it must carry: with Pending the
// caller arms a timer that calls Expire(m, seq) when the deadline passes;
// a timer armed for an earlier generation finds itself stale there. With
// Expired the waiters of m are woken now (ready is called for each) and
// fail with ErrDeadline. On a closing Desc it does nothing. It mirrors
// poll_runtime_pollSetDeadline, with the clock and the timer left to the
// caller.
func (d *Desc[W]) SetDeadline(m Mode, s Deadline, ready func(W)) (seq uint64) {
	d.mu.Lock()
	if d.closing {
		d.mu.Unlock()
		return 0
	}
	if m&Read != 0 {
		d.rd = s
		d.rseq++
		seq = d.rseq
	}
	if m&Write != 0 {
		d.wd = s
		d.wseq++
		seq = d.wseq
	}
	if m == ReadWrite {
		// One timer serves both directions: give them one generation.
		d.rseq = max(d.rseq, d.wseq)
		d.wseq = d.rseq
		seq = d.rseq
	}
	d.publish()
	var r, w W
	var rok, wok bool
	if s == Expired {
		if m&Read != 0 {
			r, rok = d.unblock(Read, false)
		}
		if m&Write != 0 {
			w, wok = d.unblock(Write, false)
		}
	}
	d.mu.Unlock()
	if rok {
		ready(r)
	}
	if wok {
		ready(w)
	}
	return seq
}

// Expire is a deadline timer's func: if seq is still direction m's current
// generation (m may be ReadWrite, for a timer SetDeadline armed for both),
// the deadline passes now: the waiters of m wake with ErrDeadline (ready
// is called for each) and later waits fail until the deadline is set
// again. A stale timer (the deadline was reset, or the Desc closed) does
// nothing. It reports whether the deadline expired. It mirrors
// netpolldeadlineimpl.
func (d *Desc[W]) Expire(m Mode, seq uint64, ready func(W)) bool {
	d.mu.Lock()
	if d.closing || m&Read != 0 && d.rseq != seq || m&Write != 0 && d.wseq != seq {
		if mutant != expireIgnoresSeq || d.closing {
			d.mu.Unlock()
			return false
		}
	}
	if m&Read != 0 {
		d.rd = Expired
	}
	if m&Write != 0 {
		d.wd = Expired
	}
	d.publish()
	var r, w W
	var rok, wok bool
	if m&Read != 0 {
		r, rok = d.unblock(Read, false)
	}
	if m&Write != 0 {
		w, wok = d.unblock(Write, false)
	}
	d.mu.Unlock()
	if rok {
		ready(r)
	}
	if wok {
		ready(w)
	}
	return true
}

// Waiting reports whether a waiter is parked or about to park in direction
// m: for tests and for Close's accounting.
func (d *Desc[W]) Waiting(m Mode) bool {
	s, _ := d.sem(m)
	v := s.Load()
	return v == pdWait || v == pdParked
}
