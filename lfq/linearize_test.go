package lfq_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/lfq"
)

// Bar item 6: histories of one victim ring, hammered by its owner and a few
// thieves, checked by porcupine against the sequential spec below.
//
// Every identifier of this file but the tests starts with lin, to stay
// clear of the other test files of the package.

// linKind names an operation of the victim ring.
type linKind uint8

const (
	linPut linKind = iota
	linPutBatch
	linGet
	linStealHalf
	linDrain
	linLen
)

var linKindNames = [...]string{"Put", "PutBatch", "Get", "StealHalf", "Drain", "Len"}

// linInput is an operation's input: the item Put appends, or the batch
// PutBatch is given. Items are ids: *p for an item p of the ring. For
// StealHalf, tail is the victim's tail index that the thief read just
// before the call.
type linInput struct {
	kind  linKind
	items []int
	tail  uint32
}

// linOutput is an operation's output.
type linOutput struct {
	// Put: the overflow batch it handed back (nil: none). Get: the item
	// (nil: the ring was empty). StealHalf: every item it took from the
	// victim in ring order (the ones published into the thief's ring, then
	// the returned one). Drain: the items, oldest first.
	items []int
	// PutBatch: how many it put. Len: the length.
	n int
}

// linState is the spec's state. items is never written once created, so
// states can share backing arrays.
type linState struct {
	items []int  // the ring, oldest first
	head  uint32 // the ring's index of items[0]; the tail is head+len(items)
	// ownerLen is len(items) right after the owner's last Put, PutBatch,
	// Get or Drain took effect. Between two owner operations only
	// consumers act, so the ring's length only falls from ownerLen.
	ownerLen int
}

// linOwnerState is the state after an owner operation left items from
// index head on.
func linOwnerState(items []int, head uint32) linState {
	return linState{items: items, head: head, ownerLen: len(items)}
}

// linStep is the sequential spec of one ring, every operation included.
// Each operation takes effect at one instant of its call, as follows:
//
//   - Put(x): if the ring is not full, appends x and returns no batch; if it
//     is full, removes the Size/2 oldest items and returns them plus x.
//   - PutBatch(xs) -> n: appends xs[:n]. Exact would be n = min(len(xs),
//     free room), but the ring computes the room from the head it read at
//     the start and publishes later, after thieves may have made more room.
//     So n is at most the room when it takes effect and at least the room
//     there was when the owner's previous operation took effect
//     (Size-ownerLen): the room it read lies between the two.
//   - Get() -> the oldest item removed, or nil if empty.
//   - StealHalf() -> the oldest k items removed, none only if empty. Exact
//     would be k = ceil(len/2), but the thief takes half of the length it
//     read (tail-head, at its load of tail) and claims the items later by a
//     CAS on head; the owner may append in between (a Len then sees the
//     longer ring, the items not yet taken). So where it takes effect, at
//     the CAS, k is at most ceil(len/2) and at least half (rounded up) of
//     tailBefore-head, with tailBefore the tail it read before the call
//     (the tail only grows and head does not move between its load and a
//     successful CAS).
//   - Drain() -> every item removed, oldest first.
//   - Len() -> the length.
func linStep(state, input, output any) (bool, any) {
	s, in, out := state.(linState), input.(linInput), output.(linOutput)
	q, h := s.items, s.head
	switch in.kind {
	case linPut:
		if len(q) < lfq.Size {
			return len(out.items) == 0, linOwnerState(append(q[:len(q):len(q)], in.items[0]), h)
		}
		batch := append(q[:lfq.Size/2:lfq.Size/2], in.items[0]) // a copy: cap is full
		return slices.Equal(out.items, batch), linOwnerState(q[lfq.Size/2:], h+lfq.Size/2)
	case linPutBatch:
		lo := min(len(in.items), lfq.Size-s.ownerLen)
		hi := min(len(in.items), lfq.Size-len(q))
		if out.n < lo || out.n > hi {
			return false, s
		}
		return true, linOwnerState(append(q[:len(q):len(q)], in.items[:out.n]...), h)
	case linGet:
		if len(q) == 0 {
			return len(out.items) == 0, s
		}
		return len(out.items) == 1 && out.items[0] == q[0], linOwnerState(q[1:], h+1)
	case linStealHalf:
		k := len(out.items)
		if len(q) == 0 || k == 0 {
			return len(q) == 0 && k == 0, s
		}
		seen := max(int(int32(in.tail-h)), 1) // the length it read was at least this
		if k < seen-seen/2 || k > len(q)-len(q)/2 || !slices.Equal(out.items, q[:k]) {
			return false, s
		}
		return true, linState{items: q[k:], head: h + uint32(k), ownerLen: s.ownerLen}
	case linDrain:
		return slices.Equal(out.items, q), linOwnerState(nil, h+uint32(len(q)))
	case linLen:
		return out.n == len(q), s
	}
	panic(fmt.Sprintf("linStep: unknown operation %d", in.kind))
}

