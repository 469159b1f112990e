package globalq_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/globalq"
)

// The injection buffer (inject.go) on every rung that applies: unit tests,
// a rapid model (a slice of at most InjectCap values), fixed scenarios for
// the kill matrix, a race stress with three producers and two drainers
// (every value exactly once, each producer's in order), and the explorer
// on two producers against a drainer. Values are ints from 1: a drained 0
// is a value read before it was written.

func drainAll(q *globalq.Inject[int]) []int {
	var out []int
	for {
		n := len(out)
		out, _ = q.TryDrain(out, globalq.InjectCap)
		if len(out) == n {
			return out
		}
	}
}

func TestInjectZeroValueIsEmptyAndUsable(t *testing.T) {
	var q globalq.Inject[int]
	require.True(t, q.Empty())
	require.Equal(t, 0, q.Len())
	got, pending := q.TryDrain(nil, 10)
	require.Empty(t, got)
	require.False(t, pending)
	require.True(t, q.Put(1))
	require.False(t, q.Empty())
	require.Equal(t, []int{1}, drainAll(&q))
	require.True(t, q.Empty())
}

// TestInjectFIFOAcrossLaps puts and drains in uneven steps for ten laps of
// the ring: every value comes out once, in order.
func TestInjectFIFOAcrossLaps(t *testing.T) {
	var q globalq.Inject[int]
	next, want := 1, 1
	for next <= 10*globalq.InjectCap {
		k := q.PutBatch(seq(next, 1+next%97))
		next += k
		got, _ := q.TryDrain(nil, 1+next%61)
		for _, v := range got {
			require.Equal(t, want, v)
			want++
		}
		require.Equal(t, next-want, q.Len())
	}
	for _, v := range drainAll(&q) {
		require.Equal(t, want, v)
		want++
	}
	require.Equal(t, next, want)
}

// TestInjectFullTakesNothing fills the ring: Put refuses, PutBatch takes
// what fits, and a drain makes room again.
func TestInjectFullTakesNothing(t *testing.T) {
	var q globalq.Inject[int]
	require.Equal(t, globalq.InjectCap-1, q.PutBatch(seq(1, globalq.InjectCap-1)))
	require.Equal(t, 1, q.PutBatch([]int{globalq.InjectCap, -1, -2}))
	require.False(t, q.Put(-3))
	require.Equal(t, 0, q.PutBatch([]int{-4}))
	require.Equal(t, globalq.InjectCap, q.Len())
	got, _ := q.TryDrain(nil, 2)
	require.Equal(t, []int{1, 2}, got)
	require.Equal(t, 2, q.PutBatch([]int{600, 601, 602}))
	all := drainAll(&q)
	require.Equal(t, append(seq(3, globalq.InjectCap-2), 600, 601), all)
	require.True(t, q.Empty())
}

// TestInjectDrainStopsAtUnpublished: a producer that claimed its position
// and has not published stops the drain there, pending, and what comes
// after waits for it.
func TestInjectDrainStopsAtUnpublished(t *testing.T) {
	require.NoError(t, scenarioInjectUnpublished())
}

func scenarioInjectUnpublished() error {
	var q globalq.Inject[int]
	q.Put(1)
	publish := globalq.InjectClaimOnly(&q)
	q.Put(3)
	got, pending := q.TryDrain(nil, 10)
	if !slices.Equal(got, []int{1}) || !pending {
		return fmt.Errorf("drain past a claimed, unpublished position: got %v pending %v, want [1] true", got, pending)
	}
	if q.Len() != 2 {
		return fmt.Errorf("Len %d with one unpublished and one published value, want 2", q.Len())
	}
	publish(2)
	if got := drainAll(&q); !slices.Equal(got, []int{2, 3}) {
		return fmt.Errorf("after the publish: drained %v, want [2 3]", got)
	}
	return nil
}

