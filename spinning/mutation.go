package spinning

// A mutation is a seeded fault in the spinning protocol, for proving that
// the checkers catch real bugs (docs/DESIGN.md, rung 8). In a normal build
// the current mutation is the constant noMutation and every faulty branch
// compiles away; under the build tag schedmutant a test selects one with
// SetMutation.
type mutation uint8

const (
	noMutation mutation = iota
	// DropWithoutRecheck: DropSpinning decrements nmspinning and then parks
	// the M without looking at the queues again, so work published while it
	// was dropping waits for a wakeup that no one sends.
	dropWithoutRecheck
	// WakepBeforePublish: Submit calls Wakep before it publishes the work,
	// so it can see a spinning M that then drops without seeing the work.
	wakepBeforePublish
	// NoWakeOnLastSpinner: ResetSpinning only leaves the spinning state; the
	// last spinner to find work does not start another, so work queued
	// behind it waits while Ps are idle.
	noWakeOnLastSpinner
	// CountLeak: ResetSpinning clears the M's spinning flag but does not
	// decrement nmspinning, which then counts a spinner that does not exist
	// and makes Wakep believe help is on its way.
	countLeak
	// NoNeedSpinning: ReleaseP ignores needspinning, so a non-spinning M
	// idles its P although an M found work and no idle P for it; if every
	// other P runs something long, the work waits beside an idle P.
	noNeedSpinning
	// DropNoNeedSpinning: DropSpinning's re-check finds work and no idle P
	// and does not set needspinning. An M that took the P it released
	// without spinning (AcquireP, back from a blocking call) keeps it busy;
	// the non-spinning M about to idle the other P does not know to spin,
	// so the work waits beside an idle P.
	dropNoNeedSpinning
	// HandoffNoNeedSpinning: HandoffP makes the P idle without reading
	// needspinning, so the spinner that a re-check or a Wakep asked for
	// when no P was idle is never started, and the work waits beside the
	// P just made idle.
	handoffNoNeedSpinning
	// NeedBeforeDec: Wakep, finding no idle P, sets needspinning before it
	// gives its count back (the runtime's order). An M that becomes
	// spinning in between clears the flag, takes one of two queued tasks,
	// and its ResetSpinning's Wakep sees the count about to go and gives
	// up; the other task then waits beside the P a non-spinning M idles.
	needBeforeDec
	// ExitIgnoresWake: an M whose keep-alive ran out exits without looking
	// whether a StartM popped it off the idle list meanwhile, so the P
	// handed to it (its nextp) goes with it: in no place, lost.
	exitIgnoresWake
	// NeededMUntimed: RetireP (SetProcs taking Ps away) leaves the Ms that
	// parked while the Ps needed them, which sleep with no timer, as they
	// are (no retimeIdle): they stay alive and idle beyond the Ps until
	// something wakes them.
	neededMUntimed
)

// mutationNames are the names tests, the kill matrix and the TLA+ mutant
// configs (Spinning_mutant_<Name>.cfg) share.
var mutationNames = [...]string{
	noMutation:            "none",
	dropWithoutRecheck:    "DropWithoutRecheck",
	wakepBeforePublish:    "WakepBeforePublish",
	noWakeOnLastSpinner:   "NoWakeOnLastSpinner",
	countLeak:             "CountLeak",
	noNeedSpinning:        "NoNeedSpinning",
	dropNoNeedSpinning:    "DropNoNeedSpinning",
	handoffNoNeedSpinning: "HandoffNoNeedSpinning",
	needBeforeDec:         "NeedBeforeDec",
	exitIgnoresWake:       "ExitIgnoresWake",
	neededMUntimed:        "NeededMUntimed",
}
