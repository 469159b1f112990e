package spinning

import (
	"errors"
	"fmt"
	"slices"
)

// StopM's two halves, for sequential tests and explorer set-ups that must
// not block: StopMBegin takes a waiting handoff or puts m on the idle list
// ("handoff", "parked"), or reports "exit" after Shutdown; StopMPoll
// finishes a parked StopM once m's note has been woken and reports whether
// it was (woken) and what StopM would return (ok). Tests only.

// StopMBegin runs StopM up to its sleep.
func StopMBegin(m *M) string {
	switch m.stopBegin() {
	case stopHandoff:
		return "handoff"
	case stopExit:
		return "exit"
	}
	return "parked"
}

// StopMPoll finishes StopM for an M that StopMBegin parked, if its note has
// been woken; it never blocks.
func StopMPoll(m *M) (woken, ok bool) {
	if !m.park.SleepFor(0) {
		return false, false
	}
	m.park.Clear()
	return true, m.stopEnd()
}

// StopMWait finishes StopM for an M that StopMBegin parked: it sleeps on
// the note, as StopM does (with the keep-alive, if the Sched has one).
func StopMWait(m *M) bool { return m.stopWait() }

// KeepAliveExpire is the look of m, parked by StopMBegin, as its
// keep-alive runs out (expire): it reports whether m exited. Tests only.
func KeepAliveExpire(m *M) bool { return m.expire() }

// StopMRearm is StopMPoll for an M that retimeIdle may have woken: if
// m's note has been woken, it runs rearm and reports whether the M parked
// again (rearmed) instead of finishing StopM. Tests only.
func StopMRearm(m *M) (woken, rearmed bool) {
	if !m.park.SleepFor(0) {
		return false, false
	}
	m.park.Clear()
	return true, m.rearm()
}

// Timed reports whether m, parked, sleeps on its keep-alive's timer.
// Tests only.
func Timed(m *M) bool {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	return m.timed
}

// NMAlive returns the Ms made and not exited. Tests only.
func NMAlive(s *Sched) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.allm)
}

// ForceSpinning makes m spinning and counts it, bypassing the rule, for a
// test that starts from "m spins holding a P". Tests only.
func ForceSpinning(m *M) {
	if m.p == NoP {
		panic("ForceSpinning: the M holds no P")
	}
	m.becomeSpinning()
}

// CorruptSpinningFlag sets m's spinning flag without counting it, to
// provoke the negative-count panics. Tests only.
func CorruptSpinningFlag(m *M) { m.spinning = true }

// NeedSpinning reports the needspinning flag.
func NeedSpinning(s *Sched) bool { return s.needspinning.Load() }

// IdlePs returns the idle Ps, the next to be taken last.
func IdlePs(s *Sched) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]int, len(s.pidle))
	for i, p := range s.pidle {
		out[i] = int(p)
	}
	return out
}

// IdleMs returns the ids of the idle Ms, the next to be woken first.
func IdleMs(s *Sched) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for m := s.midle; m != nil; m = m.link {
		out = append(out, m.id)
	}
	return out
}

// Handoff is a waiting handoff as tests see it.
type Handoff struct {
	P        int
	Spinning bool
}

// Pending returns the waiting handoffs, the next to be taken last.
func Pending(s *Sched) []Handoff {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Handoff, len(s.pending))
	for i, h := range s.pending {
		out[i] = Handoff{P: int(h.p), Spinning: h.spinning}
	}
	return out
}

// NextP returns the P handed to a woken M that has not yet resumed, and
// whether it is to spin.
func NextP(m *M) (int, bool) { return int(m.nextp), m.nextSpin }

