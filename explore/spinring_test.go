//go:build schedcheck

package explore_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/examples/once"
	"github.com/schedkit/schedkit/examples/seqlock"
	"github.com/schedkit/schedkit/explore"
)

// spinRing is a bounded MPMC ring of tickets (Vyukov's bounded queue with
// the retry turned into a wait): a producer takes a ticket from tail and
// spins, yielding, until its slot's sequence number says the slot is free
// for that lap; a consumer takes a ticket from head and spins until the
// sequence number says the slot holds that lap's value. publishFirst is the
// seeded bug: the producer publishes the sequence number before it writes
// the value, so a consumer may read the slot's old value.
type spinRing struct {
	head, tail   atomicx.Uint64
	slots        []ringSlot
	publishFirst bool
}

type ringSlot struct{ seq, val atomicx.Uint64 }

func newSpinRing(n int, publishFirst bool) *spinRing {
	r := &spinRing{slots: make([]ringSlot, n), publishFirst: publishFirst}
	explore.Name(&r.head, "head")
	explore.Name(&r.tail, "tail")
	for i := range r.slots {
		explore.Name(&r.slots[i], fmt.Sprintf("slot[%d]", i))
		r.slots[i].seq.Store(uint64(i))
	}
	return r
}

func (r *spinRing) push(v uint64) {
	pos := r.tail.Add(1) - 1
	s := &r.slots[pos%uint64(len(r.slots))]
	for s.seq.Load() != pos {
		atomicx.Sleep(0) // full: a consumer has not taken this slot's last value
	}
	if r.publishFirst {
		s.seq.Store(pos + 1)
		s.val.Store(v)
		return
	}
	s.val.Store(v)
	s.seq.Store(pos + 1)
}

func (r *spinRing) pop() uint64 {
	pos := r.head.Add(1) - 1
	s := &r.slots[pos%uint64(len(r.slots))]
	for s.seq.Load() != pos+1 {
		atomicx.Sleep(0) // empty: the producer of this lap has not published
	}
	v := s.val.Load()
	s.seq.Store(pos + uint64(len(r.slots)))
	return v
}

// spinRingRun: producers push the given values, consumers pop as many as
// they are given; every value pushed is popped once. The outcome is what
// each consumer got.
func spinRingRun(slots int, publishFirst bool, producers [][]uint64, consumers []int) explore.Run {
	r := newSpinRing(slots, publishFirst)
	got := make([][]uint64, len(consumers))
	var threads []func()
	for _, vs := range producers {
		threads = append(threads, func() {
			for _, v := range vs {
				r.push(v)
			}
		})
	}
	for i, n := range consumers {
		threads = append(threads, func() {
			for range n {
				got[i] = append(got[i], r.pop())
			}
		})
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			var all, want []uint64
			for _, g := range got {
				all = append(all, g...)
			}
			for _, vs := range producers {
				want = append(want, vs...)
			}
			sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
			sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
			if !slices.Equal(all, want) {
				return fmt.Errorf("popped %v, pushed %v", got, producers)
			}
			return nil
		},
		Outcome: func() string { return fmt.Sprint(got) },
	}
}

// vyRing is Vyukov's bounded MPMC queue: a producer claims the slot at
// tail with a CAS when the slot's sequence number says it is free for that
// lap, and spins, yielding, while the ring is full; a consumer claims the
// slot at head when its sequence number says it holds that lap's value,
// and spins while the ring is empty. storeClaim is the seeded bug: a claim
// is a store of pos+1, not a CAS, so two threads that read the same pos
// both take the slot.
type vyRing struct {
	head, tail atomicx.Uint64
	slots      []ringSlot
	storeClaim bool
}

func newVyRing(n int, storeClaim bool) *vyRing {
	r := &vyRing{slots: make([]ringSlot, n), storeClaim: storeClaim}
	explore.Name(&r.head, "head")
	explore.Name(&r.tail, "tail")
	for i := range r.slots {
		explore.Name(&r.slots[i], fmt.Sprintf("slot[%d]", i))
		r.slots[i].seq.Store(uint64(i))
	}
	return r
}

