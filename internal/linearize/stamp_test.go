package linearize_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/linearize"
)

// Where a call is stamped decides what porcupine may accept. Under the
// explorer a thread runs alone up to its first scheduling point before the
// first step, so a stamp that is not itself a scheduling point (the old
// Begin: a plain sync/atomic add) gives every thread's first call a stamp
// from before anything happened. A thread with one operation then overlaps
// every other operation of the execution, and porcupine may linearize its
// result at the very start: a stale result passes. These tests run a queue
// whose consumer returns such a stale result through both stampings and
// require that only the old one lets it through.

// spsc is a single-producer, single-consumer ring of 4 slots. The consumer
// keeps a copy of the producer's tail so that it need not read the shared
// one on every Deq; the broken variant (refresh false) reports empty from
// that copy without reloading the tail, so an item published after the
// copy was made stays invisible: Deq returns what would only be right had
// it started before the Enq.
type spsc struct {
	head, tail atomicx.Uint32
	cachedTail atomicx.Uint32 // the consumer's copy of tail
	slots      [4]atomicx.Int64
	refresh    bool
}

func (q *spsc) Enq(x int64) bool {
	t := q.tail.Load()
	if t-q.head.Load() == uint32(len(q.slots)) {
		return false
	}
	q.slots[t%uint32(len(q.slots))].Store(x)
	q.tail.Store(t + 1)
	return true
}

func (q *spsc) Deq() (int64, bool) {
	h := q.head.Load()
	if h == q.cachedTail.Load() {
		if !q.refresh {
			return 0, false // trusts the stale copy
		}
		t := q.tail.Load()
		q.cachedTail.Store(t)
		if h == t {
			return 0, false
		}
	}
	x := q.slots[h%uint32(len(q.slots))].Load()
	q.head.Store(h + 1)
	return x, true
}

// stampClient is what a scenario thread records through.
type stampClient interface {
	Begin(input any)
	End(output any)
}

// stamping builds one execution's recorder: the real one, or the old
// stamping kept here to show the difference.
type stamping struct {
	name string
	new  func(name string) (client func(id int) stampClient, check func(porcupine.Model) error)
}

var realStamping = stamping{"stamped where the call happens (linearize.Recorder)", func(name string) (func(int) stampClient, func(porcupine.Model) error) {
	rec := linearize.New(name)
	return func(id int) stampClient { return rec.Client(id) },
		func(m porcupine.Model) error { _, err := rec.Check(m, 10*time.Second); return err }
}}

// earlyRecorder is the old stamping: a plain atomic clock, invisible to the
// explorer, so every thread stamps its first call before the first step.
type earlyRecorder struct {
	clock   atomic.Int64
	clients []*earlyClient
}

type earlyClient struct {
	r   *earlyRecorder
	id  int
	ops []porcupine.Operation
}

func (c *earlyClient) Begin(input any) {
	c.ops = append(c.ops, porcupine.Operation{ClientId: c.id, Input: input, Call: c.r.clock.Add(1)})
}

func (c *earlyClient) End(output any) {
	op := &c.ops[len(c.ops)-1]
	op.Return, op.Output = c.r.clock.Add(1), output
}

var earlyStamping = stamping{"stamped before the first step (the old Begin)", func(name string) (func(int) stampClient, func(porcupine.Model) error) {
	r := &earlyRecorder{}
	return func(id int) stampClient {
			c := &earlyClient{r: r, id: id}
			r.clients = append(r.clients, c)
			return c
		}, func(m porcupine.Model) error {
			var ops []porcupine.Operation
			for _, c := range r.clients {
				ops = append(ops, c.ops...)
			}
			_, err := linearize.CheckOperations(name, m, ops, 10*time.Second)
			return err
		}
}}

// exploreSPSC runs the scenario "the producer enqueues 1; the consumer,
// whose only operation this is, dequeues" under every interleaving and
// returns the exploration's result.
func exploreSPSC(t *testing.T, st stamping, refresh bool, opts explore.Options) explore.Result {
	t.Helper()
	t.Setenv(linearize.DirEnv, t.TempDir())
	res, err := explore.Explore(opts, func() explore.Run {
		q := &spsc{refresh: refresh}
		explore.Name(q, "q")
		client, check := st.new(opts.Name)
		producer, consumer := client(0), client(1)
		return explore.Run{
			Threads: []func(){
				func() {
					producer.Begin(1)
					ok := q.Enq(1)
					producer.End(ok)
				},
				func() {
					consumer.Begin(-1)
					x, ok := q.Deq()
					if !ok {
						x = -1
					}
					consumer.End(int(x))
				},
			},
			Check: func() error { return check(enqDeqModel) },
		}
	})
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip("needs -tags schedcheck: the stamps' places come from the explorer")
	}
	require.NoError(t, err)
	t.Log(res.Summary())
	return res
}

// enqDeqModel is queueModel for this scenario: an Enq's output is whether
// it went in (always, here).
var enqDeqModel = porcupine.Model{
	Init: queueModel.Init,
	Step: func(state, input, output any) (bool, any) {
		if input.(int) >= 0 {
			ok, next := queueModel.Step(state, input, nil)
			return ok && output.(bool), next
		}
		return queueModel.Step(state, input, output)
	},
	Equal: queueModel.Equal,
	DescribeOperation: func(input, output any) string {
		if x := input.(int); x >= 0 {
			return fmt.Sprintf("Enq(%d) -> %v", x, output)
		}
		return fmt.Sprintf("Deq() -> %d", output)
	},
}

// TestStampsCallsWhereTheyHappen is the proof: the broken consumer is
// refused with the real stamping and accepted with the old one, and the
// correct consumer is accepted by both. It fails if Begin goes back to a
// stamp the explorer does not see.
func TestStampsCallsWhereTheyHappen(t *testing.T) {
	unbounded := explore.Options{Bound: explore.Unbounded}
	reduced := explore.Options{Bound: explore.Unbounded, Reduce: true}
	bounded := explore.Options{}

	t.Run("the real stamping refuses the stale Deq", func(t *testing.T) {
		for _, c := range []struct {
			name string
			opts explore.Options
		}{{"unbounded", unbounded}, {"reduced", reduced}, {"bound-2", bounded}} {
			name, opts := c.name, c.opts
			opts.Name = "spsc-stale-" + name
			res := exploreSPSC(t, realStamping, false, opts)
			require.NotNil(t, res.Failure, "%s: every execution of the stale consumer passed", name)
			require.ErrorIs(t, res.Failure.Err, linearize.ErrNotLinearizable, "%s: %v", name, res.Failure)
			// The refuted execution runs the producer's whole Enq before the
			// consumer's Begin.
			assert.Contains(t, res.Failure.String(), "linearize.clock", "the trace names the stamps")
			t.Logf("%s:\n%s", name, res.Failure)
		}
	})
	t.Run("the old stamping accepts the stale Deq", func(t *testing.T) {
		res := exploreSPSC(t, earlyStamping, false, explore.Options{Name: "spsc-stale-early", Bound: explore.Unbounded})
		require.Nil(t, res.Failure, "the old stamping was expected to miss this bug: %v", res.Failure)
		require.True(t, res.Complete)
		require.Greater(t, res.Executions, 1)
	})
	t.Run("both accept the correct consumer", func(t *testing.T) {
		for _, st := range []stamping{realStamping, earlyStamping} {
			res := exploreSPSC(t, st, true, explore.Options{Name: "spsc-correct", Bound: explore.Unbounded})
			require.Nil(t, res.Failure, "%s: %v", st.name, res.Failure)
			require.True(t, res.Complete)
		}
	})
}
