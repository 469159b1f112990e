package lfq_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/internal/proptest"
	"github.com/schedkit/schedkit/lfq"
)

// ringUnderTest is the surface of an lfq.Ring[int] that the model test and
// the stress test drive. The real ring is wrapped by realRingUT; the broken
// variants below wrap it too, so one checker runs against both.
type ringUnderTest interface {
	Put(t *int, spill []*int) []*int
	PutBatch(ts []*int) int
	Get() *int
	StealHalf(dst ringUnderTest) *int
	Drain(dst []*int) []*int
	Len() int
	// Ring returns the wrapped ring (for StealHalf's destination and for
	// the non-destructive checks of the export_test.go helpers).
	Ring() *lfq.Ring[int]
}

// realRingUT is the real ring, unchanged.
type realRingUT struct{ r *lfq.Ring[int] }

func newRealRingUT() ringUnderTest { return &realRingUT{r: new(lfq.Ring[int])} }

func (w *realRingUT) Put(t *int, spill []*int) []*int { return w.r.Put(t, spill) }
func (w *realRingUT) PutBatch(ts []*int) int          { return w.r.PutBatch(ts) }
func (w *realRingUT) Get() *int                       { return w.r.Get() }
func (w *realRingUT) Drain(dst []*int) []*int         { return w.r.Drain(dst) }
func (w *realRingUT) Len() int                        { return w.r.Len() }
func (w *realRingUT) Ring() *lfq.Ring[int]            { return w.r }

func (w *realRingUT) StealHalf(dst ringUnderTest) *int {
	if dst == nil {
		return w.r.StealHalf(nil)
	}
	return w.r.StealHalf(dst.Ring())
}

// overflowDropsNewRing is a seeded mutant: when Put overflows, the batch it
// hands back lacks the new item, which is therefore lost.
type overflowDropsNewRing struct{ *realRingUT }

func newOverflowDropsNewRing() ringUnderTest {
	return overflowDropsNewRing{&realRingUT{r: new(lfq.Ring[int])}}
}

func (w overflowDropsNewRing) Put(t *int, spill []*int) []*int {
	out := w.r.Put(t, spill)
	if len(out) > len(spill) {
		out = out[:len(out)-1]
	}
	return out
}

// returnsBufferRing is a broken variant of the spill idiom: a put with room
// hands back the buffer it was given (as Put did before it returned nil), so
// that "over != nil" counts every put with a reused buffer as an overflow.
type returnsBufferRing struct{ *realRingUT }

func newReturnsBufferRing() ringUnderTest {
	return returnsBufferRing{&realRingUT{r: new(lfq.Ring[int])}}
}

func (w returnsBufferRing) Put(t *int, spill []*int) []*int {
	if out := w.r.Put(t, spill); out != nil {
		return out
	}
	return spill
}

// stealsOneTooManyRing is a seeded mutant: StealHalf takes one item more than
// half (rounded up) whenever the victim has one left.
type stealsOneTooManyRing struct{ *realRingUT }

func newStealsOneTooManyRing() ringUnderTest {
	return stealsOneTooManyRing{&realRingUT{r: new(lfq.Ring[int])}}
}

func (w stealsOneTooManyRing) StealHalf(dst ringUnderTest) *int {
	got := w.realRingUT.StealHalf(dst)
	if got != nil {
		if extra := w.r.Get(); extra != nil {
			dst.Ring().PutBatch([]*int{extra})
		}
	}
	return got
}

// itemIDs renders items as their ids (-1 for nil) for failure messages.
func itemIDs(ps []*int) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		if p == nil {
			out[i] = -1
		} else {
			out[i] = *p
		}
	}
	return out
}

