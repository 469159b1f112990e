package atomicx

import (
	"sync"
	"time"
)

// note is the real one-shot event behind Note in both builds: a flag under a
// tiny mutex, and a channel of capacity one, made on first use, that carries
// the wakeup's token to the sleeper. The channel is reused from round to
// round, so parking allocates nothing after the first time. Nothing spins
// and no goroutine is started; SleepFor uses one timer. As the runtime's
// note, it has one sleeper at a time.
type note struct {
	mu    sync.Mutex
	woken bool
	ch    chan struct{} // capacity 1: the token of the current round, if not yet taken
	timer *time.Timer   // SleepFor's, made on first use; the sleeper's alone
}

// tokens returns the channel, making it on first use. Call it with mu held.
func (n *note) tokens() chan struct{} {
	if n.ch == nil {
		n.ch = make(chan struct{}, 1)
	}
	return n.ch
}

// waitChan returns the channel to wait on, or nil if the note was already woken.
func (n *note) waitChan() chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.woken {
		return nil
	}
	return n.tokens()
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
	// One timer per note, reset for each sleep (the note has one sleeper
	// at a time): a new timer per SleepFor allocated on every sysmon round
	// that dozes. Since Go 1.23 a Reset timer never delivers a stale tick.
	t := n.timer
	if t == nil {
		t = time.NewTimer(d)
		n.timer = t
	} else {
		t.Reset(d)
	}
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return n.isWoken() // a wakeup that raced with the timer still counts; Clear drops its token
	}
}

func (n *note) wakeup() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.woken {
		panic("atomicx: Note.Wakeup called twice")
	}
	n.woken = true
	// Under mu, so Clear never misses a token; it never blocks, because
	// Clear emptied the channel before this round began.
	n.tokens() <- struct{}{}
}

func (n *note) clear() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.woken = false
	select {
	case <-n.tokens(): // a token no sleeper took: the wakeup came first
	default:
	}
}
