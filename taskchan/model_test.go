package taskchan_test

import (
	"bytes"
	"fmt"
	"maps"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/taskchan"
)

// Bar item 2: a rapid state machine of a task channel against a real Go
// channel as the sequential model. Every operation (Send, Recv, a select
// receiving or sending, TrySend, TryRecv, Close, Len) runs on both, each
// operation of the task channel from a task or from an outside goroutine
// (drawn), each of the Go channel's on a goroutine of its own. After each
// step both sides are let settle: every operation has either returned or
// is blocked (a Go channel's goroutine in state "chan send", "chan
// receive" or "select"; a task channel's operation has started a wait that
// nobody has readied, counted by the hooks of export_test.go), and then
// the operations that have returned, with what they returned or panicked
// with, must be the same on both, and so must Len. The selects have one
// live case (the other is on a channel nobody sends to), so the model's
// choice is never random; the waiters of the never-ready channel must be
// exactly the selects still blocked (a select that returned left none).
// Blocking operations are capped at 3 outstanding. At the end both
// channels are closed, which must release every operation alike.

// modelOp is one operation of the state machine.
type modelOp uint8

const (
	mSend modelOp = iota
	mRecv
	mSelectRecv
	mSelectSend
	mTrySend
	mTryRecv
	mClose
	nModelOps
)

var modelOpNames = [...]string{"Send", "Recv", "SelectRecv", "SelectSend", "TrySend", "TryRecv", "Close"}

func (o modelOp) blocking() bool { return o <= mSelectSend }

// chanModel is one case: the task channel c (and d, never sent on) beside
// the Go channel gc (and gd).
type chanModel struct {
	e      *executor.Executor
	c, d   *taskchan.Chan[int]
	gc, gd chan int
	cap    int
	closed bool

	waits, readies *atomic.Int64
	next           int           // the next op id, also the value a send sends
	real, model    []chan string // per op: its result, once
	modelGID       []int64       // per op: the model goroutine's id
	realRes        map[int]string
	modelRes       map[int]string
	selects        map[int]bool // ops that are selects
	kinds          []modelOp    // per op
	ops            []string     // the program so far, for the failure message
}

// resultOf runs f, returning what it returned or "panic: " and what it
// panicked with.
func resultOf(f func() string) (r string) {
	defer func() {
		if p := recover(); p != nil {
			r = fmt.Sprint("panic: ", p)
		}
	}()
	return f()
}

// realOp is op on the task channel for task t (the zero Task: outside).
func realOp(c, d *taskchan.Chan[int], op modelOp, v int, t executor.Task) string {
	switch op {
	case mSend:
		c.Send(t, v)
		return "sent"
	case mRecv:
		x, ok := c.Recv(t)
		return fmt.Sprint("recv ", x, ok)
	case mSelectRecv:
		var x int
		i, ok := taskchan.Select(t, c.RecvCase(&x), d.RecvCase(&x))
		return fmt.Sprint("select ", i, x, ok)
	case mSelectSend:
		i, _ := taskchan.Select(t, c.SendCase(v), d.RecvCase(nil))
		return fmt.Sprint("select ", i)
	case mTrySend:
		return fmt.Sprint("trysend ", c.TrySend(v))
	case mTryRecv:
		x, ok, ready := c.TryRecv()
		return fmt.Sprint("tryrecv ", x, ok, ready)
	case mClose:
		c.Close()
		return "closed"
	}
	panic("unknown op")
}

// goOp is op on the Go channel.
func goOp(gc, gd chan int, op modelOp, v int) string {
	switch op {
	case mSend:
		gc <- v
		return "sent"
	case mRecv:
		x, ok := <-gc
		return fmt.Sprint("recv ", x, ok)
	case mSelectRecv:
		select {
		case x, ok := <-gc:
			return fmt.Sprint("select ", 0, x, ok)
		case x, ok := <-gd:
			return fmt.Sprint("select ", 1, x, ok)
		}
	case mSelectSend:
		select {
		case gc <- v:
			return fmt.Sprint("select ", 0)
		case <-gd:
			return fmt.Sprint("select ", 1)
		}
	case mTrySend:
		select {
		case gc <- v:
			return "trysend true"
		default:
			return "trysend false"
		}
	case mTryRecv:
		select {
		case x, ok := <-gc:
			return fmt.Sprint("tryrecv ", x, ok, true)
		default:
			return "tryrecv 0 false false"
		}
	case mClose:
		close(gc)
		return "closed"
	}
	panic("unknown op")
}

// goid is the calling goroutine's id, from its stack's header.
func goid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	n, _ := strconv.ParseInt(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return n
}

