package taskchan

import (
	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/executor"
)

// chanError is a panic value with the runtime's message for channel misuse
// (the runtime panics with a plainError, a runtime.Error). recover gives it
// back as an error whose Error is the runtime's text.
type chanError string

func (e chanError) Error() string { return string(e) }

const (
	errSendClosed  = chanError("send on closed channel")
	errCloseClosed = chanError("close of closed channel")
	errCloseNil    = chanError("close of nil channel")
)

// chanIDs numbers channels for select's lock order.
var chanIDs atomicx.Uint64

// hchan is the part of a channel that does not depend on its element type:
// the lock and the id select sorts by (the runtime sorts by address).
type hchan struct {
	mu atomicx.Mutex
	id uint64
}

// Chan is a channel of T values for tasks (and outside goroutines). Make
// one with Make; the zero Chan is not valid, and a nil *Chan blocks every
// send and receive for ever, as a nil Go channel does.
type Chan[T any] struct {
	hchan
	// Under mu:
	buf          []T // the ring; len(buf) is the capacity
	count        int // values in buf
	recvx, sendx int // the ring's head (next receive) and tail (next send)
	closed       bool
	recvq, sendq waitq[T]
	skipped      int // select waiters a dequeue skipped because their select had fired (tests)
}

// Make returns a channel that buffers capacity values (0: unbuffered). It
// panics if capacity is negative. It mirrors makechan.
func Make[T any](capacity int) *Chan[T] {
	if capacity < 0 {
		panic("taskchan: Make called with a negative capacity")
	}
	c := &Chan[T]{buf: make([]T, capacity)}
	c.id = chanIDs.Add(1)
	return c
}

// waitHook and readyHook, nil but in tests, count the waits started (sel:
// a select's) and the waiters readied, so that a test can tell an
// operation that is blocked (its wait started and not readied) from one
// still running.
var (
	waitHook  func(sel bool)
	readyHook func()
)

// gwait is the waiting party of a blocked operation: the runtime's g as
// its sudogs see it. A task waits with a Waker (Task.Park); an outside
// goroutine (task the zero Task) sleeps on note.
type gwait struct {
	task executor.Task
	k    executor.Waker
	note atomicx.Note
	// done is the select's done word (g.selectDone): the dequeuer that
	// CASes it from 0 to 1 owns the wakeup. Plain operations do not use it.
	done atomicx.Uint32
	// fired is the case index of the select's waiter that was readied,
	// written under that channel's lock before the Ready (gp.param).
	fired int
}

// newWait starts a wait for t (sel: in a select); call it with the
// channel's lock (or every select lock) held, before the waiter is
// published. It mirrors the acquireSudog and gp.waiting set-up of chansend
// and selectgo.
func newWait(t executor.Task, sel bool) *gwait {
	g := new(gwait)
	g.start(t, sel)
	return g
}

// start is newWait for a gwait allocated by the caller.
func (g *gwait) start(t executor.Task, sel bool) {
	if waitHook != nil {
		waitHook(sel)
	}
	g.task = t
	if t != (executor.Task{}) {
		g.k = t.Waker()
	}
}

// plainWait is a plain Send's or Recv's blocked operation: its sudog and
// its gwait in one allocation (a select's sudogs share one gwait).
type plainWait[T any] struct {
	s sudog[T]
	g gwait
}

// newPlainWait starts t's wait as a plain send (of v) or receive.
func newPlainWait[T any](t executor.Task, v T) *sudog[T] {
	w := &plainWait[T]{s: sudog[T]{elem: v}}
	w.s.g = &w.g
	w.g.start(t, false)
	return &w.s
}

// park blocks until ready: a task parks (gopark), a goroutine sleeps.
func (g *gwait) park() {
	if g.task != (executor.Task{}) {
		g.task.Park(g.k)
		return
	}
	g.note.Sleep()
}

// ready wakes g for by (the zero Task: not a task), after the waker has
// unlocked the channel. It mirrors goready.
func (g *gwait) ready(by executor.Task) {
	if readyHook != nil {
		readyHook()
	}
	if g.task != (executor.Task{}) {
		g.k.Ready(by)
		return
	}
	g.note.Wakeup()
}

// sudog is one blocked operation on one channel: a plain send or receive,
// or one case of a select.
type sudog[T any] struct {
	g        *gwait
	elem     T    // a send's value, or the value a receive got
	success  bool // woken by a handoff (false: by close)
	isSelect bool
	caseIdx  int
	queued   bool // on a waitq, under the channel's lock
	prev     *sudog[T]
	next     *sudog[T]
}

