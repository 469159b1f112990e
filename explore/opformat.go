package explore

import (
	"strconv"

	"github.com/schedkit/schedkit/atomicx"
)

// opSuffix is what a trace line shows after the cell of a plain access, a
// channel operation, a select, a Cond's or a Cancel's step; val formats
// the step's value.
func opSuffix(op atomicx.Op, val func() string) string {
	switch op {
	case atomicx.OpRead, atomicx.OpRecv, atomicx.OpTryRecv:
		return " = " + val()
	case atomicx.OpWrite, atomicx.OpSend, atomicx.OpTrySend:
		return " ← " + val()
	case atomicx.OpSendBlocked:
		return " ← " + val() + " blocks"
	case atomicx.OpRecvBlocked, atomicx.OpSelectBlocked:
		return " blocks"
	case atomicx.OpSendWait:
		return " woken"
	case atomicx.OpRecvWait:
		return " woken = " + val()
	case atomicx.OpRecvClosed:
		return " closed"
	case atomicx.OpTrySendFull:
		return " ← " + val() + " full"
	case atomicx.OpTryRecvEmpty:
		return " empty"
	case atomicx.OpSelect, atomicx.OpTrySelect, atomicx.OpSelectWait:
		s := val()
		if s == strconv.FormatInt(-1, 10) || s == strconv.FormatUint(^uint64(0), 10) {
			return " default"
		}
		if op == atomicx.OpSelectWait {
			return " woken, case " + s
		}
		return " case " + s
	case atomicx.OpCondWait:
		return " joins"
	case atomicx.OpCondSleep:
		return " woken"
	case atomicx.OpCondSignal, atomicx.OpCondBroadcast:
		return " wakes " + val()
	case atomicx.OpCancel:
		if v := val(); v == "0" {
			return " (already)"
		}
	}
	return ""
}