// linModel is the porcupine model of a ring that starts holding init from
// index head on.
func linModel(init []int, head uint32) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return linOwnerState(init, head) },
		Step: linStep,
		Equal: func(a, b any) bool {
			x, y := a.(linState), b.(linState)
			return x.head == y.head && x.ownerLen == y.ownerLen && slices.Equal(x.items, y.items)
		},
		Hash: func(state any) uint64 {
			s := state.(linState)
			return linearize.HashWords([]uint64{uint64(s.ownerLen)<<32 | uint64(s.head)}, s.items)
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(linInput), output.(linOutput)
			name := linKindNames[in.kind]
			switch in.kind {
			case linPut:
				if out.items == nil {
					return fmt.Sprintf("Put(%d)", in.items[0])
				}
				return fmt.Sprintf("Put(%d) -> overflow %s", in.items[0], linearize.DescribeIDs(out.items))
			case linPutBatch:
				return fmt.Sprintf("PutBatch(%s) -> %d", linearize.DescribeIDs(in.items), out.n)
			case linLen:
				return fmt.Sprintf("Len() -> %d", out.n)
			case linGet:
				if out.items == nil {
					return "Get() -> nil"
				}
			}
			return fmt.Sprintf("%s() -> %s", name, linearize.DescribeIDs(out.items))
		},
		DescribeState: func(state any) string {
			s := state.(linState)
			return fmt.Sprintf("head %d, len %d (after the owner: %d) %s", s.head, len(s.items), s.ownerLen, linearize.DescribeIDs(s.items))
		},
	}
}

// linIDs maps items to their ids; nil for none.
func linIDs(ps []*int) []int { return linearize.IDs(ps) }

// linRing is the victim's surface. The real ring is linReal; the broken
// variants below wrap it. Thieves' own rings are always real.
type linRing interface {
	Put(t *int, spill []*int) []*int
	PutBatch(ts []*int) int
	Get() *int
	Drain(dst []*int) []*int
	StealHalf(dst *lfq.Ring[int]) *int
	Len() int
	Ring() *lfq.Ring[int] // the wrapped ring
}

// linReal is the real ring, unchanged.
type linReal struct{ r *lfq.Ring[int] }

func newLinReal() linRing { return linReal{new(lfq.Ring[int])} }

func (w linReal) Put(t *int, spill []*int) []*int   { return w.r.Put(t, spill) }
func (w linReal) PutBatch(ts []*int) int            { return w.r.PutBatch(ts) }
func (w linReal) Get() *int                         { return w.r.Get() }
func (w linReal) Drain(dst []*int) []*int           { return w.r.Drain(dst) }
func (w linReal) StealHalf(dst *lfq.Ring[int]) *int { return w.r.StealHalf(dst) }
func (w linReal) Len() int                          { return w.r.Len() }
func (w linReal) Ring() *lfq.Ring[int]              { return w.r }

// linGetsSecond is a broken ring whose Get returns the second item when
// there are two or more, moving the head to the tail: wrong even without
// concurrency.
type linGetsSecond struct{ linReal }

func newLinGetsSecond() linRing { return linGetsSecond{linReal{new(lfq.Ring[int])}} }

func (w linGetsSecond) Get() *int {
	first := w.r.Get()
	if first == nil {
		return nil
	}
	second := w.r.Get()
	if second == nil {
		return first
	}
	w.r.PutBatch([]*int{first}) // two slots were just freed: it fits
	return second
}

// linGetPeeks is a broken ring whose Get returns the head it read before
// taking an item, without checking that the item it took is that one: a
// check-then-act race, correct in any sequential run, wrong when a thief
// steals in between (the item is then consumed twice and another lost).
type linGetPeeks struct{ linReal }

func newLinGetPeeks() linRing { return linGetPeeks{linReal{new(lfq.Ring[int])}} }

func (w linGetPeeks) Get() *int {
	items := lfq.Contents(w.r) // only the owner writes slots and tail: no panic
	if len(items) == 0 {
		return nil
	}
	w.r.Get()
	return items[0]
}

