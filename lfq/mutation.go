package lfq

// A mutation is a seeded fault in the ring, for proving that the checkers
// catch real bugs (docs/DESIGN.md, rung 8). In a normal build the current
// mutation is the constant noMutation and every faulty branch compiles away;
// under the build tag schedmutant a test selects one with SetMutation.
type mutation uint8

const (
	noMutation mutation = iota
	// StealNoCAS: a steal claims its half with a plain store of head, not a
	// CAS, so it can claim items another consumer took meanwhile.
	stealNoCAS
	// PublishBeforeWrite: Put stores tail before it writes the slot, so a
	// consumer can take the slot's stale content.
	publishBeforeWrite
	// OverflowDropsNew: the overflow batch leaves out the new item although
	// Put accepted it.
	overflowDropsNew
	// StealAllNoCheck: a steal takes everything it saw and skips the check
	// that its reads of head and tail were consistent.
	stealAllNoCheck
	// GetNoRetry: Get gives up and reports empty when its CAS fails, although
	// items remain.
	getNoRetry
	// GrabPastFreeHalf: grab's consistency guard is weakened from "more than
	// half a ring" to "more than a ring", so a thief whose loads of head and
	// tail were inconsistent copies more than half a ring into its
	// destination, over the destination's own queued items, before its CAS
	// fails. The victim loses nothing: only the destination is corrupted.
	grabPastFreeHalf
	// StealRoundsDown: a steal takes half rounded down, so from a ring of one
	// item it takes nothing and reports the ring empty.
	stealRoundsDown
	// GetSkipsLast: Get reports empty when one item is left.
	getSkipsLast
	// LenOneAsEmpty: Len's fast path reports 0 for a ring of one item.
	lenOneAsEmpty
)

// mutationNames are the names tests, the kill matrix and the TLA+ mutant
// configs (Ring_mutant_<Name>.cfg) share.
var mutationNames = [...]string{
	noMutation:         "none",
	stealNoCAS:         "StealNoCAS",
	publishBeforeWrite: "PublishBeforeWrite",
	overflowDropsNew:   "OverflowDropsNew",
	stealAllNoCheck:    "StealAllNoCheck",
	getNoRetry:         "GetNoRetry",
	grabPastFreeHalf:   "GrabPastFreeHalf",
	stealRoundsDown:    "StealRoundsDown",
	getSkipsLast:       "GetSkipsLast",
	lenOneAsEmpty:      "LenOneAsEmpty",
}
