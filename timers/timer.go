package timers

import (
	"fmt"

	"github.com/schedkit/schedkit/atomicx"
)

// heapN is the heap's arity: four children per node, the runtime's
// timerHeapN, so a sift touches fewer levels and the children share cache
// lines.
const heapN = 4

// pendingBit is the low bit of a Timer's state word: set while the timer's
// current arming may still fire. The word's upper 63 bits count the timer's
// armings (its generation).
const pendingBit = 1

// A Timer is a func to run, with its argument, once a heap's clock reaches
// the timer's when. Arm it with Heap.Add or Heap.Reset, disarm it with Stop.
// Each arming either fires (Run calls the func once) or is stopped (Stop or
// Reset returns true for it), never both and never twice.
//
// The zero Timer has no func: give it one with Init, or make one with
// NewTimer. A Timer must not be copied after first use.
type Timer struct {
	f   func(arg any, seq uint64, delay int64) // set by Init, then read only
	arg any                                    // set by Init, then read only

	// state is gen<<1 | pendingBit: gen counts the armings, and the pending
	// bit is set by an arming and cleared by exactly one of the Run that
	// fires it and the Stop or Reset that stops it, by CAS on the whole
	// word, so a Run holding a word it read for an earlier arming cannot
	// claim a later one.
	state atomicx.Uint64

	// mu serializes the mutators of this timer (Add, Stop, Reset); Run
	// never takes it. Lock order: a Timer's mu, then a Heap's.
	mu atomicx.Mutex

	when int64 // the latest arming's when; guarded by mu
	heap *Heap // the heap of the latest arming; guarded by mu

	// pos is 1 + the index of t's entry in heap.entries, 0 when the heap
	// holds none; guarded by heap.mu.
	pos int
}

// NewTimer returns a disarmed timer that runs f(arg, seq, delay) when it
// fires: seq is the arming that fired (1 for the first Add or Reset of t, 2
// for the next, ...), delay the Run's now minus the when it was armed for
// (never negative), the runtime's f(arg, seq, delay). f runs on the goroutine that calls Run, with no lock held, and
// must not block for long: it holds up every timer behind it on that heap.
// A nil f panics.
func NewTimer(f func(arg any, seq uint64, delay int64), arg any) *Timer {
	t := new(Timer)
	t.init(f, arg, "NewTimer")
	return t
}

// Init gives a zero Timer (one embedded in a larger record, say) its func
// and argument, as NewTimer does. Call it once, before the timer is first
// armed; a nil f panics.
func (t *Timer) Init(f func(arg any, seq uint64, delay int64), arg any) { t.init(f, arg, "Timer.Init") }

func (t *Timer) init(f func(arg any, seq uint64, delay int64), arg any, call string) {
	if f == nil {
		panic("timers: " + call + " with a nil func")
	}
	t.f, t.arg = f, arg
}

// Pending reports whether t is armed and has neither fired nor been
// stopped: one load of its state word, so by the time it returns a Run or
// a Stop elsewhere may have changed it.
func (t *Timer) Pending() bool { return t.state.Load()&pendingBit != 0 }

// When returns the when of t's latest arming (0 if it was never armed).
func (t *Timer) When() int64 {
	t.mu.Lock()
	w := t.when
	t.mu.Unlock()
	return w
}

// Stop disarms t and reports whether it stopped an arming before it fired:
// false when t had fired, had been stopped, or was never armed. Once Stop
// returns, t's func will not run for any arming made before the call (it
// may be running now, for one that fired first). The entry leaves its heap
// at once (eager deletion). Any goroutine may call it, racing a Run of t's
// heap on another P: one CAS of the state word decides between them.
// It mirrors the runtime's (*timer).stop (deltimer).
func (t *Timer) Stop() bool {
	t.mu.Lock()
	stopped := t.disarm()
	if stopped {
		t.unlink()
	}
	t.mu.Unlock()
	return stopped
}

// disarm clears t's pending bit if it is set and reports whether this call
// cleared it (a Run's CAS may win the race). t.mu is held.
func (t *Timer) disarm() bool {
	s := t.state.Load()
	if s&pendingBit == 0 {
		return false
	}
	if mutant == stopAfterFire { // a load and a store: a Run may claim t in between
		t.state.Store(s &^ pendingBit)
		return true
	}
	return t.state.CompareAndSwap(s, s&^pendingBit)
}

// unlink removes t's entry from its heap if a Run has not popped it
// already. t.mu is held, and t has just been disarmed.
func (t *Timer) unlink() {
	h := t.heap
	if h == nil {
		return
	}
	t.heap = nil
	h.mu.Lock()
	if t.pos != 0 {
		h.removeAt(t.pos - 1)
		h.publish()
	}
	h.mu.Unlock()
}

