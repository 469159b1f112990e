package netpoll

// A mutation is a seeded fault in the poll descriptor, its table or its
// breaker, for proving that the checkers catch real bugs (docs/DESIGN.md,
// rung 8). In a normal build the current mutation is the constant
// noMutation and every faulty branch compiles away; under the build tag
// schedmutant a test selects one with SetMutation.
type mutation uint8

const (
	noMutation mutation = iota
	// CommitNoCAS: the waiter commits its park by storing Parked instead
	// of a CAS from Wait, so an event (or Close) that moved Wait on just
	// before is overwritten: nobody readies the waiter, a lost wakeup
	// (netpollblockcommit's CAS).
	commitNoCAS
	// EventLostOnWait: an event that finds a waiter about to park (Wait)
	// moves the semaphore to Nil instead of Ready, so the waiter's commit
	// fails, it consumes no event and parks again: the edge is lost and,
	// edge-triggered, never comes back.
	eventLostOnWait
	// ParkSkipsErrRecheck: the waiter parks without checking the closing
	// and deadline bits again after publishing Wait, so a Close that
	// published its bit and looked at the semaphore before the waiter set
	// Wait leaves it parked for ever.
	parkSkipsErrRecheck
	// CloseWakesBeforePublish: Close moves the semaphores before it
	// publishes the closing bit, so a woken waiter (or one that had not
	// yet rechecked) finds no error, waits again, and nobody wakes it.
	closeWakesBeforePublish
	// ExpireIgnoresSeq: a deadline timer fires even when the deadline was
	// moved since it was armed, so a reset (or cleared) deadline still
	// fails a wait with ErrDeadline.
	expireIgnoresSeq
	// LookupIgnoresGen: the table maps a tag to whatever Desc holds its
	// slot now, so an event for a freed descriptor wakes the waiter of the
	// descriptor that reused the slot.
	lookupIgnoresGen
	// DrainedNeverRearms: the poller never clears the break flag, so every
	// Break after the first writes nothing and a poller blocked in its wait
	// sleeps through new work.
	drainedNeverRearms
	// BreakAlwaysSkips: Break never writes.
	breakAlwaysSkips
	// UnblockNoCAS: netpollunblock's update is a load and a store of what
	// the load decided, not a CAS: an event and Close that both load
	// Parked both take the W and ready it twice, and a Close that loaded
	// Wait stores Nil over the Parked the waiter committed meanwhile, which
	// nobody readies.
	unblockNoCAS
)

// mutationNames are the names tests, the kill matrix and the TLA+ mutant
// configs (PollDesc_mutant_<Name>.cfg) share.
var mutationNames = [...]string{
	noMutation:              "none",
	commitNoCAS:             "CommitNoCAS",
	eventLostOnWait:         "EventLostOnWait",
	parkSkipsErrRecheck:     "ParkSkipsErrRecheck",
	closeWakesBeforePublish: "CloseWakesBeforePublish",
	expireIgnoresSeq:        "ExpireIgnoresSeq",
	lookupIgnoresGen:        "LookupIgnoresGen",
	drainedNeverRearms:      "DrainedNeverRearms",
	breakAlwaysSkips:        "BreakAlwaysSkips",
	unblockNoCAS:            "UnblockNoCAS",
}