// linConfig describes a series of recorded histories.
type linConfig struct {
	histories int
	ownerOps  int // operations of the owner per history
	thiefOps  int // operations of each thief per history
	thieves   int
	seed      uint64
	newVictim func() linRing
	timeout   time.Duration // porcupine's wall-clock safety net per history: past it, inconclusive
}

// linMaxBatch bounds the size of the owner's PutBatch.
const linMaxBatch = 48

// linStats adds up what the histories exercised.
type linStats struct {
	overflows, shortBatches, steals, emptySteals     int
	gets, emptyGets, drains, lens, wrapped, fullInit int
}

// linStress is the series cfg describes; st counts what its histories do.
//
// The victim starts anywhere in the index space (a quarter of the time
// just below the uint32 wraparound) and holds a prefill that is not
// recorded but is the model's initial state; a third of the time it starts
// (nearly) full, so that Put overflows and PutBatch comes up short while
// thieves steal. The owner (thread 0) runs Put, PutBatch, Get, Len and now
// and then Drain; each thief runs StealHalf and Len until the owner is
// done. A thief steals only with its own ring empty and drains it,
// unrecorded, after each steal, so the items its steal published are
// exactly its ring's contents; no one steals from a thief.
func linStress(name string, cfg linConfig, st *linStats) *linearize.Stress[linInput, linOutput] {
	var victim linRing // the history being recorded, for Tally
	var start uint32
	return &linearize.Stress[linInput, linOutput]{
		Name:    name,
		Seed:    cfg.seed,
		Timeout: cfg.timeout,
		Setup: func(h int, rng *rand.Rand) linearize.History[linInput, linOutput] {
			victim = cfg.newVictim()
			start = rng.Uint32()
			if rng.IntN(4) == 0 {
				start = math.MaxUint32 - uint32(rng.IntN(2*lfq.Size))
			}
			lfq.SetIndices(victim.Ring(), start)
			nPre := rng.IntN(lfq.Size + 1)
			if rng.IntN(3) == 0 {
				nPre = lfq.Size - rng.IntN(8)
			}
			if nPre >= lfq.Size-8 {
				st.fullInit++
			}
			ids := make([]int, nPre+cfg.ownerOps*linMaxBatch)
			for i := range ids {
				ids[i] = i
			}
			pre := make([]*int, nPre)
			for i := range pre {
				pre[i] = &ids[i]
			}
			if n := victim.Ring().PutBatch(pre); n != nPre {
				panic(fmt.Sprintf("prefill put %d of %d", n, nPre))
			}
			threads := []func(*linearize.Worker[linInput, linOutput]){linOwner(victim, ids, nPre, cfg.ownerOps)}
			for range cfg.thieves {
				threads = append(threads, linThief(victim, cfg.thiefOps))
			}
			return linearize.History[linInput, linOutput]{Model: linModel(slices.Clone(ids[:nPre]), start), Threads: threads}
		},
		Tally: func(ops []linearize.Op[linInput, linOutput]) {
			if _, tl := lfq.Indices(victim.Ring()); tl < start {
				st.wrapped++
			}
			for _, op := range ops {
				st.tally(op.Input, op.Output)
			}
		},
	}
}

func (st *linStats) tally(in linInput, out linOutput) {
	switch in.kind {
	case linPut:
		if out.items != nil {
			st.overflows++
		}
	case linPutBatch:
		if out.n < len(in.items) {
			st.shortBatches++
		}
	case linGet:
		st.gets++
		if out.items == nil {
			st.emptyGets++
		}
	case linStealHalf:
		st.steals++
		if out.items == nil {
			st.emptySteals++
		}
	case linDrain:
		st.drains++
	case linLen:
		st.lens++
	}
}

// linOwner is the owner's thread: ops operations on victim, putting the
// items ids[next:] in order.
func linOwner(victim linRing, ids []int, next, ops int) func(*linearize.Worker[linInput, linOutput]) {
	return func(w *linearize.Worker[linInput, linOutput]) {
		spill := make([]*int, 0, lfq.OverflowLen)
		batch := make([]*int, 0, linMaxBatch)
		var drained []*int
		for range w.Ops(ops) {
			w.Yield(16)
			switch r := w.Rand.IntN(100); {
			case r < 50:
				p := &ids[next]
				next++
				w.Begin(linInput{kind: linPut, items: []int{*p}})
				spill = victim.Put(p, spill[:0])
				w.EndFunc(func() linOutput { return linOutput{items: linIDs(spill)} })
			case r < 60:
				batch = batch[:0]
				for range 1 + w.Rand.IntN(linMaxBatch) {
					batch = append(batch, &ids[next])
					next++
				}
				w.Begin(linInput{kind: linPutBatch, items: linIDs(batch)})
				n := victim.PutBatch(batch)
				w.End(linOutput{n: n})
			case r < 88:
				w.Begin(linInput{kind: linGet})
				p := victim.Get()
				w.EndFunc(func() linOutput {
					if p == nil {
						return linOutput{}
					}
					return linOutput{items: []int{*p}}
				})
			case r < 98:
				w.Begin(linInput{kind: linLen})
				n := victim.Len()
				w.End(linOutput{n: n})
			default:
				w.Begin(linInput{kind: linDrain})
				drained = victim.Drain(drained[:0])
				w.EndFunc(func() linOutput { return linOutput{items: linIDs(drained)} })
			}
		}
	}
}

