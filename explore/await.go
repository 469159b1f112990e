package explore

import (
	"slices"

	"github.com/schedkit/schedkit/atomicx"
)

// The await reduction of spin loops under DPOR (after GenMC's spin-assume
// and await reductions: Kokologiannakis, Ren and Vafeiadis, "Dynamic
// partial order reductions for spinloops", FMCAD 2021). A spin iteration
// that only read, then yielded, would, if run again, read the same values
// and yield again, until another thread writes one of the cells it read.
// So under DPOR a thread parked at a yield after the same fruitless
// iteration twice in a row (a loop, not a yield in straight-line code) is
// blocked, an await on the cells it read: it may run again once another
// thread writes (stores, adds, swaps or CASes) one of them. Its yield step
// then depends only on those writes, as a Lock on an Unlock. DPOR then
// explores one failed iteration per await instead of every interleaving of
// every retry.
//
// Code may spin on local state the explorer cannot see (a counter that
// gives up after n tries); so when every thread is blocked and one awaits,
// the awaiting threads run again (their yield then depends on everything),
// and a spin that never ends is a livelock (fair.go).

// awaitOff turns the await reduction off (tests: to compare with DPOR
// without it).
var awaitOff bool

// awaitMutant is a seeded fault for tests: "await-never-woken" leaves
// awaiting threads blocked when nothing else can run (a deadlock is
// reported where a spin that counts its tries would give up).
var awaitMutant string

// awaitSet is the cells an iteration read.
type awaitSet struct{ addrs []uintptr }

func (a *awaitSet) has(addr uintptr) bool { return a != nil && slices.Contains(a.addrs, addr) }

// awaits reports whether the await reduction applies to this execution.
func (x *execution) awaits() bool { return x.e.cfg.Mode == DPOR && !awaitOff }

// awaiting reports a thread blocked at the yield of a fruitless iteration.
func (x *execution) awaiting(th *thread) bool {
	it := &x.fair.it[th.id]
	return it.waiting && !it.released && !it.woken && th.pending.yield()
}

// wake lets every awaiting thread run: nothing else can.
func (x *execution) wake(elig []int) []int {
	if awaitMutant == "await-never-woken" {
		return elig
	}
	for _, th := range x.threads {
		if th.state == stParked && x.awaiting(th) {
			x.fair.it[th.id].woken = true
			elig = append(elig, th.id)
		}
	}
	return elig
}

// key is the reduction's view of th's pending operation: an await depends
// only on writes to the cells it read; an await that was woken because
// nothing else could run depends on everything, as the clock does. Under
// the reduction a plain yield (ending an iteration that wrote) changes
// nothing and waits for nothing a step can change, only for the other
// threads' turns, which the fair scheduler gives: it depends only on the
// clock's steps, where without the reduction it depends on everything.
func (x *execution) key(th *thread) opKey {
	p := &th.pending
	k := opKey{op: p.op, addr: p.addr, global: p.global()}
	if !p.yield() || !x.awaits() {
		return k
	}
	switch it := &x.fair.it[th.id]; {
	case it.woken:
	case it.waiting:
		k.global, k.await = false, it.on
	default:
		k.global, k.await = false, &awaitSet{}
	}
	return k
}

// awaitIndependent is independent for a pair with an await in it.
func awaitIndependent(a, b opKey) bool {
	if a.await == nil {
		a, b = b, a
	}
	switch {
	case b.await != nil:
		return true // two yields
	case b.global:
		return false
	case b.op == atomicx.OpLoad || b.op == atomicx.OpRead:
		return true
	}
	return !a.await.has(b.addr)
}
