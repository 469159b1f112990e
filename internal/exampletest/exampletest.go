package exampletest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// DataRace explores build under opts and returns the result and the data
// race the explorer must report. It skips the test without -tags
// schedcheck, fails it if the exploration errs or its failure is anything
// but a DataRaceError, and logs the failure with the execution count.
func DataRace(t testing.TB, opts explore.Options, build func() explore.Run) (explore.Result, *explore.DataRaceError) {
	t.Helper()
	res, err := explore.Explore(opts, build)
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip("needs -tags schedcheck")
	}
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	var dr *explore.DataRaceError
	require.True(t, errors.As(res.Failure.Err, &dr), "%v", res.Failure.Err)
	t.Logf("%d executions\n%s", res.Executions, res.Failure)
	return res, dr
}

// Value is a queue's element type in ProducersAndConsumer.
type Value interface{ ~int | ~uint64 }

// ProducersAndConsumer builds the queues' scenario on a queue newQueue
// makes, named "q": T0 and T1 enqueue 1 and 2 (enq) while T2 dequeues
// (deq): once when take is 0, or else until it has take values, yielding
// (atomicx.Sleep(0)) whenever it finds the queue empty. The check drains
// the rest: each value must come out exactly once, and no other value.
func ProducersAndConsumer[Q any, V Value](newQueue func() Q, enq func(Q, V), deq func(Q) (V, bool), take int) func() explore.Run {
	return func() explore.Run {
		q := newQueue()
		explore.Name(q, "q")
		var got []V
		consume := func() {
			if take == 0 {
				if v, ok := deq(q); ok {
					got = append(got, v)
				}
				return
			}
			for len(got) < take {
				if v, ok := deq(q); ok {
					got = append(got, v)
				} else {
					atomicx.Sleep(0) // empty: let a producer run
				}
			}
		}
		return explore.Run{
			Threads: []func(){func() { enq(q, 1) }, func() { enq(q, 2) }, consume},
			Check: func() error {
				all := slices.Clone(got)
				for v, ok := deq(q); ok; v, ok = deq(q) {
					all = append(all, v)
				}
				slices.Sort(all)
				if !slices.Equal(all, []V{1, 2}) {
					return fmt.Errorf("T2 dequeued %v, then the queue drained to %v: want 1 and 2 once each", got, all)
				}
				return nil
			},
		}
	}
}