func (r *vyRing) claim(c *atomicx.Uint64, pos uint64) bool {
	if r.storeClaim {
		c.Store(pos + 1)
		return true
	}
	return c.CompareAndSwap(pos, pos+1)
}

func (r *vyRing) push(v uint64) {
	for {
		pos := r.tail.Load()
		s := &r.slots[pos%uint64(len(r.slots))]
		switch seq := s.seq.Load(); {
		case seq == pos:
			if r.claim(&r.tail, pos) {
				s.val.Store(v)
				s.seq.Store(pos + 1)
				return
			}
		case seq < pos:
			atomicx.Sleep(0) // full
		}
	}
}

func (r *vyRing) pop() uint64 {
	for {
		pos := r.head.Load()
		s := &r.slots[pos%uint64(len(r.slots))]
		switch seq := s.seq.Load(); {
		case seq == pos+1:
			if r.claim(&r.head, pos) {
				v := s.val.Load()
				s.seq.Store(pos + uint64(len(r.slots)))
				return v
			}
		case seq < pos+1:
			atomicx.Sleep(0) // empty
		}
	}
}

// buggyVyRing: a consumer pops 3 values from a 2-slot ring with the store
// claim, while two producers push 1, 2 and 3.
func buggyVyRing() explore.Run {
	r := newVyRing(2, true)
	var got []uint64
	push := func(vs ...uint64) func() {
		return func() {
			for _, v := range vs {
				r.push(v)
			}
		}
	}
	return explore.Run{
		Threads: []func(){
			func() {
				for range 3 {
					got = append(got, r.pop())
				}
			},
			push(1, 2), push(3),
		},
		Check: func() error {
			sorted := slices.Sorted(slices.Values(got))
			if !slices.Equal(sorted, []uint64{1, 2, 3}) {
				return fmt.Errorf("popped %v, pushed 1, 2 and 3", got)
			}
			return nil
		},
	}
}

// TestDPORFindsTheSpinRingBug: on Vyukov's ring, whose producers and
// consumer spin while it is full or empty, DFS (bound 2) finds the seeded
// store claim (a value lost, so the consumer spins for ever: a livelock) at
// execution 258 and DPOR at 15, where DPOR without the
// await reduction needed 16637 (every yield then depends on everything;
// TestDPORWithoutAwaitIsBlindOnTheSpinRing, long mode). The counts are
// deterministic.
func TestDPORFindsTheSpinRingBug(t *testing.T) {
	for _, opts := range []explore.Options{
		{Name: "vyukov-ring-store-claim-dfs", MaxExecutions: 20000},
		{Name: "vyukov-ring-store-claim-dpor", Mode: explore.DPOR, MaxExecutions: 20000},
	} {
		res, err := explore.Explore(opts, buggyVyRing)
		require.NoError(t, err)
		require.NotNil(t, res.Failure, "%s: the seeded bug was not found: %s", opts.Name, res.Summary())
		// Two producers in one slot: a value is overwritten or a lap
		// never published, and the consumer spins for ever on the slot.
		if !errors.Is(res.Failure.Err, explore.ErrLivelock) {
			assert.ErrorContains(t, res.Failure.Err, "popped", opts.Name)
		}
		if opts.Mode == explore.DPOR {
			assert.Less(t, res.Failure.Execution, 1000, "DPOR took long to find the bug")
		}
		t.Logf("%s: found at execution %d: %v", res.Summary(), res.Failure.Execution, res.Failure.Err)
	}
}

