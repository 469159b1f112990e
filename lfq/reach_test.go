package lfq_test

import (
	"fmt"
	"runtime"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/lfq"
)

// What the ring keeps reachable, checked with weak pointers after a GC.
// Drain clears the slots it empties. Get, a steal and an overflow do not:
// clearing the slot in Get costs an atomic store on the owner's hot path
// (put+get measured 9.3 -> 12.3 cpu-ns, +33%), and a thief cannot clear a
// slot at all (only the owner writes slots). So a consumed item stays
// referenced by its slot until the owner's put into that slot: at most Size
// items per ring, each released by the next Size puts at the latest.

// blob is an item too big for the tiny allocator, which would otherwise
// share a block between items and keep them alive together.
type blob struct {
	id  int
	pad [24]byte
}

// putBlobs puts n new blobs and returns weak pointers to them; no strong
// reference survives the call.
func putBlobs(r *lfq.Ring[blob], n int) []weak.Pointer[blob] {
	ws := make([]weak.Pointer[blob], n)
	for i := range ws {
		b := &blob{id: i}
		ws[i] = weak.Make(b)
		if r.Put(b, nil) != nil {
			panic("putBlobs: overflow")
		}
	}
	return ws
}

// live counts the weak pointers whose item is still reachable after a GC.
func live(ws []weak.Pointer[blob]) int {
	runtime.GC()
	n := 0
	for _, w := range ws {
		if w.Value() != nil {
			n++
		}
	}
	return n
}

// checkDrainReleases puts 10 items, drains them with drain (which drops
// what it took) and reports any the ring still keeps reachable.
func checkDrainReleases(drain func(r *lfq.Ring[blob])) error {
	r := new(lfq.Ring[blob])
	ws := putBlobs(r, 10)
	drain(r)
	n := live(ws)
	runtime.KeepAlive(r) // the ring itself must not be what the GC frees
	if n > 0 {
		return fmt.Errorf("%d of 10 drained items are still reachable from the ring", n)
	}
	return nil
}

func TestDrainLeavesNoSlotReferencingAnItem(t *testing.T) {
	require.NoError(t, checkDrainReleases(func(r *lfq.Ring[blob]) { r.Drain(nil) }))
	// The check can fail: a Drain that leaves one slot referencing its item.
	err := checkDrainReleases(func(r *lfq.Ring[blob]) {
		h, _ := lfq.Indices(r)
		got := r.Drain(nil)
		lfq.Inner(r).SetSlot(h+3, got[3])
	})
	require.Error(t, err, "the weak-pointer check missed a slot left referencing a drained item")
	t.Logf("broken Drain caught: %v", err)
}

// consumeAll is how the items leave the ring in each case of the bound.
var consumeAll = map[string]func(r *lfq.Ring[blob]){
	"Get": func(r *lfq.Ring[blob]) {
		for i := 0; r.Get() != nil; i++ {
			mustEnd(i, "Get until empty")
		}
	},
	"StealHalf": func(r *lfq.Ring[blob]) {
		for i := 0; ; i++ {
			mustEnd(i, "StealHalf until empty")
			var thief lfq.Ring[blob]
			if r.StealHalf(&thief) == nil {
				return
			}
			thief.Drain(nil) // the thief runs them: its own ring lets go
		}
	},
	"overflow": func(r *lfq.Ring[blob]) {
		// The ring is full: one more Put hands back the older half and the
		// new item; the rest leave by Get.
		r.Put(&blob{id: -1}, nil)
		for i := 0; r.Get() != nil; i++ {
			mustEnd(i, "Get until empty after the overflow")
		}
	},
}

// mustEnd panics, naming the loop, at its iteration past lfq.Size, more
// than any loop that takes at least one item each time can run on a ring:
// a ring that stops giving up its items fails the test, not the binary's
// timeout.
func mustEnd(i int, what string) {
	if i > lfq.Size {
		panic(fmt.Sprintf("%s: still looping after %d iterations on a ring of %d slots", what, i, lfq.Size))
	}
}

// checkBound fills a ring, takes every item out with consume, and checks
// the documented bound: the items stay reachable from their slots until
// the owner puts Size more items, and then none does.
func checkBound(consume func(r *lfq.Ring[blob]), overwrite func(r *lfq.Ring[blob], n int)) error {
	r := new(lfq.Ring[blob])
	ws := putBlobs(r, lfq.Size)
	consume(r)
	if n := live(ws); n != lfq.Size { // r is used below: it stays reachable
		return fmt.Errorf("%d of %d consumed items reachable before the owner overwrote their slots; the doc says all", n, lfq.Size)
	}
	for i := 0; r.Len() > 0; i++ { // the overflow case leaves none, but be exact
		mustEnd(i, "Get while Len > 0")
		r.Get()
	}
	overwrite(r, lfq.Size)
	if n := live(ws); n > 0 {
		return fmt.Errorf("%d consumed items still reachable after %d more puts", n, lfq.Size)
	}
	runtime.KeepAlive(r)
	return nil
}

func putAndGet(r *lfq.Ring[blob], n int) {
	for i := range n {
		r.Put(&blob{id: 1000 + i}, nil)
		r.Get()
	}
}

func TestConsumedItemsStayReachableUntilTheirSlotIsReused(t *testing.T) {
	for name, consume := range consumeAll {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, checkBound(consume, putAndGet))
		})
	}
	// The check can fail: an owner that keeps one old item in a slot it
	// does not overwrite.
	err := checkBound(consumeAll["Get"], func(r *lfq.Ring[blob], n int) {
		h, _ := lfq.Indices(r)
		keep := lfq.Inner(r).Slot(h + 7) // a consumed item, still in its slot
		putAndGet(r, n)
		lfq.Inner(r).SetSlot(h+7, keep)
	})
	assert.Error(t, err, "the bound check missed an item kept past Size puts")
	t.Logf("broken owner caught: %v", err)
}
