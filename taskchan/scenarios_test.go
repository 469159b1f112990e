package taskchan_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/taskchan"
)

// The fixed scenarios: each builds one shape a seeded mutant breaks, with
// the waits on queued waiters (Waiting) instead of the clock, so the
// verdict on given code is the same on every run (a kill matrix column
// that counts). Targets names the mutants of mutation.go each is aimed at.

type scenario = killmatrix.Scenario

func runScenarios(t testing.TB) error { return killmatrix.RunScenarios(t, scenarios) }

func TestScenarios(t *testing.T) { killmatrix.TestScenarios(t, scenarios) }

var scenarios = []scenario{
	{Name: "select-dequeues-on-wake", Targets: "SelectLeavesStaleWaiter", Run: scenarioSelectDequeues},
	{Name: "select-fires-once", Targets: "SelectNoDoneCAS", Run: scenarioSelectFiresOnce},
	{Name: "close-releases-senders", Targets: "CloseSkipsSenders", Run: scenarioCloseReleasesSenders},
	{Name: "recv-takes-parked-sender", Targets: "RecvFullSkipsSender", Run: scenarioRecvTakesParkedSender},
	{Name: "send-hands-value", Targets: "SendWakesWithoutHandoff", Run: scenarioSendHandsValue},
	{Name: "waiters-fifo", Targets: "WaitqLIFO", Run: scenarioWaitersFIFO},
	{Name: "select-lock-order", Targets: "SelectLocksInCaseOrder", Run: scenarioSelectLockOrder},
}

// scenarioSelectLockOrder: a select locks its channels in one global
// order (by id), whatever its case order, each channel once.
func scenarioSelectLockOrder() error {
	a, b := taskchan.Make[int](0), taskchan.Make[string](0)
	if a.ID() >= b.ID() {
		return fmt.Errorf("ids %d, %d: want them in the order made", a.ID(), b.ID())
	}
	got := taskchan.LockOrder(b.RecvCase(nil), a.SendCase(1), b.SendCase("x"))
	if want := []uint64{a.ID(), b.ID(), b.ID()}; fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("a select of cases on b, a, b locks %v, want %v (by id)", got, want)
	}
	return nil
}

// outside runs f on a goroutine that is not a task and returns a channel
// that gets what it panicked with (nil if nothing) when it is done.
func outside(f func()) <-chan any {
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		f()
	}()
	return done
}

// scenarioSelectDequeues: a select parked on a and b, woken by a send on
// a, must have taken its waiter off b when it returns.
func scenarioSelectDequeues() error {
	a, b := taskchan.Make[int](0), taskchan.Make[int](0)
	var v int
	done := outside(func() { taskchan.Select(executor.Task{}, a.RecvCase(&v), b.RecvCase(&v)) })
	waitUntil(func() bool { return receivers(a) == 1 && receivers(b) == 1 })
	a.Send(executor.Task{}, 1)
	if r := <-done; r != nil {
		return fmt.Errorf("select panicked: %v", r)
	}
	if n := receivers(b); n != 0 {
		return fmt.Errorf("after the select returned, b still queues %d receiver(s): a stale waiter", n)
	}
	return nil
}

// scenarioSelectFiresOnce: on one P (so the select's task, readied into
// the sender's runnext, cannot run before the sender is done) and a slice
// of a minute (so sysmon does not hand the P over), task A parks in a
// select on a and b; task B sends on a, which fires the select, then tries
// b, whose waiter of the fired select must be skipped: TrySend finds no
// receiver. A second firing would be a second Ready of one park.
func scenarioSelectFiresOnce() (err error) {
	e, err := executor.New(executor.Config{Procs: 1, Slice: executor.MaxSlice})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := e.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	a, b := taskchan.Make[int](0), taskchan.Make[int](0)
	res := make(chan string, 2)
	if err := e.Go(func(t executor.Task) {
		defer func() {
			if r := recover(); r != nil {
				res <- fmt.Sprint("A panicked: ", r)
			}
		}()
		var v int
		i, _ := taskchan.Select(t, a.RecvCase(&v), b.RecvCase(&v))
		res <- fmt.Sprintf("A chose %d, got %d", i, v)
	}); err != nil {
		return err
	}
	waitUntil(func() bool { return receivers(a) == 1 && receivers(b) == 1 })
	if err := e.Go(func(t executor.Task) {
		defer func() {
			if r := recover(); r != nil {
				res <- fmt.Sprint("B panicked: ", r)
			}
		}()
		a.Send(t, 1)
		if b.TrySend(2) {
			res <- "B: TrySend on b found a receiver: the fired select's stale waiter"
			return
		}
		res <- "B done"
	}); err != nil {
		return err
	}
	got := map[string]bool{<-res: true, <-res: true}
	if !got["A chose 0, got 1"] || !got["B done"] {
		return fmt.Errorf("want A to get a's 1 and B to find b empty; got %v", got)
	}
	return nil
}

