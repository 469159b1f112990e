package runnext_test

import (
	"fmt"
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

// Bar item 6: histories of one victim queue, driven by its owner and a few
// thieves, checked by porcupine against the sequential spec below. The
// explorer (explore_test.go) judges every interleaving it runs with the
// same spec, on its virtual clock.
//
// Every identifier of this file but the tests starts with lin.

// linKind names an operation of the victim queue.
type linKind uint8

const (
	linPutNext linKind = iota
	linPut
	linPutBatch
	linGet
	linStealHalf
	linDrain
	linEmpty
	linLen
)

var linKindNames = [...]string{"PutNext", "Put", "PutBatch", "Get", "StealHalf", "Drain", "Empty", "Len"}

// linNone is the spec's empty runnext slot; tasks are ids >= 0.
const linNone = -1

// linInput is an operation's input.
type linInput struct {
	kind      linKind
	items     []int // PutNext, Put: the task; PutBatch: the batch
	stealNext bool  // StealHalf
	at        int64 // PutNext: the clock (atomicx.Nanotime) just before the call
}

// linOutput is an operation's output.
type linOutput struct {
	// PutNext, Put: the overflow batch (nil: none). Get: the task (nil:
	// none). StealHalf: every task it took, oldest first (those published
	// into the thief's ring, then the one returned). Drain: the tasks.
	items []int
	n     int   // PutBatch: how many it put; Len: the length
	flag  bool  // Get: inheritTime; Empty: the answer
	at    int64 // StealHalf: the clock just after it returned
}

// linState is the spec's state. ring is never written once created, so
// states can share backing arrays.
type linState struct {
	ring   []int // oldest first
	next   int   // the runnext task, or linNone
	nextAt int64 // the clock when it was put
	// ownerLen and ownerTotal are the ring's length and the queue's after
	// the owner's last operation took effect: between two owner
	// operations only thieves act, and they only take.
	ownerLen, ownerTotal int
}

func (s linState) total() int {
	if s.next == linNone {
		return len(s.ring)
	}
	return len(s.ring) + 1
}

// linOwner is s after an owner operation.
func linOwner(s linState) linState {
	s.ownerLen, s.ownerTotal = len(s.ring), s.total()
	return s
}

// linRingPut appends x to the ring, or, when it is full, returns the
// overflow batch: the older half and x.
func linRingPut(ring []int, x int) (newRing, batch []int) {
	if len(ring) < lfq.Size {
		return append(ring[:len(ring):len(ring)], x), nil
	}
	return ring[lfq.Size/2:], append(ring[:lfq.Size/2:lfq.Size/2], x)
}

// linStep returns the sequential spec of a queue whose steal delay is
// delay. Each operation takes effect at one instant of its call:
//
//   - PutNext(x): x becomes the runnext task, put at the time the call
//     began (in.at); the task it displaces goes to the ring's tail (or, if
//     the ring is full, leaves with its older half as the overflow batch).
//   - Put(x): x to the ring's tail, or the overflow batch.
//   - PutBatch(xs) -> n: appends xs[:n], n between the room the ring had
//     after the owner's previous operation and the room it has now (the
//     ring computes the room from a head it read earlier, as lfq's does).
//   - Get() -> the runnext task with inheritTime, else the ring's oldest.
//   - StealHalf(stealNext) -> if the ring holds tasks, its oldest k, 1 <= k
//     <= ceil(len/2) (a thief halves the length it read, which the owner may
//     have grown before the thief's CAS); else, if stealNext, the runnext
//     task, which must have sat for delay by the time StealHalf returned
//     (out.at); else nothing.
//   - Drain() -> the runnext task, then the ring.
//   - Empty() -> whether the ring and the slot are both empty.
//   - Len() (the owner's) -> between the queue's length now and its
//     length after the owner's previous operation: Len reads the ring and
//     the slot one after the other while thieves take.
func linStep(delay int64) func(state, input, output any) (bool, any) {
	return func(state, input, output any) (bool, any) {
		s, in, out := state.(linState), input.(linInput), output.(linOutput)
		switch in.kind {
		case linPutNext:
			var batch []int
			if s.next != linNone {
				s.ring, batch = linRingPut(s.ring, s.next)
			}
			s.next, s.nextAt = in.items[0], in.at
			return slices.Equal(out.items, batch), linOwner(s)
		case linPut:
			var batch []int
			s.ring, batch = linRingPut(s.ring, in.items[0])
			return slices.Equal(out.items, batch), linOwner(s)
		case linPutBatch:
			lo := min(len(in.items), lfq.Size-s.ownerLen)
			hi := min(len(in.items), lfq.Size-len(s.ring))
			if out.n < lo || out.n > hi {
				return false, s
			}
			s.ring = append(s.ring[:len(s.ring):len(s.ring)], in.items[:out.n]...)
			return true, linOwner(s)
		case linGet:
			switch {
			case s.next != linNone:
				ok := out.flag && slices.Equal(out.items, []int{s.next})
				s.next = linNone
				return ok, linOwner(s)
			case len(s.ring) > 0:
				ok := !out.flag && slices.Equal(out.items, s.ring[:1])
				s.ring = s.ring[1:]
				return ok, linOwner(s)
			}
			return !out.flag && len(out.items) == 0, s
		case linStealHalf:
			k := len(out.items)
			switch {
			case len(s.ring) > 0:
				if k < 1 || k > len(s.ring)-len(s.ring)/2 || !slices.Equal(out.items, s.ring[:k]) {
					return false, s
				}
				s.ring = s.ring[k:]
				return true, s
			case in.stealNext && s.next != linNone:
				if !slices.Equal(out.items, []int{s.next}) || out.at-s.nextAt < delay {
					return false, s
				}
				s.next = linNone
				return true, s
			}
			return k == 0, s
		case linDrain:
			want := s.ring
			if s.next != linNone {
				want = append([]int{s.next}, s.ring...)
			}
			return slices.Equal(out.items, want), linOwner(linState{next: linNone})
		case linEmpty:
			return out.flag == (s.total() == 0), s
		case linLen:
			return s.total() <= out.n && out.n <= s.ownerTotal, s
		}
		panic(fmt.Sprintf("linStep: unknown operation %d", in.kind))
	}
}

// linModel is the porcupine model of a queue with steal delay delay that
// starts as init.
func linModel(init linState, delay time.Duration) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return linOwner(init) },
		Step: linStep(int64(delay)),
		Equal: func(a, b any) bool {
			x, y := a.(linState), b.(linState)
			return x.next == y.next && x.nextAt == y.nextAt && x.ownerLen == y.ownerLen &&
				x.ownerTotal == y.ownerTotal && slices.Equal(x.ring, y.ring)
		},
		Hash: func(state any) uint64 {
			s := state.(linState)
			return linearize.HashWords([]uint64{uint64(s.next), uint64(s.nextAt), uint64(s.ownerLen)<<32 | uint64(s.ownerTotal)}, s.ring)
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(linInput), output.(linOutput)
			switch in.kind {
			case linPutNext, linPut:
				s := fmt.Sprintf("%s(%d)", linKindNames[in.kind], in.items[0])
				if out.items != nil {
					s += " -> overflow " + linearize.DescribeIDs(out.items)
				}
				return s
			case linPutBatch:
				return fmt.Sprintf("PutBatch(%s) -> %d", linearize.DescribeIDs(in.items), out.n)
			case linGet:
				return fmt.Sprintf("Get() -> %s, inheritTime %v", linearize.DescribeIDs(out.items), out.flag)
			case linStealHalf:
				return fmt.Sprintf("StealHalf(stealNext=%v) -> %s", in.stealNext, linearize.DescribeIDs(out.items))
			case linEmpty:
				return fmt.Sprintf("Empty() -> %v", out.flag)
			case linLen:
				return fmt.Sprintf("Len() -> %d", out.n)
			}
			return fmt.Sprintf("%s() -> %s", linKindNames[in.kind], linearize.DescribeIDs(out.items))
		},
		DescribeState: func(state any) string {
			s := state.(linState)
			return fmt.Sprintf("runnext %d (put at %d), ring %s (after the owner: %d, %d in all)",
				s.next, s.nextAt, linearize.DescribeIDs(s.ring), s.ownerLen, s.ownerTotal)
		},
	}
}

