package taskchan_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/taskchan"
)

// Bar item 6: histories of one channel, driven by outside goroutines (the
// zero Task: a blocked operation sleeps on its atomicx.Note) and, in every
// other history, by tasks of an executor (a blocked operation parks the
// task, its waker readies it), checked by porcupine against the sequential
// model of a Go channel below.
//
// Each operation is a set of actions it may take, the cases of a select:
// Send is {send}, Recv {recv}, TrySend {send, default}, TryRecv {recv,
// default}, and a Select any of these with or without a default. It takes
// effect at one instant of its call, under the channel's lock, as one of
// them, each enabled only when its sequential precondition holds:
//
//   - send x: the channel is closed (the operation panics), or the buffer
//     has room (x joins its tail);
//   - recv: the buffer holds a value (its head is taken, ok), or the channel
//     is closed and drained (the zero value, ok false);
//   - default: no other case of the operation is enabled;
//   - Close (once), Len (the buffer's length) and Cap.
//
// A blocking operation is thus one whose interval spans every instant at
// which its cases were not enabled: it takes effect at the first that is.
//
// An unbuffered channel is not an object of single atomic operations: a
// send and the receive that takes its value complete each other, and
// neither takes effect alone. Prepare (linHandoffs) merges the two into
// one operation, a handoff, whose interval is the intersection of theirs
// (the channel hands the value over under its lock, at one instant inside
// both), and the model takes a handoff whenever the channel is open. A
// send or a receive left unmerged (one that did not overlap its partner in
// time, a value received that nobody sent, a send whose value nobody got)
// is refuted: no action of an unbuffered channel succeeds alone. So for an
// unbuffered channel the check covers that every value received was sent
// exactly once by a sender in progress at the time, close against both
// (nothing handed over after the close, a receive sees the close only
// after it, a send panics only after it), the try operations' default
// (never on a closed channel) and Len and Cap; what it cannot judge is a
// TrySend's or TryRecv's default beside a partner that was already
// waiting, since the waiters are not part of the model (the explorer and
// the rapid model judge those, and the waiters' FIFO order).
//
// Every identifier of this file but the tests starts with lin.

// linKind names an operation.
type linKind uint8

const (
	linSend linKind = iota
	linRecv
	linTrySend
	linTryRecv
	linSelect
	linClose
	linLen
	linCap
	linHandoff // a send and a receive of an unbuffered channel, merged
)

var linKindNames = [...]string{"Send", "Recv", "TrySend", "TryRecv", "Select", "Close", "Len", "Cap", "Handoff"}

// linCases is an operation's set of actions.
type linCases uint8

const (
	linCaseSend linCases = 1 << iota
	linCaseRecv
	linCaseDefault
	// linCaseOther adds a receive case on a second channel that nobody
	// sends on or closes, so that a blocked select waits on two channels
	// and must take its waiter out of the other when it fires. It is never
	// chosen.
	linCaseOther
)

// linAct is the action an operation took.
type linAct uint8

const (
	linActNone linAct = iota // Close, Len, Cap, Handoff
	linActSend
	linActRecv
	linActDefault
)

var linActNames = [...]string{"", "send", "recv", "default"}

// linInput is an operation's input: its kind, its cases and the value a
// send case sends (unique in the history, never 0, the zero value a
// closed channel gives). A Handoff names the two operations it merges.
type linInput struct {
	kind  linKind
	cases linCases
	x     int
	task  bool // made by a task of the executor
	// Handoff: the kinds and clients of the send and the receive.
	sendKind, recvKind     linKind
	sendClient, recvClient int
}

// linOutput is an operation's output.
type linOutput struct {
	act      linAct
	v        int  // recv: the value
	ok       bool // recv: ok
	panicked bool // send: it panicked, "send on closed channel"
	n        int  // Len, Cap
}

// linState is the model's state. buf is never written once created, so
// states can share backing arrays.
type linState struct {
	buf    []int // the buffered values, oldest first
	closed bool
}

