package runnext

import (
	"time"

	"github.com/schedkit/schedkit/internal/atomicx"
)

// StealDelay is how long a task must have sat in a slot before a thief may
// take it, unless SetStealDelay says otherwise: the runtime's usleep(3) in
// runqgrab. The owner almost always runs its runnext task sooner, so a thief
// that waited this long has found a P that really is busy.
const StealDelay = 3 * time.Microsecond

// Slot is a P's one-task LIFO, the runtime's p.runnext: the task the owner
// made runnable last, which it runs next, inheriting the current time slice.
//
// Only the owner makes the slot non-empty (Put); the owner (Take) and
// thieves (Steal) empty it, each by a CAS, so a task leaves it exactly once.
// The slot records when its task was put (atomicx.Nanotime) so that a thief
// steals only a task that has sat there for the steal delay.
//
// The zero value is an empty slot with the default delay, StealDelay. Owner
// methods (Put, Take) must be called by one goroutine at a time; any
// goroutine may call Steal and Empty.
type Slot[T any] struct {
	task  atomicx.Pointer[T] // the runnext task; nil when empty
	putAt atomicx.Int64      // atomicx.Nanotime when the owner last put; stored before task
	// delay is the steal delay: 0 stands for StealDelay, a negative value
	// for none. Set by SetStealDelay before the slot is shared.
	delay time.Duration
}

// SetStealDelay sets how long a task must sit in the slot before a thief
// may take it; 0 lets thieves take it at once. Call it before the slot is
// shared with other goroutines (it is not synchronized). It panics if d is
// negative.
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
// the slot was empty. The caller must queue the displaced task at the tail
// of its run queue (Queue.PutNext does), as runqput(next=true) kicks the old
// runnext out to the ring. Owner only.
//
// Put panics if t is nil. It mirrors the runnext part of runqput with
// next=true; a plain swap does what the runtime's CAS loop does, since
// thieves can only empty the slot.
func (s *Slot[T]) Put(t *T) (displaced *T) {
	if t == nil {
		panic("runnext: Slot.Put called with a nil task")
	}
	return s.put(t)
}

// put stamps the time, then publishes t: a thief that sees t reads a stamp
// no older than t's.
func (s *Slot[T]) put(t *T) *T {
	if s.StealDelay() != 0 {
		s.putAt.Store(atomicx.Nanotime())
	}
	return s.task.Swap(t)
}

// Take empties the slot and returns its task, or nil if it was empty or a
// thief took the task first. The task inherits the current time slice.
// Owner only. It mirrors runqget's runnext CAS: one load and one CAS, and
// no retry, because only the owner makes the slot non-empty, so a failed
// CAS means a thief emptied it.
func (s *Slot[T]) Take() *T {
	t := s.task.Load()
	if t == nil {
		return nil
	}
	if mutant == takeWithoutCAS {
		s.task.Store(nil) // a thief's CAS can land between the load and this store
		return t
	}
	if s.task.CompareAndSwap(t, nil) {
		return t
	}
	return nil
}

// Steal takes the slot's task for a thief, once it has sat in the slot for
// the steal delay, and returns it; nil if the slot is empty. A thief that
// finds the task too fresh sleeps (atomicx.Sleep) for the rest of the delay
// and looks again, as runqgrab's usleep(3) does; by then the owner may have
// taken it or put another. The task is taken by a CAS, so the owner's Take
// and the thief never both get it. Any goroutine may call Steal.
//
// Steal is the runnext branch of runqgrab (stealRunNextG) on its own; it
// does not look at any ring. Queue.StealHalf is the whole of runqsteal.
func (s *Slot[T]) Steal() *T {
	for {
		t := s.task.Load()
		if t == nil {
			return nil
		}
		if wait := s.remaining(); wait > 0 {
			atomicx.Sleep(wait)
			continue
		}
		if s.task.CompareAndSwap(t, nil) {
			return t
		}
		// The owner took it or put another: look again.
	}
}

// remaining is how much longer the task a thief has just loaded must sit
// before the thief may take it; 0 or less: it may. It reads the stamp after
// the task, and the owner stores the stamp before the task, so the stamp is
// the loaded task's or a newer one's: a thief may wait too long, never too
// little. (If the owner took a task and put the same pointer back while a
// thief was between this check and its CAS, the thief could take it early:
// the delay is a heuristic, as in the runtime, whose thieves read no clock
// at all. Exactly-once holds regardless.)
func (s *Slot[T]) remaining() time.Duration {
	d := s.StealDelay()
	if d == 0 || mutant == thiefIgnoresDelay {
		return 0
	}
	return time.Duration(s.putAt.Load() + int64(d) - atomicx.Nanotime())
}

// Empty reports whether the slot held no task at the instant it looked.
// Any goroutine may call it.
func (s *Slot[T]) Empty() bool { return s.task.Load() == nil }

// One instantiation inside the package keeps the inline bodies of the
// atomicx calls available to instantiations in other packages, as in lfq.
var _ Slot[struct{}]
