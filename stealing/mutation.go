package stealing

// A mutation is a seeded fault in the victim order or the steal passes, for
// proving that the checkers catch real bugs (docs/DESIGN.md, rung 8). In a
// normal build the current mutation is the constant noMutation and every
// faulty branch compiles away; under the build tag schedmutant a test
// selects one with SetMutation.
type mutation uint8

const (
	noMutation mutation = iota
	// StrideNotCoprime: Order.Reset keeps every stride in 1..n, also those
	// that share a factor with n, so a pass with such a stride visits some
	// Ps more than once and misses others.
	strideNotCoprime
	// RunnextEveryPass: Steal sets stealNext on every pass, not only the
	// last, so a thief takes a runnext task its owner is about to run
	// while other Ps may still hold work in their rings.
	runnextEveryPass
	// StealsFromSelf: a pass does not skip the thief's own P and steals
	// from it into itself.
	stealsFromSelf
	// SkipsNonIdle: the idle test is inverted: a pass skips the busy Ps,
	// where the work is, and looks only at idle ones.
	skipsNonIdle
	// PassEndsEarly: a pass stops one position before it has visited every
	// P, so the last P of its order is never looked at.
	passEndsEarly
	// NoRunnextPass: Steal gives up after StealTries-1 passes, so the last
	// pass, the only one that may take a runnext task, never runs.
	noRunnextPass
	// IdleMaskNoCAS: IdleMask.Set and Clear load the word and store it back
	// changed, without a CAS, so a concurrent change of another P's bit in
	// the same word is lost.
	idleMaskNoCAS
)

// mutationNames are the names tests, the kill matrix and the TLA+ mutant
// configs (Steal_mutant_<Name>.cfg) share.
var mutationNames = [...]string{
	noMutation:       "none",
	strideNotCoprime: "StrideNotCoprime",
	runnextEveryPass: "RunnextEveryPass",
	stealsFromSelf:   "StealsFromSelf",
	skipsNonIdle:     "SkipsNonIdle",
	passEndsEarly:    "PassEndsEarly",
	noRunnextPass:    "NoRunnextPass",
	idleMaskNoCAS:    "IdleMaskNoCAS",
}
