package explore

import (
	"fmt"

	"github.com/schedkit/schedkit/atomicx"
)

// dporNode is one scheduling point on the current DPOR path.
type dporNode struct {
	enabled   uint16 // threads that may run here
	ops       [MaxThreads]atomicx.Op
	keys      [MaxThreads]opKey // pending operation of every parked thread
	prev      int               // thread that ran the step before (for order)
	cur       uint8             // thread run here by the current execution
	backtrack uint16            // threads to run here: a source set, cur included
	done      uint16            // threads whose subtree here is explored
	sleep     uint16            // threads not to run here (sleep set)
}

// dpor is source-DPOR with sleep sets (Abdulla, Aronis, Jonsson and
// Sagonas, POPL 2014, Algorithm 1), stateless like dfs: every execution
// re-runs the path's choices and extends it with the first thread that is
// not asleep. When it ends, each race of a new step with an earlier one
// (dependent steps of two threads, adjacent in happens-before) adds to the
// backtrack set of the point before the earlier step one thread that can
// start the reversed order, unless one already there can. Sleep sets keep
// two complete executions from being equivalent.
//
// Blocking (a Lock, a Note sleep, a timed wait) is not in the paper's
// model. A thread parked at a blocking operation behaves like one spinning
// on a load of what it waits for; so for a blocking step every earlier
// dependent step of another thread after the blocked thread's previous step
// counts as a race, not only an adjacent one (a lock taken after another
// thread's lock and unlock races with that lock), and the pending operation
// of a thread that never ran it (left blocked by a deadlock, a failure, or
// waiting when sleep sets cut the execution) is analysed as if it ran last.
// A reversal none of whose first threads can run at that point is not
// feasible and adds nothing. TestDPORMatchesDFSOnRandomPrograms is where
// each of these rules was found wanting without it.
type dpor struct {
	threads int
	stack   []dporNode
	from    int // first step of the latest execution not yet analysed

	// Happens-before of the path's steps, kept for the unchanged prefix.
	vc    [][MaxThreads]int32 // vc[j][t]: steps of t that happen before or are j
	local []int32             // index of step j among its thread's steps

	// tail is what the threads still parked at the end of the latest
	// execution (a deadlock, a failure) were about to do.
	tail []parkedOp
}

// parkedOp is a thread's pending operation.
type parkedOp struct {
	thread int
	key    opKey
}

func (d *dpor) begin(_ *execution, n int) { d.threads, d.tail = n, d.tail[:0] }

// end keeps the pending operations of the threads an execution left
// parked: they never ran, but they race with earlier steps all the same
// (a deadlock's second lock is the race that avoids it). An execution cut
// short by sleep sets does not come here: its sleeping threads are
// covered.
func (d *dpor) end(x *execution) { d.tail = append(d.tail[:0], x.parkedAtEnd...) }

func maskOf(elig []int) uint16 {
	var m uint16
	for _, t := range elig {
		m |= 1 << t
	}
	return m
}

func (d *dpor) choose(x *execution, elig []int, _ bool) int {
	step := len(x.steps)
	mask := maskOf(elig)
	if step < len(d.stack) {
		n := &d.stack[step]
		if n.enabled != mask || !sameDporOps(n, x, elig) {
			x.failWith(fmt.Errorf("%w: at step %d the runnable threads are %s, an earlier execution with the same choices had %s",
				ErrNondeterministic, step+1, describe(x, elig), (&node{enabled: n.enabled, ops: n.ops}).describe()))
			return failed
		}
		d.fill(n, x) // addresses differ from one execution to the next
		return int(n.cur)
	}
	n := dporNode{enabled: mask, prev: x.prev}
	for _, t := range elig {
		n.ops[t] = x.threads[t].pending.op
	}
	d.fill(&n, x)
	if step > 0 {
		// A thread asleep or explored at the parent stays asleep while the
		// steps taken commute with its pending one.
		p := &d.stack[step-1]
		asleep := p.sleep | p.done
		for t := range MaxThreads {
			if asleep&(1<<t) != 0 && t != int(p.cur) && independent(p.keys[t], p.keys[p.cur]) {
				n.sleep |= 1 << t
			}
		}
	}
	c := d.first(mask&^n.sleep, x.prev)
	if c < 0 {
		// Every runnable thread is asleep: what follows is equivalent to an
		// explored execution. A thread that cannot run yet is not asleep,
		// though: it stands for one spinning on what it waits for, whose
		// reads race with earlier steps (a Clear before a woken
		// SleepFor), so its pending operation is analysed as if it ran.
		d.tail = d.tail[:0]
		for _, th := range x.threads {
			if th.state == stParked && n.sleep&(1<<th.id) == 0 {
				d.tail = append(d.tail, parkedOp{th.id, n.keys[th.id]})
			}
		}
		return cutShort
	}
	n.cur = uint8(c)
	n.backtrack = 1 << c
	d.stack = append(d.stack, n)
	return c
}

func sameDporOps(n *dporNode, x *execution, elig []int) bool {
	for _, t := range elig {
		if n.ops[t] != x.threads[t].pending.op {
			return false
		}
	}
	return true
}

