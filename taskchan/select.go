package taskchan

import (
	"math/rand/v2"
	"slices"

	"github.com/schedkit/schedkit/executor"
)

// Case is one case of a Select: a send (SendCase), a receive (RecvCase)
// or the default (Default). The zero Case is not valid.
type Case struct {
	op   caseOp
	dflt bool
}

// caseOp is a send or receive case on a channel of some element type: what
// selectgo does per case, behind an interface so that one select spans
// channels of different types.
type caseOp interface {
	// base is the channel's lock and id; nil for a nil channel.
	base() *hchan
	// poll tries the case with the channel locked (pass 1). done says it
	// completed; wake, if not nil, is the partner to ready once every lock
	// is released; closedSend says it is a send on a closed channel.
	poll() (done bool, wake *gwait, recvOK, closedSend bool)
	// enqueue parks g on the channel as case i (pass 2).
	enqueue(g *gwait, i int)
	// dequeue takes the case's waiter out of its queue, if it is still
	// there (pass 3).
	dequeue()
	// fired finishes the case whose waiter was readied: its receive's value
	// and ok, or, for a send, whether the channel was closed.
	fired() (recvOK, closedSend bool)
}

// SendCase is a Select case that sends v on c.
func (c *Chan[T]) SendCase(v T) Case { return Case{op: &sendCase[T]{c: c, v: v}} }

// RecvCase is a Select case that receives from c into *dst (dst may be
// nil to drop the value); Select's recvOK is the receive's ok.
func (c *Chan[T]) RecvCase(dst *T) Case { return Case{op: &recvCase[T]{c: c, dst: dst}} }

// Default is the Select case chosen when no other case is ready, which
// makes the select non-blocking.
func Default() Case { return Case{dflt: true} }

// pollRand returns a random int in [0, n): the poll order's shuffle
// (cheaprandn). Tests under the explorer make it deterministic.
var pollRand = func(n int) int { return rand.IntN(n) }

// Select waits until one of the cases can proceed, runs it and returns its
// index, with recvOK the ok of a receive case (false for a send). With
// several cases ready it picks one uniformly; with none, it returns the
// Default case's index if there is one, else parks t (blocks the goroutine,
// for the zero Task) on every case until one fires. A case on a nil *Chan is
// never ready; a Select of no cases but Default returns it, one of none at
// all blocks for ever. A send case on a closed channel panics. It panics if
// more than one Default is given. It mirrors selectgo.
func Select(t executor.Task, cases ...Case) (chosen int, recvOK bool) {
	dflt := -1
	var idx []int // the cases with a channel
	for i, cs := range cases {
		switch {
		case cs.dflt:
			if dflt >= 0 {
				panic("taskchan: Select called with more than one Default case")
			}
			dflt = i
		case cs.op == nil:
			panic("taskchan: Select called with a zero Case")
		case cs.op.base() != nil:
			idx = append(idx, i)
		}
	}
	// The poll order: a random permutation (selectgo's shuffle).
	poll := make([]int, len(idx))
	for i := range idx {
		j := pollRand(i + 1)
		poll[i] = poll[j]
		poll[j] = idx[i]
	}
	lock := lockOrder(cases, idx)
	if len(idx) == 0 {
		if dflt >= 0 {
			return dflt, false
		}
		blockForever(t)
	}
	sellock(cases, lock)

	// Pass 1: the first ready case in poll order.
	for _, i := range poll {
		done, wake, ok, closedSend := cases[i].op.poll()
		if !done {
			continue
		}
		selunlock(cases, lock)
		if closedSend {
			panic(errSendClosed)
		}
		if wake != nil {
			wake.ready(t)
		}
		return i, ok
	}
	if dflt >= 0 {
		selunlock(cases, lock)
		return dflt, false
	}

	// Pass 2: a waiter on every case, in lock order, then park.
	g := newWait(t, true)
	for _, i := range lock {
		cases[i].op.enqueue(g, i)
	}
	selunlock(cases, lock)
	g.park()

	// Pass 3: take the waiters of the cases that did not fire out of their
	// queues; the fired one's was dequeued by its waker. The done word is
	// reset first, as selectgo resets g.selectDone for the g's next select
	// (this one's waiters are unreachable once dequeued, under the locks).
	sellock(cases, lock)
	g.done.Store(0)
	for _, i := range lock {
		if i != g.fired && mutant != selectLeavesStaleWaiter {
			cases[i].op.dequeue()
		}
	}
	selunlock(cases, lock)
	ok, closedSend := cases[g.fired].op.fired()
	if closedSend {
		panic(errSendClosed)
	}
	return g.fired, ok
}

