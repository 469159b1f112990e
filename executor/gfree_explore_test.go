package executor

import (
	"testing"

	"github.com/schedkit/schedkit/explore"
)

// The explorer on the global free list (-tags schedcheck): a record freed
// off any P (here a TryGo refused at Config.MaxQueued's bound of 1, whose
// record goes back: unrecord, gfreeList.put) against another outside
// submitter taking a record (Go's record). In every interleaving within
// bound 1 every accepted task runs once, queued ends at 0, and the free
// lists are clean after Close. MustReach: the refused record taken by the
// other submitter (the global list handed one out: it starts empty, and a
// record freed on a P goes to that P's list).
//
// The list's rule (gfree.go), a record zeroed before it goes on a list, is
// beyond the explorer: the lock orders a take after the put's unlock, and
// the put's writes after its unlock are no scheduling point. Its mutant,
// FreeZeroAfterPut, is caught by the pinned races of gfree_hook_test.go.
// This scenario's broken variants are MaxQueued's: ReserveLoadStore and
// RoomFreedAfterLook fail it too.

// freeOutcome labels an execution whose refused record was reused.
func freeOutcome(e *Executor, _ *roomRun) string {
	if _, taken, _, _ := e.gfreeStats(); taken != 0 {
		return "refused record reused"
	}
	return "not reused"
}

// refusedThenRetry is thread A: a Go that fills the bound, then a TryGo
// that is refused unless the M took the first task already.
func refusedThenRetry(e *Executor, x *roomRun) {
	x.note(0, e.Go(x.task(0)))
	x.note(1, e.TryGo(x.task(1)))
}

var freeCases = []roomCase{{
	name: "refused-record-vs-go", bound: 1, tasks: 3,
	threads: []func(*Executor, *roomRun){
		refusedThenRetry,
		func(e *Executor, x *roomRun) { x.note(2, e.Go(x.task(2))) },
	},
	outcome: freeOutcome, mustReach: []string{"refused record reused"}, after: (*Executor).checkFreeLists,
}}

func freeOptions(c roomCase) explore.Options {
	return explore.Options{Name: "executor-free-" + c.name, Bound: 1, LongBound: 2, MustReach: c.mustReach}
}

func TestExploreFreeList(t *testing.T) {
	for _, c := range freeCases {
		t.Run(c.name, func(t *testing.T) {
			explore.Check(t, freeOptions(c), c.run)
		})
	}
}
