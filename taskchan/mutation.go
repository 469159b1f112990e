package taskchan

// A mutation is a seeded fault in the channel, for proving that the
// checkers catch real bugs (docs/DESIGN.md, rung 8). In a normal build the
// current mutation is the constant noMutation and every faulty branch
// compiles away; under the build tag schedmutant a test selects one with
// SetMutation. proofs/tla/TaskChan.tla's mutant configs carry the same
// names (SelectLeavesStaleWaiter, CloseSkipsSenders, RecvFullSkipsSender,
// SelectNoDoneCAS, SelectLocksInCaseOrder; the others are the Go code's
// only).
type mutation uint8

const (
	noMutation mutation = iota
	// SelectLeavesStaleWaiter: a select that wakes resets its done word (as
	// selectgo does for the g's next select) but does not take its waiters
	// out of the other cases' channels (pass 3 skipped): they stay queued,
	// live, and a later sender or receiver completes the finished select.
	selectLeavesStaleWaiter
	// CloseSkipsSenders: closechan releases the waiting receivers but not
	// the waiting senders, which stay parked on a closed channel instead of
	// panicking.
	closeSkipsSenders
	// RecvFullSkipsSender: a receive from a full buffer takes the head and
	// leaves the waiting sender parked (the buffer looked at before the
	// senders' queue), so a sender waits beside room for its value.
	recvFullSkipsSender
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
	// SelectLocksInCaseOrder: a select locks its channels in its case
	// order instead of the global order (sellock's sort), so two selects
	// over the same channels in opposite orders can deadlock.
	selectLocksInCaseOrder
)

// mutationNames are the names tests, the kill matrix and the TLA+ mutant
// configs (TaskChan_mutant_<Name>.cfg) share.
var mutationNames = [...]string{
	noMutation:              "none",
	selectLeavesStaleWaiter: "SelectLeavesStaleWaiter",
	closeSkipsSenders:       "CloseSkipsSenders",
	recvFullSkipsSender:     "RecvFullSkipsSender",
	sendWakesWithoutHandoff: "SendWakesWithoutHandoff",
	selectNoDoneCAS:         "SelectNoDoneCAS",
	waitqLIFO:               "WaitqLIFO",
	selectLocksInCaseOrder:  "SelectLocksInCaseOrder",
}