func (d *dpor) fill(n *dporNode, x *execution) {
	for _, th := range x.threads {
		if th.state == stParked {
			n.keys[th.id] = x.key(th)
		}
	}
}

// first returns the first thread of set in the explorer's preference after
// prev (see order), or -1 if set is empty.
func (d *dpor) first(set uint16, prev int) int {
	if set == 0 {
		return -1
	}
	start := max(prev, 0)
	for k := range d.threads {
		if t := (start + k) % d.threads; set&(1<<t) != 0 {
			return t
		}
	}
	return -1
}

// blocking reports an operation a thread may wait at: for it, reordering
// with any dependent step since the thread's previous one is a race.
func blocking(op atomicx.Op) bool { return op.Blocking() }

func (d *dpor) thr(j int) int     { return int(d.stack[j].cur) }
func (d *dpor) key(j int) opKey   { return d.stack[j].keys[d.stack[j].cur] }
func (d *dpor) dep(i, j int) bool { return !independent(d.key(i), d.key(j)) }

// hb reports that step i happens before step j (or is j).
func (d *dpor) hb(i, j int) bool {
	return i == j || (i < j && d.vc[j][d.thr(i)] > d.local[i])
}

// analyse extends happens-before to the steps from d.from on and adds the
// backtrack points their races call for.
func (d *dpor) analyse() {
	n := len(d.stack)
	d.vc, d.local = d.vc[:d.from], d.local[:d.from]
	for j := d.from; j < n; j++ {
		d.clock(j)
	}
	for j := d.from; j < n; j++ {
		d.races(j)
	}
	// Each pending operation left at the end, as if it ran next.
	for _, po := range d.tail {
		var pseudo dporNode
		pseudo.cur = uint8(po.thread)
		pseudo.keys[po.thread] = po.key
		d.stack = append(d.stack, pseudo)
		d.clock(n)
		d.races(n)
		d.stack, d.vc, d.local = d.stack[:n], d.vc[:n], d.local[:n]
	}
}

// clock appends step j's vector clock: its thread's previous step and
// every earlier dependent step happen before it.
func (d *dpor) clock(j int) {
	p := d.thr(j)
	var v [MaxThreads]int32
	var loc int32
	for k := j - 1; k >= 0; k-- {
		if d.thr(k) == p {
			v, loc = d.vc[k], d.local[k]+1
			break
		}
	}
	for k := range j {
		if d.thr(k) != p && d.dep(k, j) {
			for t := range v {
				v[t] = max(v[t], d.vc[k][t])
			}
		}
	}
	v[p] = loc + 1
	d.vc, d.local = append(d.vc, v), append(d.local, loc)
}

// races handles every race of step j with an earlier step.
func (d *dpor) races(j int) {
	p := d.thr(j)
	prevP := -1
	for k := j - 1; k >= 0; k-- {
		if d.thr(k) == p {
			prevP = k
			break
		}
	}
	block := blocking(d.key(j).op)
	for i := j - 1; i >= 0; i-- {
		if d.thr(i) == p || !d.dep(i, j) || (prevP >= 0 && d.hb(i, prevP)) {
			continue
		}
		if !block && !d.adjacent(i, j) {
			continue
		}
		d.reverse(i, j)
	}
}

// adjacent reports that no step between i and j orders them: i happens
// before no dependent predecessor of j after it.
func (d *dpor) adjacent(i, j int) bool {
	p := d.thr(j)
	for k := i + 1; k < j; k++ {
		if d.thr(k) != p && d.dep(k, j) && d.hb(i, k) {
			return false
		}
	}
	return true
}

// reverse makes sure the point before step i explores a thread that can
// start v = (the steps after i not after it in happens-before).j: one of
// v's initials (Algorithm 1, lines 7 to 10).
func (d *dpor) reverse(i, j int) {
	if dporMutant == "dpor-skips-load-race" && d.key(i).op == atomicx.OpLoad {
		return
	}
	var initials, seen uint16
	var v []int
	consider := func(k int) {
		t := d.thr(k)
		if seen&(1<<t) == 0 {
			seen |= 1 << t
			first := true
			for _, w := range v {
				if d.hb(w, k) {
					first = false
					break
				}
			}
			if first {
				initials |= 1 << t
			}
		}
		v = append(v, k)
	}
	for k := i + 1; k < j; k++ {
		if !d.hb(i, k) {
			consider(k)
		}
	}
	consider(j)
	n := &d.stack[i]
	if initials&(n.backtrack|n.done|n.sleep) != 0 {
		return
	}
	if t := d.first(initials&n.enabled, n.prev); t >= 0 {
		n.backtrack |= 1 << t
	}
}

func (d *dpor) next() bool {
	d.analyse()
	for len(d.stack) > 0 {
		k := len(d.stack) - 1
		n := &d.stack[k]
		n.done |= 1 << n.cur
		if t := d.first(n.backtrack&^n.done&^n.sleep, n.prev); t >= 0 {
			n.cur = uint8(t)
			n.backtrack |= 1 << t
			d.from = k
			return true
		}
		d.stack = d.stack[:k]
	}
	return false
}
