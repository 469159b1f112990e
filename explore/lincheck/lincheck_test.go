package lincheck_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/explore/lincheck"
)

// twoLockQueue is Michael and Scott's two-lock queue (PODC 1996): a list
// with a dummy node, enqueuers serialized by tail, dequeuers by head, so
// one of each runs at once. count is its size, kept beside the list:
// enqueue adds one after linking, dequeue takes one after unlinking, each
// outside its lock.
type twoLockQueue struct {
	head, tail     atomicx.Mutex
	first, last    *tlNode // first is the dummy
	count          atomicx.Int64
	lenWithoutLock bool // the seeded bug: Len reads count without the locks
}

type tlNode struct {
	v    int
	next atomicx.Pointer[tlNode]
}

func newTwoLock(broken bool) func() *twoLockQueue {
	return func() *twoLockQueue {
		d := new(tlNode)
		q := &twoLockQueue{first: d, last: d, lenWithoutLock: broken}
		explore.Name(q, "q")
		return q
	}
}

func (q *twoLockQueue) Enqueue(v int) {
	n := &tlNode{v: v}
	q.tail.Lock()
	q.last.next.Store(n)
	q.last = n
	q.tail.Unlock()
	q.count.Add(1)
}

func (q *twoLockQueue) Dequeue() (int, bool) {
	q.head.Lock()
	next := q.first.next.Load()
	if next == nil {
		q.head.Unlock()
		return 0, false
	}
	q.first = next
	q.head.Unlock()
	q.count.Add(-1)
	return next.v, true
}

// Len is the queue's length: under both locks, the count of the nodes
// linked; without them, count, which an enqueue and a dequeue update
// after the fact.
func (q *twoLockQueue) Len() int {
	if q.lenWithoutLock {
		return int(q.count.Load())
	}
	q.head.Lock()
	q.tail.Lock()
	n := 0
	for p := q.first.next.Load(); p != nil; p = p.next.Load() {
		n++
	}
	q.tail.Unlock()
	q.head.Unlock()
	return n
}

// deqResult is a dequeue's result.
type deqResult struct {
	V  int
	OK bool
}

// queueModel is a FIFO queue: a slice, copied on every change.
var queueModel = lincheck.Model[[]int]{Init: func() []int { return nil }}

func queueOps[Q interface {
	Enqueue(int)
	Dequeue() (int, bool)
}]() []lincheck.Op[Q, []int] {
	return []lincheck.Op[Q, []int]{
		{Name: "enq", Arg: true,
			Run:  func(q Q, v int) any { q.Enqueue(v); return nil },
			Step: func(s []int, v int) ([]int, any) { return append(slices.Clip(s), v), nil }},
		{Name: "deq",
			Run: func(q Q, _ int) any { v, ok := q.Dequeue(); return deqResult{v, ok} },
			Step: func(s []int, _ int) ([]int, any) {
				if len(s) == 0 {
					return s, deqResult{}
				}
				return s[1:], deqResult{s[0], true}
			}},
	}
}

func twoLockOps() []lincheck.Op[*twoLockQueue, []int] {
	return append(queueOps[*twoLockQueue](), lincheck.Op[*twoLockQueue, []int]{Name: "len",
		Run:  func(q *twoLockQueue, _ int) any { return q.Len() },
		Step: func(s []int, _ int) ([]int, any) { return s, len(s) }})
}

var linOpts = lincheck.Options{Threads: 2, OpsPerThread: 3, Seeds: 8}

// TestCorrectQueuePasses: the two-lock queue with Len under its locks is
// linearizable in every explored history of every scenario.
func TestCorrectQueuePasses(t *testing.T) {
	res := lincheck.Check(t, linOpts, queueModel, newTwoLock(false), twoLockOps()...)
	assert.Positive(t, res.Histories)
	assert.True(t, res.Complete)
}

// TestFindsTheTwoLockQueueWithAnUnlockedSize: with Len reading the count
// without the locks, a dequeue can take a node an enqueue linked and not
// yet counted, and Len is off by one (-1, or 1 once the queue is seen
// empty); found from the model alone, with no invariant about the count,
// and shrunk to the calls it needs.
func TestFindsTheTwoLockQueueWithAnUnlockedSize(t *testing.T) {
	f := lincheck.CheckFails(t, linOpts, queueModel, newTwoLock(true), twoLockOps()...)
	require.ErrorIs(t, f.Err, lincheck.ErrNotLinearizable)
	assert.LessOrEqual(t, f.Calls, 4, f.Scenario)
	report := f.String()
	assert.Contains(t, report, " len = ")
	assert.Contains(t, report, "lincheck_test.go:", "steps carry their file:line")
}