// linThief is a thief's thread: up to ops StealHalf and Len on victim,
// stealing into a ring of its own.
func linThief(victim linRing, ops int) func(*linearize.Worker[linInput, linOutput]) {
	return func(w *linearize.Worker[linInput, linOutput]) {
		own := new(lfq.Ring[int])
		var buf []*int
		for range w.Ops(ops) {
			if w.LeadDone() {
				return
			}
			w.Yield(4) // spread the thief's operations over the owner's
			if w.Rand.IntN(5) == 0 {
				w.Begin(linInput{kind: linLen})
				n := victim.Len()
				w.End(linOutput{n: n})
				continue
			}
			_, tail := lfq.Indices(victim.Ring())
			w.Begin(linInput{kind: linStealHalf, tail: tail})
			p := victim.StealHalf(own)
			w.EndFunc(func() linOutput {
				got := linIDs(lfq.Contents(own))
				if p != nil {
					got = append(got, *p)
				}
				return linOutput{items: got}
			})
			if p == nil {
				runtime.Gosched() // nothing to steal: let the owner put
			}
			buf = own.Drain(buf[:0])
		}
	}
}

func linDefaultConfig() linConfig {
	return linConfig{
		histories: linearize.Histories(),
		ownerOps:  200,
		thiefOps:  60,
		thieves:   3,
		seed:      rand.Uint64(),
		newVictim: newLinReal,
		timeout:   linearize.DefaultTimeout,
	}
}

// TestLinearizable checks many short histories of one owner and three
// thieves on one ring: every one must be linearizable with respect to
// linStep. A check that spends its step budget is neither a pass nor a
// fail: the history is recorded again smaller (linearize.Stress.Run).
func TestLinearizable(t *testing.T) {
	cfg := linDefaultConfig()
	var st linStats
	sum := linStress(t.Name(), cfg, &st).CheckAll(t, cfg.histories)
	t.Logf("coverage: %d overflowing Puts, %d short PutBatches, %d steals (%d empty), %d Gets (%d empty), %d Drains, %d Lens; "+
		"%d histories started full, %d crossed the uint32 wraparound",
		st.overflows, st.shortBatches, st.steals, st.emptySteals, st.gets, st.emptyGets, st.drains, st.lens, st.fullInit, st.wrapped)
	// The harness must reach the interesting paths; concurrency depends on
	// the machine and is only reported.
	require.Positive(t, st.overflows, "no Put overflowed")
	require.Positive(t, st.shortBatches, "no PutBatch came up short")
	require.Positive(t, st.steals-st.emptySteals, "no steal took anything")
	require.Positive(t, st.gets-st.emptyGets, "no Get took anything")
	require.Positive(t, st.drains, "no Drain")
	t.Logf("lfq linearizability: %d histories, %d operations, all linearizable", sum.Histories, sum.Operations)
}

// TestLinearizeCatchesBrokenRing proves the check can fail: the same
// harness, run on broken rings, must produce an Illegal history and its
// visualization. The peeking Get is wrong only when a steal lands inside
// it, so it is a race-only catch (here one comes after a few hundred
// overlapping operations at most).
func TestLinearizeCatchesBrokenRing(t *testing.T) {
	cases := []struct {
		name      string
		newVictim func() linRing
		catch     linearize.Catch
	}{
		{"Get returns the second item", newLinGetsSecond, linearize.Catch{Within: 5}},
		{"Get returns the head it peeked before taking one", newLinGetPeeks, linearize.Catch{RaceOnly: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := linDefaultConfig()
			cfg.newVictim = tc.newVictim
			linStress(t.Name(), cfg, new(linStats)).Catches(t, tc.catch)
		})
	}
}