// linIDs maps tasks to their ids; nil for none.
func linIDs(ps []*int) []int { return linearize.IDs(ps) }

// linConfig describes a series of recorded histories.
type linConfig struct {
	histories int
	ownerOps  int // operations of the owner per history
	thiefOps  int // operations of each thief per history
	thieves   int
	seed      uint64
	newQueue  newQueueFunc
	timeout   time.Duration // porcupine's wall-clock safety net per history: past it, inconclusive
}

// linMaxBatch bounds the size of the owner's PutBatch.
const linMaxBatch = 48

// linStats adds up what the histories exercised.
type linStats struct {
	displaced, overflows, nextGets, steals, nextSteals, empties int
	trueEmpties, drains                                         int
}

// linStress is the series cfg describes; st counts what its histories do.
//
// The victim has steal delay 0, so that thieves race the owner for the
// runnext task as often as they can and nothing sleeps for real (the delay
// is checked by the explorer and the model, on virtual clocks). It starts
// with an unrecorded prefill, which is the spec's initial state: a few
// tasks, a third of the time a (nearly) full ring so that puts overflow,
// and half the time a runnext task. The owner (thread 0) runs PutNext, Put,
// PutBatch, Get, Empty, Len and now and then Drain; each thief runs
// StealHalf, with and without stealNext, and Empty, until the owner is
// done. A thief steals into a queue of its own that it drains, unrecorded,
// after each steal, so what the steal took is exactly that queue's contents
// and the task returned.
func linStress(name string, cfg linConfig, st *linStats) *linearize.Stress[linInput, linOutput] {
	var init linState // the history being recorded, for Tally
	return &linearize.Stress[linInput, linOutput]{
		Name:    name,
		Seed:    cfg.seed,
		Timeout: cfg.timeout,
		Setup: func(h int, rng *rand.Rand) linearize.History[linInput, linOutput] {
			victim := cfg.newQueue(0)
			nPre := rng.IntN(8)
			if rng.IntN(3) == 0 {
				nPre = lfq.Size - rng.IntN(4)
			}
			ids := make([]int, nPre+1+cfg.ownerOps*linMaxBatch)
			for i := range ids {
				ids[i] = i
			}
			init = linState{next: linNone}
			pre := make([]*int, nPre)
			for i := range pre {
				pre[i] = &ids[i]
				init.ring = append(init.ring, i)
			}
			if n := victim.PutBatch(pre); n != nPre {
				panic(fmt.Sprintf("prefill put %d of %d", n, nPre))
			}
			next := nPre
			if rng.IntN(2) == 0 {
				victim.PutNext(&ids[next], nil)
				init.next = next
				next++
			}
			threads := []func(*linearize.Worker[linInput, linOutput]){linOwnerThread(victim, ids, next, cfg.ownerOps)}
			for range cfg.thieves {
				threads = append(threads, linThief(victim, cfg.newQueue, cfg.thiefOps))
			}
			return linearize.History[linInput, linOutput]{Model: linModel(init, 0), Threads: threads}
		},
		Tally: func(ops []linearize.Op[linInput, linOutput]) { st.tally(init, ops) },
	}
}

