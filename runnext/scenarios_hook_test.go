//go:build schedcheck

package runnext_test

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/runnext"
)

// interposer is an atomicx hook that pins one interleaving without the
// explorer: the first time the code under test is about to do one of ops on
// the cell at addr, it runs f to the end first, on the same goroutine (f's
// own accesses pass through: the interposer is disarmed by then). Every
// other access goes ahead as in a normal build.
type interposer struct {
	addr  uintptr
	ops   []atomicx.Op
	f     func()
	armed atomic.Bool
	fired atomic.Bool
}

func (h *interposer) Before(op atomicx.Op, addr uintptr) {
	if addr == h.addr && slices.Contains(h.ops, op) && h.armed.CompareAndSwap(true, false) {
		h.f()
		h.fired.Store(true)
	}
}

func (h *interposer) After(atomicx.Op, uintptr, uint64) {}

func (h *interposer) Wait(atomicx.Op, uintptr, func() bool, time.Duration) (int64, bool) {
	return 0, false // blocking and the clock: the real thing
}

// interpose runs body with f pinned before body's first access of one of
// ops to the cell at addr, and fails if that access never came (a scenario
// that no longer pins what it claims to).
func interpose(addr uintptr, ops []atomicx.Op, f func(), body func() error) error {
	h := &interposer{addr: addr, ops: ops, f: f}
	h.armed.Store(true)
	restore := atomicx.SetHook(h)
	err := body()
	restore()
	if !h.fired.Load() {
		return errors.New("the pinned access never came: the scenario no longer fits the code")
	}
	return err
}

var hookScenarios = []xscenario{
	{"a thief's CAS between the owner's load and its take", "TakeWithoutCAS", func(*testing.T) error {
		var q runnext.Queue[int]
		q.SetStealDelay(0) // the thief takes at once: no real sleeping
		a := item(1)
		q.PutNext(a, nil)
		var stolen *int
		var got *int
		err := interpose(runnext.VersionAddr(&q), []atomicx.Op{atomicx.OpCAS, atomicx.OpStore},
			func() { var thief runnext.Queue[int]; stolen = q.StealHalf(&thief, true) },
			func() error { got, _ = q.Get(); return nil })
		if err != nil {
			return err
		}
		if stolen != a || got != nil {
			return fmt.Errorf("the thief stole task %d and the owner's Get returned task %d: want task 1 to the thief alone", id(stolen), id(got))
		}
		return nil
	}},
	{"a thief as Slot.Put stores the task that displaces another", "PublishBeforeTask", func(*testing.T) error {
		var s runnext.Slot[int]
		s.SetStealDelay(0)
		a, b := item(1), item(2)
		s.Put(a)
		var stolen, displaced *int
		err := interpose(runnext.SlotTaskCellAddr(&s), []atomicx.Op{atomicx.OpStore},
			func() { stolen = s.Steal() }, // between the take of task 1 and the fill of task 2
			func() error { displaced = s.Put(b); return nil })
		if err != nil {
			return err
		}
		if left := s.Take(); displaced != a || stolen != nil || left != b {
			return fmt.Errorf("Put(2) over task 1 displaced task %d, the thief stole task %d, the slot held task %d: want 1, none, 2",
				id(displaced), id(stolen), id(left))
		}
		return nil
	}},
	{"a thief as Slot.Put stores the task of an empty slot", "PublishBeforeTask", func(*testing.T) error {
		var s runnext.Slot[int]
		s.SetStealDelay(0)
		a := item(1)
		var stolen *int
		err := interpose(runnext.SlotTaskCellAddr(&s), []atomicx.Op{atomicx.OpStore},
			func() { stolen = s.Steal() }, // before the fill
			func() error { s.Put(a); return nil })
		if err != nil {
			return err
		}
		if left := s.Take(); stolen != nil || left != a {
			return fmt.Errorf("a thief during Put(1) into an empty slot stole task %d, and the slot held task %d: want none, 1", id(stolen), id(left))
		}
		return nil
	}},
	{"Empty while the owner moves the runnext task into the ring and takes a new one", "EmptyMissesRunnext", func(*testing.T) error {
		var q runnext.Queue[int]
		q.PutNext(item(1), nil)
		var empty bool
		err := interpose(runnext.VersionAddr(&q), []atomicx.Op{atomicx.OpLoad},
			func() { q.PutNext(item(2), nil); q.Get() }, // task 1 to the ring, task 2 in and out of the slot
			func() error { empty = q.Empty(); return nil })
		if err != nil {
			return err
		}
		if empty {
			return errors.New("Empty said true; the queue held task 1 at every instant")
		}
		return nil
	}},
	{"Empty across a Put, a Get, a PutNext and a thief's steal", "SeqBeforePut", emptyAcrossPut},
}