func itemID(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

// ringModelStats counts how often the state machine reached the interesting
// paths, over all test cases of one run.
type ringModelStats struct {
	cases, overflows, reusedOverflows, refusedBuffers, fullPutBatches, steals, stealPanics, wrapped int
}

// ringModel is the state machine: a few real rings and, for each, the
// sequential model, a slice holding its items oldest first.
type ringModel struct {
	rings  []ringUnderTest
	models [][]*int
	starts []uint32
	nextID int
	spill  []*int // reused overflow buffer, as in spill = r.Put(t, spill[:0])
	stats  *ringModelStats
}

func (m *ringModel) newItem() *int {
	p := new(int)
	*p = m.nextID
	m.nextID++
	return p
}

func (m *ringModel) newItems(n int) []*int {
	out := make([]*int, n)
	for i := range out {
		out[i] = m.newItem()
	}
	return out
}

func (m *ringModel) drawRing(t *rapid.T, label string) int {
	return rapid.IntRange(0, len(m.rings)-1).Draw(t, label)
}

// checkRing compares ring i with its model: Len and, without consuming
// anything, the items between head and tail.
func (m *ringModel) checkRing(t *rapid.T, i int, after string) {
	t.Helper()
	want := m.models[i]
	if got := m.rings[i].Len(); got != len(want) {
		t.Fatalf("after %s: ring %d: Len() = %d, model holds %d", after, i, got, len(want))
	}
	if got := lfq.Contents(m.rings[i].Ring()); !slices.Equal(got, want) {
		t.Fatalf("after %s: ring %d holds %v, model holds %v", after, i, itemIDs(got), itemIDs(want))
	}
}

func (m *ringModel) checkAll(t *rapid.T, after string) {
	t.Helper()
	for i := range m.rings {
		m.checkRing(t, i, after)
	}
}

// put does one Put on ring i with the given buffer and checks the result
// against the model: nil when there was room, else exactly the model's
// oldest Size/2 items and t, in buf's array when it had the capacity. A
// buffer holding items must panic and put nothing.
func (m *ringModel) put(t *rapid.T, i int, item *int, buf []*int) []*int {
	t.Helper()
	model := m.models[i]
	if len(buf) != 0 {
		m.stats.refusedBuffers++
		proptest.ExpectPanic(t, "Put with a buffer holding items", "buffer holding items",
			func() { m.rings[i].Put(item, buf) })
		m.checkRing(t, i, "Put with a buffer holding items")
		return buf[:0]
	}
	out := m.rings[i].Put(item, buf)
	if len(model) < lfq.Size {
		if out != nil {
			t.Fatalf("Put(%d) on ring %d holding %d: returned %v (len %d, cap %d), want nil: nothing spilled",
				*item, i, len(model), itemIDs(out), len(out), cap(out))
		}
		m.models[i] = append(model, item)
		return buf
	}
	m.stats.overflows++
	want := slices.Concat(model[:lfq.Size/2], []*int{item})
	if !slices.Equal(out, want) {
		t.Fatalf("Put(%d) overflow batch of full ring %d: got %v, want %v (the oldest %d, then the new item)",
			*item, i, itemIDs(out), itemIDs(want), lfq.Size/2)
	}
	if cap(buf) >= lfq.OverflowLen {
		m.stats.reusedOverflows++
		if &out[0] != &buf[:1][0] {
			t.Fatalf("Put(%d) overflow into a buffer of capacity %d: the batch is in a new array", *item, cap(buf))
		}
	}
	m.models[i] = slices.Clone(model[lfq.Size/2:])
	return out
}

// keep makes an overflow batch the reused buffer, as a caller does.
func (m *ringModel) keep(out []*int) {
	if cap(out) > cap(m.spill) {
		m.spill = out[:0]
	}
}

func (m *ringModel) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		// One Put: spill is nil, the reused empty buffer, or a buffer that
		// already holds items (a misuse: it must panic and put nothing).
		"Put": func(t *rapid.T) {
			i := m.drawRing(t, "ring")
			var spill []*int
			switch rapid.IntRange(0, 2).Draw(t, "spill") {
			case 1:
				spill = m.spill[:0]
			case 2:
				spill = append(m.spill[:0], m.newItems(rapid.IntRange(1, 3).Draw(t, "prefix"))...)
			}
			m.keep(m.put(t, i, m.newItem(), spill))
		},
		// Many Puts in a row with the reused buffer.
		"PutMany": func(t *rapid.T) {
			i := m.drawRing(t, "ring")
			for range rapid.IntRange(1, 300).Draw(t, "k") {
				m.keep(m.put(t, i, m.newItem(), m.spill[:0]))
			}
		},
		// Puts until the ring has overflowed, then a few more, each with
		// nil or the reused buffer.
		"FillAndOverflow": func(t *rapid.T) {
			i := m.drawRing(t, "ring")
			reuse := rapid.Bool().Draw(t, "reuse")
			k := lfq.Size - len(m.models[i]) + rapid.IntRange(1, 140).Draw(t, "extra")
			for range k {
				var buf []*int
				if reuse {
					buf = m.spill[:0]
				}
				m.keep(m.put(t, i, m.newItem(), buf))
			}
		},
		"PutNil": func(t *rapid.T) {
			i := m.drawRing(t, "ring")
			proptest.ExpectPanic(t, "Put(nil)", "Ring.Put", func() { m.rings[i].Put(nil, nil) })
			m.checkRing(t, i, "Put(nil)")
		},
		// PutBatch of up to 300 items: it puts the prefix that fits and
		// the caller keeps ts[n:].
		"PutBatch": func(t *rapid.T) {
			i := m.drawRing(t, "ring")
			ts := m.newItems(rapid.IntRange(0, 300).Draw(t, "k"))
			orig := slices.Clone(ts)
			free := lfq.Size - len(m.models[i])
			want := min(len(ts), free)
			n := m.rings[i].PutBatch(ts)
			if n != want {
				t.Fatalf("PutBatch of %d items into ring %d holding %d: n = %d, want %d", len(ts), i, len(m.models[i]), n, want)
			}
			if !slices.Equal(ts, orig) {
				t.Fatalf("PutBatch modified its argument: %v, was %v", itemIDs(ts), itemIDs(orig))
			}
			if n < len(ts) {
				m.stats.fullPutBatches++
			}
			m.models[i] = append(m.models[i], ts[:n]...)
			m.checkRing(t, i, "PutBatch") // the kept suffix ts[n:] is not in the ring
		},
		// PutBatch with a nil anywhere in ts, also beyond what fits: panics,
		// having put nothing.
		"PutBatchNil": func(t *rapid.T) {
			i := m.drawRing(t, "ring")
			ts := m.newItems(rapid.IntRange(1, 300).Draw(t, "k"))
			ts[rapid.IntRange(0, len(ts)-1).Draw(t, "nilAt")] = nil
			proptest.ExpectPanic(t, "PutBatch with a nil", "Ring.PutBatch", func() { m.rings[i].PutBatch(ts) })
			m.checkRing(t, i, "PutBatch with a nil")
		},
		"Get": func(t *rapid.T) {
			i := m.drawRing(t, "ring")
			got := m.rings[i].Get()
			var want *int
			if len(m.models[i]) > 0 {
				want = m.models[i][0]
				m.models[i] = m.models[i][1:]
			}
			if got != want {
				t.Fatalf("Get on ring %d: got %d, want %d", i, itemID(got), itemID(want))
			}
		},
		"StealHalf": func(t *rapid.T) {
			src := m.drawRing(t, "victim")
			dst := (src + rapid.IntRange(1, len(m.rings)-1).Draw(t, "thiefOffset")) % len(m.rings)
			if len(m.models[dst]) > lfq.Size/2 {
				m.stats.stealPanics++
				proptest.ExpectPanic(t, "StealHalf into a ring holding more than Size/2", "more than Size/2",
					func() { m.rings[src].StealHalf(m.rings[dst]) })
				m.checkRing(t, src, "StealHalf panic")
				m.checkRing(t, dst, "StealHalf panic")
				return
			}
			got := m.rings[src].StealHalf(m.rings[dst])
			victim := m.models[src]
			n := len(victim) - len(victim)/2
			var want *int
			if n > 0 {
				m.stats.steals++
				want = victim[n-1]
				m.models[dst] = append(m.models[dst], victim[:n-1]...)
				m.models[src] = slices.Clone(victim[n:])
			}
			if got != want {
				t.Fatalf("StealHalf from ring %d (%d items) into ring %d: returned %d, want %d",
					src, len(victim), dst, itemID(got), itemID(want))
			}
			m.checkRing(t, src, "StealHalf (victim)")
			m.checkRing(t, dst, "StealHalf (thief)")
		},
		"StealHalfMisuse": func(t *rapid.T) {
			i := m.drawRing(t, "ring")
			proptest.ExpectPanic(t, "StealHalf into itself", "victim as destination", func() { m.rings[i].StealHalf(m.rings[i]) })
			proptest.ExpectPanic(t, "StealHalf into nil", "nil destination", func() { m.rings[i].StealHalf(nil) })
			m.checkRing(t, i, "StealHalf misuse")
		},
		"Drain": func(t *rapid.T) {
			i := m.drawRing(t, "ring")
			var dst []*int
			if rapid.Bool().Draw(t, "prefix") {
				dst = m.newItems(rapid.IntRange(1, 3).Draw(t, "prefixLen"))
			}
			want := slices.Concat(dst, m.models[i])
			got := m.rings[i].Drain(dst)
			if !slices.Equal(got, want) {
				t.Fatalf("Drain of ring %d: got %v, want %v", i, itemIDs(got), itemIDs(want))
			}
			m.models[i] = nil
		},
		"Len": func(t *rapid.T) {
			for i, r := range m.rings {
				if got := r.Len(); got != len(m.models[i]) {
					t.Fatalf("Len of ring %d = %d, model holds %d", i, got, len(m.models[i]))
				}
			}
		},
		"": func(t *rapid.T) {
			m.checkAll(t, "an action")
		},
	}
}

