package taskchan

import "fmt"

// Waiting returns the number of senders and receivers queued on c (select
// waiters included, stale or not), under its lock.
func (c *Chan[T]) Waiting() (senders, receivers int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sendq.n, c.recvq.n
}

// Skipped returns how many select waiters a dequeue on c skipped because
// their select had fired: a sender or receiver that met a select's waiter
// between its wake and its pass 3.
func (c *Chan[T]) Skipped() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.skipped
}

// SetPollRand replaces Select's shuffle (nil: back to the random one) and
// returns the previous one.
func SetPollRand(f func(n int) int) (restore func()) {
	old := pollRand
	if f != nil {
		pollRand = f
	}
	return func() { pollRand = old }
}

// SetHooks calls wait for every wait started (sel: a select's) and ready
// for every waiter readied, and returns a function that removes the hooks.
func SetHooks(wait func(sel bool), ready func()) (restore func()) {
	waitHook, readyHook = wait, ready
	return func() { waitHook, readyHook = nil, nil }
}

// CheckInvariants reports a broken invariant of c, checked under its lock
// (doc.go's Invariants): a live waiter is a plain one or a select's whose
// done word is still 0. A live sender waits only while the buffer is
// full, a live receiver only while it is empty, and a closed channel has
// no waiters at all.
func (c *Chan[T]) CheckInvariants() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	live := func(q *waitq[T]) (n int) {
		for s := q.first; s != nil; s = s.next {
			if !s.isSelect || s.g.done.Load() == 0 {
				n++
			}
		}
		return n
	}
	senders, receivers := live(&c.sendq), live(&c.recvq)
	switch {
	case c.count < 0 || c.count > len(c.buf):
		return fmt.Errorf("count %d out of 0..%d", c.count, len(c.buf))
	case senders > 0 && c.count < len(c.buf):
		return fmt.Errorf("%d sender(s) wait beside room in the buffer (%d of %d)", senders, c.count, len(c.buf))
	case receivers > 0 && c.count > 0:
		return fmt.Errorf("%d receiver(s) wait beside %d buffered value(s)", receivers, c.count)
	case c.closed && (c.sendq.n > 0 || c.recvq.n > 0):
		return fmt.Errorf("closed, with %d sender(s) and %d receiver(s) queued", c.sendq.n, c.recvq.n)
	}
	return nil
}

// LockOrder returns the channel ids of cases in the order a Select of
// them locks them.
func LockOrder(cases ...Case) []uint64 {
	idx := make([]int, len(cases))
	for i := range idx {
		idx[i] = i
	}
	var ids []uint64
	for _, i := range lockOrder(cases, idx) {
		ids = append(ids, cases[i].op.base().id)
	}
	return ids
}

// ID returns c's id, the key of Select's lock order.
func (c *Chan[T]) ID() uint64 { return c.id }
