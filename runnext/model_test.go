package runnext_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/internal/proptest"
	"github.com/schedkit/schedkit/lfq"
	"github.com/schedkit/schedkit/runnext"
)

// Bar item 2: a rapid state machine drives a few queues with every
// operation and compares each result with a sequential model: per queue a
// slice for the ring (oldest first) and the runnext task. The whole check runs in a testing/synctest bubble, so the steal
// delay is checked on the bubble's fake clock: a steal of the runnext task
// must return exactly the delay after it began (the thief's own first look),
// however long the task sat before, and "Advance" moves the clock without
// sleeping for real.

// delayChoices are the steal delays a queue of the model gets: -1 keeps the
// zero value's default (runnext.StealDelay).
var delayChoices = []time.Duration{-1, 0, time.Microsecond, 5 * time.Microsecond}

// modelStats counts how often the state machine reached the interesting
// paths, over all test cases of one run.
type modelStats struct {
	cases, displaced, overflows, nextSteals, waitedSteals, refusedNext, ringSteals, stealPanics int
}

// queueModel is the state machine: the queues under test and their models.
type queueModel struct {
	qs     []queueUT
	rings  [][]*int
	next   []*int // the runnext task, or nil
	delays []time.Duration
	nextID int
	spill  []*int
	stats  *modelStats
}

func (m *queueModel) newItem() *int {
	p := new(int)
	*p = m.nextID
	m.nextID++
	return p
}

func (m *queueModel) newItems(n int) []*int {
	out := make([]*int, n)
	for i := range out {
		out[i] = m.newItem()
	}
	return out
}

func id(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func ids(ps []*int) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = id(p)
	}
	return out
}

func (m *queueModel) draw(t *rapid.T, label string) int {
	return rapid.IntRange(0, len(m.qs)-1).Draw(t, label)
}

func (m *queueModel) total(i int) int {
	n := len(m.rings[i])
	if m.next[i] != nil {
		n++
	}
	return n
}

func (m *queueModel) check(t *rapid.T, i int, after string) {
	t.Helper()
	if got := m.qs[i].Len(); got != m.total(i) {
		t.Fatalf("after %s: queue %d: Len() = %d, model holds %d (ring %v, runnext %d)", after, i, got, m.total(i), ids(m.rings[i]), id(m.next[i]))
	}
	if got := m.qs[i].Empty(); got != (m.total(i) == 0) {
		t.Fatalf("after %s: queue %d: Empty() = %v, model holds %d", after, i, got, m.total(i))
	}
}

// ringPut is the model of a put into ring i: the new ring, and the batch
// that overflows (nil if none).
func (m *queueModel) ringPut(i int, item *int) []*int {
	r := m.rings[i]
	if len(r) < lfq.Size {
		m.rings[i] = append(r, item)
		return nil
	}
	m.stats.overflows++
	batch := slices.Concat(r[:lfq.Size/2], []*int{item})
	m.rings[i] = slices.Clone(r[lfq.Size/2:])
	return batch
}

// expectSpill checks what a put returned: exactly the model's overflow
// batch, nil when nothing overflowed (also with a reused buffer).
func expectSpill(t *rapid.T, what string, out, batch []*int) {
	t.Helper()
	if !slices.Equal(out, batch) || (batch == nil) != (out == nil) {
		t.Fatalf("%s: returned %v (nil: %v), want %v (nil: %v): the overflow batch, nil when nothing spilled",
			what, ids(out), out == nil, ids(batch), batch == nil)
	}
}

// drawSpill draws the buffer for a put: nil, the reused empty buffer, or a
// buffer already holding items (a misuse: the put must panic, put nothing).
func (m *queueModel) drawSpill(t *rapid.T) []*int {
	switch rapid.IntRange(0, 2).Draw(t, "spill") {
	case 1:
		return m.spill[:0]
	case 2:
		return append(m.spill[:0], m.newItems(rapid.IntRange(1, 3).Draw(t, "prefix"))...)
	}
	return nil
}

func (m *queueModel) keepSpill(out []*int) {
	if cap(out) > cap(m.spill) {
		m.spill = out[:0]
	}
}

// refused checks that a put given a buffer holding items panics and leaves
// queue i as it was.
func (m *queueModel) refused(t *rapid.T, what string, i int, put func()) {
	t.Helper()
	proptest.ExpectPanic(t, what+" with a buffer holding items", "buffer holding items", put)
	m.check(t, i, what+" with a buffer holding items")
}