// lockOrder is the order a select locks the channels of the cases idx
// in: by channel id, stable, so that a channel in two cases is locked once
// and its waiters are queued in case order (sellock's heap sort by
// address).
func lockOrder(cases []Case, idx []int) []int {
	lock := slices.Clone(idx)
	if mutant == selectLocksInCaseOrder {
		return lock
	}
	slices.SortStableFunc(lock, func(a, b int) int {
		x, y := cases[a].op.base().id, cases[b].op.base().id
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return lock
}

// sellock locks the cases' channels in lock order, each once. It mirrors
// sellock.
func sellock(cases []Case, lock []int) {
	var last *hchan
	for _, i := range lock {
		if h := cases[i].op.base(); h != last {
			h.mu.Lock()
			last = h
		}
	}
}

// selunlock unlocks them in the reverse order. It mirrors selunlock.
func selunlock(cases []Case, lock []int) {
	for k := len(lock) - 1; k >= 0; k-- {
		h := cases[lock[k]].op.base()
		if k > 0 && cases[lock[k-1]].op.base() == h {
			continue
		}
		h.mu.Unlock()
	}
}

// sendCase is a SendCase.
type sendCase[T any] struct {
	c *Chan[T]
	v T
	s *sudog[T]
}

func (sc *sendCase[T]) base() *hchan {
	if sc.c == nil {
		return nil
	}
	return &sc.c.hchan
}

func (sc *sendCase[T]) poll() (done bool, wake *gwait, recvOK, closedSend bool) {
	c := sc.c
	if c.closed {
		return true, nil, false, true
	}
	if s := c.dequeue(&c.recvq); s != nil {
		c.handTo(s, sc.v)
		return true, s.g, false, false
	}
	if c.count < len(c.buf) {
		c.bufPut(sc.v)
		return true, nil, false, false
	}
	return false, nil, false, false
}

func (sc *sendCase[T]) enqueue(g *gwait, i int) {
	sc.s = &sudog[T]{g: g, elem: sc.v, isSelect: true, caseIdx: i}
	sc.c.sendq.enqueue(sc.s)
}

func (sc *sendCase[T]) dequeue() { sc.c.sendq.remove(sc.s) }

func (sc *sendCase[T]) fired() (recvOK, closedSend bool) { return false, !sc.s.success }

// recvCase is a RecvCase.
type recvCase[T any] struct {
	c   *Chan[T]
	dst *T
	s   *sudog[T]
}

func (rc *recvCase[T]) base() *hchan {
	if rc.c == nil {
		return nil
	}
	return &rc.c.hchan
}

func (rc *recvCase[T]) poll() (done bool, wake *gwait, recvOK, closedSend bool) {
	c := rc.c
	if mutant != recvFullSkipsSender || c.count == 0 {
		if s := c.dequeue(&c.sendq); s != nil {
			rc.put(c.takeFrom(s))
			return true, s.g, true, false
		}
	}
	if c.count > 0 {
		rc.put(c.bufGet())
		return true, nil, true, false
	}
	if c.closed {
		var zero T
		rc.put(zero)
		return true, nil, false, false
	}
	return false, nil, false, false
}

func (rc *recvCase[T]) put(v T) {
	if rc.dst != nil {
		*rc.dst = v
	}
}

func (rc *recvCase[T]) enqueue(g *gwait, i int) {
	rc.s = &sudog[T]{g: g, isSelect: true, caseIdx: i}
	rc.c.recvq.enqueue(rc.s)
}

func (rc *recvCase[T]) dequeue() { rc.c.recvq.remove(rc.s) }

func (rc *recvCase[T]) fired() (recvOK, closedSend bool) {
	rc.put(rc.s.elem)
	return rc.s.success, false
}
