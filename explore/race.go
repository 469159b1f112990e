package explore

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/schedkit/schedkit/atomicx"
)

// Data races on plain memory (atomicx.Plain), found by vector clocks over
// each explored execution, as a happens-before race detector (FastTrack,
// Flanagan and Freund, PLDI 2009, without its epoch compression; loom's
// UnsafeCell checks the same way). Every thread has a clock; an operation
// that releases joins the thread's clock into its object's, one that
// acquires joins the object's into the thread's:
//
//   - an atomicx cell: every store, add, swap and successful CAS releases
//     (joined into the cell's clock: a load after two stores acquires both,
//     coarser than the memory model's "observes the last"), an add, swap
//     or CAS also acquires (it reads what it replaces), and so does every
//     load; a store observes nothing and acquires nothing;
//   - Mutex: Unlock releases, Lock acquires;
//   - Note: Wakeup releases, a Sleep or SleepFor that was woken acquires;
//   - Chan, Select, Cond, Cancel: the edges atomicx reports through its
//     Syncer hook (a send before the receive that gets its value, a
//     receive before the completion of the sends it makes room for, Close
//     before a receive that sees it closed, a Signal or Broadcast before
//     the Wait it wakes returns);
//   - build happens before every thread's first step, and every thread's
//     last step before Check: their plain accesses are not checked.
//
// A plain access of one thread races with an earlier one of another, at
// least one of them a write, when the earlier one does not happen before
// it; the execution then fails with a *DataRaceError naming both.

// raceFault is a seeded fault of the race checker (a schedmutant build's
// SCHEDKIT_EXPLORE_MUTANT, or a test): "race-no-store-release" (an atomic
// store, add, swap or CAS releases nothing), "race-no-unlock-release"
// (Unlock releases nothing), "race-never" (no race is reported).
var raceFault = dporMutant

type vclock [MaxThreads]uint32

func (v *vclock) join(w *vclock) {
	for i := range v {
		v[i] = max(v[i], w[i])
	}
}

// raceAccess is one plain access.
type raceAccess struct {
	thread int
	clock  uint32 // the thread's own clock at the access
	step   int    // index in the execution's steps
	write  bool
	pcs    [6]uintptr
}

// plainCell is what the checker remembers of a plain cell: its last write
// and each thread's last read since.
type plainCell struct {
	write    raceAccess
	hasWrite bool
	reads    [MaxThreads]raceAccess
	readers  uint16
}

// raceState is one execution's clocks. They are computed lazily, from the
// steps the execution records anyway, when a plain access needs them: a
// scenario without plain cells pays only for recording the Syncer edges of
// its channel operations.
type raceState struct {
	started bool
	vc      [MaxThreads]vclock
	sync    map[uintptr]*vclock
	plain   map[uintptr]*plainCell
	done    int         // steps whose edges are in the clocks
	events  []syncEvent // Syncer's edges, by step
	applied int         // events in the clocks
}

// syncEvent is an edge atomicx reported through Syncer during a step.
type syncEvent struct {
	step    int
	key     uintptr
	release bool
}

func (r *raceState) start() {
	if r.started {
		return
	}
	r.started = true
	for t := range r.vc {
		r.vc[t][t] = 1
	}
	r.sync = make(map[uintptr]*vclock)
	r.plain = make(map[uintptr]*plainCell)
}

func (r *raceState) acquire(t int, key uintptr) {
	if c := r.sync[key]; c != nil {
		r.vc[t].join(c)
	}
}

func (r *raceState) release(t int, key uintptr) {
	c := r.sync[key]
	if c == nil {
		c = new(vclock)
		r.sync[key] = c
	}
	c.join(&r.vc[t])
	r.vc[t][t]++ // what t does next is not released yet
}

// catchUp puts the edges of the steps before n into the clocks.
func (x *execution) catchUp(n int) {
	r := &x.race
	r.start()
	for i := r.done; i < n; i++ {
		s := &x.steps[i]
		t := s.Thread
		for ; r.applied < len(r.events) && r.events[r.applied].step == i; r.applied++ {
			if ev := r.events[r.applied]; ev.release {
				r.release(t, ev.key)
			} else {
				r.acquire(t, ev.key)
			}
		}
		if s.Done {
			r.edge(t, s.Op, x.addrs[i], s.Value)
		}
	}
	r.done = max(r.done, n)
}

// edge applies the happens-before edge of thread t's operation op on addr
// that returned val.
func (r *raceState) edge(t int, op atomicx.Op, addr uintptr, val uint64) {
	switch op {
	case atomicx.OpLoad:
		r.acquire(t, addr)
	case atomicx.OpStore: // observes nothing: it only releases
		if raceFault != "race-no-store-release" {
			r.release(t, addr)
		}
	case atomicx.OpAdd, atomicx.OpSwap:
		r.acquire(t, addr)
		if raceFault != "race-no-store-release" {
			r.release(t, addr)
		}
	case atomicx.OpCAS:
		r.acquire(t, addr)
		if val == 1 && raceFault != "race-no-store-release" {
			r.release(t, addr)
		}
	case atomicx.OpLock:
		r.acquire(t, addr)
	case atomicx.OpUnlock:
		if raceFault != "race-no-unlock-release" {
			r.release(t, addr)
		}
	case atomicx.OpNoteWakeup:
		r.release(t, addr)
	case atomicx.OpNoteSleep, atomicx.OpNoteSleepFor:
		if val == 1 {
			r.acquire(t, addr)
		}
	}
}

