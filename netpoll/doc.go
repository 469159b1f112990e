// Package netpoll is the descriptor side of the Go runtime's network poller
// (runtime/netpoll.go): the per-descriptor state a waiter and the poller
// race on, with no system call in it. A task (or a goroutine) that found a
// socket not ready parks on the descriptor's semaphore for one direction;
// the poller, when the kernel reports the descriptor ready, moves the
// semaphore and readies whoever is parked; Close and deadlines wake the
// waiter with an error instead. The executor's poller (executor/poll*.go)
// runs epoll and keeps one Desc per registered descriptor; tasknet builds
// net.Listener and net.Conn on it.
//
// # Use
//
//	var tab netpoll.Table[W]            // the poller's: tags for the kernel
//	d := new(netpoll.Desc[W])           // one per descriptor
//	tag := tab.Open(d)                  // epoll_ctl(ADD, fd, {events, data: tag})
//
//	// a reader, until the read succeeds:
//	d.Reset(netpoll.Read)               // before the read(2): forget an old edge
//	n, err := read(fd)                  // EAGAIN:
//	err = d.Wait(netpoll.Read, parker)  // park until an edge, the deadline or Close
//
//	// the poller, for each event (tag, events) epoll_wait returned:
//	if d := tab.Lookup(tag); d != nil { // nil: freed since, a stale event
//		d.Ready(mode, errEvent, func(w W) { ... make w runnable ... })
//	}
//
//	seq := d.SetDeadline(netpoll.Read, netpoll.Pending, ready) // arm a timer with seq
//	d.Expire(netpoll.Read, seq, ready)                         // that timer, when it fires
//	d.Close(ready)                      // then epoll_ctl(DEL), tab.Free(d), close(2)
//
// W is what readies a parked waiter (the executor's Waker, or a note for a
// goroutine outside it); a Parker makes it and sleeps on it. Every func
// called ready here is called after the Desc's own lock is released.
//
// # The semaphore (the runtime's rg and wg)
//
// Each direction's word is Nil, Ready (an event nobody consumed), Wait (a
// waiter is about to park) or Parked (it has parked; its W is in the
// direction's slot). The invariants, each an action in
// proofs/tla/PollDesc.tla:
//
//   - No lost wakeup. A waiter moves Nil to Wait, rechecks the closing and
//     deadline bits, then commits Wait to Parked by CAS (Commit). An event
//     moves any word to Ready, a deadline or Close moves Wait or Parked to Nil
//     (Unblock), after publishing its info bit. If the event came first the
//     commit CAS fails and the waiter goes on; if the close came first the
//     recheck sees its bit. Whoever moves Parked away owns the slot's W and
//     readies it.
//   - No double resume. Only the CAS away from Parked hands out the W, and
//     the word leaves Parked once per park.
//   - No event for a descriptor that has gone. The kernel carries a tag,
//     not a pointer: a slot index and its generation (Table). A freed
//     Desc's tag looks up nothing, even after its slot is reused.
//   - One waiter per direction: a second concurrent Wait panics, as the
//     runtime's "double wait" throw.
//
// A Breaker is netpollBreak's flag: one eventfd write per wait, and a
// break after the poller drained is never skipped (Break, Drained).
//
// # How it mirrors the runtime
//
//	Desc.Wait      poll_runtime_pollWait, netpollblock, netpollblockcommit
//	Desc.Reset     poll_runtime_pollReset (pollDesc.prepare in internal/poll)
//	Desc.Ready     netpollready, netpollunblock(ioready), setEventErr
//	Desc.Close     poll_runtime_pollUnblock
//	Desc.SetDeadline, Expire   poll_runtime_pollSetDeadline, netpolldeadlineimpl
//	Desc.Err       netpollcheckerr (closing, then deadline, then event error)
//	Table          pollCache and the fdseq tag netpollopen hands epoll
//	Breaker        netpollBreak, netpollWakeSig
//
// One difference: the runtime keeps the parked *g in the semaphore word
// itself; here the word says Parked and the W sits beside it, written only
// by the waiter before its commit CAS and read only by the one whose CAS
// moves Parked away, so the word stays a small integer the explorer can
// name and the TLA+ spec shares.
//
// # Properties and the tests that fail when they break
//
//	no lost wakeup: an event, Close or an expiry that lands before the
//	wait, between Wait and the commit, or after the park ends the wait
//	    TestExploreNetpoll (event-vs-commit, close-vs-wait, event-and-close-vs-wait,
//	    expire-vs-reset), TestPollModel, TestScenarios/event-races-commit,
//	    TestScenarios/close-races-wait, TestStressExactlyOnce; PollDesc.tla NoLostWakeup
//	no double resume: each committed park readied once, a failed commit never
//	    TestExploreNetpoll (the W is a Note: a second Wakeup panics), TestPollModel,
//	    TestStressExactlyOnce; PollDesc.tla NoDoubleResume
//	no event for a freed Desc, even once its slot is reused
//	    TestExploreNetpoll (stale-tag-vs-reused-slot), TestPollModel (every tag ever given),
//	    TestScenarios/stale-tag-after-reuse, TestStressExactlyOnce, TestTableDropsStaleTags;
//	    PollDesc.tla NoStaleEvent
//	a timer for a deadline moved on since does nothing
//	    TestExploreNetpoll (expire-vs-reset), TestPollModel, TestScenarios/expire-after-reset,
//	    TestDeadlines; PollDesc.tla NoStaleExpiry
//	no lost break: one write per drain, a poller that blocked sees new work
//	    TestExploreNetpoll (break-vs-drain: the eventfd is a Note), TestPollModel,
//	    TestScenarios/break-after-drain, TestBreakerWritesOncePerDrain; PollDescBreak.tla NoLostBreak
//
// The seeded mutants (mutation.go) and the deterministic checkers that kill
// them (killmatrix_test.go prints the table; TLC rejects each as an extra):
//
//	CommitNoCAS              model, scenarios, explorer
//	EventLostOnWait          model, scenarios, explorer
//	ParkSkipsErrRecheck      scenarios (close-races-wait), explorer
//	CloseWakesBeforePublish  scenarios (close-races-wait, bound 2), explorer
//	ExpireIgnoresSeq         model, scenarios, explorer
//	LookupIgnoresGen         model, scenarios, explorer (and the stress)
//	DrainedNeverRearms       model, scenarios, explorer
//	BreakAlwaysSkips         model, scenarios, explorer
//	UnblockNoCAS             scenarios (event-races-commit, close-races-wait), explorer
//	                         (a lost wakeup; event-and-close-vs-wait: the W readied twice)
//
// # Where each rung of the ladder lives
//
//	unit tests             desc_test.go, scenarios_test.go
//	state machine (rapid)  model_test.go    TestPollModel (stepped waiters in both directions, a
//	                                        Table and a Breaker against a sequential model)
//	race stress            stress_test.go   TestStressExactlyOnce (a watchdog per run)
//	explorer               explore_test.go  TestExploreNetpoll (-tags schedcheck, bound 2)
//	TLA+                   ../proofs/tla/PollDesc.tla, PollDescBreak.tla (README.md there)
//	seeded mutants         mutation.go, killmatrix_test.go (-tags schedcheck,schedmutant)
//	benchmarks             bench_test.go    each beside a peer (channels, a map under an RWMutex)
package netpoll
