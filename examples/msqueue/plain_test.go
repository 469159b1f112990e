package msqueue

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/explore"
)

// valueAfterLink is Queue with the node's value stored after the CAS that
// links the node: a dequeuer that finds the node reads the value with
// nothing ordering the store before it.
type valueAfterLink struct{ *Queue }

func (q *valueAfterLink) Enqueue(v int) {
	n := new(node)
	for {
		tail := q.tail.Load()
		next := tail.next.Load()
		if tail != q.tail.Load() {
			continue
		}
		if next != nil {
			q.tail.CompareAndSwap(tail, next)
			continue
		}
		if tail.next.CompareAndSwap(nil, n) {
			n.value.Store(v) // the bug: the node is already published
			q.tail.CompareAndSwap(tail, n)
			return
		}
	}
}

// TestValueAfterLinkIsADataRace: the node's value is plain memory, so the
// explorer reports the late store against a dequeuer's read as a data race
// (the correct queue runs race-free in TestQueueKeepsEveryValue).
func TestValueAfterLinkIsADataRace(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "msqueue-value-after-link", Mode: explore.DPOR},
		twoEnqueuersOneDequeuer(func() queue { return &valueAfterLink{New()} }))
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip("needs -tags schedcheck")
	}
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	var dr *explore.DataRaceError
	require.True(t, errors.As(res.Failure.Err, &dr), "%v", res.Failure.Err)
	t.Logf("%d executions\n%s", res.Executions, res.Failure)
}
