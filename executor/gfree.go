package executor

import (
	"fmt"
	"runtime"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/lfq"
)

// Task records are reused as the runtime reuses goroutine records: each P
// keeps a list of its own (p.gFree: gfget, gfput, holder only, no lock),
// and the executor keeps one global list (sched.gFree) under a lock of its
// own. A P whose list is full moves gfBatch records to the global list in
// one lock; a P whose list is empty refills gfBatch from it in one lock; an
// outside submit (which has no P) takes its record from it. So a stream of
// outside tasks runs on the records its own finished tasks freed, with no
// allocation once warm.
//
// Every record on a free list is zero but for its link on a P's list: it is zeroed
// when it is freed (gfput, gfspill, gfreeList.put), after the last holder
// has read it (task.release counts a group child's two references).

const (
	// maxGFree bounds a P's free records: gfput at it spills gfBatch of
	// them to the global list, as the runtime's gfput moves its surplus
	// to sched.gFree. The runtime keeps 64 Gs; a P here keeps two rings'
	// worth, because a Join's records turn over a ring at a time: a task
	// joining a deep tree fills its ring with taken-back records, and each
	// joinOverflow frees half a ring (128) at once, and a thief frees the
	// half it stole. At 64 each overflow spilled most of them, the P
	// refilled from the global list, and at 2 Ps the records crossed
	// cores there: every push wrote a line last held by the other core,
	// and a depth-20 Join tree took as long on 2 Ps as on 1 (45 ns a
	// node, in two processes of three: which P's spill the other took
	// decided it). At 512, 26 ns at 2 Ps against 47 at 1. 512 records are
	// 32 KiB a P.
	maxGFree = 2 * lfq.Size
	// gfBatch is how many records a spill moves to the global list and a
	// refill takes back (the runtime's 32).
	gfBatch = 32
	// maxGlobalFree bounds the global list (128Ki records of 64 B and
	// their pointers: 9 MiB); a spill past it is left to the garbage collector. Below it the list
	// keeps what a burst of outside tasks freed, so the next burst reuses
	// it, until a garbage collection finds records that no one took since
	// the last (trim).
	maxGlobalFree = 1 << 17
	// gfreeKeep is what trim always leaves on the list.
	gfreeKeep = 1024
	// gfreePad keeps the global list's lock and count on cache lines of
	// their own: submitters write them, the Ms seldom.
	gfreePad = 64
)

// gfreeList is the global free list of task records, the runtime's
// sched.gFree. Its lock is its own: globalq's API offers no critical
// section to share, and taking a record is a few instructions under an
// uncontended lock. n mirrors len(recs) for a look without the lock (an
// empty list costs a load, not a lock).
//
// It is a stack of pointers, not a chain through the records: a record on
// it was freed on another core and is cold here, so walking a chain missed
// the cache once per record, each miss waiting for the last (GoBatch's
// getN held 22% of tiny-batch's profile, bench/RESULTS.md). Popping
// pointers reads no record; the taker's writes to them miss in parallel.
// The top of the stack is the most recently freed, the likeliest in cache.
type gfreeList struct {
	_    [gfreePad]byte
	n    atomicx.Int64 // stored only under mu
	mu   atomicx.Mutex
	recs []*task // guarded by mu; every one zero, link nil
	low  int     // guarded by mu: the least len(recs) since the last trim
	// Guarded by mu, for tests (gfreeStats): records handed out, records
	// put, records dropped at the cap.
	taken, added, dropped uint64
	_                     [gfreePad]byte
}

// get returns a zeroed record for an outside submit, or nil if the list is
// empty. It mirrors gfget's take from sched.gFree.
func (l *gfreeList) get() *task {
	var one [1]*task
	l.getN(one[:])
	return one[0]
}

