package executor

// The cap on blocking work (Config.MaxBlocking): at most that many
// Task.Blocking and Task.Syscall calls in flight at once; a call past it
// parks (Task.Waker, Task.Park: it costs a goroutine, no M) until one
// returns, first come first served, and the returning call hands its slot
// straight to the oldest waiter, readied into the returning task's runnext.
// errgroup's SetLimit is the model (a semaphore of n slots); the runtime
// bounds the threads made for blocked calls only by debug.SetMaxThreads,
// which kills the process, so the queue here is sync.Mutex's and
// semacquire's FIFO handoff (semrelease with handoff=true: the slot goes
// to the woken waiter, no barging), on the executor's park and ready.
//
// A call nested inside another capped call of the same task (a Blocking in
// a Syscall's f) takes no second slot: with MaxBlocking 1 it would wait
// for itself.

import "github.com/schedkit/schedkit/atomicx"

// blockCap is an executor's cap: made by Config.resolve when MaxBlocking
// is set (nil otherwise, and every call skips it with one nil check).
type blockCap struct {
	max      int
	mu       atomicx.Mutex
	inflight int             // under mu: slots held (a slot handed to a waiter stays counted)
	waiters  []Waker         // under mu: the parked calls, oldest first
	nested   map[*worker]int // under mu: the capped calls each holder is inside
	waiting  atomicx.Int64   // Stats.BlockingWaiting
	waits    atomicx.Uint64  // Stats.BlockingWaits
}

// enter takes a slot for w's task t, parking it until one is handed over
// if MaxBlocking calls are in flight or others wait already (FIFO).
func (c *blockCap) enter(t Task, w *worker) {
	c.mu.Lock()
	if n := c.nested[w]; n > 0 {
		c.nested[w] = n + 1
		c.mu.Unlock()
		return
	}
	if c.inflight < c.max && len(c.waiters) == 0 {
		if mutant != capReleasesEarly {
			c.inflight++
		}
		c.nested[w] = 1
		c.mu.Unlock()
		return
	}
	k := t.Waker()
	c.waiters = append(c.waiters, k)
	c.nested[w] = 1 // the slot is this call's from the handover on
	c.waiting.Add(1)
	c.waits.Add(1)
	c.mu.Unlock()
	t.Park(k)
}

// leave gives w's slot back when its outermost capped call returns: to the
// oldest waiter (readied by t, into the runnext of t's P if it holds one),
// or back to the pool.
func (c *blockCap) leave(t Task, w *worker) {
	c.mu.Lock()
	if n := c.nested[w]; n > 1 {
		c.nested[w] = n - 1
		c.mu.Unlock()
		return
	}
	delete(c.nested, w)
	if len(c.waiters) == 0 || mutant == capNoWake {
		if mutant != capReleasesEarly {
			c.inflight--
		}
		c.mu.Unlock()
		return
	}
	k := c.waiters[0]
	c.waiters[0] = Waker{}
	c.waiters = c.waiters[1:]
	c.waiting.Add(-1)
	c.mu.Unlock()
	k.Ready(t)
}

// stats fills in the cap's Stats fields.
func (c *blockCap) stats(s *Stats) {
	if c == nil {
		return
	}
	s.BlockingWaiting = int(c.waiting.Load())
	s.BlockingWaits = c.waits.Load()
}