// tally counts what one history, which started as init, exercised.
func (st *linStats) tally(init linState, ops []linearize.Op[linInput, linOutput]) {
	hasNext := init.next != linNone
	// A steal of the runnext task shows as a one-task steal that no ring
	// held: count those by matching the PutNext inputs.
	nexts := map[int]bool{}
	if init.next != linNone {
		nexts[init.next] = true
	}
	for _, op := range ops {
		in, out := op.Input, op.Output
		switch in.kind {
		case linPutNext:
			nexts[in.items[0]] = true
			if hasNext {
				st.displaced++ // an upper bound: a thief may have taken it first
			}
			hasNext = true
			if out.items != nil {
				st.overflows++
			}
		case linPut:
			if out.items != nil {
				st.overflows++
			}
		case linGet:
			if out.flag {
				st.nextGets++
				hasNext = false
			}
		case linStealHalf:
			if len(out.items) > 0 {
				st.steals++
			}
		case linEmpty:
			st.empties++
			if out.flag {
				st.trueEmpties++
			}
		case linDrain:
			st.drains++
			hasNext = false
		}
	}
	for _, op := range ops {
		if in, out := op.Input, op.Output; in.kind == linStealHalf && len(out.items) == 1 && nexts[out.items[0]] {
			st.nextSteals++ // or a displaced runnext task stolen alone from the ring
		}
	}
}

