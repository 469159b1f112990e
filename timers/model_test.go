package timers_test

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/internal/proptest"
	"github.com/schedkit/schedkit/timers"
)

// Bar item 2: the heaps and their timers against a sequential model, a
// sorted list of (when, timer) per heap. Two heaps stand for two Ps: Add,
// Reset and Stop may move a timer between them, and Run on either is the
// owner's run or a thief's. Some timers re-arm themselves from their func
// (a periodic timer, or a task's next Sleep), on the heap that fired them,
// so a Run can fire what it armed while it ran.

const (
	modelHeaps  = 2
	modelTimers = 12
	maxWhen     = 30 // whens and nows are small, so ties are common
)

// mtimer is one timer and its model.
type mtimer struct {
	id      int
	t       *timers.Timer
	pending bool   // model: armed, neither fired nor stopped
	seq     uint64 // model: the armings so far
	heap    int    // model: the heap of the latest arming
	when    int64  // model: the when of the latest arming
	period  int64  // > 0: its func re-arms it at now+period on the same heap
}

// fire is one call of a timer's func.
type fire struct {
	id    int
	seq   uint64
	delay int64
}

// timersModel is the state machine: the heaps, the timers and their model.
type timersModel struct {
	heaps  [modelHeaps]*timers.Heap
	ts     []*mtimer
	fires  []fire // the funcs called during the current Run
	now    int64  // the current Run's now, for the re-arming funcs
	runOn  int    // the current Run's heap
	broken func(h *timers.Heap, now int64, max int) int
	stats  *modelStats
}

// modelStats counts how often the state machine reached the paths that
// matter, over all cases of one run.
type modelStats struct {
	cases, fired, rearmed, tiesFired, moved, resetPending, stoppedPending, cutByMax int
}

func newTimersModel(t *rapid.T, stats *modelStats) *timersModel {
	m := &timersModel{stats: stats}
	for i := range m.heaps {
		m.heaps[i] = new(timers.Heap)
	}
	for id := range modelTimers {
		mt := &mtimer{id: id}
		if id >= modelTimers-2 {
			mt.period = rapid.Int64Range(1, 5).Draw(t, fmt.Sprintf("period%d", id))
		}
		mt.t = timers.NewTimer(func(arg any, seq uint64, delay int64) {
			m.fires = append(m.fires, fire{id: arg.(int), seq: seq, delay: delay})
			if mt.period > 0 {
				m.heaps[m.runOn].Add(mt.t, m.now+mt.period)
			}
		}, id)
		m.ts = append(m.ts, mt)
	}
	return m
}

// earliest returns the model's earliest when on heap k, 0 if none.
func (m *timersModel) earliest(k int) int64 {
	var w int64
	for _, mt := range m.ts {
		if mt.pending && mt.heap == k && (w == 0 || mt.when < w) {
			w = mt.when
		}
	}
	return w
}

func (m *timersModel) count(k int) int {
	n := 0
	for _, mt := range m.ts {
		if mt.pending && mt.heap == k {
			n++
		}
	}
	return n
}

// check compares every heap and timer with the model.
func (m *timersModel) check(t *rapid.T, after string) {
	t.Helper()
	for k, h := range m.heaps {
		if got, want := h.Next(), m.earliest(k); got != want {
			t.Fatalf("after %s: heap %d: Next() = %d, model's earliest %d (heap %v)", after, k, got, want, timers.Whens(h))
		}
		if got, want := h.Len(), m.count(k); got != want {
			t.Fatalf("after %s: heap %d: Len() = %d, model holds %d", after, k, got, want)
		}
		if err := timers.CheckInvariants(h); err != nil {
			t.Fatalf("after %s: heap %d: %v", after, k, err)
		}
	}
	for _, mt := range m.ts {
		if got := mt.t.Pending(); got != mt.pending {
			t.Fatalf("after %s: timer %d: Pending() = %v, model %v", after, mt.id, got, mt.pending)
		}
		for k, h := range m.heaps {
			if got, want := timers.Holds(h, mt.t), mt.pending && mt.heap == k; got != want {
				t.Fatalf("after %s: heap %d holds timer %d: %v, model %v", after, k, mt.id, got, want)
			}
		}
	}
	hs := m.heaps[:]
	want := int64(0)
	for k := range m.heaps {
		if w := m.earliest(k); w != 0 && (want == 0 || w < want) {
			want = w
		}
	}
	if got := timers.Earliest(hs); got != want {
		t.Fatalf("after %s: Earliest = %d, model %d", after, got, want)
	}
}