// TestDPORWithoutAwaitIsBlindOnTheSpinRing (long mode) is the "before":
// DPOR with the await reduction off on the same ring needs far more
// executions.
func TestDPORWithoutAwaitIsBlindOnTheSpinRing(t *testing.T) {
	if !explore.Long() {
		t.Skip("long mode: about 17000 executions")
	}
	defer explore.SetAwait(false)()
	res, err := explore.Explore(explore.Options{Name: "vyukov-ring-store-claim-dpor-no-await", Mode: explore.DPOR, MaxExecutions: 100000}, buggyVyRing)
	require.NoError(t, err)
	require.NotNil(t, res.Failure, res.Summary())
	assert.Greater(t, res.Failure.Execution, 10000)
	t.Logf("%s: found at execution %d", res.Summary(), res.Failure.Execution)
}

// spinScenarios are spin loops for comparing DPOR with its await
// reduction against unbounded DFS (fair, no reduction).
var spinScenarios = []struct {
	name  string
	build func() explore.Run
	big   bool // plain DFS does not finish: compare with DFS with sleep sets
}{
	{"yield-spin-add", func() explore.Run {
		// The writer releases the spinner with an add, not a store.
		var f, x atomicx.Uint32
		explore.Name(&f, "f")
		explore.Name(&x, "x")
		var r uint32
		return explore.Run{Threads: []func(){
			func() {
				for f.Load() == 0 {
					atomicx.Sleep(0)
				}
				r = x.Load()
			},
			func() { x.Store(1); f.Add(1); x.Store(2) },
		}, Outcome: func() string { return fmt.Sprint(r) }}
	}, false},
	{"two-spinners-and-a-releaser", twoSpinnersAndAReleaser, false},
	{"bounded-spin-gives-up", func() explore.Run {
		// T1 tries three times, then takes its slow path: a count the
		// explorer cannot see. Nobody sets the flag after T0's store, so
		// T1's wait is an await that no write releases, and only waking
		// it when nothing else can run lets it give up.
		var f, g, slow atomicx.Uint32
		explore.Name(&f, "f")
		explore.Name(&g, "g")
		explore.Name(&slow, "slow")
		return explore.Run{Threads: []func(){
			func() { g.Store(1) },
			func() {
				for i := 0; f.Load() == 0; i++ {
					if i == 2 {
						slow.Store(1)
						return
					}
					atomicx.Sleep(0)
				}
			},
		}, Outcome: func() string { return fmt.Sprint(slow.Load()) }}
	}, false},
	{"cas-retry-with-yield", func() explore.Run {
		var c atomicx.Uint32
		explore.Name(&c, "c")
		var got [2]uint32
		inc := func(i int) func() {
			return func() {
				for {
					v := c.Load()
					if c.CompareAndSwap(v, v+1) {
						got[i] = v
						return
					}
					atomicx.Sleep(0)
				}
			}
		}
		return explore.Run{Threads: []func(){inc(0), inc(1), func() { c.Add(10) }},
			Outcome: func() string { return fmt.Sprint(got) }}
	}, false},
	{"spin-ring-full", func() explore.Run { return spinRingRun(2, false, [][]uint64{{1, 2, 3}}, []int{3}) }, true},
	{"spin-ring-full-bug", func() explore.Run { return spinRingRun(2, true, [][]uint64{{1, 2, 3}}, []int{3}) }, true},
	{"spin-ring-2-consumers", func() explore.Run { return spinRingRun(2, false, [][]uint64{{1, 2}}, []int{1, 1}) }, true},
	{"turn-taking", func() explore.Run {
		// Each iteration that ends a turn wrote: its yield is a plain one.
		var turn, count atomicx.Uint32
		explore.Name(&turn, "turn")
		explore.Name(&count, "count")
		player := func(me uint32) func() {
			return func() {
				for range 2 {
					for turn.Load() != me {
						atomicx.Sleep(0)
					}
					count.Add(1)
					turn.Store(1 - me)
				}
			}
		}
		return explore.Run{Threads: []func(){player(0), player(1), func() { count.Add(10) }},
			Outcome: func() string { return fmt.Sprint(count.Load()) }}
	}, true},
	{"once-two-callers", func() explore.Run {
		var o once.Once
		var calls atomicx.Uint32
		explore.Name(&o, "once")
		explore.Name(&calls, "calls")
		var seen [2]uint32
		do := func(i int) func() {
			return func() {
				o.Do(func() { calls.Add(1) })
				seen[i] = calls.Load()
			}
		}
		return explore.Run{Threads: []func(){do(0), do(1)},
			Outcome: func() string { return fmt.Sprint(seen) }}
	}, false},
	{"seqlock-writer-and-reader", func() explore.Run {
		var p seqlock.Pair
		explore.Name(&p, "pair")
		var a, b uint64
		return explore.Run{Threads: []func(){
			func() { p.Write(1, 1) },
			func() { a, b = p.Read() },
		}, Outcome: func() string { return fmt.Sprint(a, b) }}
	}, false},
}