// TestAcceptingEveryHistoryMissesTheBug: the broken checker (every history
// accepted) finds nothing on the buggy queue: what catches them is the
// model check, not the exploration. (The examples' buggy variants are
// caught the same way: examples/*/lin_test.go.)
func TestAcceptingEveryHistoryMissesTheBug(t *testing.T) {
	explore.SkipWithoutSchedcheck(t)
	defer lincheck.SetAcceptAll(true)()
	res, err := lincheck.Run(linOpts, queueModel, newTwoLock(true), twoLockOps()...)
	require.NoError(t, err)
	assert.Nil(t, res.Failure)
	assert.Positive(t, res.Histories)
}

// TestFailureIsShrunkAndReplays: the failure is a scenario no call of
// which can go (each removal was tried), and SCHEDKIT_REPLAY with its key
// runs that scenario's schedule alone, failing the same way.
func TestFailureIsShrunkAndReplays(t *testing.T) {
	explore.SkipWithoutSchedcheck(t)
	o := linOpts
	o.Name = "shrink"
	res, err := lincheck.Run(o, queueModel, newTwoLock(true), twoLockOps()...)
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	f := res.Failure
	assert.True(t, strings.HasPrefix(f.Name, "shrink/"+f.Scenario), f.Name)

	t.Setenv(explore.ReplayEnv, f.ReplayKey())
	again, err := lincheck.Run(o, queueModel, newTwoLock(true), twoLockOps()...)
	require.NoError(t, err)
	require.NotNil(t, again.Failure)
	assert.Equal(t, f.Scenario, again.Failure.Scenario)
	assert.Equal(t, f.Schedule, again.Failure.Schedule)
	assert.Equal(t, 1, again.Scenarios)
}

// TestBadOptions: bad options and operations are refused.
func TestBadOptions(t *testing.T) {
	explore.SkipWithoutSchedcheck(t)
	_, err := lincheck.Run(lincheck.Options{Threads: 9}, queueModel, newTwoLock(false), twoLockOps()...)
	assert.ErrorContains(t, err, "Threads 1 to 8")
	_, err = lincheck.Run(lincheck.Options{}, queueModel, newTwoLock(false))
	assert.ErrorContains(t, err, "at least one Op")
	bad := twoLockOps()
	bad[0].Name = "en q"
	_, err = lincheck.Run(lincheck.Options{}, queueModel, newTwoLock(false), bad...)
	assert.ErrorContains(t, err, "Name of letters")
	both := twoLockOps()
	both[0].Accept = func(s []int, _ int, _ any) ([]int, bool) { return s, true }
	_, err = lincheck.Run(lincheck.Options{}, queueModel, newTwoLock(false), both...)
	assert.ErrorContains(t, err, "one of Step and Accept")
	owners := twoLockOps()
	for i := range owners {
		owners[i].Owner = true
	}
	_, err = lincheck.Run(lincheck.Options{}, queueModel, newTwoLock(false), owners...)
	assert.ErrorContains(t, err, "every Op is Owner")
}

// TestOwnerOperationsStayOnThreadZero: an operation marked Owner is drawn
// for thread 0 alone, in every scenario of every seed.
func TestOwnerOperationsStayOnThreadZero(t *testing.T) {
	explore.SkipWithoutSchedcheck(t)
	var wrong, owned int
	onThread := func() int { th, _, _ := explore.Position(); return th }
	ops := append(twoLockOps(), lincheck.Op[*twoLockQueue, []int]{Name: "own", Owner: true,
		Run: func(q *twoLockQueue, _ int) any {
			owned++
			if onThread() != 0 {
				wrong++
			}
			return q.Len()
		},
		Step: func(s []int, _ int) ([]int, any) { return s, len(s) }})
	res, err := lincheck.Run(lincheck.Options{Threads: 3, OpsPerThread: 2, Seeds: 8, Explore: explore.Options{Bound: explore.NoPreemption}}, queueModel, newTwoLock(false), ops...)
	require.NoError(t, err)
	assert.Nil(t, res.Failure)
	assert.Positive(t, owned, "some scenario calls the owner's operation")
	assert.Zero(t, wrong, "an owner's operation ran on another thread")
}

// TestOutOfTimeIsInconclusive: a run whose Deadline passes stops with
// Result.Incomplete, not a Failure: no bug was shown.
func TestOutOfTimeIsInconclusive(t *testing.T) {
	explore.SkipWithoutSchedcheck(t)
	o := linOpts
	o.Deadline = time.Nanosecond
	o.Explore = explore.Options{Bound: explore.Unbounded}
	res, err := lincheck.Run(o, queueModel, newTwoLock(false), twoLockOps()...)
	require.NoError(t, err)
	assert.Nil(t, res.Failure)
	require.NotNil(t, res.Incomplete)
	assert.ErrorIs(t, res.Incomplete.Err, explore.ErrDeadline)
}