// scenarioCloseReleasesSenders: a close must release a parked sender
// (which then panics) and leave no waiter on the channel.
func scenarioCloseReleasesSenders() error {
	c := taskchan.Make[int](0)
	done := outside(func() { c.Send(executor.Task{}, 1) })
	waitUntil(func() bool { return senders(c) == 1 })
	c.Close()
	if s, r := c.Waiting(); s+r != 0 {
		// The sender stays blocked (only the mutant's cell gets here).
		return fmt.Errorf("after Close the channel still queues %d sender(s), %d receiver(s)", s, r)
	}
	if r := <-done; panicText(r) != "send on closed channel" {
		return fmt.Errorf("the parked sender got %q from the close, want the send-on-closed panic", panicText(r))
	}
	return nil
}

// scenarioRecvTakesParkedSender: a receive that finds a sender parked
// takes its value (unbuffered), or the buffer's head while the sender's
// value joins the tail (buffered, full).
func scenarioRecvTakesParkedSender() error {
	c := taskchan.Make[int](0)
	done := outside(func() { c.Send(executor.Task{}, 1) })
	waitUntil(func() bool { return senders(c) == 1 })
	v, ok, ready := c.TryRecv()
	if !ready || !ok || v != 1 {
		c.Close() // release the sender
		<-done
		return fmt.Errorf("TryRecv with a sender parked on an unbuffered channel gave (%d, %v, ready %v), want (1, true, true)", v, ok, ready)
	}
	<-done

	c = taskchan.Make[int](1)
	c.Send(executor.Task{}, 1)
	done = outside(func() { c.Send(executor.Task{}, 2) })
	waitUntil(func() bool { return senders(c) == 1 })
	v, ok = c.Recv(executor.Task{})
	if n := c.Len(); v != 1 || !ok || n != 1 || senders(c) != 0 {
		_, _, _ = c.TryRecv()
		c.Close()
		<-done
		return fmt.Errorf("Recv of a full buffer with a sender parked gave (%d, %v) and left Len %d, want (1, true) and the sender's value buffered", v, ok, n)
	}
	<-done
	return nil
}

// scenarioSendHandsValue: a send that finds a receiver parked puts its
// value in the receiver's hands.
func scenarioSendHandsValue() error {
	c := taskchan.Make[int](0)
	var v int
	var ok bool
	done := outside(func() { v, ok = c.Recv(executor.Task{}) })
	waitUntil(func() bool { return receivers(c) == 1 })
	if !c.TrySend(7) {
		c.Close()
		<-done
		return errors.New("TrySend found no receiver with one parked")
	}
	<-done
	if v != 7 || !ok {
		return fmt.Errorf("the parked receiver got (%d, %v), want (7, true)", v, ok)
	}
	return nil
}

// scenarioWaitersFIFO: receivers parked one after another get the values
// in the order they parked.
func scenarioWaitersFIFO() error {
	c := taskchan.Make[int](0)
	got := make([]int, 3)
	var dones []<-chan any
	for i := range 3 {
		dones = append(dones, outside(func() { got[i], _ = c.Recv(executor.Task{}) }))
		waitUntil(func() bool { return receivers(c) == i+1 })
	}
	for i := range 3 {
		c.Send(executor.Task{}, i)
	}
	for _, d := range dones {
		<-d
	}
	if got[0] != 0 || got[1] != 1 || got[2] != 2 {
		return fmt.Errorf("receivers parked in order 0, 1, 2 got %v, want [0 1 2]", got)
	}
	return nil
}