// compareAwait explores build under unbounded DFS (plain, or with sleep
// sets when big) and under DPOR with the await reduction, past failures,
// and returns both results.
func compareAwait(t *testing.T, name string, big bool, build func() explore.Run) (dfs, dpor explore.Result) {
	t.Helper()
	opts := explore.Options{Name: name + "-dfs", Bound: explore.Unbounded}
	if big {
		opts.Name, opts.Reduce = name+"-dfs-reduce", true
	}
	dfs, err := explore.ExploreKeepGoing(opts, build)
	require.NoError(t, err)
	dpor, err = explore.ExploreKeepGoing(explore.Options{Name: name + "-dpor", Mode: explore.DPOR}, build)
	require.NoError(t, err)
	require.True(t, dfs.Complete, dfs.Summary())
	require.True(t, dpor.Complete, dpor.Summary())
	return dfs, dpor
}

// TestAwaitMatchesDFSOnSpins: on spin loops (a flag, a CAS retry, the
// ring's slots, examples/once and examples/seqlock), DPOR with its await
// reduction reaches the outcomes, failures and end states of unbounded
// DFS, in fewer executions. In long mode it also runs DPOR without the
// reduction, for the count.
func TestAwaitMatchesDFSOnSpins(t *testing.T) {
	for _, s := range spinScenarios {
		t.Run(s.name, func(t *testing.T) {
			if s.big && testing.Short() && s.name == "spin-ring-full-bug" {
				t.Skip("-short: the biggest (2 s); TestDPORFindsTheSpinRingBug has its bug")
			}
			dfs, dpor := compareAwait(t, s.name, s.big, s.build)
			assert.Equal(t, slices.Sorted(maps.Keys(dfs.Outcomes)), slices.Sorted(maps.Keys(dpor.Outcomes)), "%s: DPOR reached other outcomes or failures than unbounded DFS", s.name)
			assert.Equal(t, [2]uint64{uint64(dfs.States), dfs.StateHash}, [2]uint64{uint64(dpor.States), dpor.StateHash}, "%s: DPOR reached other end states than unbounded DFS", s.name)
			assert.LessOrEqual(t, dpor.Executions, dfs.Executions, s.name)
			t.Logf("%s: %d executions, DPOR %d (%d pruned); %d outcomes, %d end states", dfs.Name, dfs.Executions, dpor.Executions, dpor.Pruned, len(dpor.Outcomes), dpor.States)
			if explore.Long() {
				restore := explore.SetAwait(false)
				plain, err := explore.ExploreKeepGoing(explore.Options{Name: s.name + "-dpor-no-await", Mode: explore.DPOR}, s.build)
				restore()
				require.NoError(t, err)
				t.Logf("%s", plain.Summary())
			}
		})
	}
}

