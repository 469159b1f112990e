package taskchan

// A mutation is a seeded fault in the channel, for proving that the
// checkers catch real bugs (docs/DESIGN.md, rung 8). In a normal build the
// current mutation is the constant noMutation and every faulty branch
// compiles away; under the build tag schedmutant a test selects one with
// SetMutation. proofs/tla/TaskChan.tla's mutant configs carry the same
// names.
type mutation uint8

const (
	noMutation mutation = iota
	// SelectLeavesStaleWaiter: a select that wakes does not take its
	// waiters out of the other cases' channels (selectgo's pass 3 is
	// skipped), so they stay queued after the select has returned.
	selectLeavesStaleWaiter
	// CloseSkipsSenders: closechan releases the waiting receivers but not
	// the waiting senders, which stay parked on a closed channel instead of
	// panicking.
	closeSkipsSenders
	// RecvNoDirectHandoff: a receive does not look at the senders' queue:
	// with a sender parked it takes from the buffer if it can, else parks
	// too, beside the sender it should have taken from.
	recvNoDirectHandoff
	// SendWakesWithoutHandoff: a send that finds a receiver parked readies
	// it, marked successful, without putting the value in its slot: the
	// receiver gets the zero value and the sent value is lost.
	sendWakesWithoutHandoff
	// SelectNoDoneCAS: a dequeue takes a select's waiter without winning
	// its done word, so two channels of one select can both fire it (a
	// value lost and a second Ready).
	selectNoDoneCAS
	// WaitqLIFO: a waiter joins the head of its queue instead of the tail,
	// so waiters are served last in, first out.
	waitqLIFO
)

// mutationNames are the names tests, the kill matrix and the TLA+ mutant
// configs (TaskChan_mutant_<Name>.cfg) share.
var mutationNames = [...]string{
	noMutation:              "none",
	selectLeavesStaleWaiter: "SelectLeavesStaleWaiter",
	closeSkipsSenders:       "CloseSkipsSenders",
	recvNoDirectHandoff:     "RecvNoDirectHandoff",
	sendWakesWithoutHandoff: "SendWakesWithoutHandoff",
	selectNoDoneCAS:         "SelectNoDoneCAS",
	waitqLIFO:               "WaitqLIFO",
}
