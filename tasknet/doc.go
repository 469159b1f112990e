// Package tasknet is TCP for tasks: a listener whose Accept, and a
// connection whose Read and Write, park the calling task on the
// executor's network poller instead of holding its P or an M, so a server
// with thousands of idle or slow clients runs on Procs Ms. Listener and
// Conn implement net.Listener and net.Conn, so bufio and code written for
// package net run on them.
//
// # Use
//
//	ex, _ := executor.New(executor.Config{})
//	l, _ := tasknet.Listen(ex, "tcp", "127.0.0.1:8080")
//	ex.Go(func(t executor.Task) {
//		l.Serve(t, func(t executor.Task, c *tasknet.Conn) { // a task per connection
//			defer c.Close()
//			io.Copy(c, c) // Read and Write park t while the socket is not ready
//		})
//	})
//	...
//	l.Close()  // Serve returns net.ErrClosed
//	ex.Close() // wakes any task still parked on a socket (executor.ErrPollerClosed)
//
// A Conn or Listener is bound to the task that uses it with In(t); Serve
// binds each accepted connection to its task, Dial to the dialling task.
// Bound, an operation parks that task, which must be the one running it;
// unbound (the zero Task), it blocks the calling goroutine, so a Conn can
// also be handed to code outside the executor, net/http's Serve included,
// at a goroutine's cost. As with the poller underneath, one goroutine or
// task reads and one writes at a time; closing from anywhere wakes both.
//
// # How it mirrors the runtime
//
// Each operation is internal/poll's loop over a non-blocking descriptor:
// prepare (forget an old edge: pollReset), the system call, and on EAGAIN
// a wait on the descriptor's pollDesc (pollWait), which here is
// executor.FD.WaitRead or WaitWrite: the task parks (gopark with
// netpollblockcommit) and the poller readies it into the queue of the P
// that polled (findRunnable's netpoll, injectglist). Deadlines are the
// FD's timers (poll_runtime_pollSetDeadline); Close evicts the waiters
// (poll_runtime_pollUnblock) and closes the number after the last
// operation in progress (internal/poll's fdMutex, here FD.Acquire and
// Release). Errors are *net.OpError as package net's: a deadline wraps
// os.ErrDeadlineExceeded (a net.Error whose Timeout is true), a closed
// connection net.ErrClosed, a system call's failure its *os.SyscallError.
//
// Linux only: the poller is epoll.
package tasknet