func (m *queueModel) putNext(t *rapid.T, i int, item *int, spill []*int) []*int {
	t.Helper()
	if len(spill) != 0 {
		m.refused(t, "PutNext", i, func() { m.qs[i].PutNext(item, spill) })
		return nil
	}
	out := m.qs[i].PutNext(item, spill)
	var batch []*int
	if old := m.next[i]; old != nil {
		m.stats.displaced++
		batch = m.ringPut(i, old)
	}
	m.next[i] = item
	expectSpill(t, fmt.Sprintf("PutNext(%d) on queue %d", *item, i), out, batch)
	return out
}

func (m *queueModel) put(t *rapid.T, i int, item *int, spill []*int) []*int {
	t.Helper()
	if len(spill) != 0 {
		m.refused(t, "Put", i, func() { m.qs[i].Put(item, spill) })
		return nil
	}
	out := m.qs[i].Put(item, spill)
	batch := m.ringPut(i, item)
	expectSpill(t, fmt.Sprintf("Put(%d) on queue %d", *item, i), out, batch)
	return out
}

// steal does one StealHalf from queue src into dst and checks it against
// the model, the time it took included.
func (m *queueModel) steal(t *rapid.T, src, dst int, stealNext bool) {
	t.Helper()
	if len(m.rings[dst]) > lfq.Size/2 {
		m.stats.stealPanics++
		proptest.ExpectPanic(t, "StealHalf into a queue whose ring holds more than Size/2", "more than",
			func() { m.qs[src].StealHalf(m.qs[dst], stealNext) })
		m.check(t, src, "StealHalf panic")
		return
	}
	before := atomicx.Nanotime()
	got := m.qs[src].StealHalf(m.qs[dst], stealNext)
	waited := time.Duration(atomicx.Nanotime() - before)
	var want *int
	var wantWait time.Duration
	victim, next := m.rings[src], m.next[src]
	switch {
	case len(victim) > 0:
		m.stats.ringSteals++
		n := len(victim) - len(victim)/2
		want = victim[n-1]
		m.rings[dst] = append(m.rings[dst], victim[:n-1]...)
		m.rings[src] = slices.Clone(victim[n:])
	case next != nil && stealNext:
		m.stats.nextSteals++
		want, m.next[src] = next, nil
		wantWait = m.delays[src] // from the thief's own look, however long the task sat before
		if wantWait > 0 {
			m.stats.waitedSteals++
		}
	case next != nil:
		m.stats.refusedNext++
	}
	if got != want {
		t.Fatalf("StealHalf(stealNext=%v) from queue %d (ring %d, runnext %d) into %d: returned %d, want %d",
			stealNext, src, len(victim), id(next), dst, id(got), id(want))
	}
	if waited != wantWait {
		t.Fatalf("StealHalf(stealNext=%v) from queue %d returned %d after waiting %v, want %v (steal delay %v: a thief takes a runnext task exactly that long after it first sees it)",
			stealNext, src, id(got), waited, wantWait, m.delays[src])
	}
	m.check(t, src, "StealHalf (victim)")
	m.check(t, dst, "StealHalf (thief)")
}

// drain drains queue i into dst and checks the result: dst, the runnext
// task, then the ring.
func (m *queueModel) drain(t *rapid.T, i int, dst []*int) {
	t.Helper()
	want := slices.Clone(dst)
	if m.next[i] != nil {
		want = append(want, m.next[i])
	}
	want = append(want, m.rings[i]...)
	if got := m.qs[i].Drain(dst); !slices.Equal(got, want) {
		t.Fatalf("Drain of queue %d: got %v, want %v (the runnext task first, then the ring)", i, ids(got), ids(want))
	}
	m.rings[i], m.next[i] = nil, nil
}