// scenarioInjectBatchIntoNearlyFull: a batch of three into a ring with
// one free slot takes one and leaves the values not yet drained alone.
func scenarioInjectBatchIntoNearlyFull() error {
	var q globalq.Inject[int]
	q.PutBatch(seq(1, globalq.InjectCap-1))
	got, _ := q.TryDrain(nil, 1) // the next lap's first slot frees; the ring has 2 free
	if k := q.PutBatch([]int{1000, 1001, 1002}); k != 2 {
		return fmt.Errorf("PutBatch of 3 into a ring with 2 free slots took %d", k)
	}
	got = append(got, drainAll(&q)...)
	if want := append(seq(1, globalq.InjectCap-1), 1000, 1001); !slices.Equal(got, want) {
		return fmt.Errorf("drained %d values, first difference at %d", len(got), firstDiff(got, want))
	}
	return nil
}

func firstDiff(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// scenarioInjectPublishVsDrain: one PutBatch against one TryDrain, every
// interleaving at bound 1: the drain takes nothing or the value, never a
// value before it is written.
func scenarioInjectPublishVsDrain() error {
	r, err := explore.Explore(explore.Options{Name: "globalq-inject-publish-vs-drain", Bound: 1},
		injectRun([][]int{{1, 2, 3}}, 1))
	switch {
	case errors.Is(err, explore.ErrNoSchedcheck):
		return errNoExplorer
	case err != nil:
		return err
	case r.Failure != nil:
		return errors.New(r.Failure.String())
	}
	return nil
}

// TestInjectModel: rapid against a slice: Put, PutBatch, TryDrain, Len and
// Empty, the ring filled past its capacity and drained across laps.
func TestInjectModel(t *testing.T) {
	rapid.Check(t, checkInjectModel)
}

func checkInjectModel(t *rapid.T) {
	var q globalq.Inject[int]
	var model []int
	next := 1
	t.Repeat(map[string]func(*rapid.T){
		"Put": func(t *rapid.T) {
			ok := q.Put(next)
			if want := len(model) < globalq.InjectCap; ok != want {
				t.Fatalf("Put with %d queued: %v, want %v", len(model), ok, want)
			}
			if ok {
				model = append(model, next)
				next++
			}
		},
		"PutBatch": func(t *rapid.T) {
			n := rapid.IntRange(1, globalq.InjectCap+20).Draw(t, "n")
			k := q.PutBatch(seq(next, n))
			if want := min(n, globalq.InjectCap-len(model)); k != want {
				t.Fatalf("PutBatch of %d with %d queued took %d, want %d", n, len(model), k, want)
			}
			model = append(model, seq(next, k)...)
			next += k
		},
		"TryDrain": func(t *rapid.T) {
			max := rapid.IntRange(1, globalq.InjectCap+5).Draw(t, "max")
			got, pending := q.TryDrain(nil, max)
			want := model[:min(max, len(model))]
			if pending || !slices.Equal(got, want) {
				t.Fatalf("TryDrain(%d): %v pending %v, want %v", max, got, pending, want)
			}
			model = model[len(want):]
		},
		"": func(t *rapid.T) {
			if q.Len() != len(model) || q.Empty() != (len(model) == 0) {
				t.Fatalf("Len %d Empty %v, model holds %d", q.Len(), q.Empty(), len(model))
			}
		},
	})
	if got := drainAll(&q); !slices.Equal(got, model) {
		t.Fatalf("final drain: %d values, want %d", len(got), len(model))
	}
}

// TestInjectStressExactlyOnce: three producers (Put and PutBatch, a full
// ring retried) and two drainers under -race: every value drained exactly
// once, each producer's in its order. 3 x 400k values, 3 x 5k with -short.
func TestInjectStressExactlyOnce(t *testing.T) {
	per := 400_000
	if testing.Short() {
		per = 5_000
	}
	require.NoError(t, injectStress(3, 2, per))
}

func injectStress(producers, drainers, per int) error {
	var q globalq.Inject[int]
	var done atomicx.Int32
	var wg sync.WaitGroup
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := p*per + 1
			end := v + per
			for v < end {
				if v%3 == 0 {
					if q.Put(v) {
						v++
					}
					continue
				}
				v += q.PutBatch(seq(v, min(end-v, 1+v%7)))
			}
		}()
	}
	got := make([][]int, drainers)
	var dwg sync.WaitGroup
	for d := range drainers {
		dwg.Add(1)
		go func() {
			defer dwg.Done()
			for {
				last := done.Load() != 0
				got[d], _ = q.TryDrain(got[d], 100)
				if last && q.Empty() {
					return
				}
			}
		}()
	}
	wg.Wait()
	done.Store(1)
	dwg.Wait()
	seen := make([]int, producers*per+1)
	lastOf := make([]int, producers)
	for _, g := range got {
		for i := range lastOf {
			lastOf[i] = 0
		}
		for _, v := range g {
			if v <= 0 || v >= len(seen) {
				return fmt.Errorf("drained %d, never put", v)
			}
			seen[v]++
			p := (v - 1) / per
			if v <= lastOf[p] {
				return fmt.Errorf("producer %d's %d drained after its %d by one drainer", p, v, lastOf[p])
			}
			lastOf[p] = v
		}
	}
	for v := 1; v < len(seen); v++ {
		if seen[v] != 1 {
			return fmt.Errorf("value %d drained %d times", v, seen[v])
		}
	}
	return nil
}