// linStep is the sequential model of a channel of capacity capacity.
func linStep(capacity int) func(state, input, output any) (bool, any) {
	return func(state, input, output any) (bool, any) {
		s, in, out := state.(linState), input.(linInput), output.(linOutput)
		switch in.kind {
		case linClose:
			return !s.closed, linState{buf: s.buf, closed: true} // only one Close is made
		case linLen:
			return out.n == len(s.buf), s
		case linCap:
			return out.n == capacity, s
		case linHandoff:
			return capacity == 0 && !s.closed, s
		}
		has := func(c linCases) bool { return in.cases&c != 0 }
		switch out.act {
		case linActSend:
			switch {
			case !has(linCaseSend):
				return false, s
			case s.closed:
				return out.panicked, s
			case out.panicked || len(s.buf) >= capacity: // unbuffered: a send never succeeds alone
				return false, s
			}
			return true, linState{buf: append(s.buf[:len(s.buf):len(s.buf)], in.x)}
		case linActRecv:
			switch {
			case !has(linCaseRecv):
				return false, s
			case len(s.buf) > 0:
				return out.ok && out.v == s.buf[0], linState{buf: s.buf[1:], closed: s.closed}
			case s.closed:
				return !out.ok && out.v == 0, s
			}
			return false, s // empty and open: a receive never succeeds alone
		case linActDefault:
			if !has(linCaseDefault) {
				return false, s
			}
			// Unbuffered, a send or a receive is enabled only beside a partner
			// the model does not see: the default stands unless closed.
			sendReady := s.closed || len(s.buf) < capacity
			recvReady := s.closed || len(s.buf) > 0
			return !(has(linCaseSend) && sendReady) && !(has(linCaseRecv) && recvReady), s
		}
		return false, s
	}
}

// linModel is the porcupine model of a channel of capacity capacity that
// starts holding init.
func linModel(capacity int, init []int) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return linState{buf: init} },
		Step: linStep(capacity),
		Equal: func(a, b any) bool {
			x, y := a.(linState), b.(linState)
			return x.closed == y.closed && slices.Equal(x.buf, y.buf)
		},
		Hash: func(state any) uint64 {
			s := state.(linState)
			var closed uint64
			if s.closed {
				closed = 1
			}
			return linearize.HashWords([]uint64{closed}, s.buf)
		},
		DescribeOperation: linDescribe,
		DescribeState: func(state any) string {
			s := state.(linState)
			return fmt.Sprintf("cap %d, buffer %s, closed %v", capacity, linearize.DescribeIDs(s.buf), s.closed)
		},
	}
}

func linDescribe(input, output any) string {
	in, out := input.(linInput), output.(linOutput)
	switch in.kind {
	case linClose:
		return "Close()"
	case linLen, linCap:
		return fmt.Sprintf("%s() -> %d", linKindNames[in.kind], out.n)
	case linHandoff:
		return fmt.Sprintf("Handoff(%d): %s by client %d, %s by client %d", in.x,
			linKindNames[in.sendKind], in.sendClient, linKindNames[in.recvKind], in.recvClient)
	}
	var cases []string
	if in.cases&linCaseSend != 0 {
		cases = append(cases, fmt.Sprintf("send %d", in.x))
	}
	if in.cases&linCaseRecv != 0 {
		cases = append(cases, "recv")
	}
	if in.cases&linCaseOther != 0 {
		cases = append(cases, "recv other")
	}
	if in.cases&linCaseDefault != 0 {
		cases = append(cases, "default")
	}
	res := linActNames[out.act]
	switch {
	case out.panicked:
		res += ": panicked"
	case out.act == linActRecv:
		res += fmt.Sprintf(" %d, %v", out.v, out.ok)
	}
	return fmt.Sprintf("%s(%s) -> %s", linKindNames[in.kind], strings.Join(cases, ", "), res)
}