// getN fills ts with zeroed records, as many as the list has, under one
// lock, and returns how many it filled (GoBatch's records, a P's refill).
func (l *gfreeList) getN(ts []*task) int {
	if len(ts) == 0 || l.n.Load() == 0 {
		return 0
	}
	l.mu.Lock()
	k := min(len(ts), len(l.recs))
	rest := len(l.recs) - k
	copy(ts, l.recs[rest:])
	clear(l.recs[rest:])
	l.recs = l.recs[:rest]
	l.low = min(l.low, rest)
	l.taken += uint64(k)
	l.n.Store(int64(rest))
	l.mu.Unlock()
	return k
}

// putN adds zeroed records in one lock; past maxGlobalFree it drops them
// (the garbage collector takes them).
func (l *gfreeList) putN(ts []*task) {
	l.mu.Lock()
	if len(l.recs)+len(ts) <= maxGlobalFree {
		l.recs = append(l.recs, ts...)
		l.added += uint64(len(ts))
		l.n.Store(int64(len(l.recs)))
	} else {
		l.dropped += uint64(len(ts))
	}
	l.mu.Unlock()
}

// put zeroes one record that no P frees (released without a P, a submit
// refused, a task dropped after Shutdown stopped the Ms) and adds it.
func (l *gfreeList) put(t *task) {
	if mutant == freeZeroAfterPut {
		l.putN([]*task{t})
		*t = task{}
		return
	}
	*t = task{} // before the put: once on the list, another submitter may take it
	l.putN([]*task{t})
}

// trim drops the records that sat on the list, unused, since the last
// trim (its low mark), keeping at least gfreeKeep: a steady stream of
// outside tasks keeps what it uses, and an idle executor returns the
// records of its last burst. The bottom of the stack, the longest unused,
// goes; a stack left under a quarter of its capacity is copied to a
// smaller one, so the pointers go too.
func (l *gfreeList) trim() {
	l.mu.Lock()
	defer l.mu.Unlock()
	drop := min(l.low, len(l.recs)) - gfreeKeep
	if drop > 0 {
		n := copy(l.recs, l.recs[drop:])
		clear(l.recs[n:])
		l.recs = l.recs[:n]
		l.dropped += uint64(drop)
		if cap(l.recs) > 4*gfreeKeep && len(l.recs) < cap(l.recs)/4 {
			l.recs = append(make([]*task, 0, 2*len(l.recs)), l.recs...)
		}
		l.n.Store(int64(n))
	}
	l.low = len(l.recs)
}

// trimAtGC calls trim after every garbage collection until stopped is set:
// records kept for reuse cost memory only while something reuses them
// (sync.Pool's rule, with a low mark instead of a victim cache).
func (l *gfreeList) trimAtGC(stopped *atomicx.Uint32) {
	runtime.AddCleanup(new(*byte), func(struct{}) { // a pointer: not the tiny allocator's
		if stopped.Load() == 0 {
			l.trim()
			l.trimAtGC(stopped)
		}
	}, struct{}{})
}

// record returns a zeroed record for a task queued from outside any P: the
// global list's, else a new one.
func (e *Executor) record() *task {
	if t := e.gfree.get(); t != nil {
		return t
	}
	return new(task)
}

// gfget returns a zeroed record for a spawn on p: p's own, else gfBatch
// refilled from the global list, else a new one. Holder only. It mirrors
// gfget.
func (e *Executor) gfget(p *proc) *task {
	t := p.gfree
	if t == nil {
		var ts [gfBatch]*task
		k := e.gfree.getN(ts[:])
		if k == 0 {
			return new(task)
		}
		for i := 1; i < k; i++ {
			ts[i-1].link = ts[i]
		}
		t, p.ngfree = ts[0], k
	}
	p.gfree = t.link
	t.link = nil
	p.ngfree--
	return t
}

// gfput zeroes a finished task's record and keeps it for p's next spawn;
// p's list full, the record and gfBatch-1 more go to the global list.
// Holder only. It mirrors gfput.
func (e *Executor) gfput(p *proc, t *task) {
	if mutant == noRecordReuse {
		*t = task{}
		return
	}
	if p.ngfree >= maxGFree {
		e.gfspill(p, t)
		return
	}
	*t = task{}
	t.link = p.gfree
	p.gfree = t
	p.ngfree++
}

