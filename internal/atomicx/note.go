package atomicx

import (
	"sync"
	"time"
)

// note is the real one-shot event behind Note in both builds: a flag under a
// tiny mutex, and a channel made by the first sleeper that has to wait and
// closed by the wakeup. Nothing spins and no goroutine is started; SleepFor
// uses one timer.
type note struct {
	mu    sync.Mutex
	woken bool
	ch    chan struct{} // nil until a sleeper must wait; closed and dropped by wakeup
}

// waitChan returns the channel to wait on, or nil if the note was already woken.
func (n *note) waitChan() chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.woken {
		return nil
	}
	if n.ch == nil {
		n.ch = make(chan struct{})
	}
	return n.ch
}

func (n *note) isWoken() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.woken
}

func (n *note) sleep() {
	if ch := n.waitChan(); ch != nil {
		<-ch
	}
}

func (n *note) sleepFor(d time.Duration) bool {
	if d <= 0 {
		return n.isWoken()
	}
	ch := n.waitChan()
	if ch == nil {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return n.isWoken() // a wakeup that raced with the timer still counts
	}
}

func (n *note) wakeup() {
	n.mu.Lock()
	if n.woken {
		n.mu.Unlock()
		panic("atomicx: Note.Wakeup called twice")
	}
	n.woken = true
	if n.ch != nil {
		close(n.ch) // sleepers hold their copy; the next Clear-Sleep makes a new one
		n.ch = nil
	}
	n.mu.Unlock()
}

func (n *note) clear() {
	n.mu.Lock()
	n.woken = false
	n.mu.Unlock()
}
