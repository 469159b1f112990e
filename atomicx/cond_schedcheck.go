//go:build schedcheck

package atomicx

import (
	"sync"
	"unsafe"
)

// Cond is a condition variable (see the normal build's: sync.Cond there).
// Wait is four steps, as sync.Cond.Wait: join the wait list (OpCondWait),
// L.Unlock, wait to be woken (OpCondSleep, a blocking point), L.Lock.
// Signal wakes the longest waiter, Broadcast every waiter (FIFO, as the
// runtime's notifyList); a wakeup happens before the woken Wait returns.
// There are no spurious wakeups.
type Cond struct {
	// L is held while observing or changing the condition.
	L       sync.Locker
	waiters []*waiter // guarded by chanMu
}

// NewCond returns a Cond with locker l, as sync.NewCond.
func NewCond(l sync.Locker) *Cond { return &Cond{L: l} }

// Wait unlocks c.L, waits for a Signal or Broadcast and locks c.L again
// before it returns (notifyListAdd, Unlock, notifyListWait, Lock).
func (c *Cond) Wait() {
	p := unsafe.Pointer(c)
	before(OpCondWait, p)
	w := newWaiter()
	chanMu.Lock()
	c.waiters = append(c.waiters, w)
	chanMu.Unlock()
	after(OpCondWait, p, 0)
	c.L.Unlock()
	w.block(OpCondSleep, p)
	acquire(unsafe.Pointer(w))
	after(OpCondSleep, p, 1)
	c.L.Lock()
}

// Signal wakes the thread that has waited longest, if any (notifyListNotifyOne).
func (c *Cond) Signal() { c.wake(OpCondSignal, 1) }

// Broadcast wakes every waiting thread (notifyListNotifyAll).
func (c *Cond) Broadcast() { c.wake(OpCondBroadcast, -1) }

func (c *Cond) wake(op Op, n int) {
	p := unsafe.Pointer(c)
	before(op, p)
	chanMu.Lock()
	if n < 0 || n > len(c.waiters) {
		n = len(c.waiters)
	}
	woken := c.waiters[:n]
	c.waiters = c.waiters[n:]
	for _, w := range woken {
		release(unsafe.Pointer(w))
		w.complete(0, nil, true)
	}
	chanMu.Unlock()
	after(op, p, uint64(n))
}
