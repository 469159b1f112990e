package executor

// A mutation is a seeded fault in the executor, for proving that its
// checkers catch real bugs (DESIGN.md, bar item 8). In a normal build the
// current mutation is the constant noMutation and every faulty branch
// compiles away; under the build tag schedmutant a test selects one with
// SetMutation.
type mutation uint8

const (
	noMutation mutation = iota
	// SysmonOff: sysmon never retakes a P, so a task that holds its P
	// (blocked, or spinning on the CPU) starves the work queued behind it
	// whenever no other P can take that work.
	sysmonOff
	// WaitBlocksP: a Wait inside a task blocks its M, holding the P,
	// instead of running queued tasks and handing the P away: nested
	// fork-join on every P deadlocks unless sysmon steps in.
	waitBlocksP
	// RecheckMissesLocal: the re-check of every queue (spinning's
	// Config.Work, used by the drop-and-recheck and by HandoffP) looks only
	// at the global queue, so a task in a P's own queue is lost when that P
	// is given away or its last spinner drops.
	recheckMissesLocal
)

// mutationNames are the names tests and the kill matrix share.
var mutationNames = [...]string{
	noMutation:         "none",
	sysmonOff:          "SysmonOff",
	waitBlocksP:        "WaitBlocksP",
	recheckMissesLocal: "RecheckMissesLocal",
}