func drawWhen(t *rapid.T, label string) int64 {
	return rapid.Int64Range(-1, maxWhen).Draw(t, label) // below 1 is taken as 1
}

func clampWhen(w int64) int64 { return max(w, 1) }

// run does one Run and checks its fires against the model, following the
// heap's choice among equal whens: each fire must be of a pending timer on
// that heap whose when is the heap's earliest and at most now, with delay
// now - when; the Run must stop at max fires or when nothing on the heap
// has expired.
func (m *timersModel) run(t *rapid.T, k int, now int64, max int) {
	m.fires, m.now, m.runOn = nil, now, k
	var ran int
	if m.broken != nil {
		ran = m.broken(m.heaps[k], now, max)
	} else {
		ran = m.heaps[k].Run(now, max)
	}
	if ran != len(m.fires) {
		t.Fatalf("Run(%d, %d) on heap %d returned %d, %d funcs ran", now, max, k, ran, len(m.fires))
	}
	for i, f := range m.fires {
		mt := m.ts[f.id]
		w := m.earliest(k)
		if !mt.pending || mt.heap != k {
			t.Fatalf("Run(%d, %d) on heap %d: fire %d is of timer %d, which the model has %s", now, max, k, i, f.id, m.where(mt))
		}
		if mt.when > now || mt.when != w {
			t.Fatalf("Run(%d, %d) on heap %d: fire %d is of timer %d at when %d, the heap's earliest is %d", now, max, k, i, f.id, mt.when, w)
		}
		if f.seq != mt.seq {
			t.Fatalf("Run(%d, %d): timer %d's func got seq %d, its arming is the %dth", now, max, f.id, f.seq, mt.seq)
		}
		if f.delay != now-mt.when {
			t.Fatalf("Run(%d, %d): timer %d's func got delay %d, want %d", now, max, f.id, f.delay, now-mt.when)
		}
		if m.countAt(k, w) > 1 {
			m.stats.tiesFired++
		}
		mt.pending = false
		m.stats.fired++
		if mt.period > 0 {
			mt.pending, mt.heap, mt.when = true, k, clampWhen(now+mt.period)
			mt.seq++
			m.stats.rearmed++
		}
	}
	if w := m.earliest(k); len(m.fires) < max && w != 0 && w <= now {
		t.Fatalf("Run(%d, %d) on heap %d fired %d and stopped with timer(s) at when %d still expired", now, max, k, len(m.fires), w)
	}
	if len(m.fires) == max && m.earliest(k) != 0 && m.earliest(k) <= now {
		m.stats.cutByMax++
	}
	m.fires = nil
}

func (m *timersModel) countAt(k int, w int64) int {
	n := 0
	for _, mt := range m.ts {
		if mt.pending && mt.heap == k && mt.when == w {
			n++
		}
	}
	return n
}

func (m *timersModel) where(mt *mtimer) string {
	if !mt.pending {
		return "disarmed"
	}
	return fmt.Sprintf("pending on heap %d at %d", mt.heap, mt.when)
}