// Validate checks the invariants of doc.go on a Sched at rest (no
// operation in progress, so no Wakep holds a count in flight): every P in
// exactly one place, the idle list and npidle consistent, and nmspinning
// equal to the spinning Ms plus the spinning handoffs. Tests only; the
// caller must ensure no M runs.
func Validate(s *Sched) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	where := make([][]string, len(s.pidleMask))
	for p, out := range s.out {
		if out {
			where[p] = append(where[p], "retired")
		}
	}
	put := func(p int32, place string) {
		if p < 0 || int(p) >= len(where) {
			errs = append(errs, fmt.Errorf("%s holds P %d, out of range", place, p))
			return
		}
		where[p] = append(where[p], place)
	}
	if int(s.npidle.Load()) != len(s.pidle) {
		errs = append(errs, fmt.Errorf("npidle = %d but %d Ps are idle", s.npidle.Load(), len(s.pidle)))
	}
	for _, p := range s.pidle {
		put(p, "the idle set")
		if !s.pidleMask[p] {
			errs = append(errs, fmt.Errorf("P %d is idle but not in pidleMask", p))
		}
	}
	for p, in := range s.pidleMask {
		if in && !slices.Contains(s.pidle, int32(p)) {
			errs = append(errs, fmt.Errorf("P %d in pidleMask but not idle", p))
		}
	}
	spinning, unheld := 0, 0
	for _, h := range s.pending {
		put(h.p, "a waiting handoff")
		if h.spinning {
			spinning++
		}
	}
	onList := map[*M]bool{}
	for m := s.midle; m != nil; m = m.link {
		if onList[m] {
			errs = append(errs, fmt.Errorf("M %d twice on the idle list", m.id))
			break
		}
		onList[m] = true
	}
	if len(onList) != s.nmidle {
		errs = append(errs, fmt.Errorf("nmidle = %d but %d Ms are on the idle list", s.nmidle, len(onList)))
	}
	for _, m := range s.allm {
		if m.idle != onList[m] {
			errs = append(errs, fmt.Errorf("M %d: idle flag %v, on the idle list %v", m.id, m.idle, onList[m]))
		}
		if m.idle && (m.p != NoP || m.spinning || m.nextp != NoP) {
			errs = append(errs, fmt.Errorf("M %d is idle but holds P %d (next %d), spinning %v", m.id, m.p, m.nextp, m.spinning))
		}
		if m.p != NoP {
			put(m.p, fmt.Sprintf("M %d", m.id))
		}
		if m.nextp != NoP {
			put(m.nextp, fmt.Sprintf("M %d (handed, not resumed)", m.id))
		}
		if m.spinning || (m.nextp != NoP && m.nextSpin) {
			spinning++
		}
		if m.spinning && m.p == NoP {
			unheld++ // between ReleaseP and DropSpinning
		}
	}
	for p, places := range where {
		if len(places) != 1 {
			errs = append(errs, fmt.Errorf("P %d is in %d places %v, want exactly one", p, len(places), places))
		}
	}
	n := int(s.nmspinning.Load())
	if n != spinning {
		errs = append(errs, fmt.Errorf("nmspinning = %d but %d Ms and handoffs spin", n, spinning))
	}
	if n < 0 || n-unheld > int(s.procs.Load()) {
		errs = append(errs, fmt.Errorf("nmspinning = %d (%d spinning Ms hold no P), outside 0..%d", n, unheld, s.procs.Load()))
	}
	return errors.Join(errs...)
}

// WakepLoadAdd is Wakep with its CAS split into a load and an add: the
// broken variant that shows TestExploreWakepOnce can fail. Two callers that
// both load 0 both start a spinner. Tests only.
func WakepLoadAdd(s *Sched) {
	if s.nmspinning.Load() != 0 {
		return
	}
	s.nmspinning.Add(1)
	s.mu.Lock()
	p, ok := s.pidlegetSpinning()
	if !ok {
		s.decSpinning("WakepLoadAdd")
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.startm(p, true)
}

// WakepEveryIdleP starts a spinner on every idle P it can hand to an idle
// M: the broken variant that shows TestWakepStartsAtMostOneSpinner can
// fail. Tests only.
func WakepEveryIdleP(s *Sched) {
	for {
		s.mu.Lock()
		if s.midle == nil || len(s.pidle) == 0 {
			s.mu.Unlock()
			return
		}
		p, _ := s.pidleget()
		s.nmspinning.Add(1)
		s.mu.Unlock()
		s.startm(p, true)
	}
}

// CorruptNPIdle adds d to npidle, behind the idle set's back. Tests only.
func CorruptNPIdle(s *Sched, d int) { s.npidle.Add(int32(d)) }

// CorruptHoldP makes m hold P p without taking it from where it is. Tests
// only.
func CorruptHoldP(m *M, p int) { m.p = int32(p) }

// CorruptIdleFlag marks m idle without putting it on the idle list. Tests
// only.
func CorruptIdleFlag(m *M) {
	m.s.mu.Lock()
	m.idle = true
	m.s.mu.Unlock()
}

// WorkUnderLock calls Config.Work while holding the scheduler lock: the
// broken variant that shows TestExploreWorkWithoutLock can fail. Tests
// only.
func WorkUnderLock(s *Sched) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.work()
}