// linHandoffs is the unbuffered channel's Prepare: every send that
// succeeded is merged with the receive that got its value into one
// Handoff, over the intersection of their intervals, if they overlap.
// What it leaves unmerged the model refutes.
func linHandoffs(ops []linearize.Op[linInput, linOutput]) []linearize.Op[linInput, linOutput] {
	recvOf := map[int]int{} // value -> index of the op that received it
	for i, op := range ops {
		if op.Output.act == linActRecv && op.Output.ok {
			if _, dup := recvOf[op.Output.v]; !dup { // a value received twice: the second stays, refuted
				recvOf[op.Output.v] = i
			}
		}
	}
	merged := make([]bool, len(ops))
	var out []linearize.Op[linInput, linOutput]
	for i, op := range ops {
		if op.Output.act != linActSend || op.Output.panicked {
			continue
		}
		j, ok := recvOf[op.Input.x]
		if !ok || merged[j] {
			continue
		}
		r := ops[j]
		call, ret := max(op.Call, r.Call), min(op.Return, r.Return)
		if call >= ret {
			continue // the send returned before the receive began, or after it ended
		}
		merged[i], merged[j] = true, true
		out = append(out, linearize.Op[linInput, linOutput]{
			Client: r.Client,
			Input: linInput{kind: linHandoff, x: op.Input.x, sendKind: op.Input.kind, recvKind: r.Input.kind,
				sendClient: op.Client, recvClient: r.Client, task: op.Input.task || r.Input.task},
			Call: call, Return: ret,
		})
	}
	for i, op := range ops {
		if !merged[i] {
			out = append(out, op)
		}
	}
	slices.SortFunc(out, func(a, b linearize.Op[linInput, linOutput]) int { return int(a.Call - b.Call) })
	return out
}

// linChan is the channel's surface. linReal is the real channel; the broken
// variants below wrap it.
type linChan interface {
	Send(t executor.Task, v int)
	Recv(t executor.Task) (int, bool)
	TrySend(v int) bool
	TryRecv() (v int, ok, ready bool)
	Select(t executor.Task, cases ...taskchan.Case) (int, bool)
	Close()
	Len() int
	Cap() int
	Chan() *taskchan.Chan[int]
}

type linReal struct{ c *taskchan.Chan[int] }

func newLinReal(capacity int) linChan { return linReal{taskchan.Make[int](capacity)} }

func (r linReal) Send(t executor.Task, v int)      { r.c.Send(t, v) }
func (r linReal) Recv(t executor.Task) (int, bool) { return r.c.Recv(t) }
func (r linReal) TrySend(v int) bool               { return r.c.TrySend(v) }
func (r linReal) TryRecv() (int, bool, bool)       { return r.c.TryRecv() }
func (r linReal) Select(t executor.Task, cases ...taskchan.Case) (int, bool) {
	return taskchan.Select(t, cases...)
}
func (r linReal) Close()                    { r.c.Close() }
func (r linReal) Len() int                  { return r.c.Len() }
func (r linReal) Cap() int                  { return r.c.Cap() }
func (r linReal) Chan() *taskchan.Chan[int] { return r.c }

// linTryRecvSecond is broken even without concurrency: a TryRecv that finds
// two values or more returns the second and puts the first back at the
// tail.
type linTryRecvSecond struct{ linReal }

func newLinTryRecvSecond(capacity int) linChan {
	return linTryRecvSecond{linReal{taskchan.Make[int](capacity)}}
}

func (r linTryRecvSecond) TryRecv() (int, bool, bool) {
	if r.c.Len() < 2 {
		return r.c.TryRecv()
	}
	first, _, _ := r.c.TryRecv()
	v, ok, ready := r.c.TryRecv()
	r.c.TrySend(first) // two values were just taken: it fits, unless another sender filled them
	return v, ok, ready
}

// linSendAsync is a broken unbuffered send: it returns at once and leaves
// the send to a goroutine of its own, so a Send may return before any
// receiver took its value (a rendezvous that is not one) and a close may
// make the goroutine's send panic after the Send reported success.
type linSendAsync struct{ linReal }

func newLinSendAsync(capacity int) linChan {
	return linSendAsync{linReal{taskchan.Make[int](capacity)}}
}

func (r linSendAsync) Send(_ executor.Task, v int) {
	go func() {
		defer func() { recover() }() // a close came first: the value is lost
		r.c.Send(executor.Task{}, v)
	}()
}

// linConfig describes a series of histories.
type linConfig struct {
	histories  int
	leadOps    int // the lead's operations per history (non-blocking, and the Close)
	otherOps   int // each other thread's operations per history
	others     int
	capacities []int // each history's capacity is one of them
	seed       uint64
	newChan    func(capacity int) linChan
	// exec, if not nil, runs the others of every odd history as its tasks.
	exec *executor.Executor
}