func (m *timersModel) actions() map[string]func(*rapid.T) {
	pick := func(t *rapid.T) *mtimer { return m.ts[rapid.IntRange(0, modelTimers-1).Draw(t, "timer")] }
	heap := func(t *rapid.T) int { return rapid.IntRange(0, modelHeaps-1).Draw(t, "heap") }
	return map[string]func(*rapid.T){
		"Add": func(t *rapid.T) {
			mt := pick(t)
			k, w := heap(t), drawWhen(t, "when")
			if mt.pending {
				proptest.ExpectPanic(t, "Add of a pending timer", "Heap.Add", func() { m.heaps[k].Add(mt.t, w) })
				return
			}
			m.heaps[k].Add(mt.t, w)
			mt.pending, mt.heap, mt.when = true, k, clampWhen(w)
			mt.seq++
		},
		"Reset": func(t *rapid.T) {
			mt := pick(t)
			k, w := heap(t), drawWhen(t, "when")
			if got := m.heaps[k].Reset(mt.t, w); got != mt.pending {
				t.Fatalf("Reset of timer %d (%s) returned %v", mt.id, m.where(mt), got)
			}
			if mt.pending {
				m.stats.resetPending++
				if mt.heap != k {
					m.stats.moved++
				}
			}
			mt.pending, mt.heap, mt.when = true, k, clampWhen(w)
			mt.seq++
			if got := mt.t.When(); got != mt.when {
				t.Fatalf("When() of timer %d after Reset = %d, want %d", mt.id, got, mt.when)
			}
		},
		"Stop": func(t *rapid.T) {
			mt := pick(t)
			if got := mt.t.Stop(); got != mt.pending {
				t.Fatalf("Stop of timer %d (%s) returned %v", mt.id, m.where(mt), got)
			}
			if mt.pending {
				m.stats.stoppedPending++
			}
			mt.pending = false
		},
		"Run": func(t *rapid.T) {
			k := heap(t)
			now := rapid.Int64Range(0, maxWhen+5).Draw(t, "now")
			max := rapid.OneOf(rapid.Just(1<<30), rapid.IntRange(1, 3)).Draw(t, "max")
			m.run(t, k, now, max)
		},
		"RunMisuse": func(t *rapid.T) {
			bad := rapid.IntRange(-3, 0).Draw(t, "max")
			proptest.ExpectPanic(t, "Run with max < 1", "Heap.Run", func() { m.heaps[0].Run(maxWhen, bad) })
		},
		"": func(t *rapid.T) { m.check(t, "an action") },
	}
}

// checkTimersModel is the model property: the heaps built by the real
// code, or Run replaced by broken (nil for the real Run).
func checkTimersModel(t *rapid.T, stats *modelStats, broken func(h *timers.Heap, now int64, max int) int) {
	stats.cases++
	m := newTimersModel(t, stats)
	m.broken = broken
	t.Repeat(m.actions())
	// At the end, stop every timer: each pending one must say it stopped it,
	// and the heaps must then be empty.
	for _, mt := range m.ts {
		if got := mt.t.Stop(); got != mt.pending {
			t.Fatalf("final Stop of timer %d (%s) returned %v", mt.id, m.where(mt), got)
		}
		mt.pending = false
	}
	m.check(t, "the final Stops")
	if slices.ContainsFunc(m.heaps[:], func(h *timers.Heap) bool { return h.Len() != 0 }) {
		t.Fatalf("heaps not empty after every timer stopped")
	}
}

func TestTimersModel(t *testing.T) {
	var stats modelStats
	rapid.Check(t, func(t *rapid.T) { checkTimersModel(t, &stats, nil) })
	t.Logf("timers model coverage: %+v", stats)
	if !testing.Short() && (stats.tiesFired == 0 || stats.rearmed == 0 || stats.moved == 0 || stats.resetPending == 0 || stats.stoppedPending == 0 || stats.cutByMax == 0) {
		t.Errorf("the state machine missed a path: %+v", stats)
	}
	t.Logf("timers model: %d checks passed", stats.cases)
}

// TestTimersModelCatchesBrokenRun proves the model test can fail: a Run
// that fires one timer fewer than it may, and one that ignores now.
func TestTimersModelCatchesBrokenRun(t *testing.T) {
	broken := []struct {
		name   string
		run    func(h *timers.Heap, now int64, max int) int
		reason string
	}{
		{"Run stops one early", func(h *timers.Heap, now int64, max int) int {
			if max > 1 {
				max--
			}
			return h.Run(now, max)
		}, "still expired"},
		{"Run fires one tick early", func(h *timers.Heap, now int64, max int) int { return h.Run(now+1, max) }, "delay"},
	}
	for _, b := range broken {
		t.Run(b.name, func(t *testing.T) {
			var stats modelStats
			first, err := killmatrix.ModelCatch(t, func(rt *rapid.T) { checkTimersModel(rt, &stats, b.run) }, b.reason)
			if err != nil {
				t.Fatalf("%s: %v", b.name, err)
			}
			t.Logf("caught: %s", first)
		})
	}
}
