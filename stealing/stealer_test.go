package stealing_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/runnext"
	"github.com/schedkit/schedkit/stealing"
)

// The real per-P queue is a stealing.Queue as it is.
var _ stealing.Queue[*runnext.Queue[int], int] = (*runnext.Queue[int])(nil)

func newStealer(t *testing.T, ps []*fakeP, idle *stealing.IdleMask) *stealing.Stealer[*fakeP, int] {
	t.Helper()
	s, err := stealing.New(ps, idle)
	require.NoError(t, err)
	return s
}

func TestNewRejectsBadPCounts(t *testing.T) {
	for _, n := range []int{0, stealing.MaxProcs + 1} {
		ps, _ := newFakePs(n)
		s, err := stealing.New(ps, nil)
		require.Error(t, err, "%d Ps", n)
		assert.Nil(t, s)
		assert.True(t, errors.Is(err, stealing.ErrProcCount))
		assert.Contains(t, err.Error(), "stealing: New called with")
	}
	s, err := stealing.New[*fakeP](nil, nil)
	require.ErrorIs(t, err, stealing.ErrProcCount)
	assert.Nil(t, s)
}

func TestNewRejectsAMaskTooShort(t *testing.T) {
	ps, _ := newFakePs(4)
	idle, err := stealing.NewIdleMask(3)
	require.NoError(t, err)
	s, err := stealing.New(ps, idle)
	require.ErrorIs(t, err, stealing.ErrMaskSize)
	assert.Contains(t, err.Error(), "4 Ps and an idle mask for 3")
	assert.Nil(t, s)
}

// A mask longer than the Ps (an executor's mask for every P it may have,
// its Stealer over the Ps in service) is accepted, and its bits are read
// for the Ps the Stealer has: an idle P is skipped, a busy one robbed.
func TestNewTakesALongerMask(t *testing.T) {
	ps, _ := newFakePs(2)
	idle, err := stealing.NewIdleMask(8)
	require.NoError(t, err)
	s, err := stealing.New(ps, idle)
	require.NoError(t, err)
	assert.Equal(t, 2, s.Len())
	ps[1].ring = intsFrom(7, 1)
	idle.Set(1)
	assert.Nil(t, s.Pass(0, 0, true), "P 1 is idle: skipped")
	idle.Clear(1)
	got := s.Pass(0, 0, true)
	require.NotNil(t, got)
	assert.Equal(t, 7, *got)
}

func TestNewCopiesThePs(t *testing.T) {
	ps, _ := newFakePs(2)
	s := newStealer(t, ps, nil)
	other, _ := newFakePs(2)
	ps[1] = other[1] // the caller's slice changes; the Stealer's does not
	ps[1].ring = intsFrom(0, 2)
	rand, _ := fixedRand()
	assert.Nil(t, s.Steal(0, rand))
	assert.Equal(t, 2, s.Len())
	assert.Equal(t, 2, s.Order().Count())
}

func TestStealAndPassPanicOnABadThief(t *testing.T) {
	ps, _ := newFakePs(3)
	s := newStealer(t, ps, nil)
	rand, _ := fixedRand()
	for _, self := range []int{-1, 3, 100} {
		assert.PanicsWithValue(t, fmt.Sprintf("stealing: Stealer.Steal called with thief P %d of 3", self),
			func() { s.Steal(self, rand) })
		assert.PanicsWithValue(t, fmt.Sprintf("stealing: Stealer.Pass called with thief P %d of 3", self),
			func() { s.Pass(self, 0, true) })
	}
	assert.PanicsWithValue(t, "stealing: Stealer.Steal called with a nil random source", func() { s.Steal(0, nil) })
}

func TestOnePStealsNothingAndVisitsNoOne(t *testing.T) {
	ps, log := newFakePs(1)
	s := newStealer(t, ps, nil)
	rand, calls := fixedRand(1, 2, 3, 4)
	assert.Nil(t, s.Steal(0, rand))
	assert.Empty(t, *log)
	assert.Equal(t, stealing.StealTries, *calls, "one random number per pass")
}