// emptyAcrossPut pins Empty's look across the owner's Put: Empty reads seq
// as the Put begins its ring put (after the seq bump, if the bump comes
// first) and the ring without the task; then the Put ends and the owner
// runs its runnext task; Empty reads the empty slot; then the owner spawns
// a new runnext task and a thief steals the put task, and Empty reads the
// empty ring and seq again. The queue held a task at every instant, so
// Empty must say false: it does only if seq moved after the put it orders.
func emptyAcrossPut(*testing.T) error {
	var q runnext.Queue[int]
	q.PutNext(item(1), nil)
	seq, ver := runnext.SeqAddr(&q), runnext.VersionAddr(&q)
	owner := newGated(func(_ atomicx.Op, addr uintptr) bool { return addr != seq }) // the ring put's first access
	reader := newGated(
		func(_ atomicx.Op, addr uintptr) bool { return addr == ver }, // Empty's look at the slot
		func(atomicx.Op, uintptr) bool { return true })               // its second look at the ring
	h := &gateHook{gs: []*gated{owner, reader}}
	restore := atomicx.SetHook(h)
	defer restore()
	var empty bool
	owner.start(func() { q.Put(item(2), nil) })
	if err := owner.wait("Put's ring put"); err != nil {
		return err
	}
	reader.start(func() { empty = q.Empty() })
	if err := reader.wait("Empty's look at the slot"); err != nil {
		return err
	}
	owner.resume <- struct{}{}
	<-owner.done
	if got, _ := q.Get(); got == nil || *got != 1 {
		return fmt.Errorf("the owner's Get returned task %d, want the runnext task 1", id(got))
	}
	reader.resume <- struct{}{}
	if err := reader.wait("Empty's second look at the ring"); err != nil {
		return err
	}
	q.PutNext(item(3), nil)
	var thief runnext.Queue[int]
	if got := q.StealHalf(&thief, false); got == nil || *got != 2 {
		return fmt.Errorf("the thief stole task %d, want the put task 2", id(got))
	}
	reader.resume <- struct{}{}
	<-reader.done
	if empty {
		return errors.New("Empty said true across a Put, a Get, a PutNext and a steal; the queue held a task at every instant")
	}
	return nil
}

// gated is a goroutine that a gateHook parks at chosen accesses, in
// order: each point is a predicate on the access about to happen; at the
// first that holds the goroutine signals reached and waits for resume.
type gated struct {
	gid     atomic.Uint64
	points  []func(atomicx.Op, uintptr) bool // its goroutine's alone
	reached chan struct{}
	resume  chan struct{}
	done    chan struct{}
}

func newGated(points ...func(atomicx.Op, uintptr) bool) *gated {
	return &gated{points: points, reached: make(chan struct{}), resume: make(chan struct{}), done: make(chan struct{})}
}

// start runs f on a new goroutine, gated.
func (g *gated) start(f func()) {
	go func() {
		defer close(g.done)
		g.gid.Store(goroutineID())
		f()
	}()
}

// wait returns once g is parked at its next point, or an error naming the
// point if g ended first (the scenario no longer fits the code).
func (g *gated) wait(what string) error {
	select {
	case <-g.reached:
		return nil
	case <-g.done:
		return fmt.Errorf("the pinned access (%s) never came: the scenario no longer fits the code", what)
	}
}

// gateHook parks gated goroutines at their points; every other access goes
// ahead as in a normal build.
type gateHook struct{ gs []*gated }