// checkRingModel is the model property over rings made by newRing. It is run
// against the real ring by TestRingModel and against seeded mutants by
// TestRingModelCatchesMutants.
func checkRingModel(t *rapid.T, newRing func() ringUnderTest, stats *ringModelStats) {
	stats.cases++
	m := &ringModel{stats: stats}
	nRings := rapid.IntRange(2, 3).Draw(t, "rings")
	start := rapid.OneOf(
		rapid.Just(uint32(0)),
		rapid.Uint32Range(math.MaxUint32-lfq.Size-300, math.MaxUint32),
		rapid.Uint32(),
	)
	for i := range nRings {
		r := newRing()
		s := start.Draw(t, fmt.Sprintf("start%d", i))
		lfq.SetIndices(r.Ring(), s)
		m.rings = append(m.rings, r)
		m.models = append(m.models, nil)
		m.starts = append(m.starts, s)
	}
	t.Repeat(m.actions())

	// At the end, take everything out through the public API.
	for i, r := range m.rings {
		if h, _ := lfq.Indices(r.Ring()); h < m.starts[i] {
			stats.wrapped++
		}
		got := r.Drain(nil)
		if !slices.Equal(got, m.models[i]) {
			t.Fatalf("final Drain of ring %d: got %v, want %v", i, itemIDs(got), itemIDs(m.models[i]))
		}
		if n := r.Len(); n != 0 {
			t.Fatalf("ring %d: Len() = %d after Drain", i, n)
		}
		if p := r.Get(); p != nil {
			t.Fatalf("ring %d: Get() = %d after Drain", i, *p)
		}
	}
}