// A Heap is one P's timers: a 4-ary min-heap of entries on when, under its
// own lock, with the earliest when and the count kept in cells any
// goroutine reads without the lock. The zero Heap is empty and ready. A
// Heap must not be copied after first use.
type Heap struct {
	mu      atomicx.Mutex
	entries []entry // the heap; guarded by mu

	// min is entries[0].when, or 0 when the heap is empty, and n is
	// len(entries): both stored under mu after every change, so whenever
	// mu is free they equal what the heap holds.
	min atomicx.Int64
	n   atomicx.Int64
}

// entry is one arming in a heap: its when, kept beside the pointer so a
// sift reads no timer (the runtime's timerWhen).
type entry struct {
	when int64
	t    *Timer
}

// Add arms t to fire once h's clock reaches when (a when below 1 is taken
// as 1: the earliest time, and Next's 0 means no timer). t must not be
// pending: Add of a pending timer panics (Reset re-arms one), as does a nil
// t or one without a func. It mirrors the runtime's (*timer).maybeAdd and
// (*timers).addHeap (addtimer).
func (h *Heap) Add(t *Timer, when int64) {
	checkTimer(t, "Heap.Add")
	t.mu.Lock()
	if t.state.Load()&pendingBit != 0 {
		t.mu.Unlock()
		panic("timers: Heap.Add of a pending timer (Reset re-arms one)")
	}
	h.arm(t, when)
	t.mu.Unlock()
}

// Reset disarms t, as Stop does, and arms it again on h to fire at when
// (below 1 taken as 1), wherever it was armed before. It reports whether it
// stopped an arming before it fired. Any goroutine may call it; the new
// arming goes on h, the caller's P's heap as the runtime's modtimer adds an
// unheaped timer to the current P. It mirrors (*timer).modify and
// (*timer).reset (modtimer, resettimer).
func (h *Heap) Reset(t *Timer, when int64) bool {
	checkTimer(t, "Heap.Reset")
	t.mu.Lock()
	stopped := t.disarm()
	if stopped {
		t.unlink()
	}
	h.arm(t, when)
	t.mu.Unlock()
	return stopped
}

func checkTimer(t *Timer, call string) {
	if t == nil {
		panic("timers: " + call + " of a nil timer")
	}
	if t.f == nil {
		panic("timers: " + call + " of a timer with no func (use NewTimer or Timer.Init)")
	}
}

// arm starts t's next arming on h: a new generation with the pending bit,
// stored under h's lock before the entry is pushed, so a Run that pops the
// entry reads the word of its arming. t.mu is held and t is not pending,
// so no heap holds an entry of t (Stop and Reset unlink one before they
// unlock t, and a Run pops one before it claims it).
func (h *Heap) arm(t *Timer, when int64) {
	if when < 1 {
		when = 1
	}
	t.when, t.heap = when, h
	h.mu.Lock()
	s := t.state.Load()
	t.state.Store((s>>1+1)<<1 | pendingBit)
	h.entries = append(h.entries, entry{when: when, t: t})
	h.siftUp(len(h.entries) - 1)
	if mutant == nextNotUpdated {
		h.n.Store(int64(len(h.entries)))
	} else {
		h.publish()
	}
	h.mu.Unlock()
}

// Run fires the timers of h whose when is at most now, earliest first, at
// most max of them (max < 1 panics), and returns how many it fired. Each is
// popped under the lock, which is then released; the timer's func runs
// outside it once Run has claimed the arming by CAS of its state word (a
// Stop or Reset that won the race leaves it unfired). Any goroutine may
// call it: the owner P at each schedule, an idle P on another P's heap in
// its steal pass. With nothing expired it takes no lock (one load of the
// earliest-when cell). It mirrors (*timers).check, (*timers).run and
// (*timer).unlockAndRun (checkTimers, runtimer).
func (h *Heap) Run(now int64, max int) int {
	if max < 1 {
		panic(fmt.Sprintf("timers: Heap.Run with max %d (want at least 1)", max))
	}
	ran := 0
	for ran < max {
		if w := h.min.Load(); w == 0 || w > now {
			break
		}
		h.mu.Lock()
		if len(h.entries) == 0 || h.entries[0].when > now {
			h.mu.Unlock()
			break
		}
		e := h.entries[0]
		h.removeAt(0)
		s := e.t.state.Load() // the word of e's arming: re-arming needs the lock
		h.publish()
		if mutant != runUnderLock {
			h.mu.Unlock()
		}
		if mutant == claimIgnoresGen { // whatever arming is current
			s = e.t.state.Load()
		}
		if s&pendingBit != 0 && e.t.state.CompareAndSwap(s, s&^pendingBit) {
			e.t.f(e.t.arg, s>>1, now-e.when)
			ran++
		}
		if mutant == runUnderLock {
			h.mu.Unlock()
		}
	}
	return ran
}