// linOwnerThread is the owner's thread: ops operations on victim, putting
// the tasks ids[next:] in order.
func linOwnerThread(victim queueUT, ids []int, next, ops int) func(*linearize.Worker[linInput, linOutput]) {
	return func(w *linearize.Worker[linInput, linOutput]) {
		spill := make([]*int, 0, lfq.OverflowLen)
		batch := make([]*int, 0, linMaxBatch)
		var drained []*int
		for range w.Ops(ops) {
			w.Yield(16)
			switch r := w.Rand.IntN(100); {
			case r < 30:
				p := &ids[next]
				next++
				w.Begin(linInput{kind: linPutNext, items: []int{*p}})
				spill = victim.PutNext(p, spill[:0])
				w.EndFunc(func() linOutput { return linOutput{items: linIDs(spill)} })
			case r < 50:
				p := &ids[next]
				next++
				w.Begin(linInput{kind: linPut, items: []int{*p}})
				spill = victim.Put(p, spill[:0])
				w.EndFunc(func() linOutput { return linOutput{items: linIDs(spill)} })
			case r < 55:
				batch = batch[:0]
				for range 1 + w.Rand.IntN(linMaxBatch) {
					batch = append(batch, &ids[next])
					next++
				}
				w.Begin(linInput{kind: linPutBatch, items: linIDs(batch)})
				n := victim.PutBatch(batch)
				w.End(linOutput{n: n})
			case r < 85:
				w.Begin(linInput{kind: linGet})
				p, inherit := victim.Get()
				w.EndFunc(func() linOutput {
					if p == nil {
						return linOutput{flag: inherit}
					}
					return linOutput{items: []int{*p}, flag: inherit}
				})
			case r < 91:
				w.Begin(linInput{kind: linEmpty})
				e := victim.Empty()
				w.End(linOutput{flag: e})
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

// linThief is a thief's thread: up to ops StealHalf and Empty on victim,
// stealing into a queue of its own.
func linThief(victim queueUT, newQueue newQueueFunc, ops int) func(*linearize.Worker[linInput, linOutput]) {
	return func(w *linearize.Worker[linInput, linOutput]) {
		own := newQueue(0)
		var buf []*int
		for range w.Ops(ops) {
			if w.LeadDone() {
				return
			}
			w.Yield(4)
			if w.Rand.IntN(4) == 0 {
				w.Begin(linInput{kind: linEmpty})
				e := victim.Empty()
				w.End(linOutput{flag: e})
				continue
			}
			stealNext := w.Rand.IntN(2) == 0
			w.Begin(linInput{kind: linStealHalf, stealNext: stealNext})
			p := victim.StealHalf(own, stealNext)
			w.EndFunc(func() linOutput {
				buf = own.Drain(buf[:0])
				got := linIDs(buf)
				if p != nil {
					got = append(got, *p)
				}
				return linOutput{items: got}
			})
			if p == nil {
				runtime.Gosched()
			}
		}
	}
}

// runLinHistory records history h of cfg under name and checks it, for
// the kill matrix.
func runLinHistory(name string, cfg linConfig, h int, st *linStats) (linearize.Result, error) {
	return linStress(name, cfg, st).Run(name, h)
}

func linDefaultConfig() linConfig {
	return linConfig{
		histories: linearize.Histories(),
		ownerOps:  200,
		thiefOps:  60,
		thieves:   3,
		seed:      rand.Uint64(),
		newQueue:  newRealQ,
		timeout:   linearize.DefaultTimeout,
	}
}

// TestLinearizable checks many short histories of one owner and three
// thieves on one queue: every one must be linearizable with respect to
// linStep. A check that spends its step budget is neither a pass nor a
// fail: the history is recorded again smaller (linearize.Stress.Run).
func TestLinearizable(t *testing.T) {
	cfg := linDefaultConfig()
	var st linStats
	sum := linStress(t.Name(), cfg, &st).CheckAll(t, cfg.histories)
	t.Logf("coverage: %d PutNexts onto a runnext task, %d overflowing puts, %d Gets of a runnext task, "+
		"%d steals that took something (%d of a single runnext-put task), %d Empty (%d true), %d Drains",
		st.displaced, st.overflows, st.nextGets, st.steals, st.nextSteals, st.empties, st.trueEmpties, st.drains)
	require.Positive(t, st.displaced, "no PutNext displaced a task")
	require.Positive(t, st.overflows, "no put overflowed")
	require.Positive(t, st.nextGets, "no Get took a runnext task")
	require.Positive(t, st.nextSteals, "no steal took a runnext task")
	require.Positive(t, st.trueEmpties, "no Empty said true")
	require.Positive(t, st.drains, "no Drain")
	t.Logf("runnext linearizability: %d histories, %d operations, all linearizable", sum.Histories, sum.Operations)
}

// TestLinearizeCatchesBrokenQueues proves the check can fail: the same
// harness, run on broken queues, must produce an Illegal history and its
// visualization. The queue without the re-check is wrong only when the
// owner acts between its two looks: a race-only catch.
func TestLinearizeCatchesBrokenQueues(t *testing.T) {
	cases := []struct {
		name     string
		newQueue newQueueFunc
		catch    linearize.Catch
	}{
		{"Get takes the ring before runnext", newComposedQ(bugRingFirst), linearize.Catch{}},
		{"PutNext drops the displaced task", newComposedQ(bugDropDisplaced), linearize.Catch{}},
		{"empty from one look, without the re-check", newRacyQ,
			linearize.Catch{RaceOnly: true, Overlaps: 200_000, GiveUpHistories: 3000}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := linDefaultConfig()
			cfg.newQueue = tc.newQueue
			linStress(t.Name(), cfg, new(linStats)).Catches(t, tc.catch)
		})
	}
}