// start runs op on both sides; onTask picks a task for the task channel's.
func (m *chanModel) start(op modelOp, onTask bool) {
	id, v := m.next, m.next
	m.next++
	m.kinds = append(m.kinds, op)
	m.ops = append(m.ops, fmt.Sprintf("%d:%s(%d) task=%v", id, modelOpNames[op], v, onTask))
	if op == mSelectRecv || op == mSelectSend {
		m.selects[id] = true
	}
	realDone, modelDone := make(chan string, 1), make(chan string, 1)
	m.real, m.model = append(m.real, realDone), append(m.model, modelDone)
	c, d, gc, gd := m.c, m.d, m.gc, m.gd
	gid := make(chan int64)
	go func() {
		gid <- goid()
		modelDone <- resultOf(func() string { return goOp(gc, gd, op, v) })
	}()
	m.modelGID = append(m.modelGID, <-gid)
	if onTask {
		if err := m.e.Go(func(t executor.Task) {
			realDone <- resultOf(func() string { return realOp(c, d, op, v, t) })
		}); err != nil {
			panic(err)
		}
	} else {
		go func() { realDone <- resultOf(func() string { return realOp(c, d, op, v, executor.Task{}) }) }()
	}
}

// blockedGoroutines returns the ids of the goroutines blocked in a channel
// operation or a select.
func blockedGoroutines() map[int64]bool {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	blocked := map[int64]bool{}
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		var id int64
		var state string
		header, _, _ := bytes.Cut(g, []byte("\n"))
		if _, err := fmt.Sscanf(string(header), "goroutine %d [", &id); err != nil {
			continue
		}
		_, rest, _ := bytes.Cut(header, []byte("["))
		state, _, _ = strings0(rest)
		switch state {
		case "chan send", "chan receive", "select":
			blocked[id] = true
		}
	}
	return blocked
}

// strings0 cuts a goroutine header's state at its first ',' or ']'.
func strings0(b []byte) (state string, rest []byte, ok bool) {
	i := bytes.IndexAny(b, ",]")
	if i < 0 {
		return "", nil, false
	}
	return string(b[:i]), b[i:], true
}

// settle waits until every operation has returned or is blocked, on both
// sides, and collects the results. A side that does not settle within a
// minute (it never does on the real code: a blocked operation's wait is
// counted, a readied one returns) fails the case.
func (m *chanModel) settle(t *rapid.T) {
	deadline := time.Now().Add(time.Minute)
	for {
		for id, ch := range m.model {
			select {
			case r := <-ch:
				m.modelRes[id] = r
			default:
			}
		}
		if len(m.modelRes) == len(m.model) {
			break
		}
		blocked := blockedGoroutines()
		all := true
		for id := range m.model {
			if _, done := m.modelRes[id]; !done && !blocked[m.modelGID[id]] {
				all = false
			}
		}
		if all {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Go channel's operations did not settle: %v", m.ops)
		}
		runtime.Gosched()
	}
	for {
		for id, ch := range m.real {
			select {
			case r := <-ch:
				m.realRes[id] = r
			default:
			}
		}
		if int64(len(m.realRes))+m.waits.Load()-m.readies.Load() == int64(len(m.real)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task channel's operations did not settle: %d returned, %d waits, %d readies of %d; program %v",
				len(m.realRes), m.waits.Load(), m.readies.Load(), len(m.real), m.ops)
		}
		runtime.Gosched()
		time.Sleep(10 * time.Microsecond)
	}
}

// check compares what has returned on both sides, Len, and the waiters.
func (m *chanModel) check(t *rapid.T, step string) {
	m.settle(t)
	if !maps.Equal(m.realRes, m.modelRes) {
		var diff []string
		for id := range m.next {
			r, rok := m.realRes[id]
			g, gok := m.modelRes[id]
			if r != g || rok != gok {
				if !rok {
					r = "(blocked)"
				}
				if !gok {
					g = "(blocked)"
				}
				diff = append(diff, fmt.Sprintf("op %d: task channel %q, Go channel %q", id, r, g))
			}
		}
		t.Fatalf("after %s the results differ: %v; program %v", step, diff, m.ops)
	}
	if err := m.c.CheckInvariants(); err != nil {
		t.Fatalf("after %s: %v; program %v", step, err, m.ops)
	}
	if n, gn := m.c.Len(), len(m.gc); n != gn {
		t.Fatalf("after %s Len is %d, the Go channel's %d; program %v", step, n, gn, m.ops)
	}
	blockedSelects := 0
	for id := range m.selects {
		if _, done := m.modelRes[id]; !done {
			blockedSelects++
		}
	}
	if s, r := m.d.Waiting(); s != 0 || r != blockedSelects {
		t.Fatalf("after %s the never-ready channel queues %d receivers (%d senders), want the %d selects blocked; program %v",
			step, r, s, blockedSelects, m.ops)
	}
}