// waitq is a FIFO of sudogs, doubly linked so that a select can take its
// waiter out of the middle (waitq in chan.go).
type waitq[T any] struct {
	first, last *sudog[T]
	n           int
}

// enqueue appends s. It mirrors waitq.enqueue.
func (q *waitq[T]) enqueue(s *sudog[T]) {
	s.queued = true
	q.n++
	if mutant == waitqLIFO && q.first != nil {
		s.prev, s.next = nil, q.first
		q.first.prev = s
		q.first = s
		return
	}
	s.next, s.prev = nil, q.last
	if q.last == nil {
		q.first = s
	} else {
		q.last.next = s
	}
	q.last = s
}

// remove unlinks s, which is on q. It mirrors waitq.dequeueSudoG.
func (q *waitq[T]) remove(s *sudog[T]) {
	if !s.queued {
		return
	}
	if s.prev == nil {
		q.first = s.next
	} else {
		s.prev.next = s.next
	}
	if s.next == nil {
		q.last = s.prev
	} else {
		s.next.prev = s.prev
	}
	s.prev, s.next, s.queued = nil, nil, false
	q.n--
}

// dequeue takes the first waiter that can still be woken: a select's
// waiter is taken only by the dequeuer that wins its done word, and one
// whose select has fired already is dropped (the select takes its other
// waiters out itself, but may not have yet). It mirrors waitq.dequeue.
func (c *Chan[T]) dequeue(q *waitq[T]) *sudog[T] {
	for {
		s := q.first
		if s == nil {
			return nil
		}
		q.remove(s)
		if s.isSelect && mutant != selectNoDoneCAS && !s.g.done.CompareAndSwap(0, 1) {
			c.skipped++
			continue
		}
		return s
	}
}

// Send sends v, parking t (blocking the goroutine, for the zero Task)
// until a receiver or the buffer takes it. A receiver waiting already gets
// v directly and is readied into t's runnext. It panics if c is closed,
// before the send or while it waits. It mirrors chansend.
func (c *Chan[T]) Send(t executor.Task, v T) {
	if c == nil {
		blockForever(t)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		panic(errSendClosed)
	}
	if s := c.dequeue(&c.recvq); s != nil {
		c.send(s, v, t)
		return
	}
	if c.count < len(c.buf) {
		c.bufPut(v)
		c.mu.Unlock()
		return
	}
	s := newPlainWait(t, v)
	c.sendq.enqueue(s)
	c.mu.Unlock()
	s.g.park()
	if !s.success {
		panic(errSendClosed) // closechan woke us
	}
}

// send hands v to the receiver s, dequeued from c.recvq, unlocks c and
// readies s's task or goroutine, for by. It mirrors send (sendDirect and
// goready after the unlock).
func (c *Chan[T]) send(s *sudog[T], v T, by executor.Task) {
	c.handTo(s, v)
	c.mu.Unlock()
	s.g.ready(by)
}

// handTo is send's part under the lock: v into the receiver's slot.
func (c *Chan[T]) handTo(s *sudog[T], v T) {
	if mutant != sendWakesWithoutHandoff {
		s.elem = v
	}
	s.success = true
	s.g.fired = s.caseIdx
}

// Recv receives a value, parking t (blocking the goroutine, for the zero
// Task) until one comes. ok is false, with the zero value, once c is closed
// and its buffer is empty. A sender waiting already is readied into t's
// runnext. It mirrors chanrecv.
func (c *Chan[T]) Recv(t executor.Task) (v T, ok bool) {
	if c == nil {
		blockForever(t)
	}
	c.mu.Lock()
	if c.closed && c.count == 0 {
		c.mu.Unlock()
		return v, false
	}
	if mutant != recvFullSkipsSender || c.count == 0 {
		if s := c.dequeue(&c.sendq); s != nil {
			v = c.takeFrom(s)
			c.mu.Unlock()
			s.g.ready(t)
			return v, true
		}
	}
	if c.count > 0 {
		v = c.bufGet()
		c.mu.Unlock()
		return v, true
	}
	var zero T
	s := newPlainWait(t, zero)
	c.recvq.enqueue(s)
	c.mu.Unlock()
	s.g.park()
	return s.elem, s.success
}

