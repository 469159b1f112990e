// Package taskchan is a typed channel for the tasks of an executor.Executor,
// with Go's channel semantics, whose blocking operations park the task
// (executor's Task.Waker and Task.Park, the runtime's gopark) instead of
// holding its P or an M, and whose wakeups ready the partner into the
// waker's runnext (Waker.Ready, the runtime's goready): a producer and its
// consumer run back to back on one P, as two goroutines over a Go channel do.
//
// # Use
//
//	c := taskchan.Make[int](0) // unbuffered; Make[T](n) buffers n values
//	g.Go(func(t executor.Task) error {
//		for i := range 10 {
//			c.Send(t, i) // parks t until a receiver takes i
//		}
//		c.Close()
//		return nil
//	})
//	g.Go(func(t executor.Task) error {
//		for {
//			v, ok := c.Recv(t) // parks t until a value or the close
//			if !ok {
//				return nil
//			}
//			use(v)
//		}
//	})
//
// Every operation takes the Task that runs it. The zero Task stands for a
// goroutine that is not a task of an executor: its blocking operations
// block that goroutine (on an atomicx.Note), and the tasks it wakes go to
// the executor's global queue. TrySend, TryRecv and Close wake from no
// task (the global queue); Select with a Default case is the non-blocking
// form that readies into the caller's runnext.
//
//	var v int
//	switch i, ok := taskchan.Select(t, a.RecvCase(&v), b.SendCase(7), taskchan.Default()); i {
//	case 0: // received v from a (ok false: a is closed)
//	case 1: // sent 7 on b
//	case 2: // neither was ready
//	}
//
// # Semantics (Go's)
//
//   - A send on a closed channel panics with the runtime's message ("send on
//     closed channel"), including a sender parked when the close comes; a
//     close of a closed or nil channel panics ("close of closed channel",
//     "close of nil channel").
//   - A receive from a closed channel returns the buffered values first,
//     then the zero value and ok false. TryRecv's third result (ready)
//     tells "would block" (false) from a closed channel (true, ok false).
//   - Send and receive on a nil *Chan block for ever (a task parks and is
//     never readied); a select case on a nil *Chan is never chosen.
//   - Waiters are FIFO: the sender or receiver that parked first is served
//     first; a value goes from a parked sender straight to a receiver (and
//     a parked sender's value joins the buffer's tail as a receiver takes
//     the head), so values come out in the order they were sent.
//   - Select chooses uniformly among the ready cases (a random poll order);
//     with none ready it runs Default, if given, or parks on every case.
//
// # Invariants
//
// Under the channel's lock (an atomicx.Mutex, so the explorer interleaves
// it): the buffer holds count values and, while it holds any, no receiver
// waits; while it has room, no sender waits (a non-select one; a select's
// waiter that has fired may linger until its select dequeues it); a closed
// channel has no waiters. A waiter is readied exactly once: a plain one by
// the operation that dequeues it, a select's by the one that wins its done
// word's CAS (0 -> 1), every other dequeuer skipping it. A select that
// wakes locks its channels again, resets its done word (as selectgo does)
// and dequeues its waiters from every other case's channel before it
// returns, so no waiter of it outlives it. A select locks its channels in
// one global order (by id; a channel in two cases once), so two selects
// never wait for each other's locks.
//
// # The runtime functions each piece mirrors (runtime/chan.go, select.go)
//
//	Make                    makechan
//	Send                    chansend (block: acquireSudog, sendq.enqueue, gopark)
//	Recv                    chanrecv (block: recvq.enqueue, gopark)
//	handoff to a receiver   send (sendDirect, goready)
//	take from a sender      recv (recvDirect, or the buffer's head and the sender's value to the tail)
//	TrySend, TryRecv        selectnbsend, selectnbrecv
//	Close                   closechan (every waiter released, readied after the unlock)
//	Len, Cap                chanlen, chancap
//	Select                  selectgo: poll order (cheaprandn shuffle), lock order
//	                        (sellock, by a per-channel id where the runtime sorts by
//	                        address), pass 1 poll, pass 2 enqueue on every case,
//	                        gopark (selparkcommit), pass 3 dequeue from the others
//	select's done word      g.selectDone, CAS'd by waitq.dequeue
//	waiter queues           waitq.enqueue, waitq.dequeue, waitq.dequeueSudoG
//
// # Checks
//
// Unit tests translated from runtime/chan_test.go (TestChan, TestSelfSelect,
// TestSelectStress, TestNonblockRecvRace, TestMultiConsumer) and misuse
// panics compared with a Go channel's; a rapid state machine against a
// real Go channel (operations from tasks and from outside goroutines, both
// sides let settle by what blocked, never by the clock); an exactly-once
// race stress; linearizability (linearize_test.go: histories of outside
// goroutines and tasks checked by porcupine against a sequential channel,
// an unbuffered send and the receive of its value merged into one handoff);
// explorer scenarios under -tags schedcheck (close against
// parked receivers and senders, a select against two senders, a send
// against a select's wake and dequeue, FIFO waiters, a receive from a full
// buffer, two selects in opposite case orders), with outside goroutines as
// the threads, and in real tasks on an explored executor
// (TestExploreInTasks; Select's shuffle seeded at every build there, so an
// execution repeats on its schedule: TestExploreInTasksRepeats); fixed
// scenarios; real-runtime checks at GOMAXPROCS 1 and 2
// and under outside load (runtime/proc_test.go's TestPingPongHog with a
// task channel between each pair, a parked task's P going on with queued
// work) judged beside internal/realtime's health ticker; and seeded
// mutants (mutation.go, build tag schedmutant, named as
// proofs/tla/TaskChan.tla's) in a kill matrix (killmatrix_test.go).
package taskchan
