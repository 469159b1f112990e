package spinning_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/spinning"
)

// queue is the simplest work source: a count of queued tasks.
type queue struct{ n atomic.Int64 }

func (q *queue) has() bool { return q.n.Load() > 0 }
func (q *queue) push()     { q.n.Add(1) }

func newSched(t *testing.T, procs int, q *queue) *spinning.Sched {
	t.Helper()
	s, err := spinning.New(spinning.Config{Procs: procs, Work: q.has})
	require.NoError(t, err)
	return s
}

// running returns an M that holds a P (taken with AcquireP).
func running(t *testing.T, s *spinning.Sched) *spinning.M {
	t.Helper()
	m := s.NewM()
	require.True(t, m.AcquireP(), "no idle P left")
	return m
}

// parked returns an M parked on the idle list (StopM's first half).
func parked(t *testing.T, s *spinning.Sched) *spinning.M {
	t.Helper()
	m := s.NewM()
	require.Equal(t, "parked", spinning.StopMBegin(m))
	return m
}

func valid(t *testing.T, s *spinning.Sched) {
	t.Helper()
	require.NoError(t, spinning.Validate(s))
}

func TestNewRejectsBadConfig(t *testing.T) {
	work := func() bool { return false }
	for _, tc := range []struct {
		name string
		cfg  spinning.Config
		want string
	}{
		{"no Ps", spinning.Config{Procs: 0, Work: work}, "Procs = 0"},
		{"negative Ps", spinning.Config{Procs: -3, Work: work}, "Procs = -3"},
		{"too many Ps", spinning.Config{Procs: 1<<20 + 1, Work: work}, "at most"},
		{"no Work", spinning.Config{Procs: 2}, "Config.Work is nil"},
		{"KeepAlive without NeedM", spinning.Config{Procs: 2, Work: work, KeepAlive: time.Second}, "KeepAlive needs Config.NeedM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := spinning.New(tc.cfg)
			assert.Nil(t, s)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "spinning: New")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestNewStartsWithEveryPIdle(t *testing.T) {
	s := newSched(t, 4, new(queue))
	assert.Equal(t, 4, s.Procs())
	assert.Equal(t, 4, s.NPIdle())
	assert.Equal(t, 0, s.NMSpinning())
	assert.Equal(t, 0, s.NMIdle())
	assert.Equal(t, []int{3, 2, 1, 0}, spinning.IdlePs(s), "P 0 is taken first")
	m := s.NewM()
	assert.Equal(t, 0, m.ID())
	assert.Equal(t, spinning.NoP, m.P())
	assert.False(t, m.Spinning())
	assert.False(t, m.Idle())
	assert.Equal(t, 1, s.NewM().ID())
	valid(t, s)
}

func TestAcquireP(t *testing.T) {
	s := newSched(t, 2, new(queue))
	a, b, c := s.NewM(), s.NewM(), s.NewM()
	require.True(t, a.AcquireP())
	require.True(t, b.AcquireP())
	assert.Equal(t, 0, a.P())
	assert.Equal(t, 1, b.P())
	assert.Equal(t, 0, s.NPIdle())
	assert.False(t, c.AcquireP(), "no idle P")
	assert.Equal(t, spinning.NoP, c.P())
	assert.PanicsWithValue(t, "spinning: M.AcquireP called on an M that already holds a P", func() { a.AcquireP() })
	valid(t, s)
}

// TestSpinningRule checks 2*nmspinning < Procs - npidle: spinners may be at
// most half the busy Ps, rounded up.
func TestSpinningRule(t *testing.T) {
	s := newSched(t, 4, new(queue))
	m0 := running(t, s) // busy 1: 2*0 < 1
	require.True(t, m0.BecomeSpinning())
	assert.Equal(t, 1, s.NMSpinning())
	assert.True(t, m0.BecomeSpinning(), "a spinner stays spinning")
	assert.Equal(t, 1, s.NMSpinning(), "and is not counted twice")
	m1 := running(t, s) // busy 2: 2*1 < 2 is false
	assert.False(t, m1.BecomeSpinning())
	m2 := running(t, s) // busy 3: 2*1 < 3
	assert.True(t, m2.BecomeSpinning())
	m3 := running(t, s) // busy 4: 2*2 < 4 is false
	assert.False(t, m3.BecomeSpinning())
	assert.Equal(t, 2, s.NMSpinning())
	assert.False(t, m1.Spinning())
	valid(t, s)
	assert.PanicsWithValue(t, "spinning: M.BecomeSpinning called on an M that holds no P", func() { s.NewM().BecomeSpinning() })
}

func TestWakepStartsAParkedMSpinning(t *testing.T) {
	s := newSched(t, 2, new(queue))
	m := parked(t, s)
	assert.True(t, m.Idle())
	assert.Equal(t, 1, s.NMIdle())
	woken, _ := spinning.StopMPoll(m)
	require.False(t, woken)

	s.Wakep()
	assert.Equal(t, 1, s.NMSpinning())
	assert.Equal(t, 1, s.NPIdle())
	assert.Equal(t, 0, s.NMIdle())
	assert.False(t, m.Idle())
	p, spin := spinning.NextP(m)
	assert.Equal(t, 0, p)
	assert.True(t, spin)
	valid(t, s)

	woken, ok := spinning.StopMPoll(m)
	require.True(t, woken)
	require.True(t, ok)
	assert.Equal(t, 0, m.P())
	assert.True(t, m.Spinning())
	valid(t, s)

	// A spinner exists: Wakep does nothing.
	other := parked(t, s)
	s.Wakep()
	assert.True(t, other.Idle())
	assert.Equal(t, 1, s.NMSpinning())
	valid(t, s)
}

func TestWakepWithNoIdlePSetsNeedSpinning(t *testing.T) {
	s := newSched(t, 1, new(queue))
	m := running(t, s)
	idle := parked(t, s)
	s.Wakep()
	assert.Equal(t, 0, s.NMSpinning(), "the count is given back")
	assert.True(t, idle.Idle())
	assert.True(t, spinning.NeedSpinning(s))
	// The M about to give up its P spins instead.
	assert.False(t, m.ReleaseP())
	assert.True(t, m.Spinning())
	assert.Equal(t, 0, m.P())
	assert.False(t, spinning.NeedSpinning(s), "a new spinner clears it")
	assert.Equal(t, 1, s.NMSpinning())
	valid(t, s)
}

func TestWakepWithNoIdleMLeavesAHandoff(t *testing.T) {
	q := new(queue)
	var needM int
	s, err := spinning.New(spinning.Config{Procs: 2, Work: q.has, NeedM: func() { needM++ }})
	require.NoError(t, err)
	s.Wakep()
	assert.Equal(t, 1, needM)
	assert.Equal(t, []spinning.Handoff{{P: 0, Spinning: true}}, spinning.Pending(s))
	assert.Equal(t, 1, s.NMSpinning(), "the handoff counts as a spinner")
	valid(t, s)
	m := s.NewM()
	assert.True(t, m.StopM(), "StopM takes the handoff without sleeping")
	assert.Equal(t, 0, m.P())
	assert.True(t, m.Spinning())
	assert.Empty(t, spinning.Pending(s))
	valid(t, s)
}

func TestResetSpinningOfTheLastSpinnerWakesAnother(t *testing.T) {
	s := newSched(t, 2, new(queue))
	m := running(t, s)
	require.True(t, m.BecomeSpinning())
	other := parked(t, s)
	m.ResetSpinning()
	assert.False(t, m.Spinning())
	assert.Equal(t, 0, m.P())
	woken, ok := spinning.StopMPoll(other)
	require.True(t, woken, "the last spinner must start another")
	require.True(t, ok)
	assert.Equal(t, 1, other.P())
	assert.True(t, other.Spinning())
	assert.Equal(t, 1, s.NMSpinning())
	valid(t, s)

	// other is not the last spinner once a third spins: no wakeup then.
	s2 := newSched(t, 4, new(queue))
	a, b := running(t, s2), running(t, s2)
	spinning.ForceSpinning(a)
	spinning.ForceSpinning(b)
	idle := parked(t, s2)
	a.ResetSpinning()
	assert.True(t, idle.Idle())
	assert.Equal(t, 1, s2.NMSpinning())
	valid(t, s2)
}

func TestResetSpinningMisuse(t *testing.T) {
	s := newSched(t, 2, new(queue))
	m := running(t, s)
	assert.PanicsWithValue(t, "spinning: M.ResetSpinning called on an M that is not spinning", m.ResetSpinning)
	spinning.CorruptSpinningFlag(m) // spinning but never counted
	assert.PanicsWithValue(t, "spinning: M.ResetSpinning: negative nmspinning", m.ResetSpinning)
}

func TestReleaseP(t *testing.T) {
	s := newSched(t, 2, new(queue))
	m := running(t, s)
	require.True(t, m.ReleaseP())
	assert.Equal(t, spinning.NoP, m.P())
	assert.Equal(t, 2, s.NPIdle())
	assert.Equal(t, []int{1, 0}, spinning.IdlePs(s), "the P released last is taken first")
	assert.PanicsWithValue(t, "spinning: M.ReleaseP called on an M that holds no P", func() { m.ReleaseP() })
	valid(t, s)

	// A spinning M gives up its P even when needspinning is set: it is the
	// spinner asked for, and it re-checks when it drops.
	q := new(queue)
	s2 := newSched(t, 2, q)
	x := running(t, s2)
	spinning.ForceSpinning(x)
	require.True(t, x.ReleaseP())
	sp := running(t, s2) // takes x's P
	spinning.ForceSpinning(sp)
	other := running(t, s2)
	q.push()
	require.False(t, x.DropSpinning(), "work, but no idle P")
	require.True(t, spinning.NeedSpinning(s2))
	assert.True(t, sp.ReleaseP())
	assert.True(t, sp.Spinning(), "it is still spinning until DropSpinning")
	assert.False(t, other.ReleaseP(), "a non-spinning M answers needspinning")
	assert.True(t, other.Spinning())
	valid(t, s2)
}

func TestDropSpinning(t *testing.T) {
	t.Run("not spinning", func(t *testing.T) {
		s := newSched(t, 2, new(queue))
		m := running(t, s)
		require.True(t, m.ReleaseP())
		assert.False(t, m.DropSpinning())
		assert.Equal(t, 0, s.NMSpinning())
	})
	t.Run("holding a P", func(t *testing.T) {
		s := newSched(t, 2, new(queue))
		m := running(t, s)
		assert.PanicsWithValue(t, "spinning: M.DropSpinning called on an M that holds a P (ReleaseP first)", func() { m.DropSpinning() })
	})
	t.Run("no work", func(t *testing.T) {
		s := newSched(t, 2, new(queue))
		m := running(t, s)
		spinning.ForceSpinning(m)
		require.True(t, m.ReleaseP())
		assert.False(t, m.DropSpinning())
		assert.False(t, m.Spinning())
		assert.Equal(t, 0, s.NMSpinning())
		assert.Equal(t, 2, s.NPIdle())
		valid(t, s)
	})
	t.Run("work appeared", func(t *testing.T) {
		q := new(queue)
		s := newSched(t, 2, q)
		m := running(t, s)
		spinning.ForceSpinning(m)
		require.True(t, m.ReleaseP())
		q.push() // after the M looked, before it dropped
		assert.True(t, m.DropSpinning(), "the re-check must find the work")
		assert.True(t, m.Spinning())
		assert.Equal(t, 0, m.P(), "it takes an idle P (its own, released last)")
		assert.Equal(t, 1, s.NMSpinning())
		valid(t, s)
	})
	t.Run("work but no idle P", func(t *testing.T) {
		q := new(queue)
		s := newSched(t, 1, q)
		m := running(t, s)
		spinning.ForceSpinning(m)
		require.True(t, m.ReleaseP())
		other := running(t, s) // took the P meanwhile
		q.push()
		assert.False(t, m.DropSpinning())
		assert.True(t, spinning.NeedSpinning(s))
		assert.False(t, other.ReleaseP(), "the M with the P spins instead of idling it")
		assert.True(t, other.Spinning())
		valid(t, s)
	})
	t.Run("negative count", func(t *testing.T) {
		s := newSched(t, 1, new(queue))
		m := running(t, s)
		spinning.CorruptSpinningFlag(m)
		require.True(t, m.ReleaseP())
		assert.PanicsWithValue(t, "spinning: M.DropSpinning: negative nmspinning", func() { m.DropSpinning() })
	})
}

func TestStopM(t *testing.T) {
	parkedCh := make(chan int, 8) // CheckDead runs under the lock: it must not block
	s, err := spinning.New(spinning.Config{Procs: 2, Work: func() bool { return false },
		CheckDead: func(idle, _ int) { parkedCh <- idle }})
	require.NoError(t, err)
	m := running(t, s)
	assert.PanicsWithValue(t, "spinning: M.StopM called on an M that holds a P", func() { m.StopM() })
	spinning.ForceSpinning(m)
	require.True(t, m.ReleaseP())
	assert.PanicsWithValue(t, "spinning: M.StopM called on a spinning M (DropSpinning first)", func() { m.StopM() })
	require.False(t, m.DropSpinning())

	// A real StopM on its own goroutine, woken by Wakep. CheckDead says
	// when it has parked; its result is the event waited for.
	done := make(chan bool)
	go func() { done <- m.StopM() }()
	require.Equal(t, 1, <-parkedCh)
	assert.True(t, m.Idle())
	s.Wakep()
	require.True(t, <-done)
	assert.Equal(t, 0, m.P())
	assert.True(t, m.Spinning())
	valid(t, s)
}

func TestCheckDeadSeesEveryMPark(t *testing.T) {
	type call struct{ idle, total int }
	var calls []call
	s, err := spinning.New(spinning.Config{Procs: 2, Work: func() bool { return false },
		CheckDead: func(idle, total int) { calls = append(calls, call{idle, total}) }})
	require.NoError(t, err)
	a, b := s.NewM(), s.NewM()
	require.Equal(t, "parked", spinning.StopMBegin(a))
	require.Equal(t, "parked", spinning.StopMBegin(b))
	assert.Equal(t, []call{{1, 2}, {2, 2}}, calls)
}

func TestHandoffP(t *testing.T) {
	t.Run("work: a non-spinning M takes the P", func(t *testing.T) {
		q := new(queue)
		s := newSched(t, 2, q)
		m := running(t, s)
		idle := parked(t, s)
		q.push()
		m.HandoffP()
		assert.Equal(t, spinning.NoP, m.P())
		woken, ok := spinning.StopMPoll(idle)
		require.True(t, woken)
		require.True(t, ok)
		assert.Equal(t, 0, idle.P())
		assert.False(t, idle.Spinning())
		valid(t, s)
	})
	t.Run("no work, no spinner, no idle P: a spinner takes the P", func(t *testing.T) {
		s := newSched(t, 1, new(queue))
		m := running(t, s)
		idle := parked(t, s)
		m.HandoffP()
		woken, _ := spinning.StopMPoll(idle)
		require.True(t, woken)
		assert.True(t, idle.Spinning())
		assert.Equal(t, 1, s.NMSpinning())
		valid(t, s)
	})
	t.Run("no work, a P idle: the P idles", func(t *testing.T) {
		s := newSched(t, 2, new(queue))
		m := running(t, s)
		idle := parked(t, s)
		m.HandoffP()
		assert.True(t, idle.Idle())
		assert.Equal(t, 2, s.NPIdle())
		valid(t, s)
	})
	t.Run("needspinning: a spinner takes the P", func(t *testing.T) {
		s := newSched(t, 2, new(queue))
		m := running(t, s)
		spinner := running(t, s)
		spinning.ForceSpinning(spinner)
		idle := parked(t, s)
		s2 := s
		// A spinner exists and no P is idle; set needspinning as a failed
		// re-check would.
		spinner.ResetSpinning() // the last spinner: Wakep finds no idle P
		require.True(t, spinning.NeedSpinning(s2))
		m.HandoffP()
		woken, _ := spinning.StopMPoll(idle)
		require.True(t, woken)
		assert.True(t, idle.Spinning())
		assert.False(t, spinning.NeedSpinning(s))
		valid(t, s)
	})
	t.Run("misuse", func(t *testing.T) {
		s := newSched(t, 2, new(queue))
		m := s.NewM()
		assert.PanicsWithValue(t, "spinning: M.HandoffP called on an M that holds no P", m.HandoffP)
		require.True(t, m.AcquireP())
		spinning.ForceSpinning(m)
		assert.PanicsWithValue(t, "spinning: M.HandoffP called on a spinning M", m.HandoffP)
	})
}

func TestSubmitPublishesBeforeWaking(t *testing.T) {
	q := new(queue)
	s := newSched(t, 2, q)
	m := parked(t, s)
	published := false
	s.Submit(func() {
		assert.True(t, m.Idle(), "Wakep ran before publish")
		assert.Equal(t, 0, s.NMSpinning(), "Wakep ran before publish")
		q.push()
		published = true
	})
	require.True(t, published)
	woken, _ := spinning.StopMPoll(m)
	assert.True(t, woken)
	assert.PanicsWithValue(t, "spinning: Sched.Submit called with a nil publish function", func() { s.Submit(nil) })
}

func TestShutdown(t *testing.T) {
	s := newSched(t, 2, new(queue))
	a, b := parked(t, s), parked(t, s)
	r := running(t, s)
	s.Shutdown()
	for _, m := range []*spinning.M{a, b} {
		woken, ok := spinning.StopMPoll(m)
		assert.True(t, woken)
		assert.False(t, ok, "woken by Shutdown: exit")
		assert.Equal(t, spinning.NoP, m.P())
	}
	s.Shutdown() // idempotent
	s.Wakep()    // starts nothing
	assert.Equal(t, 0, s.NMSpinning())
	require.True(t, r.ReleaseP())
	assert.False(t, r.StopM(), "StopM after Shutdown returns at once")
	assert.Equal(t, 2, s.NPIdle())
	valid(t, s)

	// Handoffs still waiting give their P back.
	s2 := newSched(t, 2, new(queue))
	s2.Wakep()
	require.Len(t, spinning.Pending(s2), 1)
	s2.Shutdown()
	assert.Empty(t, spinning.Pending(s2))
	assert.Equal(t, 2, s2.NPIdle())
	assert.Equal(t, 0, s2.NMSpinning())
	valid(t, s2)
}

// oneSpinnerPerWakep checks "one Wakep starts at most one spinner" for
// wakep: with 3 idle Ps and 3 parked Ms, a first call starts exactly one
// spinner, and a second, while that one spins, starts none.
func oneSpinnerPerWakep(t *testing.T, wakep func(*spinning.Sched)) error {
	s := newSched(t, 3, new(queue))
	ms := []*spinning.M{parked(t, s), parked(t, s), parked(t, s)}
	started := func() int {
		n := 0
		for _, m := range ms {
			if p, _ := spinning.NextP(m); p != spinning.NoP {
				n++
			}
		}
		return n
	}
	wakep(s)
	if n := started(); n != 1 {
		return fmt.Errorf("one Wakep with every P idle started %d spinners, want 1", n)
	}
	wakep(s)
	if n := started(); n != 1 {
		return fmt.Errorf("a Wakep while a spinner exists started %d more", n-1)
	}
	if n := s.NMSpinning(); n != 1 {
		return fmt.Errorf("nmspinning = %d, want 1", n)
	}
	return spinning.Validate(s)
}

func TestWakepStartsAtMostOneSpinner(t *testing.T) {
	require.NoError(t, oneSpinnerPerWakep(t, (*spinning.Sched).Wakep))
	// The check can fail: a Wakep that starts a spinner on every idle P.
	err := oneSpinnerPerWakep(t, spinning.WakepEveryIdleP)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "started 3 spinners")
}

// TestValidateCatchesBrokenStates proves the invariant check that the model
// test and the explorer run after every step can fail: each corruption of
// a valid Sched must be reported, naming what broke.
func TestValidateCatchesBrokenStates(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(s *spinning.Sched, held *spinning.M)
		want    string
	}{
		{"a spinning flag not counted", func(_ *spinning.Sched, m *spinning.M) { spinning.CorruptSpinningFlag(m) },
			"nmspinning = 0 but 1 Ms and handoffs spin"},
		{"npidle off by one", func(s *spinning.Sched, _ *spinning.M) { spinning.CorruptNPIdle(s, 1) },
			"npidle = 2 but 1 Ps are idle"},
		{"an idle P held too", func(_ *spinning.Sched, m *spinning.M) { spinning.CorruptHoldP(m, 1) },
			"P 1 is in 2 places"},
		{"an idle flag off the list", func(s *spinning.Sched, _ *spinning.M) { spinning.CorruptIdleFlag(s.NewM()) },
			"idle flag true, on the idle list false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSched(t, 2, new(queue))
			m := running(t, s)
			valid(t, s)
			tc.corrupt(s, m)
			err := spinning.Validate(s)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
