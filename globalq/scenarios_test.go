package globalq_test

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"weak"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/internal/killmatrix"
)

// Fixed scenarios, each aimed at one seeded mutation's shape (the kill
// matrix's "scenarios" column, and TestScenarios against the real queue).
// Each returns an error naming what broke. They are deterministic: the
// sequential ones call the queue directly, the concurrent one is a tiny
// explorer scenario searched exhaustively at preemption bound 1.

// errNoExplorer marks a scenario that needs -tags schedcheck.
var errNoExplorer = killmatrix.ErrNeedsExplorer

type scenario = killmatrix.Scenario

// runScenarios is the kill matrix's "scenarios" checker: the first failure.
func runScenarios(t testing.TB) error { return killmatrix.RunScenarios(t, scenarios) }

func TestScenarios(t *testing.T) { killmatrix.TestScenarios(t, scenarios) }

var scenarios = []scenario{
	{Name: "batch-share-of-three", Targets: "BatchSizeOffByOne", Run: scenarioBatchShare},
	{Name: "two-puts-then-len", Targets: "LenNotUnderLock", Run: scenarioTwoPutsThenLen},
	{Name: "putbatch-keeps-order", Targets: "PutBatchDropsLast, PutBatchSwapsTwo", Run: scenarioPutBatchOrder},
	{Name: "getbatch-runs-oldest", Targets: "GetBatchOutOfOrder", Run: scenarioGetBatchRunsOldest},
	{Name: "take-the-only-item", Targets: "GetSkipsLast, CheckOneAsEmpty", Run: scenarioTakeTheOnlyItem},
	{Name: "taken-items-unreachable", Targets: "PopKeepsItem", Run: checkTakenUnreachable},
	{Name: "inject-unpublished", Targets: "InjectDrainSkipsUnpublished", Run: scenarioInjectUnpublished},
	{Name: "inject-batch-into-nearly-full", Targets: "InjectBatchOverfills", Run: scenarioInjectBatchIntoNearlyFull},
	{Name: "inject-publish-vs-drain", Targets: "InjectPublishBeforeWrite", Run: scenarioInjectPublishVsDrain},
}

func scenarioBatchShare() error {
	var q globalq.Queue[int]
	q.PutBatch(items(0, 3))
	run, rest := q.GetBatch(4, 2, nil)
	if got := len(rest) + 1; run == nil || got != 2 {
		return fmt.Errorf("GetBatch(4, 2) of 3 took %d items, want 3/2+1 = 2", got)
	}
	return nil
}

// scenarioTwoPutsThenLen: two Puts at once, then the length cell must say
// 2. A store of the cell after the unlock can land after the other Put's.
func scenarioTwoPutsThenLen() error {
	res, err := explore.Explore(explore.Options{Name: "globalq-scenario-two-puts", Bound: 1}, func() explore.Run {
		q := new(globalq.Queue[int])
		a, b := 1, 2
		return explore.Run{
			Threads: []func(){func() { q.Put(&a) }, func() { q.Put(&b) }},
			Check: func() error {
				if n := q.Len(); n != 2 {
					return fmt.Errorf("Len() = %d after two Puts", n)
				}
				return nil
			},
		}
	})
	if errors.Is(err, explore.ErrNoSchedcheck) {
		return errNoExplorer
	}
	if err != nil {
		return err
	}
	if res.Failure != nil {
		return errors.New(res.Failure.String())
	}
	return nil
}

func scenarioPutBatchOrder() error {
	var q globalq.Queue[int]
	q.PutBatch(items(0, 3))
	if got := vals(globalq.Contents(&q)); !slices.Equal(got, seq(0, 3)) {
		return fmt.Errorf("PutBatch of [0 1 2] left the queue holding %v", got)
	}
	return nil
}

func scenarioGetBatchRunsOldest() error {
	var q globalq.Queue[int]
	q.PutBatch(items(0, 3))
	run, rest := q.GetBatch(3, 1, nil)
	if run == nil || *run != 0 || !slices.Equal(vals(rest), []int{1, 2}) {
		return fmt.Errorf("GetBatch(3, 1) of [0 1 2] ran %d with rest %v, want 0 with [1 2]", itemID(run), vals(rest))
	}
	return nil
}

func scenarioTakeTheOnlyItem() error {
	var q globalq.Queue[int]
	x := 7
	q.Put(&x)
	if got := q.Get(); got != &x {
		return fmt.Errorf("Get of a queue of one returned %d", itemID(got))
	}
	q.Put(&x)
	if run, rest := q.GetBatch(128, 4, nil); run != &x || len(rest) != 0 {
		return fmt.Errorf("GetBatch of a queue of one returned %d and %d more", itemID(run), len(rest))
	}
	return nil
}

// witem is an item of 24 bytes: above the tiny allocator's 16, so each
// has an object of its own and a weak pointer to it goes nil as soon as
// nothing references it.
type witem struct {
	id int
	_  [2]int
}

// checkTakenUnreachable is doc.go's "the queue never keeps a taken item
// reachable": items taken by Get and GetBatch (within a chunk, across a
// chunk's end, from a chunk then cached for reuse) must be collected once
// the caller drops them, while the items still queued stay alive.
func checkTakenUnreachable() error {
	const n = 2*globalq.ChunkLen + 40
	q := new(globalq.Queue[witem])
	ws := make([]weak.Pointer[witem], n)
	func() {
		its := make([]*witem, n)
		for i := range its {
			its[i] = &witem{id: i}
			ws[i] = weak.Make(its[i])
		}
		q.PutBatch(its[:globalq.ChunkLen+3])
		for _, it := range its[globalq.ChunkLen+3:] {
			q.Put(it)
		}
	}()
	var how []string // how[i]: how item i was taken
	func() {
		for range 5 {
			q.Get()
			how = append(how, "Get")
		}
		run, rest := q.GetBatch(globalq.ChunkLen, 1, nil) // to past the first chunk's end
		if run == nil {
			return
		}
		for range 1 + len(rest) {
			how = append(how, "GetBatch")
		}
		for range 20 {
			q.Get()
			how = append(how, "Get after the chunk was retired")
		}
	}()
	if len(how) < globalq.ChunkLen+20 {
		return fmt.Errorf("took only %d items", len(how))
	}
	runtime.GC()
	runtime.GC()
	for i, h := range how {
		if it := ws[i].Value(); it != nil {
			return fmt.Errorf("item %d, taken by %s, is still reachable after GC", it.id, h)
		}
	}
	for i := len(how); i < n; i++ {
		if ws[i].Value() == nil {
			return fmt.Errorf("item %d, still queued, was collected", i)
		}
	}
	if got, want := q.Len(), n-len(how); got != want {
		return fmt.Errorf("Len() = %d, want %d", got, want)
	}
	runtime.KeepAlive(q)
	return nil
}
