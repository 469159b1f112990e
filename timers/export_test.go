package timers

import "fmt"

// Whens returns the whens of h's entries in heap order (not sorted). Tests
// only, with no concurrent caller.
func Whens(h *Heap) []int64 {
	out := make([]int64, len(h.entries))
	for i, e := range h.entries {
		out[i] = e.when
	}
	return out
}

// Holds reports whether h holds an entry of t. Tests only, with no
// concurrent caller.
func Holds(h *Heap, t *Timer) bool {
	return t.pos != 0 && t.pos <= len(h.entries) && h.entries[t.pos-1].t == t
}

// CheckInvariants reports the first broken invariant of a quiescent h (no
// call in progress on it or its timers): every node's when is at most its
// children's, every entry's timer is pending with its pos pointing back at
// it and its when equal to the entry's, no timer has two entries, and the
// count and earliest-when cells equal what the heap holds. Tests only.
func CheckInvariants(h *Heap) error {
	seen := map[*Timer]bool{}
	for i, e := range h.entries {
		if e.t == nil {
			return fmt.Errorf("entry %d has no timer", i)
		}
		if seen[e.t] {
			return fmt.Errorf("entry %d: the timer has a second entry", i)
		}
		seen[e.t] = true
		if e.t.pos != i+1 {
			return fmt.Errorf("entry %d: the timer's pos is %d", i, e.t.pos)
		}
		if e.t.state.Load()&pendingBit == 0 {
			return fmt.Errorf("entry %d (when %d): the timer is not pending", i, e.when)
		}
		if e.t.when != e.when || e.t.heap != h {
			return fmt.Errorf("entry %d: when %d, the timer's %d (its heap is this one: %v)", i, e.when, e.t.when, e.t.heap == h)
		}
		if i > 0 {
			if p := (i - 1) / heapN; h.entries[p].when > e.when {
				return fmt.Errorf("heap order: entry %d (when %d) under entry %d (when %d)", i, e.when, p, h.entries[p].when)
			}
		}
	}
	if got := h.n.Load(); got != int64(len(h.entries)) {
		return fmt.Errorf("count cell %d, heap holds %d", got, len(h.entries))
	}
	want := int64(0)
	if len(h.entries) > 0 {
		want = h.entries[0].when
	}
	if got := h.min.Load(); got != want {
		return fmt.Errorf("earliest-when cell %d, heap's earliest %d", got, want)
	}
	return nil
}

// Gen returns t's generation (how many times it was armed). Tests only.
func Gen(t *Timer) uint64 { return t.state.Load() >> 1 }

// Locked runs f while holding h's lock, so a test under the explorer can
// show which calls take it. Tests only.
func Locked(h *Heap, f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f()
}

// TakeNoTimerLock is Heap.Take without each timer's lock: the broken
// variant that shows take-vs-run-stop can fail. A Stop that read t.heap
// before the move unlinks t's entry by its index from src while the entry
// (and the index) are now dst's, so it removes another entry of src, or
// none, and leaves t in dst. Tests only.
func TakeNoTimerLock(h, src *Heap) { h.take(src, false) }