func (m *queueModel) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"PutNext": func(t *rapid.T) {
			i := m.draw(t, "queue")
			m.keepSpill(m.putNext(t, i, m.newItem(), m.drawSpill(t)))
		},
		"Put": func(t *rapid.T) {
			i := m.draw(t, "queue")
			m.keepSpill(m.put(t, i, m.newItem(), m.drawSpill(t)))
		},
		// Puts and PutNexts until the ring has overflowed, then a few more.
		"FillAndOverflow": func(t *rapid.T) {
			i := m.draw(t, "queue")
			k := lfq.Size - len(m.rings[i]) + rapid.IntRange(1, 140).Draw(t, "extra")
			next := rapid.Bool().Draw(t, "withPutNext")
			for n := range k {
				if next && n%3 == 0 {
					m.keepSpill(m.putNext(t, i, m.newItem(), m.spill[:0]))
				} else {
					m.keepSpill(m.put(t, i, m.newItem(), m.spill[:0]))
				}
			}
		},
		"PutBatch": func(t *rapid.T) {
			i := m.draw(t, "queue")
			ts := m.newItems(rapid.IntRange(0, 300).Draw(t, "k"))
			want := min(len(ts), lfq.Size-len(m.rings[i]))
			if n := m.qs[i].PutBatch(ts); n != want {
				t.Fatalf("PutBatch of %d into queue %d with ring %d: n = %d, want %d", len(ts), i, len(m.rings[i]), n, want)
			}
			m.rings[i] = append(m.rings[i], ts[:want]...)
		},
		"PutNil": func(t *rapid.T) {
			i := m.draw(t, "queue")
			proptest.ExpectPanic(t, "PutNext(nil)", "called with a nil", func() { m.qs[i].PutNext(nil, nil) })
			proptest.ExpectPanic(t, "Put(nil)", "called with a nil", func() { m.qs[i].Put(nil, nil) })
			ts := m.newItems(rapid.IntRange(1, 5).Draw(t, "k"))
			ts[rapid.IntRange(0, len(ts)-1).Draw(t, "nilAt")] = nil
			proptest.ExpectPanic(t, "PutBatch with a nil", "called with a nil", func() { m.qs[i].PutBatch(ts) })
			m.check(t, i, "puts of nil")
		},
		"Get": func(t *rapid.T) {
			i := m.draw(t, "queue")
			got, inherit := m.qs[i].Get()
			var want *int
			wantInherit := false
			switch {
			case m.next[i] != nil:
				want, wantInherit, m.next[i] = m.next[i], true, nil
			case len(m.rings[i]) > 0:
				want, m.rings[i] = m.rings[i][0], m.rings[i][1:]
			}
			if got != want || inherit != wantInherit {
				t.Fatalf("Get on queue %d: got %d (inheritTime %v), want %d (inheritTime %v)", i, id(got), inherit, id(want), wantInherit)
			}
		},
		"StealHalf": func(t *rapid.T) {
			src := m.draw(t, "victim")
			dst := (src + rapid.IntRange(1, len(m.qs)-1).Draw(t, "thiefOffset")) % len(m.qs)
			m.steal(t, src, dst, rapid.Bool().Draw(t, "stealNext"))
		},
		// Passes steals from one victim, as an executor's passes over it
		// do, until it is empty: each round a steal without and one with
		// stealNext, the thief draining its queue in between. The runnext
		// task is refused to the first and goes to the second.
		"Passes": func(t *rapid.T) {
			src := m.draw(t, "victim")
			dst := (src + rapid.IntRange(1, len(m.qs)-1).Draw(t, "thiefOffset")) % len(m.qs)
			for passes, most := 0, m.total(src); m.total(src) > 0; passes++ {
				if passes > most { // each pass takes at least one task
					t.Fatalf("Passes: queue %d still holds %d tasks after %d passes of steals", src, m.total(src), passes)
				}
				m.drain(t, dst, nil)
				m.steal(t, src, dst, false)
				m.drain(t, dst, nil)
				m.steal(t, src, dst, true)
			}
		},
		"StealHalfMisuse": func(t *rapid.T) {
			i := m.draw(t, "queue")
			proptest.ExpectPanic(t, "StealHalf into itself", "victim as destination", func() { m.qs[i].StealHalf(m.qs[i], true) })
			proptest.ExpectPanic(t, "StealHalf into nil", "nil destination", func() { m.qs[i].StealHalf(nil, true) })
			m.check(t, i, "StealHalf misuse")
		},
		"Drain": func(t *rapid.T) {
			i := m.draw(t, "queue")
			var dst []*int
			if rapid.Bool().Draw(t, "prefix") {
				dst = m.newItems(rapid.IntRange(1, 3).Draw(t, "prefixLen"))
			}
			m.drain(t, i, dst)
		},
		"Empty": func(t *rapid.T) {
			i := m.draw(t, "queue")
			if got, want := m.qs[i].Empty(), m.total(i) == 0; got != want {
				t.Fatalf("Empty() on queue %d = %v, model holds %d", i, got, m.total(i))
			}
		},
		"Len": func(t *rapid.T) {
			for i := range m.qs {
				if got := m.qs[i].Len(); got != m.total(i) {
					t.Fatalf("Len() of queue %d = %d, model holds %d", i, got, m.total(i))
				}
			}
		},
		// Advance moves the bubble's fake clock; no real time passes.
		"Advance": func(t *rapid.T) {
			d := rapid.SampledFrom([]time.Duration{0, 500 * time.Nanosecond, time.Microsecond, 2 * time.Microsecond,
				runnext.StealDelay, 10 * time.Microsecond}).Draw(t, "d")
			time.Sleep(d)
		},
		"": func(t *rapid.T) {
			for i := range m.qs {
				m.check(t, i, "an action")
			}
		},
	}
}

