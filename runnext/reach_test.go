package runnext_test

import (
	"fmt"
	"runtime"
	"testing"
	"weak"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/runnext"
)

// What the slot and the queue keep reachable, checked with weak pointers
// after a GC. The slot's task cell keeps the task of its last fill until
// the owner's next put: clearing it on every take would cost the owner a
// second atomic store per Get. So a slot keeps at most one task that has
// left it reachable, and the next Put releases it. Drain clears the cell
// (and lfq's Drain the ring's slots), so after a Drain the queue keeps
// nothing reachable. The ring's own bound (at most lfq.Size taken items,
// released by the puts that reuse their slots) is lfq's; see lfq/doc.go.

// rblob is a task too big for the tiny allocator, which would otherwise
// share a block between tasks and keep them alive together.
type rblob struct {
	id  int
	pad [24]byte
}

func liveOf(ws ...weak.Pointer[rblob]) int {
	runtime.GC()
	n := 0
	for _, w := range ws {
		if w.Value() != nil {
			n++
		}
	}
	return n
}

// slotOwner is what the reachability check drives: a slot's owner side.
type slotOwner interface {
	Put(t *rblob) *rblob
	Take() *rblob
}

// keepingSlot is broken: it keeps every task it hands out reachable.
type keepingSlot struct {
	runnext.Slot[rblob]
	kept []*rblob
}

func (k *keepingSlot) Take() *rblob {
	t := k.Slot.Take()
	k.kept = append(k.kept, t)
	return t
}

// checkSlotBound puts and takes 8 tasks, one at a time, and fails if more
// than one of them is reachable from s afterwards, or the last one still is
// after a Put of another.
func checkSlotBound(s slotOwner) error {
	ws := make([]weak.Pointer[rblob], 8)
	for i := range ws {
		b := &rblob{id: i}
		ws[i] = weak.Make(b)
		s.Put(b)
		s.Take()
	}
	if n := liveOf(ws...); n > 1 {
		return fmt.Errorf("%d of 8 taken tasks are still reachable from the slot, want at most 1", n)
	}
	s.Put(&rblob{id: 99})
	if n := liveOf(ws...); n > 0 {
		return fmt.Errorf("%d taken tasks still reachable after the next Put", n)
	}
	runtime.KeepAlive(s)
	return nil
}

func TestSlotKeepsAtMostOneTakenTaskReachable(t *testing.T) {
	require.NoError(t, checkSlotBound(new(runnext.Slot[rblob])))
	err := checkSlotBound(new(keepingSlot))
	require.Error(t, err, "the weak-pointer check missed a slot that keeps every taken task")
	t.Logf("broken slot caught: %v", err)
}

// checkDrainReleases fills a queue through every put (its ring, and its
// slot with a displacement), takes the runnext task, puts another, drains
// the queue with drain, and fails if any task is still reachable from it.
// (A task Get took from the ring would stay reachable from its ring slot
// until a put reuses the slot: lfq's bound, which Drain does not change.)
func checkDrainReleases(drain func(q *runnext.Queue[rblob])) error {
	q := new(runnext.Queue[rblob])
	var ws []weak.Pointer[rblob]
	mk := func() *rblob {
		b := &rblob{id: len(ws)}
		ws = append(ws, weak.Make(b))
		return b
	}
	for range 5 {
		q.Put(mk(), nil)
	}
	q.PutBatch([]*rblob{mk(), mk()})
	q.PutNext(mk(), nil)
	q.PutNext(mk(), nil) // displaces the first into the ring
	q.Get()              // the runnext task: its cell still holds it
	q.PutNext(mk(), nil)
	drain(q)
	n := liveOf(ws...)
	runtime.KeepAlive(q)
	if n > 0 {
		return fmt.Errorf("%d of %d tasks are still reachable from the drained queue", n, len(ws))
	}
	return nil
}

func TestQueueDrainLeavesNothingReachable(t *testing.T) {
	require.NoError(t, checkDrainReleases(func(q *runnext.Queue[rblob]) { q.Drain(nil) }))
	// The check can fail: a Drain that leaves the slot's cell holding its task.
	err := checkDrainReleases(func(q *runnext.Queue[rblob]) {
		got := q.Drain(nil)
		runnext.SetTaskCell(q, got[0])
	})
	require.Error(t, err, "the weak-pointer check missed a cell left holding a drained task")
	t.Logf("broken Drain caught: %v", err)
}

// TestQueueGetReleasesTheRunnextTaskAtTheNextPutNext: the task Get took
// from the slot stays reachable until the next PutNext, and no longer.
func TestQueueGetReleasesTheRunnextTaskAtTheNextPutNext(t *testing.T) {
	q := new(runnext.Queue[rblob])
	b := &rblob{id: 1}
	w := weak.Make(b)
	q.PutNext(b, nil)
	got, inherit := q.Get()
	require.True(t, inherit)
	require.Same(t, b, got)
	got, b = nil, nil
	require.Equal(t, 1, liveOf(w), "the documented bound: the cell keeps the last task taken")
	q.PutNext(&rblob{id: 2}, nil)
	require.Equal(t, 0, liveOf(w), "the next PutNext releases it")
	runtime.KeepAlive(q)
	_ = got
}
