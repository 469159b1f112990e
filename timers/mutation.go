package timers

// A mutation is a seeded fault in the timers, for proving that the checkers
// catch real bugs (docs/DESIGN.md, rung 8). In a normal build the current
// mutation is the constant noMutation and every faulty branch compiles away;
// under the build tag schedmutant a test selects one with SetMutation.
type mutation uint8

const (
	noMutation mutation = iota
	// StopAfterFire: Stop decides with a load and a store of the state word
	// instead of one CAS, so a Run that claims the timer in between fires it
	// and Stop still reports that it stopped it: fired and stopped both.
	stopAfterFire
	// ClaimIgnoresGen: Run claims a popped timer by its pending bit alone,
	// re-reading the state word after it unlocks instead of using the word
	// it read as it popped, so a Run whose arming a Reset stopped and
	// replaced in between claims the new arming and fires it early, at the
	// old when, although Reset reported the old arming stopped.
	claimIgnoresGen
	// RunUnderLock: Run calls the timer's func while it still holds the
	// heap's lock, so a func that re-arms a timer on the same heap (or stops
	// one there) deadlocks.
	runUnderLock
	// NextNotUpdated: Add does not store the earliest-when cell, so a timer
	// added to an empty heap, or earlier than every other, is not seen by
	// Next (an M parks past it, an idle P does not run it).
	nextNotUpdated
	// HeapSiftWrong: siftDown compares only the first two of a node's four
	// children, as a binary heap would, so a later timer can come up to
	// the top before an earlier one.
	heapSiftWrong
)

// mutationNames are the names tests, the kill matrix and the TLA+ mutant
// configs (Timers_mutant_<Name>.cfg) share.
var mutationNames = [...]string{
	noMutation:      "none",
	stopAfterFire:   "StopAfterFire",
	claimIgnoresGen: "ClaimIgnoresGen",
	runUnderLock:    "RunUnderLock",
	nextNotUpdated:  "NextNotUpdated",
	heapSiftWrong:   "HeapSiftWrong",
}