// gfspill moves t, zeroed, and the gfBatch-1 records at the head of p's
// full list to the global list in one lock. The records are unlinked
// before the lock: the list is the holder's alone, and its records are
// the ones it freed last, in its cache.
func (e *Executor) gfspill(p *proc, t *task) {
	if mutant != globalFreeNoZero {
		*t = task{}
	}
	var ts [gfBatch]*task
	ts[0] = t
	next := p.gfree
	for i := 1; i < gfBatch; i++ {
		ts[i], next = next, next.link
		if mutant != spillKeepsLocal {
			ts[i].link = nil
		}
	}
	if mutant != spillKeepsLocal {
		p.gfree = next
		p.ngfree -= gfBatch - 1
	}
	e.gfree.putN(ts[:])
}

// putAll zeroes the records of ts, which no queue holds (a batch that
// submit refused), and adds them to the global list in one lock.
func (l *gfreeList) putAll(ts []*task) {
	if len(ts) == 0 {
		return
	}
	for _, t := range ts {
		*t = task{}
	}
	l.putN(ts)
}

// records fills ts with zeroed records for a batch from outside: the
// global list's, in one lock, and new ones for the rest, in one
// allocation.
func (e *Executor) records(ts []*task) {
	k := e.gfree.getN(ts)
	if k == len(ts) {
		return
	}
	recs := make([]task, len(ts)-k)
	for i := range recs {
		ts[k+i] = &recs[i]
	}
}

// checkFreeLists reports the first record on a free list (a P's or the
// global one) that is not zero but for its link, or that is on a list
// twice, and any list whose length is not its count. Call it only while
// no M runs (after Close): it reads the Ps' lists without their holders.
func (e *Executor) checkFreeLists() error {
	seen := make(map[*task]string)
	walk := func(name string, h *task, n int) error {
		k := 0
		for t := h; t != nil; t = t.link {
			if k == n {
				return fmt.Errorf("executor: %s's free list is longer than its count %d", name, n)
			}
			k++
			if where, ok := seen[t]; ok {
				return fmt.Errorf("executor: a record is on %s's free list and on %s's", name, where)
			}
			seen[t] = name
			if t.fn != nil || t.gfn != nil || t.g != nil || t.w != nil || t.at != 0 ||
				t.shared || t.bound || t.claim.Load() != 0 || t.refs.Load() != 0 {
				return fmt.Errorf("executor: record %d of %s's free list is not zeroed: %+v", k, name, t)
			}
		}
		if k != n {
			return fmt.Errorf("executor: %s's free list holds %d records, its count says %d", name, k, n)
		}
		return nil
	}
	for _, p := range e.allPs() {
		if err := walk(fmt.Sprintf("P %d", p.id), p.gfree, p.ngfree); err != nil {
			return err
		}
	}
	e.gfree.mu.Lock()
	defer e.gfree.mu.Unlock()
	if n := e.gfree.n.Load(); n != int64(len(e.gfree.recs)) {
		return fmt.Errorf("executor: the global free list's count cell says %d, its size %d", n, len(e.gfree.recs))
	}
	for i, t := range e.gfree.recs {
		if t.link != nil {
			return fmt.Errorf("executor: record %d of the global free list is linked", i)
		}
		if err := walk("the global", t, 1); err != nil {
			return err
		}
	}
	return nil
}

// gfreeStats returns the global free list's length and the records it has
// handed out, taken in and dropped at its cap.
func (e *Executor) gfreeStats() (size int, taken, added, dropped uint64) {
	e.gfree.mu.Lock()
	defer e.gfree.mu.Unlock()
	return len(e.gfree.recs), e.gfree.taken, e.gfree.added, e.gfree.dropped
}
