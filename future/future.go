package future

import (
	"context"
	"runtime/debug"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/executor"
)

// Future is the result of a func run as a task: Wait parks a task until it
// is set, WaitContext blocks an outside goroutine. Make one with Go or
// Submit; the zero Future is never set. Any number of tasks and goroutines
// may wait on one Future, each gets the one result.
type Future[T any] struct {
	c cell[T, executor.Waker]
}

// Go runs f as a task spawned by t (Task.Go: it runs next on t's P unless
// a thief takes it) and returns its Future. A panic in f, or a
// runtime.Goexit, becomes the Future's error, an *executor.PanicError. It
// panics if f is nil, or if t is not running (as Task.Go).
func Go[T any](t executor.Task, f func(executor.Task) (T, error)) *Future[T] {
	if f == nil {
		panic("future: Go called with a nil func")
	}
	fu := new(Future[T])
	t.Go(func(t executor.Task) { fu.run(t, f) })
	return fu
}

// Submit runs f as a task submitted to e from outside (Executor.Go: the
// global queue) and returns its Future, or Executor.Go's error (ErrClosed)
// and no Future. It panics if f is nil.
func Submit[T any](e *executor.Executor, f func(executor.Task) (T, error)) (*Future[T], error) {
	if f == nil {
		panic("future: Submit called with a nil func")
	}
	fu := new(Future[T])
	if err := e.Go(func(t executor.Task) { fu.run(t, f) }); err != nil {
		return nil, err
	}
	return fu, nil
}

// run is the task: f, then the result set by the finishing task t, which
// readies the waiters into its P's runnext.
func (fu *Future[T]) run(t executor.Task, f func(executor.Task) (T, error)) {
	ok := false
	defer func() {
		if !ok {
			var zero T
			fu.c.set(t, zero, panicError(recover()))
		}
	}()
	v, err := f(t)
	ok = true
	fu.c.set(t, v, err)
}

// panicError is the executor's PanicError for what a deferred recover
// returned, r == nil meaning runtime.Goexit (a nil panic is a
// *runtime.PanicNilError since Go 1.21), built as the executor's own
// (unexported) recovered builds it.
func panicError(r any) *executor.PanicError {
	if r == nil {
		return &executor.PanicError{Goexit: true, Stack: debug.Stack()}
	}
	return &executor.PanicError{Value: r, Stack: debug.Stack()}
}

// Wait returns the result, parking the task t until it is set: t's P runs
// other tasks meanwhile, and the task that sets it readies t into its own
// P's runnext. A Future already set returns at once, even for the zero
// Task. It panics if it must park and t is the zero Task (outside a task,
// use WaitContext), or t is not running (Task.Waker's panic).
func (f *Future[T]) Wait(t executor.Task) (T, error) {
	if t == (executor.Task{}) && f.c.done.Load() == 0 {
		panic("future: Future.Wait called with the zero Task (outside a task, use WaitContext)")
	}
	return f.c.get(t.Waker, t.Park)
}

// WaitContext returns the result, blocking the calling goroutine until it
// is set, or ctx's error (and the zero T) if ctx ends first. It is for
// goroutines outside the executor: called in a task, it holds the task's
// M and P while it blocks (use Wait there).
func (f *Future[T]) WaitContext(ctx context.Context) (T, error) {
	if f.c.done.Load() == 0 {
		select {
		case <-f.c.ready():
		case <-ctx.Done():
			if f.c.done.Load() == 0 {
				var zero T
				return zero, ctx.Err()
			}
		}
	}
	return f.c.val, f.c.err
}

// Done reports whether the result is set (one atomic load).
func (f *Future[T]) Done() bool { return f.c.done.Load() != 0 }

// Ready returns a channel closed once the result is set. It is made on the
// first call (a Future no one selects on costs no channel).
func (f *Future[T]) Ready() <-chan struct{} { return f.c.ready() }

// All waits for every future in turn, parking t while one it reaches is
// pending, and returns their values in order and the first non-nil error
// in that order (after all are set). No M is held while it waits. It
// panics as Wait does.
func All[T any](t executor.Task, fs ...*Future[T]) ([]T, error) {
	vs := make([]T, len(fs))
	var first error
	for i, f := range fs {
		v, err := f.Wait(t)
		vs[i] = v
		if err != nil && first == nil {
			first = err
		}
	}
	return vs, first
}

// waker is what a cell's waiter is readied with: executor.Waker, or a test
// waker under the explorer (explore_test.go).
type waker interface{ Ready(by executor.Task) }

// cell is a Future's state and wait queue (the hchan of a channel that is
// only ever closed), generic in the waker so that the explorer runs this
// code with waiters that are its threads.
type cell[T any, K waker] struct {
	done    atomicx.Uint32 // 1 once val and err are set: Wait's fast path
	mu      atomicx.Mutex
	closed  bool          // under mu: val and err are set
	waiters []K           // under mu: the Wakers of the parked waiters, in arrival order
	ch      chan struct{} // under mu: Ready's channel, nil until asked for
	val     T
	err     error
}

// get returns the result: at once (one atomic load) if it is set, else
// after wait.
func (c *cell[T, K]) get(mk func() K, park func(K)) (T, error) {
	if c.done.Load() == 0 {
		c.wait(mk, park)
	}
	return c.val, c.err
}

// wait parks the caller on c until the result is set, unless it is set
// already: the check and the publication of the Waker (made by mk under
// the lock, as Task.Waker requires) are one critical section, the park
// comes after the unlock (chanrecv's gopark with its unlockf).
func (c *cell[T, K]) wait(mk func() K, park func(K)) {
	c.mu.Lock()
	if c.closed && mutant != checkOutsideLock {
		c.mu.Unlock()
		return
	}
	made := false
	defer func() {
		if !made { // mk panicked (a Task not running): leave c unlocked
			c.mu.Unlock()
		}
	}()
	k := mk()
	made = true
	c.waiters = append(c.waiters, k)
	c.mu.Unlock()
	park(k)
}

// set stores the result and readies every waiter, by the finishing task
// (closechan: take the queue under the lock, goready each after it).
func (c *cell[T, K]) set(by executor.Task, v T, err error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		panic("future: a result set twice")
	}
	c.val, c.err = v, err
	c.closed = true
	c.done.Store(1) // after the result: the fast path reads it after this
	ws := c.waiters
	c.waiters = nil
	ch := c.ch
	c.mu.Unlock()
	if ch != nil && mutant != chanNotClosed {
		close(ch)
	}
	if mutant == readyFromOutside {
		by = executor.Task{}
	}
	for i, k := range ws {
		if mutant == wakeFirstOnly && i > 0 {
			break
		}
		k.Ready(by)
	}
}

// ready returns the channel closed with the result, made on first use.
func (c *cell[T, K]) ready() chan struct{} {
	c.mu.Lock()
	if c.ch == nil {
		c.ch = make(chan struct{})
		if c.closed && mutant != chanNotClosed {
			close(c.ch)
		}
	}
	ch := c.ch
	c.mu.Unlock()
	return ch
}
