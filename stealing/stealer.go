package stealing

import (
	"errors"
	"fmt"
)

// StealTries is the number of passes Steal makes over the Ps, as in the
// runtime's stealWork. Only the last one may take a victim's runnext task.
const StealTries = 4

// ErrProcCount is wrapped by the error of a constructor given a number of
// Ps outside 1..MaxProcs.
var ErrProcCount = errors.New("stealing: the number of Ps must be in 1..MaxProcs")

// ErrMaskSize is wrapped by the error of New given an IdleMask with fewer
// bits than there are Ps.
var ErrMaskSize = errors.New("stealing: the idle mask must have a bit for every P")

// Queue is what a thief needs of a P's local run queue: to steal from it
// into a queue of its own. StealHalf moves about half of the receiver's
// queued tasks into dst, which the caller owns, and returns one more for the
// caller to run, or nil when it found nothing; when stealNext is set it may
// also take the receiver's runnext task. It is the runtime's runqsteal.
//
// *runnext.Queue[T] satisfies Queue[*runnext.Queue[T], T] as it is; tests
// use fake Ps that satisfy it too.
type Queue[Q any, T any] interface {
	StealHalf(dst Q, stealNext bool) *T
}

// Stealer decides who steals from whom among a fixed set of Ps: P i's run
// queue is ps[i], and the thief running on P self steals into ps[self]. It
// holds the Ps, their IdleMask and the Order of the victims, and is
// read-only after New, so every P's thief can use one Stealer at once.
type Stealer[Q Queue[Q, T], T any] struct {
	ps    []Q
	idle  *IdleMask
	order Order
}

// New returns a Stealer over ps (which it copies) that skips the Ps idle
// says are idle; idle may be nil (no P is ever skipped as idle). It returns
// an error if len(ps) is not in 1..MaxProcs or idle has fewer bits than
// len(ps). A longer mask is for an executor whose P count changes: it
// keeps one mask for every P it may have and makes a Stealer over the
// first n (procresize's randomOrder.reset); the bits past len(ps) are
// never read. The caller keeps owning the queues and the mask.
func New[Q Queue[Q, T], T any](ps []Q, idle *IdleMask) (*Stealer[Q, T], error) {
	if len(ps) < 1 || len(ps) > MaxProcs {
		return nil, fmt.Errorf("stealing: New called with %d Ps, want 1..%d: %w", len(ps), MaxProcs, ErrProcCount)
	}
	if idle != nil && idle.Len() < len(ps) {
		return nil, fmt.Errorf("stealing: New called with %d Ps and an idle mask for %d: %w", len(ps), idle.Len(), ErrMaskSize)
	}
	s := &Stealer[Q, T]{ps: append([]Q(nil), ps...), idle: idle}
	if err := s.order.Reset(len(ps)); err != nil {
		return nil, err
	}
	return s, nil
}

// Len returns the number of Ps.
func (s *Stealer[Q, T]) Len() int { return len(s.ps) }

// Order returns the victim order the Stealer's passes use, to read: Reset
// on it while thieves steal is a data race.
func (s *Stealer[Q, T]) Order() *Order { return &s.order }

// Steal looks for work for the thief on P self: up to StealTries passes,
// each in a fresh random order (Pass with r = rand()), with stealNext set
// only on the last pass, so that a victim's runnext task, which its owner is
// about to run, is taken only as a last resort. It returns the first task a
// pass found, the rest of the stolen half now sitting in ps[self], or nil if
// every pass came back empty.
//
// Call it from P self's owner only, with ps[self] holding at most half a
// ring (as when its queue is empty, which is when a P steals). rand is
// called once per pass. Steal panics, naming the call, if self is not in
// 0..Len()-1 or rand is nil. It mirrors the stealing loop of stealWork, and
// Steal.tla's action Steal.
func (s *Stealer[Q, T]) Steal(self int, rand func() uint32) *T {
	if self < 0 || self >= len(s.ps) {
		panic(fmt.Sprintf("stealing: Stealer.Steal called with thief P %d of %d", self, len(s.ps)))
	}
	if rand == nil {
		panic("stealing: Stealer.Steal called with a nil random source")
	}
	tries := StealTries
	if mutant == noRunnextPass {
		tries--
	}
	for try := range tries {
		last := try == StealTries-1
		if t := s.pass(uint32(self), rand(), last || mutant == runnextEveryPass); t != nil {
			return t
		}
	}
	return nil
}

// Pass is one pass over the Ps for the thief on P self, in the order
// Order().Start(r) gives: it skips self and every P the idle mask marks idle
// when it comes to it, and from each other P tries StealHalf into ps[self]
// with stealNext, stopping at the first task found. So one pass visits
// each other non-idle P at most once. It returns the task, or nil.
//
// Pass panics, naming the call, if self is not in 0..Len()-1. It mirrors
// the inner loop of stealWork (the enumeration, the pp == p2 and idlepMask
// tests, runqsteal), and Steal.tla's action Pass.
func (s *Stealer[Q, T]) Pass(self int, r uint32, stealNext bool) *T {
	if self < 0 || self >= len(s.ps) {
		panic(fmt.Sprintf("stealing: Stealer.Pass called with thief P %d of %d", self, len(s.ps)))
	}
	return s.pass(uint32(self), r, stealNext)
}

func (s *Stealer[Q, T]) pass(self, r uint32, stealNext bool) *T {
	dst := s.ps[self]
	for e := s.order.Start(r); !e.Done(); e = e.Next() {
		if mutant == passEndsEarly && e.Next().Done() {
			break
		}
		v := e.Position()
		if uint32(v) == self && mutant != stealsFromSelf {
			continue
		}
		if (s.idle != nil && s.idle.read(uint32(v))) != (mutant == skipsNonIdle) {
			continue // idle: its queue is empty (with the mutant: busy, skipped)
		}
		if t := s.ps[v].StealHalf(dst, stealNext); t != nil {
			return t
		}
	}
	return nil
}