// Take moves every timer armed on src to h, keeping each arming (its when
// and generation: a Stop or Reset after the move stops it on h, a Run of h
// fires it, with the same seq), for a P taken out of service: the
// runtime's (*timers).take, which (*p).destroy calls to hand a destroyed
// P's timers to the P that runs procresize. A timer that a Run of src has
// popped already fires there, as before the move; one a Stop or Reset
// unlinks meanwhile is not moved. Timers armed on src after Take has
// returned stay there. Any goroutine may call it; it takes each timer's
// lock, then one heap's at a time (a Timer's mu before a Heap's, as
// everywhere). h == src is a no-op.
func (h *Heap) Take(src *Heap) { h.take(src, true) }

// take is Take; without lockTimer it is the broken variant the explorer
// must catch (TakeNoTimerLock): a Stop that read t.heap before the move
// unlinks by an index that is now the other heap's.
func (h *Heap) take(src *Heap, lockTimer bool) {
	if h == src {
		return
	}
	for {
		src.mu.Lock()
		n := len(src.entries)
		if n == 0 {
			src.mu.Unlock()
			return
		}
		t := src.entries[n-1].t
		src.mu.Unlock()
		if lockTimer {
			t.mu.Lock()
		}
		src.mu.Lock()
		var e entry
		if t.heap == src && t.pos != 0 { // still armed on src, not popped by a Run
			e = src.entries[t.pos-1]
			src.removeAt(t.pos - 1)
			src.publish()
		}
		src.mu.Unlock()
		if e.t != nil {
			t.heap = h
			h.mu.Lock()
			h.entries = append(h.entries, e)
			h.siftUp(len(h.entries) - 1)
			h.publish()
			h.mu.Unlock()
		}
		if lockTimer {
			t.mu.Unlock()
		}
	}
}

// Next returns the earliest when of h's timers, or 0 when it holds none,
// with one load and no lock: what an M that parks may sleep until, and
// what tells an idle P whether h holds an expired timer (the runtime's
// (*timers).wakeTime). A timer being stopped may still be counted.
func (h *Heap) Next() int64 { return h.min.Load() }

// Len returns how many entries h holds, with one load and no lock.
func (h *Heap) Len() int { return int(h.n.Load()) }

// Earliest returns the earliest Next of hs, 0 when none holds a timer: how
// long a last M with nothing to run may sleep (the runtime's
// timeSleepUntil and checkTimersNoP).
func Earliest(hs []*Heap) int64 {
	var next int64
	for _, h := range hs {
		if w := h.Next(); w != 0 && (next == 0 || w < next) {
			next = w
		}
	}
	return next
}

// publish stores the earliest when and the count (the runtime's
// updateMinWhenHeap and ts.len). h.mu is held.
// The earliest when is stored only when it changed (a load is a plain read,
// a store an exchange): an Add behind the top, or a Stop below it, leaves
// it.
func (h *Heap) publish() {
	h.n.Store(int64(len(h.entries)))
	var w int64
	if len(h.entries) > 0 {
		w = h.entries[0].when
	}
	if h.min.Load() != w {
		h.min.Store(w)
	}
}

// removeAt removes entries[i], filling the hole with the last entry and
// sifting it (the runtime's deleteMin for i = 0). h.mu is held.
func (h *Heap) removeAt(i int) {
	h.entries[i].t.pos = 0
	last := len(h.entries) - 1
	if i != last {
		h.entries[i] = h.entries[last]
		h.entries[i].t.pos = i + 1
	}
	h.entries[last] = entry{} // keep no stopped or fired timer reachable
	h.entries = h.entries[:last]
	if i < last {
		h.siftDown(i)
		h.siftUp(i)
	}
}

// siftUp moves entries[i] up to its place (the runtime's siftUp).
func (h *Heap) siftUp(i int) {
	es := h.entries
	e := es[i]
	for i > 0 {
		p := (i - 1) / heapN
		if es[p].when <= e.when {
			break
		}
		es[i] = es[p]
		es[i].t.pos = i + 1
		i = p
	}
	es[i] = e
	e.t.pos = i + 1
}

// siftDown moves entries[i] down to its place (the runtime's siftDown).
func (h *Heap) siftDown(i int) {
	es := h.entries
	n := len(es)
	e := es[i]
	width := heapN
	if mutant == heapSiftWrong {
		width = 2
	}
	for {
		first := i*heapN + 1
		if first >= n {
			break
		}
		c, w := -1, e.when
		for j := first; j < min(first+width, n); j++ {
			if es[j].when < w {
				c, w = j, es[j].when
			}
		}
		if c < 0 {
			break
		}
		es[i] = es[c]
		es[i].t.pos = i + 1
		i = c
	}
	es[i] = e
	e.t.pos = i + 1
}