func linDefaultConfig() linConfig {
	return linConfig{
		histories: linearize.Histories(), leadOps: 40, otherOps: 25, others: 3,
		capacities: []int{0, 1, 3}, seed: rand.Uint64(), newChan: newLinReal,
	}
}

// linStats adds up what the histories exercised.
type linStats struct {
	handoffs, buffered, closedRecvs, panickedSends, defaults, selectSends, selectRecvs, fullTrySends int
	taskOps, taskHandoffs                                                                            int
}

func (st *linStats) String() string {
	return fmt.Sprintf("%d handoffs (unbuffered), %d buffered sends, %d receives of a closed channel, %d sends that panicked, "+
		"%d defaults (%d TrySends of a full buffer), selects that sent %d and received %d; %d operations by tasks (%d handoffs)",
		st.handoffs, st.buffered, st.closedRecvs, st.panickedSends, st.defaults, st.fullTrySends, st.selectSends, st.selectRecvs,
		st.taskOps, st.taskHandoffs)
}

// linStress is the series cfg describes; st counts what its histories do.
//
// History h makes a channel of a capacity drawn from cfg.capacities,
// prefills a buffered one (unrecorded: the model's initial state) and
// starts the threads. The lead (thread 0) makes only operations that never
// block, TrySend, TryRecv, Len, Cap and selects with a default, and closes
// the channel once, at a random point in its second half or at its end; it
// goes on after the close (its sends panic). So the lead always reaches
// the Close, which releases every blocked operation of the others: no
// history can deadlock. The others make blocking Sends and Recvs, blocking
// selects (a send and a receive case on the channel, some with a receive
// on a second channel that never fires), and now and then a try operation
// or a Len, until their count is done or the lead is. In every odd history,
// if cfg.exec is set, each other runs as a task of it, its thread's
// goroutine waiting for the task's end.
func linStress(name string, cfg linConfig, st *linStats) *linearize.Stress[linInput, linOutput] {
	var capacity int
	s := &linearize.Stress[linInput, linOutput]{
		Name: name,
		Seed: cfg.seed,
		Setup: func(h int, rng *rand.Rand) linearize.History[linInput, linOutput] {
			capacity = cfg.capacities[rng.IntN(len(cfg.capacities))]
			c := cfg.newChan(capacity)
			other := taskchan.Make[int](0)
			var init []int
			for i := range rng.IntN(capacity + 1) {
				v := 900_000 + i
				c.TrySend(v)
				init = append(init, v)
			}
			var exec *executor.Executor
			if h%2 == 1 {
				exec = cfg.exec
			}
			started := new(atomic.Int32)
			threads := []func(*linearize.Worker[linInput, linOutput]){linLead(c, cfg.leadOps, started, int32(cfg.others))}
			for range cfg.others {
				threads = append(threads, linOther(c, other, cfg.otherOps, exec, started))
			}
			return linearize.History[linInput, linOutput]{Model: linModel(capacity, init), Threads: threads}
		},
		Tally: func(ops []linearize.Op[linInput, linOutput]) {
			for _, op := range ops {
				st.tally(op.Input, op.Output)
			}
		},
	}
	s.Prepare = func(ops []linearize.Op[linInput, linOutput]) []linearize.Op[linInput, linOutput] {
		if capacity == 0 {
			return linHandoffs(ops)
		}
		return ops
	}
	return s
}

func (st *linStats) tally(in linInput, out linOutput) {
	if in.task {
		st.taskOps++
	}
	switch {
	case in.kind == linHandoff:
		st.handoffs++
		if in.task {
			st.taskHandoffs++
		}
		if in.sendKind == linSelect {
			st.selectSends++
		}
		if in.recvKind == linSelect {
			st.selectRecvs++
		}
	case out.act == linActSend && out.panicked:
		st.panickedSends++
	case out.act == linActSend:
		st.buffered++
		if in.kind == linSelect {
			st.selectSends++
		}
	case out.act == linActRecv:
		if !out.ok {
			st.closedRecvs++
		}
		if in.kind == linSelect {
			st.selectRecvs++
		}
	case out.act == linActDefault:
		st.defaults++
		if in.kind == linTrySend {
			st.fullTrySends++ // or, unbuffered, no receiver waiting
		}
	}
}