// stepDone is called when thread t's step s, the latest, has run, with
// its value: a plain access is checked against the cell's earlier ones.
func (x *execution) stepDone(t int, s *Step, val uint64) {
	if s.Op != atomicx.OpRead && s.Op != atomicx.OpWrite {
		return
	}
	s.Ref = x.cells.ref(val)
	n := len(x.steps) - 1
	x.catchUp(n)
	x.plainAccess(t, x.addrs[n], s.Op == atomicx.OpWrite, n)
	x.race.done = n + 1
}

// syncEdge records an edge atomicx reported during thread th's step.
func (th *thread) syncEdge(key uintptr, release bool) {
	x := th.x
	if n := len(x.steps); n > 0 && x.steps[n-1].Thread == th.id {
		x.race.events = append(x.race.events, syncEvent{n - 1, key, release})
	}
}

// plainAccess checks thread t's access of the plain cell at addr, step
// index step, against the cell's earlier accesses.
func (x *execution) plainAccess(t int, addr uintptr, write bool, step int) {
	r := &x.race
	c := r.plain[addr]
	if c == nil {
		c = new(plainCell)
		r.plain[addr] = c
	}
	cur := raceAccess{thread: t, clock: r.vc[t][t], step: step, write: write}
	runtime.Callers(4, cur.pcs[:])
	racy := func(a *raceAccess) bool { return a.thread != t && a.clock > r.vc[t][a.thread] }
	var prev *raceAccess
	if c.hasWrite && racy(&c.write) {
		prev = &c.write
	}
	if write && prev == nil {
		for u := range MaxThreads {
			if c.readers&(1<<u) != 0 && racy(&c.reads[u]) {
				prev = &c.reads[u]
				break
			}
		}
	}
	if prev != nil && raceFault != "race-never" {
		x.failWith(&DataRaceError{Cell: x.steps[step].Cell, First: x.raceAccess(prev), Second: x.raceAccess(&cur)})
		return
	}
	if write {
		c.write, c.hasWrite, c.readers = cur, true, 0
	} else {
		c.reads[t] = cur
		c.readers |= 1 << t
	}
}

func (x *execution) raceAccess(a *raceAccess) RaceAccess {
	return RaceAccess{Thread: a.thread, Step: a.step + 1, Write: a.write, Pos: callerPos(a.pcs[:])}
}

// callerPos is the file:line of the first frame outside the runtime,
// atomicx and explore: the code that made the access.
func callerPos(pcs []uintptr) string {
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if f.PC == 0 {
			return ""
		}
		if !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, atomicxPath+".") &&
			!strings.HasPrefix(f.Function, "github.com/schedkit/schedkit/explore.") {
			return fmt.Sprintf("%s:%d", shortFile(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// shortFile keeps a file's last two path elements.
func shortFile(f string) string {
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		if j := strings.LastIndexByte(f[:i], '/'); j >= 0 {
			return f[j+1:]
		}
	}
	return f
}

// RaceAccess is one side of a data race: a plain access of a thread, the
// step of the trace it was (from 1), and where in the code.
type RaceAccess struct {
	Thread int
	Step   int
	Write  bool
	Pos    string // file:line, "" if unknown
}

func (a RaceAccess) String() string {
	verb := "read"
	if a.Write {
		verb = "wrote"
	}
	s := fmt.Sprintf("T%d %s it at step %d", a.Thread, verb, a.Step)
	if a.Pos != "" {
		s += " (" + a.Pos + ")"
	}
	return s
}

// DataRaceError is a data race on a plain cell: two accesses of two
// threads, at least one a write, with no happens-before edge between them
// through atomicx's operations.
type DataRaceError struct {
	Cell          string
	First, Second RaceAccess
}

func (e *DataRaceError) Error() string {
	return fmt.Sprintf("data race on %s: %v and %v, with no happens-before edge between them through atomicx", e.Cell, e.First, e.Second)
}

// Acquire is atomicx's Syncer hook: the calling thread acquires key's clock.
func (dispatcher) Acquire(key uintptr) {
	if th, ok := lookup().(*thread); ok {
		th.syncEdge(key, false)
	}
}

// Release is atomicx's Syncer hook: the calling thread releases its clock to key.
func (dispatcher) Release(key uintptr) {
	if th, ok := lookup().(*thread); ok {
		th.syncEdge(key, true)
	}
}

// refine gives th's current step, not yet done, the op atomicx's After
// named: an attempt's outcome may differ from the op it began as (a recv
// that blocks is OpRecvBlocked).
func (th *thread) refine(op atomicx.Op) {
	x := th.x
	if n := len(x.steps); n > 0 && x.steps[n-1].Thread == th.id && !x.steps[n-1].Done {
		x.steps[n-1].Op = op
	}
}

// selects reports the steps of channels and selects: they depend on
// every other step, as the clock's do. A Select's waiter sits in the
// queues of every channel of its cases, and an operation on one of them
// that completes it takes it out of the others: a send on b decides
// whether a send on a finds a receiver, so no two channel operations
// commute, whatever their channels (TestDPORMatchesDFSOnPrimitives,
// select-vs-two-senders, found DPOR missing classes with only the
// selects global).
func selects(op atomicx.Op) bool {
	switch op {
	case atomicx.OpSend, atomicx.OpRecv, atomicx.OpTrySend, atomicx.OpTryRecv, atomicx.OpClose, atomicx.OpCancel,
		atomicx.OpSelect, atomicx.OpTrySelect, atomicx.OpSendWait, atomicx.OpRecvWait, atomicx.OpSelectWait:
		return true
	}
	return false
}

// reads reports an atomic load or a plain read: two reads of one cell
// commute.
func reads(op atomicx.Op) bool { return op == atomicx.OpLoad || op == atomicx.OpRead }
