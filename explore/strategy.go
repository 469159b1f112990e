package explore

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/schedkit/schedkit/atomicx"
)

// What strategy.choose returns instead of a thread.
const (
	cutShort = -1 // the execution repeats explored ones from here on: stop it
	failed   = -2 // the strategy failed the execution
)

// strategy picks the thread to run at every scheduling point.
type strategy interface {
	// begin prepares execution x of n threads.
	begin(x *execution, n int)
	// choose picks one of elig (ascending thread ids, never empty) for the
	// next step of x, or returns cutShort or failed.
	choose(x *execution, elig []int, prevRunnable bool) int
	// end sees an execution that ran to its end (or failed).
	end(x *execution)
	// next prepares the following execution and reports whether there is one.
	next() bool
}

// order lists elig in the explorer's preference: the previous thread first
// (continuing it costs no preemption), then the others in cyclic order after
// it. The first is the default choice.
func order(dst []uint8, elig []int, prev, n int) []uint8 {
	dst = dst[:0]
	start := max(prev, 0)
	for k := range n {
		t := (start + k) % n
		if slices.Contains(elig, t) {
			dst = append(dst, uint8(t))
		}
	}
	return dst
}

// opKey is what reduction compares: the operation a thread is parked at.
type opKey struct {
	op     atomicx.Op
	addr   uintptr
	global bool
	await  *awaitSet // a yield that awaits a write to these cells (await.go)
}

// independent reports that the steps a and b of two threads commute and
// neither enables or disables the other: different cells, or two loads.
// Anything that involves the clock depends on everything.
func independent(a, b opKey) bool {
	if a.await != nil || b.await != nil {
		return awaitIndependent(a, b)
	}
	if a.global || b.global {
		return false
	}
	if a.addr != b.addr {
		return true
	}
	return reads(a.op) && reads(b.op)
}

// node is one scheduling point on the current DFS path.
type node struct {
	cands        []uint8 // threads to explore here, default first
	idx          int     // cands[idx] is being explored
	enabled      uint16  // runnable threads (to check determinism)
	ops          [MaxThreads]atomicx.Op
	keys         [MaxThreads]opKey // pending operation of every parked thread
	prev         int
	prevRunnable bool
	preBefore    int    // preemptions before this step
	sleep        uint16 // threads not to run here (reduction)
}

// dfs is stateless model checking: every execution re-runs from scratch,
// follows the current path's choices, then extends it with default choices;
// next backtracks to the deepest point with an untried choice that fits the
// preemption bound.
type dfs struct {
	bound  int
	reduce bool
	stack  []node
}

func (d *dfs) begin(*execution, int) {}
func (d *dfs) end(*execution)        {}

func (d *dfs) choose(x *execution, elig []int, prevRunnable bool) int {
	step := len(x.steps)
	var mask uint16
	for _, t := range elig {
		mask |= 1 << t
	}
	if step < len(d.stack) {
		n := &d.stack[step]
		if n.enabled != mask || !sameOps(n, x, elig) {
			x.failWith(fmt.Errorf("%w: at step %d the runnable threads are %s, an earlier execution with the same choices had %s",
				ErrNondeterministic, step+1, describe(x, elig), n.describe()))
			return failed
		}
		fillKeys(n, x)
		return int(n.cands[n.idx])
	}
	n := node{enabled: mask, prev: x.prev, prevRunnable: prevRunnable, preBefore: x.preempt}
	for _, t := range elig {
		n.ops[t] = x.threads[t].pending.op
	}
	fillKeys(&n, x)
	if d.reduce && step > 0 {
		p := &d.stack[step-1]
		c := p.cands[p.idx]
		asleep := p.sleep
		for _, t := range p.cands[:p.idx] {
			asleep |= 1 << t
		}
		for t := range MaxThreads {
			if asleep&(1<<t) != 0 && t != int(c) && independent(p.keys[t], p.keys[c]) {
				n.sleep |= 1 << t
			}
		}
	}
	n.cands = order(nil, elig, x.prev, len(x.threads))
	n.cands = slices.DeleteFunc(n.cands, func(t uint8) bool { return n.sleep&(1<<t) != 0 })
	if len(n.cands) == 0 {
		return cutShort
	}
	d.stack = append(d.stack, n)
	return int(n.cands[0])
}

func sameOps(n *node, x *execution, elig []int) bool {
	for _, t := range elig {
		if n.ops[t] != x.threads[t].pending.op {
			return false
		}
	}
	return true
}

func fillKeys(n *node, x *execution) {
	for _, th := range x.threads {
		if th.state == stParked {
			n.keys[th.id] = x.key(th)
		}
	}
}

func describe(x *execution, elig []int) string {
	var s []string
	for _, t := range elig {
		s = append(s, fmt.Sprintf("T%d %s", t, x.threads[t].pending.op))
	}
	return fmt.Sprint(s)
}

func (n *node) describe() string {
	var s []string
	for t := range MaxThreads {
		if n.enabled&(1<<t) != 0 {
			s = append(s, fmt.Sprintf("T%d %s", t, n.ops[t]))
		}
	}
	return fmt.Sprint(s)
}

