package taskchan

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
