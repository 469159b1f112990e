//go:build !schedcheck

package atomicx

import (
	"reflect"
	"sync"
)

// Chan is a channel of T for scenarios: a Go channel in a normal build,
// and under the explorer a model of the runtime's hchan (chan.go: a
// buffer, a queue of waiting receivers and one of waiting senders) whose
// operations are scheduling points and whose blocking is modelled as
// Mutex's is (a blocked thread is not scheduled; all blocked is a
// deadlock). Make one with NewChan.
type Chan[T any] struct {
	ch     chan T
	mu     sync.Mutex // guards closed: Close and closeOnce only
	closed bool
}

// NewChan returns a channel with a buffer of size elements (0: unbuffered),
// as make(chan T, size).
func NewChan[T any](size int) *Chan[T] { return &Chan[T]{ch: make(chan T, size)} }

// Send sends v, waiting for a receiver or for room (c <- v). It mirrors
// chansend; a send on a closed channel panics.
func (c *Chan[T]) Send(v T) { c.ch <- v }

// Recv receives a value, waiting for one (v, ok := <-c): ok is false when
// the channel is closed and drained. It mirrors chanrecv.
func (c *Chan[T]) Recv() (v T, ok bool) {
	v, ok = <-c.ch
	return v, ok
}

// TrySend sends v if a receiver waits or there is room, and reports
// whether it did (a select with a default).
func (c *Chan[T]) TrySend(v T) bool {
	select {
	case c.ch <- v:
		return true
	default:
		return false
	}
}

// TryRecv receives if it can without waiting: ready is false when it
// cannot; otherwise v and ok are Recv's.
func (c *Chan[T]) TryRecv() (v T, ok, ready bool) {
	select {
	case v, ok = <-c.ch:
		return v, ok, true
	default:
		return v, false, false
	}
}

// Close closes the channel (close(c)): waiting receivers get the zero
// value and false, waiting senders panic. Closing twice panics.
func (c *Chan[T]) Close() {
	if !c.closeOnce() {
		panic("atomicx: close of closed channel")
	}
}

// closeOnce closes c unless it is closed, and reports whether it did.
func (c *Chan[T]) closeOnce() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.closed = true
	close(c.ch)
	return true
}

// Len returns the number of buffered elements, as len(c).
func (c *Chan[T]) Len() int { return len(c.ch) }

// Case is one case of a Select: made by a Chan's SendCase or RecvCase, or
// a Cancel's DoneCase.
type Case struct{ c selCase }

type selCase interface {
	sc() reflect.SelectCase
	got(v reflect.Value, ok bool)
}

type sendCase[T any] struct {
	c *Chan[T]
	v T
}

func (s sendCase[T]) sc() reflect.SelectCase {
	return reflect.SelectCase{Dir: reflect.SelectSend, Chan: reflect.ValueOf(s.c.ch), Send: reflect.ValueOf(&s.v).Elem()}
}
func (sendCase[T]) got(reflect.Value, bool) {}

type recvCase[T any] struct {
	c  *Chan[T]
	v  *T
	ok *bool
}

func (r recvCase[T]) sc() reflect.SelectCase {
	return reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(r.c.ch)}
}

func (r recvCase[T]) got(v reflect.Value, ok bool) {
	if r.v != nil {
		if ok {
			*r.v = v.Interface().(T)
		} else {
			var zero T
			*r.v = zero
		}
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
// selectgo; under the explorer the first ready case in the order given
// is taken (the runtime picks one at random), so that the schedule alone
// decides the execution.
func Select(cases ...Case) int {
	i, _ := doSelect(cases, false)
	return i
}

// TrySelect is Select with a default: it returns -1 at once if no case
// can proceed.
func TrySelect(cases ...Case) int {
	i, _ := doSelect(cases, true)
	return i
}

func doSelect(cases []Case, try bool) (int, bool) {
	scs := make([]reflect.SelectCase, len(cases), len(cases)+1)
	for i, c := range cases {
		scs[i] = c.c.sc()
	}
	if try {
		scs = append(scs, reflect.SelectCase{Dir: reflect.SelectDefault})
	}
	i, v, ok := reflect.Select(scs)
	if i == len(cases) {
		return -1, false
	}
	cases[i].c.got(v, ok)
	return i, ok
}