func (d *dfs) next() bool {
	for len(d.stack) > 0 {
		n := &d.stack[len(d.stack)-1]
		for n.idx+1 < len(n.cands) {
			n.idx++
			cost := 0
			if int(n.cands[n.idx]) != n.prev && n.prevRunnable {
				cost = 1
			}
			if d.bound < 0 || n.preBefore+cost <= d.bound {
				return true
			}
		}
		d.stack = d.stack[:len(d.stack)-1]
	}
	return false
}

// replayer runs one given schedule and nothing else: a schedule that names a
// thread that cannot run, or ends while the execution goes on, fails the
// execution with ErrReplayDiverged (the explorer also fails one that ends
// before the schedule is spent), so that a replay never passes by running
// some other schedule.
type replayer struct {
	sched []uint8
	buf   []uint8
}

func (r *replayer) begin(*execution, int) {}
func (r *replayer) end(*execution)        {}
func (r *replayer) next() bool            { return false }

func (r *replayer) choose(x *execution, elig []int, _ bool) int {
	step := len(x.steps)
	if step >= len(r.sched) {
		if step >= x.e.cfg.MaxSteps {
			// A schedule that ended at the step limit: let the limit fail
			// the execution as it did when the schedule was recorded.
			r.buf = order(r.buf, elig, x.prev, len(x.threads))
			return int(r.buf[0])
		}
		x.failWith(fmt.Errorf("%w: the schedule ends after %d steps, but the execution goes on (runnable: %s): it does not reach the recorded failure here (another scenario, build, SCHEDKIT_MUTATION or version of the code? a schedule cut short by ErrDeadline also ends this way)",
			ErrReplayDiverged, len(r.sched), describe(x, elig)))
		return failed
	}
	t := int(r.sched[step])
	if !slices.Contains(elig, t) {
		x.failWith(fmt.Errorf("%w: at step %d the schedule runs thread %d, but the runnable threads are %s (a schedule of another scenario, build or version?)",
			ErrReplayDiverged, step+1, t, describe(x, elig)))
		return failed
	}
	return t
}

// fromBytes takes its decisions from a byte string, as a fuzzer supplies
// it. Only a scheduling point with a real choice (two or more runnable
// threads) consumes anything. There, while the current run lasts and the
// thread that ran last can go on, it goes on; otherwise the next byte b
// picks order()[b&7 % len] (0 continues the thread that ran last, 1 the
// next one in cyclic order, ...) and starts a run of b>>3 more choices for
// it. Once the bytes are spent, the default choice (as DFS and replay
// extend a schedule) runs every thread on until it blocks or ends. There is
// no preemption bound: the bytes may switch at every choice.
type fromBytes struct {
	data []byte
	off  int
	left int // further choices that continue the current run
	buf  []uint8
}

func (f *fromBytes) begin(*execution, int) {}
func (f *fromBytes) end(*execution)        {}
func (f *fromBytes) next() bool            { return false }

func (f *fromBytes) choose(x *execution, elig []int, _ bool) int {
	if len(elig) == 1 {
		return elig[0]
	}
	f.buf = order(f.buf, elig, x.prev, len(x.threads))
	if f.left > 0 && int(f.buf[0]) == x.prev {
		f.left--
		return x.prev
	}
	f.left = 0
	if f.off >= len(f.data) {
		return int(f.buf[0])
	}
	b := f.data[f.off]
	f.off++
	f.left = int(b >> 3)
	return int(f.buf[int(b&7)%len(f.buf)])
}

func newRNG(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
}

// random is a uniform random walk over the runnable threads.
type random struct{ rng *rand.Rand }

func newRandom(seed int64) *random { return &random{rng: newRNG(seed)} }

func (r *random) begin(*execution, int) {}
func (r *random) end(*execution)        {}
func (r *random) next() bool            { return true }

func (r *random) choose(_ *execution, elig []int, _ bool) int {
	return elig[r.rng.IntN(len(elig))]
}

// pct is probabilistic concurrency testing: each execution gives the threads
// random distinct priorities above depth and picks depth change points among
// the steps (k, estimated by the longest execution so far); the highest
// priority runnable thread runs, and at the i-th change point the thread
// about to run drops to priority depth-i, below every initial one.
type pct struct {
	rng     *rand.Rand
	depth   int
	k       int
	prio    [MaxThreads]int
	changes []int
}

func newPCT(seed int64, depth int) *pct { return &pct{rng: newRNG(seed), depth: depth} }

func (p *pct) begin(_ *execution, n int) {
	for i, v := range p.rng.Perm(n) {
		p.prio[i] = p.depth + 1 + v
	}
	p.changes = p.changes[:0]
	if p.k > 0 {
		for range p.depth {
			p.changes = append(p.changes, p.rng.IntN(p.k))
		}
	}
}

func (p *pct) choose(x *execution, elig []int, _ bool) int {
	step := len(x.steps)
	best := func() int {
		b := elig[0]
		for _, t := range elig[1:] {
			if p.prio[t] > p.prio[b] {
				b = t
			}
		}
		return b
	}
	for i, c := range p.changes {
		if c == step {
			p.prio[best()] = p.depth - i
		}
	}
	return best()
}

func (p *pct) end(x *execution) { p.k = max(p.k, len(x.steps)) }
func (p *pct) next() bool       { return true }