func TestRingModel(t *testing.T) {
	var stats ringModelStats
	rapid.Check(t, func(t *rapid.T) {
		checkRingModel(t, newRealRingUT, &stats)
	})
	t.Logf("ring model coverage: %d overflows (%d into a reused buffer), %d buffers holding items refused, %d PutBatch hitting a full ring, %d steals, %d steal-precondition panics, %d rings whose indices wrapped",
		stats.overflows, stats.reusedOverflows, stats.refusedBuffers, stats.fullPutBatches, stats.steals, stats.stealPanics, stats.wrapped)
	// With the default 100 cases each of these paths is reached dozens of
	// times; -short runs too few cases to insist.
	if !testing.Short() && (stats.overflows == 0 || stats.reusedOverflows == 0 || stats.refusedBuffers == 0 || stats.steals == 0 || stats.stealPanics == 0 || stats.wrapped == 0) {
		t.Errorf("the state machine missed a path: %+v", stats)
	}
	t.Logf("lfq model: %d checks passed", stats.cases)
}

// TestRingModelCatchesMutants proves the model test can fail: each seeded
// mutant must be reported by rapid, for the expected reason.
func TestRingModelCatchesMutants(t *testing.T) {
	mutants := []struct {
		name    string
		newRing func() ringUnderTest
		reason  string
	}{
		{"overflow batch drops the new item", newOverflowDropsNewRing, "overflow batch"},
		{"StealHalf takes one too many", newStealsOneTooManyRing, "StealHalf"},
		{"a put with room returns the buffer", newReturnsBufferRing, "want nil: nothing spilled"},
	}
	for _, mu := range mutants {
		t.Run(mu.name, func(t *testing.T) {
			var stats ringModelStats
			first, err := killmatrix.ModelCatch(t, func(rt *rapid.T) { checkRingModel(rt, mu.newRing, &stats) }, mu.reason)
			if err != nil {
				t.Fatalf("the mutant %q: %v", mu.name, err)
			}
			t.Logf("caught: %s", first)
		})
	}
}