func (m *chanModel) blocked() int { return len(m.model) - len(m.modelRes) }

// blockedSenders counts the sends and select sends the model has blocked.
func (m *chanModel) blockedSenders() int {
	n := 0
	for id, op := range m.kinds {
		if _, done := m.modelRes[id]; !done && (op == mSend || op == mSelectSend) {
			n++
		}
	}
	return n
}

// checkChanModel is the property: one case of the state machine.
func checkChanModel(t *rapid.T, e *executor.Executor, waits, readies *atomic.Int64) {
	capacity := rapid.IntRange(0, 3).Draw(t, "cap")
	waits.Store(0)
	readies.Store(0)
	m := &chanModel{
		e: e, c: taskchan.Make[int](capacity), d: taskchan.Make[int](0),
		gc: make(chan int, capacity), gd: make(chan int), cap: capacity,
		waits: waits, readies: readies,
		realRes: map[int]string{}, modelRes: map[int]string{}, selects: map[int]bool{},
	}
	steps := rapid.IntRange(1, 12).Draw(t, "steps")
	for k := range steps {
		op := modelOp(rapid.IntRange(0, int(nModelOps)-1).Draw(t, "op"))
		if op.blocking() && m.blocked() >= 3 {
			op = mTryRecv
		}
		if op == mClose && m.closed {
			op = mTrySend // a second close is TestMisusePanicsAsGo's
		}
		if op == mClose && raceBuild && m.blockedSenders() > 0 {
			op = mTryRecv // see raceBuild
		}
		if op == mClose {
			m.closed = true
		}
		m.start(op, rapid.Bool().Draw(t, "task"))
		m.check(t, fmt.Sprint("step ", k))
	}
	// Close both (c first, so a blocked select fires on it on both sides):
	// every operation must end alike.
	for k := 0; raceBuild && !m.closed && m.blockedSenders() > 0 && k < 8; k++ {
		m.start(mTryRecv, false)
		m.check(t, "a receive before the final close")
	}
	if !m.closed {
		m.start(mClose, false)
		m.check(t, "the final close")
	}
	m.c, m.gc = m.d, m.gd
	m.start(mClose, false)
	m.check(t, "the close of the never-ready channel")
	if m.blocked() != 0 {
		t.Fatalf("after the final closes %d operations are still blocked; program %v", m.blocked(), m.ops)
	}
}

// withModelHarness runs f with an executor of 2 Ps and the wait counting
// hooks, then closes the executor if f passed (ok): a failing case may
// leave tasks parked for ever, which Close would wait for.
func withModelHarness(t testing.TB, f func(e *executor.Executor, waits, readies *atomic.Int64) (ok bool)) {
	e, err := executor.New(executor.Config{Procs: 2})
	if err != nil {
		t.Fatal(err)
	}
	var waits, readies atomic.Int64
	defer taskchan.SetHooks(func(bool) { waits.Add(1) }, func() { readies.Add(1) })()
	if !f(e, &waits, &readies) {
		return
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestChanModel(t *testing.T) {
	cases := 0
	withModelHarness(t, func(e *executor.Executor, waits, readies *atomic.Int64) bool {
		rapid.Check(t, func(rt *rapid.T) { cases++; checkChanModel(rt, e, waits, readies) })
		return !t.Failed()
	})
	t.Logf("taskchan model: %d checks passed", cases)
}

// TestChanModelCatches proves the model can fail: it is the kill matrix's
// model column on SetMutation's seeded faults (killmatrix_test.go); here,
// a broken Go-side expectation (the Go channel one bigger than the task
// channel) must be reported.
func TestChanModelCatches(t *testing.T) {
	withModelHarness(t, func(e *executor.Executor, waits, readies *atomic.Int64) bool {
		first, err := killmatrix.ModelCatch(t, func(rt *rapid.T) {
			capacity := rapid.IntRange(0, 2).Draw(rt, "cap")
			waits.Store(0)
			readies.Store(0)
			m := &chanModel{
				e: e, c: taskchan.Make[int](capacity), d: taskchan.Make[int](0),
				gc: make(chan int, capacity+1), gd: make(chan int), cap: capacity,
				waits: waits, readies: readies,
				realRes: map[int]string{}, modelRes: map[int]string{}, selects: map[int]bool{},
			}
			for k := range 4 {
				m.start(mTrySend, rapid.Bool().Draw(rt, "task"))
				m.check(rt, fmt.Sprint("step ", k))
			}
			m.start(mClose, false)
			m.check(rt, "the final close")
		}, "the results differ")
		if err != nil {
			t.Fatal(err)
		}
		t.Log(first)
		return true
	})
}