// TestAwaitMutantIsCaught is the comparison's broken variant: awaiting
// threads that are not woken when nothing else can run leave a spin that
// counts its tries blocked for ever, a deadlock unbounded DFS never meets,
// and TestAwaitMatchesDFSOnSpins's comparison sees it.
func TestAwaitMutantIsCaught(t *testing.T) {
	defer explore.SetAwaitMutant("await-never-woken")()
	s := spinScenarios[2]
	require.Equal(t, "bounded-spin-gives-up", s.name)
	dfs, dpor := compareAwait(t, s.name+"-mutant", s.big, s.build)
	assert.NotEqual(t, slices.Sorted(maps.Keys(dfs.Outcomes)), slices.Sorted(maps.Keys(dpor.Outcomes)), "the seeded fault went unnoticed")
	t.Logf("DFS outcomes %v, DPOR with the fault %v", slices.Sorted(maps.Keys(dfs.Outcomes)), slices.Sorted(maps.Keys(dpor.Outcomes)))
}

// spinProgram is a random program of loads, stores, adds, CASes, swaps,
// yields and spins (a load and a yield until a cell holds a value) on two
// cells; what each thread reads is its outcome, with the cells' values.
func spinProgram(prog [][]progOp) func() explore.Run {
	return func() explore.Run {
		var cells [2]atomicx.Uint32
		explore.Name(&cells, "c")
		logs := make([][]uint32, len(prog))
		threads := make([]func(), len(prog))
		for i, ops := range prog {
			threads[i] = func() {
				for _, op := range ops {
					c := &cells[op.cell]
					var v uint32
					switch op.kind {
					case "load":
						v = c.Load()
					case "store":
						c.Store(op.a)
					case "add":
						v = c.Add(op.a)
					case "cas":
						if c.CompareAndSwap(op.a, op.b) {
							v = 1
						}
					case "swap":
						v = c.Swap(op.a)
					case "yield":
						atomicx.Sleep(0)
					case "spin":
						for c.Load() != op.a {
							atomicx.Sleep(0)
						}
					}
					logs[i] = append(logs[i], v)
				}
			}
		}
		return explore.Run{Threads: threads, Outcome: func() string {
			return fmt.Sprint(logs, cells[0].Load(), cells[1].Load())
		}}
	}
}

// TestAwaitMatchesDFSOnRandomSpinPrograms: on random programs with yields
// and spins (livelocks included, as failures), DPOR with the await
// reduction reaches the outcomes, failures and end states of unbounded DFS
// wherever DFS finishes within 20000 executions.
func TestAwaitMatchesDFSOnRandomSpinPrograms(t *testing.T) {
	kinds := []string{"load", "store", "add", "cas", "swap", "spin", "spin"}
	var compared, dfsExecs, dporExecs int
	rapid.Check(t, func(rt *rapid.T) {
		prog := genProgram(rt, kinds, 3)
		build := spinProgram(prog)
		dfs, err := explore.ExploreKeepGoing(explore.Options{Name: "spinprog-dfs", Bound: explore.Unbounded, MaxExecutions: 20000}, build)
		require.NoError(rt, err)
		if !dfs.Complete {
			return
		}
		dpor, err := explore.ExploreKeepGoing(explore.Options{Name: "spinprog-dpor", Mode: explore.DPOR}, build)
		require.NoError(rt, err)
		require.True(rt, dpor.Complete)
		assert.Equal(rt, slices.Sorted(maps.Keys(dfs.Outcomes)), slices.Sorted(maps.Keys(dpor.Outcomes)), "DPOR reached other outcomes or failures than unbounded DFS")
		assert.Equal(rt, [2]uint64{uint64(dfs.States), dfs.StateHash}, [2]uint64{uint64(dpor.States), dpor.StateHash}, "DPOR reached other end states than unbounded DFS")
		compared++
		dfsExecs += dfs.Executions
		dporExecs += dpor.Executions
	})
	t.Logf("random spin programs: %d compared, unbounded DFS %d executions, DPOR %d", compared, dfsExecs, dporExecs)
}
