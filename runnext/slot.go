package runnext

import (
	"time"

	"github.com/schedkit/schedkit/atomicx"
)

// StealDelay is how long a thief waits, from when it first sees a task in a
// slot, before it may take that task, unless SetStealDelay says otherwise:
// the runtime's usleep(3) in runqgrab. The owner almost always runs its
// runnext task sooner, so a thief that waited this long has found a P that
// really is busy.
const StealDelay = 3 * time.Microsecond

// Slot is a P's one-task LIFO, the runtime's p.runnext: the task the owner
// made runnable last, which it runs next, inheriting the current time slice.
//
// The slot is a version and a task cell. The version is odd while the slot
// holds a task and grows by one at every fill (the owner's Put) and every
// take (the owner's Take, a thief's Steal), so a version names one
// occupancy and never comes back. Takes are a CAS of the version from odd to
// even, so a task leaves the slot exactly once; the task cell is written
// only by the owner, before it publishes the fill.
//
// The steal delay costs the owner nothing: a thief that finds a task notes
// the version, sleeps the delay (atomicx.Sleep) and takes the task only if
// the version is the same when it is done, so the task sat in the slot,
// untouched, for the whole delay as that thief observed it. The same
// pointer taken and put back is a new version and starts a new wait.
//
// The zero value is an empty slot with the default delay, StealDelay. Owner
// methods (Put, Take, SetStealDelay) must be called by one goroutine at a
// time; any goroutine may call Steal and Empty.
type Slot[T any] struct {
	own  ownerGuard         // the single-owner check of a schedkit_checked build; first, as it may be empty
	ver  atomicx.Uint64     // odd while full; +1 at every fill and every take
	task atomicx.Pointer[T] // the task of the current or last fill; written by the owner only
	// delay is the steal delay: 0 stands for StealDelay, a negative value
	// for none. Set by SetStealDelay before the slot is shared.
	delay time.Duration
}

// SetStealDelay sets how long a thief waits, from when it first sees a
// task, before it may take it; 0 lets thieves take it at once. Call it
// before the slot is shared with other goroutines (it is not synchronized).
// It panics if d is negative.
func (s *Slot[T]) SetStealDelay(d time.Duration) {
	if d < 0 {
		panic("runnext: Slot.SetStealDelay called with a negative delay")
	}
	if d == 0 {
		d = -1
	}
	s.delay = d
}

// StealDelay returns the slot's steal delay: StealDelay unless
// SetStealDelay set another.
func (s *Slot[T]) StealDelay() time.Duration {
	switch {
	case s.delay == 0:
		return StealDelay
	case s.delay < 0:
		return 0
	}
	return s.delay
}

// Put makes t the slot's task and returns the task it displaced, or nil if
// the slot was empty (or a thief took its task meanwhile). The caller must
// queue the displaced task at the tail of its run queue (Queue.PutNext
// does), as runqput(next=true) kicks the old runnext out to the ring. Owner
// only.
//
// Put panics if t is nil. It mirrors the runnext part of runqput with
// next=true: a take of the old task, then a fill.
func (s *Slot[T]) Put(t *T) (displaced *T) {
	if t == nil {
		panic("runnext: Slot.Put called with a nil task")
	}
	s.own.enter("Slot.Put")
	v := s.ver.Load()
	if v&1 != 0 {
		displaced, v = s.take(v), v+1 // taken by us or by a thief: even now either way
	}
	if !s.fill(v, t) {
		panic("runnext: Slot.Put: the slot filled up under the owner: owner methods called concurrently")
	}
	s.own.exit()
	return displaced
}

// fill puts t in the slot, which the owner found empty at version v: the
// task first, then the odd version that publishes it, so a thief that sees
// the version reads this task (or, if the slot has moved on, fails its
// CAS). Only the owner fills, so it returns false only if a second
// goroutine is using owner methods at once; the caller panics.
func (s *Slot[T]) fill(v uint64, t *T) bool {
	if mutant == publishBeforeTask {
		ok := s.ver.CompareAndSwap(v, v+1) // a thief may read the old task now
		s.task.Store(t)
		return ok
	}
	s.task.Store(t)
	return s.ver.CompareAndSwap(v, v+1)
}

