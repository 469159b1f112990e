package runnext_test

import (
	"testing"

	"github.com/schedkit/schedkit/explore/lincheck"
	"github.com/schedkit/schedkit/runnext"
)

// taskID is a task's id, 0 for none.
func taskID(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

type slotPtr = *runnext.Slot[int]

// slotOps are the slot's Put (returning the task it displaces) and Take,
// the owner's, and Steal (after the steal delay, on the explorer's clock),
// any thread's, against a model of one slot. With stealMayMiss, a steal
// may also find nothing while the slot holds a task.
func slotOps(stealMayMiss bool) []lincheck.Op[slotPtr, int] {
	ops := []lincheck.Op[slotPtr, int]{
		{Name: "put", Arg: true, Owner: true,
			Run:  func(s slotPtr, v int) any { return taskID(s.Put(&v)) },
			Step: func(cur, v int) (int, any) { return v, cur }},
		{Name: "take", Owner: true,
			Run:  func(s slotPtr, _ int) any { return taskID(s.Take()) },
			Step: func(cur, _ int) (int, any) { return 0, cur }},
		{Name: "steal",
			Run:  func(s slotPtr, _ int) any { return taskID(s.Steal()) },
			Step: func(cur, _ int) (int, any) { return 0, cur }},
	}
	if stealMayMiss {
		ops[2].Step = nil
		ops[2].Accept = func(cur, _ int, out any) (int, bool) {
			if out == 0 {
				return cur, true
			}
			return 0, out == cur
		}
	}
	return ops
}

var oneSlot = lincheck.Model[int]{Init: func() int { return 0 }}

// TestSlotStealCanMissADisplacingPut: against a slot whose Put swaps in
// one step, the Slot is not linearizable, found from the model alone
// ("put(1),put(2)|steal"): a Put that displaces a task takes it (a CAS to
// an even version: empty) and then fills (a CAS to odd), and a Steal
// between the two finds the slot empty, which no order of the calls
// explains if Put were one step. runnext's doc.go says as much (Slot
// alone: "Put a take then a fill"; Steal returns nil only when the slot
// is empty, as it is for that instant); Queue.PutNext makes its seq odd
// around the move and thieves wait it out. The test keeps the two-step
// Put visible: it fails if Put becomes one step.
func TestSlotStealCanMissADisplacingPut(t *testing.T) {
	lincheck.CheckFails(t, lincheck.Options{Threads: 2, OpsPerThread: 2, Seeds: 6}, oneSlot,
		func() slotPtr { return new(runnext.Slot[int]) }, slotOps(false)...)
}

// TestSlotIsLinearizableFromItsModel: once a steal may find nothing, the
// slot is linearizable: no task leaves it twice, none is invented, Put
// returns the task it displaced and Take and Steal the one there.
func TestSlotIsLinearizableFromItsModel(t *testing.T) {
	lincheck.Check(t, lincheck.Options{Threads: 2, OpsPerThread: 2, Seeds: 6}, oneSlot,
		func() slotPtr { return new(runnext.Slot[int]) }, slotOps(true)...)
}