func TestStealTakesHalfOfTheOnlyBusyVictim(t *testing.T) {
	ps, log := newFakePs(4)
	ps[2].ring = intsFrom(0, 5)
	s := newStealer(t, ps, nil)
	// r = 1: start at P 1, stride 1 (the strides of 4 are 1 and 3).
	rand, calls := fixedRand(1)
	got := s.Steal(0, rand)
	require.NotNil(t, got)
	assert.Equal(t, 2, *got, "the newest of the stolen half (0, 1, 2)")
	assert.Equal(t, []int{0, 1}, itemIDs(ps[0].ring), "the rest of the half is in the thief's ring")
	assert.Equal(t, []int{3, 4}, itemIDs(ps[2].ring))
	assert.Equal(t, []stealCall{{1, 0, false}, {2, 0, false}}, *log, "P 1 first, then P 2, where the work was")
	assert.Equal(t, 1, *calls, "the first pass found work")
}

func TestRunnextOnlyOnTheLastPass(t *testing.T) {
	ps, log := newFakePs(3)
	task := 7
	ps[1].next = &task
	s := newStealer(t, ps, nil)
	rand, calls := fixedRand(0, 1, 2, 3)
	got := s.Steal(0, rand)
	require.NotNil(t, got)
	assert.Equal(t, 7, *got)
	assert.Nil(t, ps[1].next)
	assert.Equal(t, stealing.StealTries, *calls)
	var early, last []stealCall
	for _, c := range *log {
		if c.stealNext {
			last = append(last, c)
		} else {
			early = append(early, c)
		}
	}
	assert.Len(t, early, 2*(stealing.StealTries-1), "three passes over both other Ps without runnext")
	assert.NotEmpty(t, last)
	assert.Equal(t, stealCall{1, 0, true}, last[len(last)-1])
	for _, c := range *log {
		assert.NotEqual(t, 0, c.victim, "the thief never steals from itself")
	}
}

func TestStealReturnsNilWhenEveryoneIsEmpty(t *testing.T) {
	ps, log := newFakePs(5)
	s := newStealer(t, ps, nil)
	rand, calls := fixedRand(3, 9, 14, 20)
	assert.Nil(t, s.Steal(2, rand))
	assert.Equal(t, stealing.StealTries, *calls)
	assert.Len(t, *log, stealing.StealTries*4)
	// Each pass visits each of the 4 others once, in its order.
	for pass := range stealing.StealTries {
		var victims []int
		for _, c := range (*log)[pass*4 : pass*4+4] {
			victims = append(victims, c.victim)
			assert.Equal(t, pass == stealing.StealTries-1, c.stealNext)
			assert.Equal(t, 2, c.thief)
		}
		assert.ElementsMatch(t, []int{0, 1, 3, 4}, victims, "pass %d", pass)
	}
	// The first pass follows Order().Start(3): start 3, stride 1.
	assert.Equal(t, []stealCall{{3, 2, false}, {4, 2, false}, {0, 2, false}, {1, 2, false}}, (*log)[:4])
}

func TestPassFollowsTheOrder(t *testing.T) {
	ps, log := newFakePs(7)
	s := newStealer(t, ps, nil)
	for r := range uint32(7 * 6) {
		*log = nil
		assert.Nil(t, s.Pass(4, r, r%2 == 0))
		var want []stealCall
		for e := s.Order().Start(r); !e.Done(); e = e.Next() {
			if e.Position() != 4 {
				want = append(want, stealCall{e.Position(), 4, r%2 == 0})
			}
		}
		require.Equal(t, want, *log, "r = %d", r)
	}
}

func TestIdleVictimsAreSkipped(t *testing.T) {
	ps, log := newFakePs(3)
	idle, err := stealing.NewIdleMask(3)
	require.NoError(t, err)
	s := newStealer(t, ps, idle)
	// Work in an idle P breaks the caller's contract (an idle P's queue is
	// empty), which shows the skip: the thief does not look at it.
	ps[2].ring = intsFrom(0, 2)
	idle.Set(2)
	idle.Set(0) // the thief's own bit: Steal does not care
	rand, _ := fixedRand(0, 1, 2, 3)
	assert.Nil(t, s.Steal(0, rand))
	for _, c := range *log {
		assert.Equal(t, 1, c.victim, "only P 1 is visited")
	}
	assert.Len(t, *log, stealing.StealTries)
	idle.Clear(2)
	*log = nil
	rand, _ = fixedRand(0)
	got := s.Steal(0, rand)
	require.NotNil(t, got)
	assert.Equal(t, 0, *got)
}