// take empties the slot, found full at version v, for the owner: the
// task, or nil if a thief took it first. Only the owner fills, so a failed
// CAS means the slot is empty.
func (s *Slot[T]) take(v uint64) *T {
	t := s.task.Load()
	if mutant == takeWithoutCAS {
		s.ver.Store(v + 1) // a thief's CAS can land between the load and this store
		return t
	}
	if s.ver.CompareAndSwap(v, v+1) {
		return t
	}
	return nil
}

// Take empties the slot and returns its task, or nil if it was empty or a
// thief took the task first. The task inherits the current time slice.
// Owner only. It mirrors runqget's runnext CAS: one load and one CAS, and
// no retry, because only the owner fills the slot, so a failed CAS means a
// thief emptied it.
//
// The task cell keeps the taken task reachable until the next Put; Take
// leaves it there because clearing it would cost the owner a second atomic
// store on every take (see the package doc, "Reachability").
func (s *Slot[T]) Take() *T {
	s.own.enter("Slot.Take")
	var t *T
	if v := s.ver.Load(); v&1 != 0 {
		t = s.take(v)
	}
	s.own.exit()
	return t
}

// Steal takes the slot's task for a thief and returns it; nil if the slot
// is empty. A thief that finds a task notes its version and sleeps the
// steal delay (atomicx.Sleep), as runqgrab's usleep(3) does; it takes the
// task only if the slot still holds that same occupancy, so by then the
// owner had the whole delay to run it. If the owner took it or put another
// meanwhile, the thief waits again for whatever it finds. The task is taken
// by a CAS of the version, so the owner's Take and the thief never both get
// it. Any goroutine may call Steal.
//
// Steal is the runnext branch of runqgrab (stealRunNextG) on its own; it
// does not look at any ring. Queue.StealHalf is the whole of runqsteal.
func (s *Slot[T]) Steal() *T {
	var w waiter[T]
	for {
		v := s.ver.Load()
		if v&1 == 0 {
			return nil
		}
		if w.observe(s, v) {
			continue
		}
		if s.ver.CompareAndSwap(v, v+1) {
			return w.t
		}
		// The owner took it or displaced it: look again.
	}
}

// waiter is a thief's memory of the occupancy it has waited the delay for.
type waiter[T any] struct {
	waited uint64 // the odd version waited for; 0: none yet
	t      *T     // its task, read after the version
}

// observe is a thief's look at a slot found full at version v. If v is the
// occupancy it has already waited for, it returns false: the thief may go
// on to take w.t by a CAS from v. Otherwise it notes v and its task, sleeps
// the steal delay and returns true: the thief must look again. The task is
// read after the version: if the slot moves on in between, the read may be
// of a later task, but then the version has moved too and the CAS from v
// fails.
func (w *waiter[T]) observe(s *Slot[T], v uint64) (slept bool) {
	if v == w.waited {
		return false
	}
	if w.waited != 0 {
		switch mutant {
		case thiefNoRecheck:
			// After one wait the thief takes whatever now occupies the slot.
			w.waited, w.t = v, s.task.Load()
			return false
		case thiefComparesPointer:
			// The same pointer counts as the same occupancy: a task taken and
			// put back is taken without a new wait.
			if t := s.task.Load(); t == w.t {
				w.waited = v
				return false
			}
		}
	}
	w.waited, w.t = v, s.task.Load()
	d := s.StealDelay()
	if d == 0 || mutant == thiefIgnoresDelay {
		return false
	}
	atomicx.Sleep(d)
	return true
}

// Empty reports whether the slot held no task at the instant it looked.
// Any goroutine may call it.
func (s *Slot[T]) Empty() bool { return s.ver.Load()&1 == 0 }

// full reports whether the slot holds a task now.
func (s *Slot[T]) full() bool { return s.ver.Load()&1 != 0 }

// One instantiation inside the package keeps the inline bodies of the
// atomicx calls available to instantiations in other packages, as in lfq.
var _ Slot[struct{}]
