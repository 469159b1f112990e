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

// The operations of Plain cells, Chan, Select, Cond and Cancel (plain.go,
// chan.go, cond.go). Each is a scheduling point of the explorer in a
// schedcheck build. After may name an op other than Before's, the outcome
// of the attempt: a channel operation or select that must wait reports its
// Blocked op (a trace reads "recv ch blocks") and then waits at a blocking
// point (Hook.Wait) with its Wait op, which a partner's operation
// completes; a receive from a closed channel reports OpRecvClosed, a
// TrySend or TryRecv that cannot proceed OpTrySendFull or OpTryRecvEmpty.
// The value After reports: the value sent or received (as a trace shows
// it: integers, bools and pointers as themselves), a select's case index
// (^0 for TrySelect's default), the number of threads a Signal or
// Broadcast woke, 1 for a Cancel that cancelled.
const (
	OpRead          Op = iota + 32 // Plain.Load: a plain read
	OpWrite                        // Plain.Store: a plain write
	OpSend                         // Chan.Send
	OpRecv                         // Chan.Recv
	OpTrySend                      // Chan.TrySend
	OpTryRecv                      // Chan.TryRecv
	OpClose                        // Chan.Close
	OpSelect                       // Select (blocking) over cases
	OpTrySelect                    // TrySelect: a select with a default
	OpSendBlocked                  // a Send that found no receiver and no room: it waits
	OpRecvBlocked                  // a Recv that found nothing: it waits
	OpSelectBlocked                // a Select with no ready case: it waits on every case
	OpSendWait                     // the wait of a blocked Send (may block)
	OpRecvWait                     // the wait of a blocked Recv (may block)
	OpSelectWait                   // the wait of a blocked Select (may block)
	OpCondWait                     // Cond.Wait's first step: joins the wait list
	OpCondSleep                    // Cond.Wait's wait for a Signal or Broadcast (may block)
	OpCondSignal                   // Cond.Signal
	OpCondBroadcast                // Cond.Broadcast
	OpCancel                       // Cancel.Cancel
	OpRecvClosed                   // a Recv, TryRecv or woken Recv that found the channel closed
	OpTrySendFull                  // a TrySend that found no receiver and no room
	OpTryRecvEmpty                 // a TryRecv that found nothing
)

var opNames = [...]string{
	OpLoad: "load", OpStore: "store", OpAdd: "add", OpSwap: "swap", OpCAS: "cas",
	OpLock: "lock", OpUnlock: "unlock",
	OpNoteSleep: "notesleep", OpNoteSleepFor: "notetsleep", OpNoteWakeup: "notewakeup", OpNoteClear: "noteclear",
	OpNanotime: "nanotime", OpSleep: "sleep",
	OpRead: "read", OpWrite: "write",
	OpSend: "send", OpRecv: "recv", OpTrySend: "trysend", OpTryRecv: "tryrecv", OpClose: "close",
	OpSelect: "select", OpTrySelect: "tryselect",
	OpSendBlocked: "send", OpRecvBlocked: "recv", OpSelectBlocked: "select",
	OpSendWait: "send", OpRecvWait: "recv", OpSelectWait: "select",
	OpCondWait: "condwait", OpCondSleep: "condsleep", OpCondSignal: "signal", OpCondBroadcast: "broadcast",
	OpCancel: "cancel", OpRecvClosed: "recv", OpTrySendFull: "trysend", OpTryRecvEmpty: "tryrecv",
}

// Blocking reports an operation a thread may wait at (Hook.Wait's ops):
// the explorer does not schedule the thread until it can proceed.
func (o Op) Blocking() bool {
	switch o {
	case OpLock, OpNoteSleep, OpNoteSleepFor, OpSleep, OpSendWait, OpRecvWait, OpSelectWait, OpCondSleep:
		return true
	}
	return false
}

// String returns the operation's short name, as traces print it.
func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return "op?"
}