func (h *gateHook) Before(op atomicx.Op, addr uintptr) {
	id := goroutineID()
	for _, g := range h.gs {
		if g.gid.Load() == id && len(g.points) > 0 && g.points[0](op, addr) {
			g.points = g.points[1:]
			g.reached <- struct{}{}
			<-g.resume
			return
		}
	}
}

func (h *gateHook) After(atomicx.Op, uintptr, uint64) {}

func (h *gateHook) Wait(atomicx.Op, uintptr, func() bool, time.Duration) (int64, bool) {
	return 0, false
}

// goroutineID is the calling goroutine's id, from its stack header.
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	n, _ := strconv.ParseUint(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return n
}

// counter is an atomicx hook that counts the operations of some kinds.
type counter struct {
	ops []atomicx.Op
	n   atomic.Int64
}

func (c *counter) Before(op atomicx.Op, _ uintptr) {
	if slices.Contains(c.ops, op) {
		c.n.Add(1)
	}
}
func (c *counter) After(atomicx.Op, uintptr, uint64) {}
func (c *counter) Wait(op atomicx.Op, _ uintptr, _ func() bool, _ time.Duration) (int64, bool) {
	if slices.Contains(c.ops, op) {
		c.n.Add(1)
	}
	return 0, false
}

// clockReads counts the clock reads and sleeps of f.
func clockReads(f func()) int64 {
	c := &counter{ops: []atomicx.Op{atomicx.OpNanotime, atomicx.OpSleep}}
	restore := atomicx.SetHook(c)
	f()
	restore()
	return c.n.Load()
}

// TestOwnerReadsNoClock: the steal delay is the thieves' to wait, so no
// owner method reads the clock or sleeps, whatever the delay; a thief that
// finds a runnext task sleeps it.
func TestOwnerReadsNoClock(t *testing.T) {
	owner := func(q *runnext.Queue[int]) {
		q.Put(item(1), nil)
		q.PutNext(item(2), nil)
		q.PutNext(item(3), nil) // displaces 2
		q.PutBatch(items(4, 3))
		q.Get()
		q.Get()
		q.Drain(nil)
		var s runnext.Slot[int]
		s.Put(item(9))
		s.Put(item(10))
		s.Take()
	}
	var q runnext.Queue[int]
	if n := clockReads(func() { owner(&q) }); n != 0 {
		t.Fatalf("the owner's methods read the clock or slept %d times", n)
	}
	// The count can fail: a thief's wait is counted.
	q.SetStealDelay(time.Nanosecond)
	q.PutNext(item(1), nil)
	var thief runnext.Queue[int]
	if n := clockReads(func() { q.StealHalf(&thief, true) }); n == 0 {
		t.Fatal("the hook counted no sleep in a thief's wait: the check cannot see a clock read")
	}
}

// TestSeqIsOddWhileATaskMoves: while PutNext moves a displaced task from the
// slot to the ring, and while Drain empties the queue, seq is odd, so Empty
// and thieves wait rather than see the task in neither place.
func TestSeqIsOddWhileATaskMoves(t *testing.T) {
	var q runnext.Queue[int]
	q.PutNext(item(1), nil)
	var seen uint64
	err := interpose(runnext.TaskCellAddr(&q), []atomicx.Op{atomicx.OpStore},
		func() { seen = runnext.Seq(&q) }, // as PutNext stores the new task, 1 is in its hands
		func() error { q.PutNext(item(2), nil); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if seen%2 != 1 {
		t.Fatalf("seq = %d while PutNext moved the displaced task: want odd", seen)
	}
	err = interpose(runnext.VersionAddr(&q), []atomicx.Op{atomicx.OpCAS, atomicx.OpStore},
		func() { seen = runnext.Seq(&q) }, // as Drain takes the runnext task, before the ring
		func() error { q.Drain(nil); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if seen%2 != 1 {
		t.Fatalf("seq = %d while Drain emptied the queue: want odd", seen)
	}
	if s := runnext.Seq(&q); s%2 != 0 {
		t.Fatalf("seq = %d after both: want even", s)
	}
}