func TestStealOverRealQueues(t *testing.T) {
	qs := make([]*runnext.Queue[int], 3)
	for i := range qs {
		qs[i] = new(runnext.Queue[int])
		qs[i].SetStealDelay(0)
	}
	s, err := stealing.New(qs, nil)
	require.NoError(t, err)
	for _, it := range intsFrom(0, 4) {
		qs[1].Put(it, nil)
	}
	nxt := 100
	qs[2].PutNext(&nxt, nil)
	rand, _ := fixedRand(1) // start at P 1
	got := s.Steal(0, rand)
	require.NotNil(t, got)
	assert.Equal(t, 1, *got)
	assert.Equal(t, 1, qs[0].Len())
	assert.Equal(t, 2, qs[1].Len())
	// Only P 2's runnext task is left elsewhere once P 1 is emptied.
	for qs[1].Len() > 0 {
		qs[1].Get()
	}
	for qs[0].Len() > 0 {
		qs[0].Get()
	}
	rand, calls := fixedRand(0, 0, 0, 0)
	got = s.Steal(0, rand)
	require.NotNil(t, got)
	assert.Equal(t, 100, *got, "the runnext task, on the last pass")
	assert.Equal(t, stealing.StealTries, *calls)
	assert.True(t, qs[2].Empty())
}

func TestIdleMask(t *testing.T) {
	m, err := stealing.NewIdleMask(70) // three words
	require.NoError(t, err)
	assert.Equal(t, 70, m.Len())
	for _, p := range []int{0, 31, 32, 63, 64, 69} {
		assert.False(t, m.Read(p))
		m.Set(p)
		m.Set(p) // twice is once
		assert.True(t, m.Read(p), "P %d", p)
	}
	assert.False(t, m.Read(1))
	assert.False(t, m.Read(33))
	m.Clear(32)
	m.Clear(32)
	assert.False(t, m.Read(32))
	assert.True(t, m.Read(31))
	assert.True(t, m.Read(63))
}

func TestIdleMaskBadInput(t *testing.T) {
	for _, n := range []int{0, -3, stealing.MaxProcs + 1} {
		m, err := stealing.NewIdleMask(n)
		require.ErrorIs(t, err, stealing.ErrProcCount)
		assert.Contains(t, err.Error(), "NewIdleMask")
		assert.Nil(t, m)
	}
	m, err := stealing.NewIdleMask(3)
	require.NoError(t, err)
	assert.PanicsWithValue(t, "stealing: IdleMask.Read called with P 3 of 3", func() { m.Read(3) })
	assert.PanicsWithValue(t, "stealing: IdleMask.Set called with P -1 of 3", func() { m.Set(-1) })
	assert.PanicsWithValue(t, "stealing: IdleMask.Clear called with P 5 of 3", func() { m.Clear(5) })
	var nilMask *stealing.IdleMask
	assert.False(t, nilMask.Read(12), "a nil mask: no P is idle")
	assert.Equal(t, 0, nilMask.Len())
	assert.PanicsWithValue(t, "stealing: IdleMask.Set called on a nil mask", func() { nilMask.Set(0) })
	assert.PanicsWithValue(t, "stealing: IdleMask.Clear called on a nil mask", func() { nilMask.Clear(0) })
}

// TestPermutationCheckerCatchesAStrideThatIsNotCoprime shows that the
// checker of TestOrderIsAPermutationForEveryPCount can fail: strides that
// share a factor with n revisit a P.
func TestPermutationCheckerCatchesAStrideThatIsNotCoprime(t *testing.T) {
	for _, c := range []struct{ n, start, stride, repeat int }{
		{2, 1, 2, 1}, {6, 0, 2, 0}, {6, 5, 3, 5}, {256, 7, 128, 7}, {9, 4, 6, 4},
	} {
		p, visits := firstRepeat(stealing.NewEnum(c.n, c.start, c.stride), c.n)
		assert.Equal(t, c.repeat, p, "%+v", c)
		assert.Less(t, visits, c.n, "%+v", c)
	}
	p, visits := firstRepeat(stealing.NewEnum(6, 2, 5), 6)
	assert.Equal(t, -1, p)
	assert.Equal(t, 6, visits)
}
