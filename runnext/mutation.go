package runnext

// A mutation is a seeded fault in the slot or the queue, for proving that
// the checkers catch real bugs (docs/DESIGN.md, rung 8). In a normal build
// the current mutation is the constant noMutation and every faulty branch
// compiles away; under the build tag schedmutant a test selects one with
// SetMutation.
type mutation uint8

const (
	noMutation mutation = iota
	// ThiefIgnoresDelay: a thief takes the runnext task as soon as it sees
	// it, without waiting the steal delay.
	thiefIgnoresDelay
	// DisplacedDropped: PutNext drops the task it displaces from the slot
	// instead of queueing it at the ring's tail.
	displacedDropped
	// TakeWithoutCAS: the owner takes the runnext task by a load and a
	// store, so a thief's CAS in between gives the task to both.
	takeWithoutCAS
	// EmptyMissesRunnext: Empty reads the ring and the slot once, without
	// the re-check, so it can miss a task the owner moves from the slot to
	// the ring while it looks.
	emptyMissesRunnext
	// ThiefNoRecheck: a thief that has waited the delay once takes whatever
	// occupies the slot when it looks again, without checking that it is
	// the occupancy it waited for (a task put meanwhile is taken at once).
	thiefNoRecheck
	// ThiefComparesPointer: after its wait a thief checks the task pointer
	// instead of the version, so a task the owner took and put back (the
	// same pointer, a fresh occupancy) is taken without a new wait: ABA.
	thiefComparesPointer
	// GetTreatsOneAsEmpty: Get's ring part returns nothing from a ring
	// holding one task (a fast path that takes length 1 for empty).
	getTreatsOneAsEmpty
	// PublishBeforeTask: a fill (Slot.Put, PutNext's displacing path)
	// publishes the odd version before it stores the new task, so a thief
	// that reads the cell in between takes the task of the last occupancy:
	// that one runs twice and the new one is lost.
	publishBeforeTask
	// SeqBeforePut: Put bumps seq before its ring put instead of after, so
	// Empty (or a last-pass thief) can read the new seq and then a ring
	// without the task, and call a queue that was never empty empty when
	// the owner's Get and PutNext and a thief's steal follow.
	seqBeforePut
)

// mutationNames are the names tests, the kill matrix and the TLA+ mutant
// configs (Runnext_mutant_<Name>.cfg) share.
var mutationNames = [...]string{
	noMutation:           "none",
	thiefIgnoresDelay:    "ThiefIgnoresDelay",
	displacedDropped:     "DisplacedDropped",
	takeWithoutCAS:       "TakeWithoutCAS",
	emptyMissesRunnext:   "EmptyMissesRunnext",
	thiefNoRecheck:       "ThiefNoRecheck",
	thiefComparesPointer: "ThiefComparesPointer",
	getTreatsOneAsEmpty:  "GetTreatsOneAsEmpty",
	publishBeforeTask:    "PublishBeforeTask",
	seqBeforePut:         "SeqBeforePut",
}
