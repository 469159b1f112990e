package future

// A mutation is a seeded fault in the future (docs/DESIGN.md, rung 8). In
// a normal build the current mutation is the constant noMutation and every
// faulty branch compiles away; under the build tag schedmutant a test
// selects one with SetMutation.
type mutation uint8

const (
	noMutation mutation = iota
	// WakeFirstOnly: set readies only the first waiter (semrelease's
	// one-waiter wake where closechan's wake-all is needed); the others
	// stay parked for ever.
	wakeFirstOnly
	// CheckOutsideLock: wait publishes its Waker without re-checking the
	// result under the lock (the check is the fast path's, before it), so
	// a set between the fast path and the lock takes a queue without it:
	// the lost wakeup gopark's unlockf exists to prevent.
	checkOutsideLock
	// ChanNotClosed: set leaves a Ready channel it finds open, and one
	// made after the result stays open too.
	chanNotClosed
	// ReadyFromOutside: set readies the waiters as an outside goroutine
	// would (the zero Task), into the global queue, instead of into the
	// finishing task's runnext (goready's runqput next=true).
	readyFromOutside
)

// mutationNames are the names tests and the kill matrix share.
var mutationNames = [...]string{
	noMutation:       "none",
	wakeFirstOnly:    "WakeFirstOnly",
	checkOutsideLock: "CheckOutsideLock",
	chanNotClosed:    "ChanNotClosed",
	readyFromOutside: "ReadyFromOutside",
}
