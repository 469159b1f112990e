//go:build schedcheck

package atomicx

import (
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// chanMu guards every Chan, Select and Cond of a schedcheck build. Under
// the explorer one thread runs at a time and it is never contended; it is
// there for goroutines the explorer does not control, which block for real
// (a schedcheck build without the explorer behaves as a normal one).
var chanMu sync.Mutex

// msg is one value in flight, boxed: its address is the key the sender's
// clock is released to and the receiver acquires (a send happens before
// the receive that gets it).
type msg struct{ v any }

// waiter is a blocked Send, Recv or Select (the runtime's sudog's g): a
// partner completes it once, with the case it took.
type waiter struct {
	done atomic.Bool   // read by the explorer's ready check
	idx  int           // the case completed
	m    *msg          // what a receive got
	ok   bool          // a receive: a value, not closed; a send: not closed
	wake chan struct{} // capacity 1: a real blocked goroutine waits on it
	regs []reg         // the queues it waits in
}

type reg struct {
	h  *hchan
	sg *sudog
}

// sudog is a waiter's place in one channel's queue (the runtime's sudog).
type sudog struct {
	w   *waiter
	idx int  // the case of w's select
	m   *msg // a sender's value
}

func newWaiter() *waiter { return &waiter{wake: make(chan struct{}, 1)} }

func (w *waiter) isDone() bool { return w.done.Load() }

// complete ends w's wait with case idx (call with chanMu held): it leaves
// every queue it waits in, as selectgo's dequeueSudoG does.
func (w *waiter) complete(idx int, m *msg, ok bool) {
	for _, r := range w.regs {
		r.h.dequeue(r.sg)
	}
	w.idx, w.m, w.ok = idx, m, ok
	w.done.Store(true)
	w.wake <- struct{}{}
}

// block waits for w to be completed: at a blocking point of the explorer,
// or for real.
func (w *waiter) block(op Op, p unsafe.Pointer) {
	if _, ok := wait(op, p, w.isDone, -1); ok && w.isDone() {
		return
	}
	<-w.wake
}

// hchan is a channel without its element type (the runtime's hchan).
type hchan struct {
	size         int
	buf          []*msg
	closed       bool
	recvq, sendq []*sudog
	keep         []*msg // every message sent: their addresses stay unique keys
	// recvSync: every receive releases to it and every send completion
	// acquires it (a receive happens before the completion of the send
	// it makes room for, the memory model's rule for buffered and
	// unbuffered channels, joined over all receives: coarser, never
	// missing an edge); closeSync: Close releases, a receive that finds
	// the channel closed acquires.
	recvSync, closeSync byte
}

func (h *hchan) newMsg(v any) *msg {
	m := &msg{v}
	h.keep = append(h.keep, m)
	release(unsafe.Pointer(m))
	return m
}

func (h *hchan) enqueue(q *[]*sudog, w *waiter, idx int, m *msg) {
	sg := &sudog{w, idx, m}
	*q = append(*q, sg)
	w.regs = append(w.regs, reg{h, sg})
}

func (h *hchan) dequeue(sg *sudog) {
	h.recvq = slices.DeleteFunc(h.recvq, func(s *sudog) bool { return s == sg })
	h.sendq = slices.DeleteFunc(h.sendq, func(s *sudog) bool { return s == sg })
}

func pop(q *[]*sudog) *sudog {
	if len(*q) == 0 {
		return nil
	}
	sg := (*q)[0]
	*q = (*q)[1:]
	return sg
}

// sendNow sends m if a receiver waits or there is room (chansend's fast
// paths), reporting whether it did; it changes nothing otherwise.
func (h *hchan) sendNow(m *msg) (done, closed bool) {
	if h.closed {
		return false, true
	}
	if sg := pop(&h.recvq); sg != nil {
		sg.w.complete(sg.idx, m, true)
		return true, false
	}
	if len(h.buf) < h.size {
		h.buf = append(h.buf, m)
		return true, false
	}
	return false, false
}

// recvNow receives if a sender waits, the buffer holds a value or the
// channel is closed (chanrecv's fast paths and recv), reporting whether it
// did; it changes nothing otherwise. A waiting sender's value goes to the
// buffer's tail when the buffer is full, as the runtime's recv does.
func (h *hchan) recvNow() (m *msg, ok, done bool) {
	if sg := pop(&h.sendq); sg != nil {
		m = sg.m
		if h.size > 0 {
			m = h.buf[0]
			h.buf = append(h.buf[1:], sg.m)
		}
		sg.w.complete(sg.idx, nil, true)
		return m, true, true
	}
	if len(h.buf) > 0 {
		m = h.buf[0]
		h.buf = h.buf[1:]
		return m, true, true
	}
	if h.closed {
		return nil, false, true
	}
	return nil, false, false
}

// close mirrors closechan: every waiting receiver gets false, every
// waiting sender panics.
func (h *hchan) close() (already bool) {
	if h.closed {
		return true
	}
	h.closed = true
	for _, sg := range slices.Clone(h.recvq) {
		sg.w.complete(sg.idx, nil, false)
	}
	for _, sg := range slices.Clone(h.sendq) {
		sg.w.complete(sg.idx, nil, false)
	}
	return false
}

// got is what a receive returns from m: the value, or T's zero value when
// the channel was closed. It acquires the message's or the close's clock.
func got[T any](h *hchan, m *msg, ok bool) (v T) {
	if !ok {
		acquire(unsafe.Pointer(&h.closeSync))
		return v
	}
	acquire(unsafe.Pointer(m))
	if m.v != nil {
		v = m.v.(T)
	}
	return v
}

// Chan is a channel of T for scenarios (see the normal build's). Under
// the explorer Send, Recv, TrySend, TryRecv and Close are scheduling
// points; a Send or Recv that must wait takes a second step when a
// partner completes it, and until then its thread is not scheduled.
type Chan[T any] struct{ h hchan }

// NewChan returns a channel with a buffer of size elements (0: unbuffered),
// as make(chan T, size).
func NewChan[T any](size int) *Chan[T] {
	if size < 0 {
		panic("atomicx: NewChan with a negative size")
	}
	return &Chan[T]{h: hchan{size: size}}
}

func panicClosed() { panic("atomicx: send on closed channel") }

// Send sends v, waiting for a receiver or for room (c <- v). It mirrors
// chansend; a send on a closed channel panics.
func (c *Chan[T]) Send(v T) {
	p := unsafe.Pointer(c)
	before(OpSend, p)
	m := c.h.newMsg(v)
	chanMu.Lock()
	done, closed := c.h.sendNow(m)
	var w *waiter
	if !done && !closed {
		w = newWaiter()
		c.h.enqueue(&c.h.sendq, w, 0, m)
	}
	chanMu.Unlock()
	if closed {
		after(OpSend, p, bits(v))
		panicClosed()
	}
	if done {
		acquire(unsafe.Pointer(&c.h.recvSync))
		after(OpSend, p, bits(v))
		return
	}
	after(OpSendBlocked, p, bits(v))
	w.block(OpSendWait, p)
	after(OpSendWait, p, bits(v))
	if !w.ok {
		panicClosed()
	}
	acquire(unsafe.Pointer(&c.h.recvSync))
}

// Recv receives a value, waiting for one (v, ok := <-c): ok is false when
// the channel is closed and drained. It mirrors chanrecv.
func (c *Chan[T]) Recv() (v T, ok bool) {
	p := unsafe.Pointer(c)
	before(OpRecv, p)
	chanMu.Lock()
	m, ok, done := c.h.recvNow()
	var w *waiter
	if !done {
		w = newWaiter()
		c.h.enqueue(&c.h.recvq, w, 0, nil)
	}
	chanMu.Unlock()
	release(unsafe.Pointer(&c.h.recvSync))
	if !done {
		after(OpRecvBlocked, p, 0)
		w.block(OpRecvWait, p)
		m, ok = w.m, w.ok
	}
	v = got[T](&c.h, m, ok)
	op := OpRecv
	if !done {
		op = OpRecvWait
	}
	if !ok {
		op = OpRecvClosed
	}
	after(op, p, bits(v))
	return v, ok
}

// TrySend sends v if a receiver waits or there is room, and reports
// whether it did (a select with a default).
func (c *Chan[T]) TrySend(v T) bool {
	p := unsafe.Pointer(c)
	before(OpTrySend, p)
	m := c.h.newMsg(v)
	chanMu.Lock()
	done, closed := c.h.sendNow(m)
	chanMu.Unlock()
	switch {
	case closed:
		after(OpTrySend, p, bits(v))
		panicClosed()
	case done:
		acquire(unsafe.Pointer(&c.h.recvSync))
		after(OpTrySend, p, bits(v))
	default:
		after(OpTrySendFull, p, bits(v))
	}
	return done
}

// TryRecv receives if it can without waiting: ready is false when it
// cannot; otherwise v and ok are Recv's.
func (c *Chan[T]) TryRecv() (v T, ok, ready bool) {
	p := unsafe.Pointer(c)
	before(OpTryRecv, p)
	chanMu.Lock()
	m, ok, done := c.h.recvNow()
	chanMu.Unlock()
	if !done {
		after(OpTryRecvEmpty, p, 0)
		return v, false, false
	}
	release(unsafe.Pointer(&c.h.recvSync))
	v = got[T](&c.h, m, ok)
	op := OpTryRecv
	if !ok {
		op = OpRecvClosed
	}
	after(op, p, bits(v))
	return v, ok, true
}

// Close closes the channel (close(c)): waiting receivers get the zero
// value and false, waiting senders panic. Closing twice panics.
func (c *Chan[T]) Close() {
	if !c.close(OpClose) {
		panic("atomicx: close of closed channel")
	}
}

// closeOnce closes c unless it is closed (Cancel's step), and reports
// whether it did.
func (c *Chan[T]) closeOnce() bool { return c.close(OpCancel) }

// close closes c as a step of op, and reports false if it was closed.
func (c *Chan[T]) close(op Op) bool {
	p := unsafe.Pointer(c)
	before(op, p)
	release(unsafe.Pointer(&c.h.closeSync))
	chanMu.Lock()
	already := c.h.close()
	chanMu.Unlock()
	after(op, p, b2u(!already))
	return !already
}

// Len returns the number of buffered elements, as len(c). It is not a
// scheduling point: read it where nothing else runs (Check).
func (c *Chan[T]) Len() int {
	chanMu.Lock()
	defer chanMu.Unlock()
	return len(c.h.buf)
}

// Case is one case of a Select: made by a Chan's SendCase or RecvCase, or
// a Cancel's DoneCase.
type Case struct{ c selCase }

type selCase interface {
	core() *hchan
	send() (v any, ok bool) // a send case's value
	got(m *msg, ok bool)    // a receive case's result
}

type sendCase[T any] struct {
	c *Chan[T]
	v T
}

func (s sendCase[T]) core() *hchan      { return &s.c.h }
func (s sendCase[T]) send() (any, bool) { return s.v, true }
func (s sendCase[T]) got(*msg, bool)    {}
func (r recvCase[T]) core() *hchan      { return &r.c.h }
func (r recvCase[T]) send() (any, bool) { return nil, false }

type recvCase[T any] struct {
	c  *Chan[T]
	v  *T
	ok *bool
}

func (r recvCase[T]) got(m *msg, ok bool) {
	v := got[T](&r.c.h, m, ok)
	if r.v != nil {
		*r.v = v
	}
	if r.ok != nil {
		*r.ok = ok
	}
}

// SendCase is the case "c <- v" of a Select.
func (c *Chan[T]) SendCase(v T) Case { return Case{sendCase[T]{c, v}} }

// RecvCase is the case "*v, *ok = <-c" of a Select; v and ok may be nil.
func (c *Chan[T]) RecvCase(v *T, ok *bool) Case { return Case{recvCase[T]{c, v, ok}} }

// Select waits until one of the cases can proceed, performs it and returns
// its index, as a select statement without a default. It mirrors
// selectgo; under the explorer the first ready case in the order given is
// taken (the runtime picks one at random), so that the schedule alone
// decides the execution: list the cases in another order to explore
// another preference. It is a scheduling point that depends on every
// other operation; a Select that must wait takes a second step when a
// partner completes one of its cases.
func Select(cases ...Case) int { return doSelect(cases, false) }

// TrySelect is Select with a default: it returns -1 at once if no case
// can proceed.
func TrySelect(cases ...Case) int { return doSelect(cases, true) }

// selectKey names a Select with no cases in traces.
var selectKey byte

func doSelect(cases []Case, try bool) int {
	p := unsafe.Pointer(&selectKey)
	if len(cases) > 0 {
		p = unsafe.Pointer(cases[0].c.core())
	}
	op := OpSelect
	if try {
		op = OpTrySelect
	}
	before(op, p)
	msgs := make([]*msg, len(cases))
	for i, cs := range cases {
		if v, ok := cs.c.send(); ok {
			msgs[i] = cs.c.core().newMsg(v)
		}
	}
	chanMu.Lock()
	chosen, m, ok := -1, (*msg)(nil), false
	for i, cs := range cases {
		h := cs.c.core()
		if msgs[i] != nil {
			done, closed := h.sendNow(msgs[i])
			if closed {
				chanMu.Unlock()
				after(op, p, uint64(i))
				panicClosed()
			}
			if done {
				chosen = i
				break
			}
		} else {
			var done bool
			if m, ok, done = h.recvNow(); done {
				chosen = i
				break
			}
		}
	}
	var w *waiter
	if chosen < 0 && !try {
		w = newWaiter()
		for i, cs := range cases {
			h := cs.c.core()
			if msgs[i] != nil {
				h.enqueue(&h.sendq, w, i, msgs[i])
			} else {
				h.enqueue(&h.recvq, w, i, nil)
			}
		}
	}
	chanMu.Unlock()
	if chosen < 0 && try {
		after(op, p, ^uint64(0))
		return -1
	}
	if w != nil {
		for i, cs := range cases {
			if msgs[i] == nil {
				release(unsafe.Pointer(&cs.c.core().recvSync))
			}
		}
		after(OpSelectBlocked, p, 0)
		w.block(OpSelectWait, p)
		chosen, m, ok = w.idx, w.m, w.ok
		op = OpSelectWait
	}
	h := cases[chosen].c.core()
	if msgs[chosen] != nil {
		after(op, p, uint64(chosen))
		if !ok && w != nil {
			panicClosed()
		}
		acquire(unsafe.Pointer(&h.recvSync))
		return chosen
	}
	release(unsafe.Pointer(&h.recvSync))
	cases[chosen].c.got(m, ok)
	after(op, p, uint64(chosen))
	return chosen
}