// checkRunnextModel is the model property over queues made by newQueue; it
// must run inside a synctest bubble. It runs against the real queue in
// TestRunnextModel, against broken variants in
// TestRunnextModelCatchesBrokenQueues, and against the seeded mutants in the
// kill matrix.
func checkRunnextModel(t *rapid.T, newQueue newQueueFunc, stats *modelStats) {
	stats.cases++
	m := &queueModel{stats: stats}
	for i := range rapid.IntRange(2, 3).Draw(t, "queues") {
		d := rapid.SampledFrom(delayChoices).Draw(t, fmt.Sprintf("delay%d", i))
		q := newQueue(d)
		if d < 0 {
			d = runnext.StealDelay
		}
		if q.StealDelay() != d {
			t.Fatalf("queue %d: StealDelay() = %v, want %v", i, q.StealDelay(), d)
		}
		m.qs = append(m.qs, q)
		m.rings = append(m.rings, nil)
		m.next = append(m.next, nil)
		m.delays = append(m.delays, d)
	}
	t.Repeat(m.actions())
	for i, q := range m.qs {
		want := slices.Concat([]*int{m.next[i]}, m.rings[i])
		if m.next[i] == nil {
			want = want[1:]
		}
		if got := q.Drain(nil); !slices.Equal(got, want) {
			t.Fatalf("final Drain of queue %d: got %v, want %v", i, ids(got), ids(want))
		}
		if !q.Empty() || q.Len() != 0 {
			t.Fatalf("queue %d: Empty() = %v, Len() = %d after Drain", i, q.Empty(), q.Len())
		}
	}
}

func TestRunnextModel(t *testing.T) {
	var stats modelStats
	synctest.Test(t, func(t *testing.T) {
		rapid.Check(bubbleTB{t}, func(rt *rapid.T) { checkRunnextModel(rt, newRealQ, &stats) })
	})
	t.Logf("runnext model coverage: %d displacements, %d overflows, %d runnext steals (%d waited out the delay), %d refused (not the last pass), %d ring steals, %d steal-precondition panics",
		stats.displaced, stats.overflows, stats.nextSteals, stats.waitedSteals, stats.refusedNext, stats.ringSteals, stats.stealPanics)
	// With the default 100 cases every path is reached many times; -short
	// runs too few to insist.
	if !testing.Short() && (stats.displaced == 0 || stats.overflows == 0 || stats.waitedSteals == 0 || stats.refusedNext == 0 || stats.ringSteals == 0) {
		t.Errorf("the state machine missed a path: %+v", stats)
	}
	t.Logf("runnext model: %d checks passed", stats.cases)
}

// bubbleTB hands rapid a bubble's *testing.T under another type: rapid
// asks a *testing.T for its Deadline, which panics inside a synctest
// bubble; for any other TB it takes its default time limit instead (on the
// bubble's fake clock, which only the model's own sleeps move).
type bubbleTB struct{ *testing.T }

// TestRunnextModelCatchesBrokenQueues proves the model test can fail: each
// broken variant must be reported by rapid, for the expected reason.
func TestRunnextModelCatchesBrokenQueues(t *testing.T) {
	broken := []struct {
		name     string
		newQueue newQueueFunc
		reason   string
	}{
		{"PutNext keeps the old runnext task", newComposedQ(bugFIFONext), "queue"},
		{"PutNext drops the displaced task", newComposedQ(bugDropDisplaced), "queue"},
		{"PutNext returns its buffer", newComposedQ(bugReturnsBuffer), "nil when nothing spilled"},
		{"Get ignores inheritTime", newNoInheritQ, "inheritTime"},
		{"every steal takes runnext", newGreedyQ, "StealHalf(stealNext=false)"},
	}
	for _, b := range broken {
		t.Run(b.name, func(t *testing.T) {
			var stats modelStats
			rec := expectFailure(t, func(rt *rapid.T) { checkRunnextModel(rt, b.newQueue, &stats) })
			if !rec.Failed() {
				t.Fatalf("rapid did not catch %q in %d cases", b.name, stats.cases)
			}
			if all := strings.Join(rec.Errors(), "\n"); !strings.Contains(all, b.reason) {
				t.Fatalf("rapid failed on %q but not for the expected reason %q:\n%s", b.name, b.reason, all)
			}
			t.Logf("caught: %s", rec.FirstError())
		})
	}
}

// expectFailure is proptest.ExpectFailure inside a synctest bubble: the
// model measures steal delays on the bubble's fake clock, which a run outside
// a bubble would replace with real time.
func expectFailure(t *testing.T, prop func(*rapid.T)) (rec *proptest.Recorder) {
	synctest.Test(t, func(t *testing.T) { rec = proptest.ExpectFailure(t, prop) })
	return rec
}
