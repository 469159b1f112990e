package atomicx

// Op names one kind of access to a shared cell, lock, note or the clock; the
// explorer's traces print it.
type Op uint8

// The operations a cell offers.
const (
	OpLoad Op = iota
	OpStore
	OpAdd
	OpSwap
	OpCAS
)

// The operations of Mutex, Note and the clock. Each is a scheduling point of
// the explorer in a schedcheck build.
const (
	OpLock         Op = iota + 16 // Mutex.Lock (may block)
	OpUnlock                      // Mutex.Unlock
	OpNoteSleep                   // Note.Sleep (may block)
	OpNoteSleepFor                // Note.SleepFor (may block until woken or timed out)
	OpNoteWakeup                  // Note.Wakeup
	OpNoteClear                   // Note.Clear
	OpNanotime                    // Nanotime (reads the clock)
	OpSleep                       // Sleep (blocks until the clock passes the deadline)
)

var opNames = [...]string{
	OpLoad: "load", OpStore: "store", OpAdd: "add", OpSwap: "swap", OpCAS: "cas",
	OpLock: "lock", OpUnlock: "unlock",
	OpNoteSleep: "notesleep", OpNoteSleepFor: "notetsleep", OpNoteWakeup: "notewakeup", OpNoteClear: "noteclear",
	OpNanotime: "nanotime", OpSleep: "sleep",
}

// String returns the operation's short name, as traces print it.
func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return "op?"
}