// takeFrom receives from the sender s, dequeued from c.sendq (so the
// buffer, if any, is full): unbuffered, s's value; buffered, the buffer's
// head, and s's value goes to the tail. It mirrors recv.
func (c *Chan[T]) takeFrom(s *sudog[T]) (v T) {
	if len(c.buf) == 0 {
		v = s.elem
	} else {
		v = c.buf[c.recvx]
		c.buf[c.recvx] = s.elem
		c.recvx++
		if c.recvx == len(c.buf) {
			c.recvx = 0
		}
		c.sendx = c.recvx
	}
	var zero T
	s.elem = zero
	s.success = true
	s.g.fired = s.caseIdx
	return v
}

// bufPut appends v to the ring, which has room.
func (c *Chan[T]) bufPut(v T) {
	c.buf[c.sendx] = v
	c.sendx++
	if c.sendx == len(c.buf) {
		c.sendx = 0
	}
	c.count++
}

// bufGet takes the ring's head, which exists.
func (c *Chan[T]) bufGet() T {
	var zero T
	v := c.buf[c.recvx]
	c.buf[c.recvx] = zero
	c.recvx++
	if c.recvx == len(c.buf) {
		c.recvx = 0
	}
	c.count--
	return v
}

// TrySend sends v if a receiver waits or the buffer has room, and reports
// whether it did; it never blocks. A receiver it hands v to is readied from
// no task (the global queue; Select with Default readies into the caller's
// runnext). It panics if c is closed. It mirrors selectnbsend.
func (c *Chan[T]) TrySend(v T) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		panic(errSendClosed)
	}
	if s := c.dequeue(&c.recvq); s != nil {
		c.send(s, v, executor.Task{})
		return true
	}
	if c.count < len(c.buf) {
		c.bufPut(v)
		c.mu.Unlock()
		return true
	}
	c.mu.Unlock()
	return false
}

// TryRecv receives a value if one is ready, never blocking. ready is false
// if the receive would block; ready true with ok false means c is closed
// and drained (v is the zero value). It mirrors selectnbrecv.
func (c *Chan[T]) TryRecv() (v T, ok, ready bool) {
	if c == nil {
		return v, false, false
	}
	c.mu.Lock()
	if c.closed && c.count == 0 {
		c.mu.Unlock()
		return v, false, true
	}
	if mutant != recvFullSkipsSender || c.count == 0 {
		if s := c.dequeue(&c.sendq); s != nil {
			v = c.takeFrom(s)
			c.mu.Unlock()
			s.g.ready(executor.Task{})
			return v, true, true
		}
	}
	if c.count > 0 {
		v = c.bufGet()
		c.mu.Unlock()
		return v, true, true
	}
	c.mu.Unlock()
	return v, false, false
}

// Close closes c: buffered values can still be received, then every
// receive returns the zero value and false; every send panics. Every
// waiter is released: receivers get the zero value and false, parked
// senders panic. They are readied from no task (the global queue), after
// the unlock. It panics if c is nil or closed already. It mirrors
// closechan.
func (c *Chan[T]) Close() {
	if c == nil {
		panic(errCloseNil)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		panic(errCloseClosed)
	}
	c.closed = true
	var woken []*sudog[T]
	for {
		s := c.dequeue(&c.recvq)
		if s == nil {
			break
		}
		var zero T
		s.elem, s.success, s.g.fired = zero, false, s.caseIdx
		woken = append(woken, s)
	}
	for mutant != closeSkipsSenders {
		s := c.dequeue(&c.sendq)
		if s == nil {
			break
		}
		s.success, s.g.fired = false, s.caseIdx
		woken = append(woken, s)
	}
	c.mu.Unlock()
	for _, s := range woken {
		s.g.ready(executor.Task{})
	}
}

// Len returns the number of values buffered. It mirrors chanlen (under
// the lock here, so that the explorer orders it).
func (c *Chan[T]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	n := c.count
	c.mu.Unlock()
	return n
}

// Cap returns the buffer's capacity. It mirrors chancap.
func (c *Chan[T]) Cap() int {
	if c == nil {
		return 0
	}
	return len(c.buf)
}

// blockForever is a send or receive on a nil channel: t parks with a
// Waker no one holds (gopark(nil, nil, waitReasonChanSendNilChan)); a
// goroutine blocks.
func blockForever(t executor.Task) {
	if t != (executor.Task{}) {
		t.Park(t.Waker())
	}
	select {}
}