// linDo runs one operation on c (other is the never-ready second channel)
// and returns its output. A send on a closed channel panics; the panic is
// the output.
func linDo(t executor.Task, c linChan, other *taskchan.Chan[int], in linInput) (out linOutput) {
	defer func() {
		if r := recover(); r != nil {
			if err, ok := r.(error); !ok || err.Error() != "send on closed channel" {
				panic(r)
			}
			out = linOutput{act: linActSend, panicked: true}
		}
	}()
	switch in.kind {
	case linSend:
		c.Send(t, in.x)
		return linOutput{act: linActSend}
	case linRecv:
		v, ok := c.Recv(t)
		return linOutput{act: linActRecv, v: v, ok: ok}
	case linTrySend:
		if c.TrySend(in.x) {
			return linOutput{act: linActSend}
		}
		return linOutput{act: linActDefault}
	case linTryRecv:
		v, ok, ready := c.TryRecv()
		if !ready {
			return linOutput{act: linActDefault}
		}
		return linOutput{act: linActRecv, v: v, ok: ok}
	case linSelect:
		var v int
		var cases []taskchan.Case
		var acts []linAct
		if in.cases&linCaseSend != 0 {
			cases, acts = append(cases, c.Chan().SendCase(in.x)), append(acts, linActSend)
		}
		if in.cases&linCaseRecv != 0 {
			cases, acts = append(cases, c.Chan().RecvCase(&v)), append(acts, linActRecv)
		}
		if in.cases&linCaseOther != 0 {
			cases, acts = append(cases, other.RecvCase(nil)), append(acts, linActNone)
		}
		if in.cases&linCaseDefault != 0 {
			cases, acts = append(cases, taskchan.Default()), append(acts, linActDefault)
		}
		i, ok := c.Select(t, cases...)
		if acts[i] == linActRecv {
			return linOutput{act: linActRecv, v: v, ok: ok}
		}
		return linOutput{act: acts[i]} // linActNone: the other channel fired, which the model refutes
	case linClose:
		c.Close()
		return linOutput{}
	case linLen:
		return linOutput{n: c.Len()}
	case linCap:
		return linOutput{n: c.Cap()}
	}
	panic(fmt.Sprintf("linDo: unknown operation %d", in.kind))
}

// linRecord records one operation, made by t (the zero Task: a goroutine):
// the value a send case would send is the thread's next.
func linRecord(w *linearize.Worker[linInput, linOutput], t executor.Task, c linChan, other *taskchan.Chan[int], in linInput, next *int) {
	if in.cases&linCaseSend != 0 {
		*next++
		in.x = (w.ID+1)*100_000 + *next
	}
	in.task = t != (executor.Task{})
	w.Begin(in)
	out := linDo(t, c, other, in)
	w.End(out)
}

// linLead is the lead's thread: ops operations that never block, and one
// Close. It starts once the others have (a task starts later than its
// thread's goroutine), so that its operations and its Close meet theirs.
func linLead(c linChan, ops int, started *atomic.Int32, others int32) func(*linearize.Worker[linInput, linOutput]) {
	return func(w *linearize.Worker[linInput, linOutput]) {
		for started.Load() < others {
			runtime.Gosched()
		}
		n := w.Ops(ops)
		closeAt := n/2 + w.Rand.IntN(n/2+2) // n or n+1: after the last operation
		next := 0
		for i := range n {
			if i == closeAt {
				linRecord(w, executor.Task{}, c, nil, linInput{kind: linClose}, &next)
			}
			w.Yield(8)
			var in linInput
			switch r := w.Rand.IntN(100); {
			case r < 30:
				in = linInput{kind: linTrySend, cases: linCaseSend | linCaseDefault}
			case r < 60:
				in = linInput{kind: linTryRecv, cases: linCaseRecv | linCaseDefault}
			case r < 70:
				in = linInput{kind: linLen}
			case r < 73:
				in = linInput{kind: linCap}
			default:
				in = linInput{kind: linSelect, cases: linCases(1+w.Rand.IntN(3)) | linCaseDefault}
			}
			linRecord(w, executor.Task{}, c, nil, in, &next)
		}
		if closeAt >= n {
			linRecord(w, executor.Task{}, c, nil, linInput{kind: linClose}, &next)
		}
	}
}