// injectRun is one execution: a producer thread per entry of puts (one
// Put per value, or one PutBatch of three or more), a drainer thread with drains TryDrains, then a final
// drain; the oracle: every value exactly once, none zero, each
// producer's in order.
func injectRun(puts [][]int, drains int) func() explore.Run {
	return func() explore.Run {
		q := new(globalq.Inject[int])
		explore.Name(q, "inj")
		var got []int
		var threads []func()
		for _, vs := range puts {
			threads = append(threads, func() {
				if len(vs) > 2 { // a batch
					q.PutBatch(vs)
					return
				}
				for _, v := range vs {
					q.Put(v)
				}
			})
		}
		threads = append(threads, func() {
			for range drains {
				got, _ = q.TryDrain(got, 4)
			}
		})
		return explore.Run{
			Threads: threads,
			Check: func() error {
				if err := globalq.InjectCheck(q); err != nil {
					return err
				}
				all := append(got, drainAll(q)...)
				var want []int
				for _, vs := range puts {
					want = append(want, vs...)
				}
				if !slices.Equal(sorted(all), sorted(want)) {
					return fmt.Errorf("drained %v, put %v", all, want)
				}
				for _, vs := range puts {
					var mine []int
					for _, v := range all {
						if slices.Contains(vs, v) {
							mine = append(mine, v)
						}
					}
					if !slices.Equal(mine, vs) {
						return fmt.Errorf("a producer put %v, drained in order %v", vs, mine)
					}
				}
				return nil
			},
		}
	}
}

// injectScenarios: two outside producers against a draining consumer, and
// a producer whose put a second one overtakes.
var injectScenarios = []struct {
	name   string
	puts   [][]int
	drains int
}{
	{"two-producers-vs-drain", [][]int{{1, 2}, {3, 4}}, 2},
	{"overtaken-producer", [][]int{{1}, {2, 3}}, 1},
	{"batch-vs-put-vs-drain", [][]int{{1, 2, 3}, {4}}, 2},
}

func exploreInject(t testing.TB) error {
	for _, s := range injectScenarios {
		r, err := explore.Explore(explore.Options{Name: "globalq-inject-" + s.name, Bound: 1}, injectRun(s.puts, s.drains))
		if err != nil {
			return err
		}
		if r.Failure != nil {
			return errors.New(r.Failure.String())
		}
		t.Log(r.Summary())
	}
	return nil
}

func TestExploreInject(t *testing.T) {
	for _, s := range injectScenarios {
		t.Run(s.name, func(t *testing.T) {
			explore.Check(t, explore.Options{Name: "globalq-inject-" + s.name, Bound: 1, LongBound: 2},
				injectRun(s.puts, s.drains))
		})
	}
}