// linOther is another thread: up to ops operations, mostly blocking, made
// by a task of exec (nil: by the thread's goroutine).
func linOther(c linChan, other *taskchan.Chan[int], ops int, exec *executor.Executor, started *atomic.Int32) func(*linearize.Worker[linInput, linOutput]) {
	body := linOtherBody(c, other, ops, started)
	if exec == nil {
		return func(w *linearize.Worker[linInput, linOutput]) { body(w, executor.Task{}) }
	}
	return func(w *linearize.Worker[linInput, linOutput]) {
		done := make(chan any, 1)
		err := exec.Go(func(t executor.Task) {
			defer func() { done <- recover() }()
			body(w, t)
		})
		if err != nil {
			panic(err)
		}
		if p := <-done; p != nil {
			panic(p)
		}
	}
}

func linOtherBody(c linChan, other *taskchan.Chan[int], ops int, started *atomic.Int32) func(*linearize.Worker[linInput, linOutput], executor.Task) {
	return func(w *linearize.Worker[linInput, linOutput], t executor.Task) {
		started.Add(1)
		next := 0
		for range w.Ops(ops) {
			if w.LeadDone() {
				return
			}
			w.Yield(4)
			var in linInput
			switch r := w.Rand.IntN(100); {
			case r < 30:
				in = linInput{kind: linSend, cases: linCaseSend}
			case r < 60:
				in = linInput{kind: linRecv, cases: linCaseRecv}
			case r < 80:
				in = linInput{kind: linSelect, cases: linCases(1 + w.Rand.IntN(3))}
				if w.Rand.IntN(2) == 0 {
					in.cases |= linCaseOther
				}
			case r < 87:
				in = linInput{kind: linTrySend, cases: linCaseSend | linCaseDefault}
			case r < 94:
				in = linInput{kind: linTryRecv, cases: linCaseRecv | linCaseDefault}
			default:
				in = linInput{kind: linLen}
			}
			linRecord(w, t, c, other, in, &next)
		}
	}
}

// TestLinearizable checks many short histories of one channel, unbuffered
// or buffered, against linStep: every one must be linearizable. A check
// that spends its step budget is neither a pass nor a fail. Every other
// history runs the blocking threads as tasks of an executor of 2 Ps.
func TestLinearizable(t *testing.T) {
	cfg := linDefaultConfig()
	cfg.exec = newExec(t, executor.Config{Procs: 2})
	var st linStats
	sum := linStress(t.Name(), cfg, &st).CheckAll(t, cfg.histories)
	t.Logf("coverage: %v", &st)
	require.Positive(t, st.handoffs, "no unbuffered handoff")
	require.Positive(t, st.buffered, "no buffered send")
	require.Positive(t, st.closedRecvs, "no receive saw the close")
	require.Positive(t, st.panickedSends, "no send panicked on the closed channel")
	require.Positive(t, st.fullTrySends, "no TrySend took its default")
	require.Positive(t, st.selectSends, "no select sent")
	require.Positive(t, st.selectRecvs, "no select received")
	require.Positive(t, st.taskHandoffs, "no task took part in a handoff")
	t.Logf("taskchan linearizability: %d histories, %d operations, all linearizable", sum.Histories, sum.Operations)
}

// TestLinearizeCatchesBrokenChannels proves the check can fail: the same
// harness, on broken channels, must produce an Illegal history and its
// visualization. The asynchronous send is refuted by the handoff model
// alone: its values are all received, but some by a receive that began
// after the Send returned.
func TestLinearizeCatchesBrokenChannels(t *testing.T) {
	cases := []struct {
		name       string
		newChan    func(int) linChan
		capacities []int
	}{
		{"TryRecv returns the second value", newLinTryRecvSecond, []int{3}},
		{"an unbuffered Send returns before the handoff", newLinSendAsync, []int{0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := linDefaultConfig()
			cfg.newChan, cfg.capacities = tc.newChan, tc.capacities
			linStress(t.Name(), cfg, new(linStats)).Catches(t, linearize.Catch{})
		})
	}
}
