package stealing_test

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/runnext"
	"github.com/schedkit/schedkit/stealing"
)

// Bar item 6: histories of a few Ps, each a goroutine that owns a real
// runnext.Queue (steal delay 0) and runs Put, PutNext and Get on it and,
// when it runs dry, the stealer's Steal, checked by porcupine against a
// sequential spec of all the Ps' queues together.
//
// Every queue operation is recorded, the StealHalf calls a Steal makes
// included (the queues' wrapper records them on the thief's client), and
// after each Steal a zero-length StealDone carries the random numbers its
// passes drew, the victims it visited and what it returned. In the spec a
// StealHalf takes effect at one instant on the victim (the oldest tasks of
// its ring, at least one and at most half rounded up, the newest of them
// returned and the rest on their way to the thief's ring, where they appear
// by the thief's next operation: see linState; or, with stealNext and an
// empty ring, the runnext task; or nothing, only if there was nothing to
// take), and a StealDone is legal only if the victims are those
// the passes had to visit, in order: from the random numbers, the order of
// the runtime's randomOrder, skipping the thief and the idle Ps, stealNext
// on the last pass only, up to the first task found.
//
// Every identifier of this file but the tests starts with lin.

// linKind names an operation.
type linKind uint8

const (
	linPut linKind = iota
	linPutNext
	linGet
	linStealHalf
	linStealDone
)

var linKindNames = [...]string{"Put", "PutNext", "Get", "StealHalf", "StealDone"}

// linNone is no task: an empty runnext slot, a nil result.
const linNone = -1

// linInput is an operation's input; p is the P whose goroutine ran it.
type linInput struct {
	kind      linKind
	p         int
	item      int         // Put, PutNext: the task
	victim    int         // StealHalf: from whom, into p's queue
	stealNext bool        // StealHalf
	rs        []uint32    // StealDone: the random numbers its passes drew
	visits    []stealCall // StealDone: the StealHalf calls it made, in order
}

// linOutput is an operation's output.
type linOutput struct {
	item    int  // Get, StealHalf, StealDone: the task, or linNone
	inherit bool // Get
}

// linState is the spec's state: every P's ring and runnext task, and the
// tasks a P's last StealHalf took for its ring but may not have published
// there yet (pend). The slices are never written once made, so states
// share them.
//
// pend is the window runqsteal has too: the victim's CAS takes the half,
// then the thief copies nothing more but stores its own tail, which
// publishes the half in its ring. In between, the half is in neither ring,
// so another thief stealing from the first one can find its ring empty
// after the victim's owner has seen its own ring shrink. The spec publishes
// pend lazily: at the thief's next operation (which comes after its
// StealHalf returned, so after the store), or when another P's StealHalf
// from the thief could only have taken what it took from the published ring.
type linState struct {
	rings [][]int
	next  []int
	pend  [][]int
}

func linWith(s linState, p int, ring []int) linState {
	rings := slices.Clone(s.rings)
	rings[p] = ring
	s.rings = rings
	return s
}

func linWithNext(s linState, p, v int) linState {
	next := slices.Clone(s.next)
	next[p] = v
	s.next = next
	return s
}

func linWithPend(s linState, p int, pend []int) linState {
	ps := slices.Clone(s.pend)
	ps[p] = pend
	s.pend = ps
	return s
}

// linPublish moves P p's pending tasks to its ring's tail.
func linPublish(s linState, p int) linState {
	if len(s.pend[p]) == 0 {
		return s
	}
	return linWithPend(linWith(s, p, linAppend(s.rings[p], s.pend[p]...)), p, nil)
}

func linAppend(ring []int, items ...int) []int {
	return append(ring[:len(ring):len(ring)], items...)
}

// linExpectedVisits is every StealHalf a Steal of thief p with the random
// numbers rs must make if it finds nothing, pass after pass; a Steal that
// finds a task makes a prefix of them. It follows the runtime's definition
// (randomOrder), recomputed here: start r % n, stride the (r/n % count)-th
// number in 1..n coprime with n.
func linExpectedVisits(n, p int, idle []bool, rs []uint32) []stealCall {
	strides := refCoprimes(n)
	var out []stealCall
	for try, r := range rs {
		start, stride := int(r%uint32(n)), int(strides[r/uint32(n)%uint32(len(strides))])
		for k := range n {
			if v := (start + k*stride) % n; v != p && !idle[v] {
				out = append(out, stealCall{victim: v, thief: p, stealNext: try == stealing.StealTries-1})
			}
		}
	}
	return out
}

// linStep returns the sequential spec over n Ps, of which idle are idle.
func linStep(n int, idle []bool) func(state, input, output any) (bool, any) {
	return func(state, input, output any) (bool, any) {
		s, in, out := state.(linState), input.(linInput), output.(linOutput)
		p := in.p
		s = linPublish(s, p) // p's own earlier StealHalf has published, if it had not
		switch in.kind {
		case linPut:
			return true, linWith(s, p, linAppend(s.rings[p], in.item))
		case linPutNext:
			if old := s.next[p]; old != linNone {
				s = linWith(s, p, linAppend(s.rings[p], old))
			}
			return true, linWithNext(s, p, in.item)
		case linGet:
			switch {
			case s.next[p] != linNone:
				return out.item == s.next[p] && out.inherit, linWithNext(s, p, linNone)
			case len(s.rings[p]) > 0:
				return out.item == s.rings[p][0] && !out.inherit, linWith(s, p, s.rings[p][1:])
			}
			return out.item == linNone, s
		case linStealHalf:
			v, q := in.victim, s.rings[in.victim]
			// The returned task is the newest taken, and the take is at most
			// half the ring, rounded up: of the ring without v's pending
			// tasks, or else with them, published.
			k := slices.Index(q, out.item) + 1
			if (k < 1 || k > len(q)-len(q)/2) && len(s.pend[v]) > 0 && out.item != linNone {
				s = linPublish(s, v)
				q = s.rings[v]
				k = slices.Index(q, out.item) + 1
			}
			if len(q) > 0 {
				if k < 1 || k > len(q)-len(q)/2 {
					return false, s
				}
				s = linWith(s, v, q[k:])
				return true, linWithPend(s, p, q[:k-1])
			}
			if in.stealNext && s.next[v] != linNone {
				return out.item == s.next[v], linWithNext(s, v, linNone)
			}
			return out.item == linNone, s
		case linStealDone:
			all := linExpectedVisits(n, p, idle, in.rs)
			if out.item == linNone {
				return len(in.rs) == stealing.StealTries && slices.Equal(in.visits, all), s
			}
			// Found: a prefix of the visits, ending in the pass the last
			// random number began, and at the first task found (the
			// StealHalf ops say which call found it).
			return len(in.visits) > 0 && len(in.visits) <= len(all) &&
				slices.Equal(in.visits, all[:len(in.visits)]) &&
				len(linExpectedVisits(n, p, idle, in.rs[:len(in.rs)-1])) < len(in.visits), s
		}
		panic(fmt.Sprintf("linStep: unknown operation %d", in.kind))
	}
}

// linModel is the porcupine model of n empty Ps, of which idle are idle.
func linModel(n int, idle []bool) porcupine.Model {
	return porcupine.Model{
		Init: func() any {
			next := make([]int, n)
			for i := range next {
				next[i] = linNone
			}
			return linState{rings: make([][]int, n), next: next, pend: make([][]int, n)}
		},
		Step: linStep(n, idle),
		Equal: func(a, b any) bool {
			x, y := a.(linState), b.(linState)
			return slices.Equal(x.next, y.next) && slices.EqualFunc(x.rings, y.rings, slices.Equal) &&
				slices.EqualFunc(x.pend, y.pend, slices.Equal)
		},
		Hash: func(state any) uint64 {
			s := state.(linState)
			h := fnv.New64a()
			var b []byte
			for i, r := range s.rings {
				b = binary.LittleEndian.AppendUint64(b, uint64(s.next[i])<<32|uint64(len(r))<<16|uint64(len(s.pend[i])))
				for _, v := range r {
					b = binary.LittleEndian.AppendUint64(b, uint64(v))
				}
				for _, v := range s.pend[i] {
					b = binary.LittleEndian.AppendUint64(b, uint64(v))
				}
			}
			h.Write(b)
			return h.Sum64()
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(linInput), output.(linOutput)
			switch in.kind {
			case linPut, linPutNext:
				return fmt.Sprintf("P%d %s(%d)", in.p, linKindNames[in.kind], in.item)
			case linGet:
				return fmt.Sprintf("P%d Get() -> %d, inheritTime %v", in.p, out.item, out.inherit)
			case linStealHalf:
				return fmt.Sprintf("P%d StealHalf(from P%d, stealNext=%v) -> %d", in.p, in.victim, in.stealNext, out.item)
			}
			return fmt.Sprintf("P%d Steal(r=%v) visited %v -> %d", in.p, in.rs, in.visits, out.item)
		},
		DescribeState: func(state any) string {
			s := state.(linState)
			var b strings.Builder
			for i, r := range s.rings {
				fmt.Fprintf(&b, "P%d: ring %v next %d pending %v; ", i, r, s.next[i], s.pend[i])
			}
			return b.String()
		},
	}
}

// linQ is a P's queue in a history: the real queue, its owner's worker and
// its owner's log of StealHalf calls as a thief. Only the owner steals into
// its queue, so only the owner touches w and visits; the owner's thread
// sets w before its first operation.
type linQ struct {
	q      *runnext.Queue[int]
	id     int
	w      *linearize.Worker[linInput, linOutput]
	visits []stealCall
}

// StealHalf makes linQ a stealing.Queue: it records the call on the
// thief's (dst's) worker.
func (w *linQ) StealHalf(dst *linQ, stealNext bool) *int {
	dst.visits = append(dst.visits, stealCall{victim: w.id, thief: dst.id, stealNext: stealNext})
	dst.w.Begin(linInput{kind: linStealHalf, p: dst.id, victim: w.id, stealNext: stealNext})
	t := w.q.StealHalf(dst.q, stealNext)
	dst.w.End(linOutput{item: linID(t)})
	return t
}

func linID(p *int) int {
	if p == nil {
		return linNone
	}
	return *p
}

// linStealer is the stealer under test: the real one or a broken one.
type linStealer interface {
	Steal(self int, rand func() uint32) *int
}

type linNewStealer func(qs []*linQ, idle *stealing.IdleMask) (linStealer, error)

func linNewReal(qs []*linQ, idle *stealing.IdleMask) (linStealer, error) {
	return stealing.New(qs, idle)
}

func linNewHand(k knobs) linNewStealer {
	return func(qs []*linQ, idle *stealing.IdleMask) (linStealer, error) { return newHandStealer(k, qs, idle) }
}

// linConfig describes a series of recorded histories.
type linConfig struct {
	histories int
	ops       int // operations of each P's goroutine per history, Steals counted once
	procs     int
	seed      uint64
	newS      linNewStealer
	timeout   time.Duration // porcupine's wall-clock safety net per history: past it, inconclusive
}

// linStats adds up what the histories exercised.
type linStats struct {
	mu                                      sync.Mutex // the Ps' threads add their Steal counts
	steals, found, lastPass, halves, idlePs int
	emptyHalves, stolen                     int
}

// linStress is the series cfg describes; st counts what its histories do.
//
// A quarter of the time one P is idle for the whole history: it has no
// thread and its queue stays empty. Each other P's thread puts tasks
// (PutNext as a spawn, or Put) while its queue is short, Gets, and when a
// Get finds nothing, Steals; now and then it Steals anyway while its ring
// holds little. The threads start together and spread their operations
// with yields, so that Steals overlap the owners' operations.
func linStress(name string, cfg linConfig, st *linStats) *linearize.Stress[linInput, linOutput] {
	return &linearize.Stress[linInput, linOutput]{
		Name:    name,
		Seed:    cfg.seed,
		Timeout: cfg.timeout,
		Setup: func(h int, rng *rand.Rand) linearize.History[linInput, linOutput] {
			n := cfg.procs
			idleList := make([]bool, n)
			idle, err := stealing.NewIdleMask(n)
			if err != nil {
				panic(err)
			}
			if rng.IntN(4) == 0 {
				p := rng.IntN(n)
				idleList[p] = true
				idle.Set(p)
				st.idlePs++
			}
			qs := make([]*linQ, n)
			for i := range qs {
				q := new(runnext.Queue[int])
				q.SetStealDelay(0)
				qs[i] = &linQ{q: q, id: i}
			}
			s, err := cfg.newS(qs, idle)
			if err != nil {
				panic(err)
			}
			ids := make([]int, n*cfg.ops)
			for i := range ids {
				ids[i] = i
			}
			threads := make([]func(*linearize.Worker[linInput, linOutput]), n)
			for p := range threads {
				if !idleList[p] {
					threads[p] = linP(qs[p], s, ids[p*cfg.ops:(p+1)*cfg.ops], cfg.ops, n, st)
				}
			}
			return linearize.History[linInput, linOutput]{Model: linModel(n, idleList), Threads: threads}
		},
		Tally: func(ops []linearize.Op[linInput, linOutput]) {
			for _, op := range ops {
				if op.Input.kind != linStealHalf {
					continue
				}
				st.halves++
				if op.Output.item == linNone {
					st.emptyHalves++
				} else {
					st.stolen++
				}
			}
		},
	}
}

// linP is P q.id's thread: ops operations, making the tasks ids in order,
// stealing through s. Its Steal counts go to st.
func linP(q *linQ, s linStealer, ids []int, ops, n int, st *linStats) func(*linearize.Worker[linInput, linOutput]) {
	return func(w *linearize.Worker[linInput, linOutput]) {
		q.w = w
		p, rng, next := q.id, w.Rand, 0
		// Some Ps make more than others, so that the others run dry.
		makes := 1 + p%2
		lastEmpty := false
		var steals, found, last int
		for range w.Ops(ops) {
			w.Yield(4)
			steal := lastEmpty || rng.IntN(10) == 0
			switch r := rng.IntN(4); {
			case !steal && r < makes && q.q.Len() < 32:
				t := &ids[next]
				next++
				if rng.IntN(3) == 0 {
					w.Begin(linInput{kind: linPut, p: p, item: *t})
					q.q.Put(t, nil)
				} else {
					w.Begin(linInput{kind: linPutNext, p: p, item: *t})
					q.q.PutNext(t, nil)
				}
				w.End(linOutput{item: linNone})
				lastEmpty = false
			case !steal:
				w.Begin(linInput{kind: linGet, p: p})
				t, inherit := q.q.Get()
				w.End(linOutput{item: linID(t), inherit: inherit})
				lastEmpty = t == nil
			default:
				var rs []uint32
				from := len(q.visits)
				t := s.Steal(p, func() uint32 {
					r := rng.Uint32()
					if rng.IntN(2) == 0 {
						r %= uint32(4 * n * n) // small: every start and stride of a few Ps
					}
					rs = append(rs, r)
					return r
				})
				w.Begin(linInput{kind: linStealDone, p: p, rs: rs, visits: slices.Clone(q.visits[from:])})
				w.End(linOutput{item: linID(t)})
				q.visits = q.visits[:0]
				steals++
				if t != nil {
					found++
					if len(rs) == stealing.StealTries {
						last++
					}
				}
				lastEmpty = false
			}
		}
		st.mu.Lock()
		st.steals += steals
		st.found += found
		st.lastPass += last
		st.mu.Unlock()
	}
}

// runLinHistory records history h of cfg under name and checks it, for
// the kill matrix.
func runLinHistory(name string, cfg linConfig, h int, st *linStats) (linearize.Result, error) {
	return linStress(name, cfg, st).Run(name, h)
}

func linDefaultConfig() linConfig {
	cfg := linConfig{histories: 1000, ops: 40, procs: 4, seed: rand.Uint64(), newS: linNewReal, timeout: 30 * time.Second}
	if testing.Short() {
		cfg.histories = 150
	}
	return cfg
}

// TestLinearizable checks many short histories of 4 Ps stealing from each
// other: every one must be linearizable with respect to linStep. A check
// that spends its step budget is neither a pass nor a fail: the history is
// recorded again smaller (linearize.Stress.Run).
func TestLinearizable(t *testing.T) {
	cfg := linDefaultConfig()
	var st linStats
	sum := linStress(t.Name(), cfg, &st).CheckAll(t, cfg.histories)
	t.Logf("coverage: %d Steals (%d found a task, %d on the last pass), %d StealHalf calls (%d took a task, %d nothing); %d histories with an idle P",
		st.steals, st.found, st.lastPass, st.halves, st.stolen, st.emptyHalves, st.idlePs)
	require.Positive(t, st.found, "no Steal found a task")
	require.Positive(t, st.steals-st.found, "every Steal found a task")
	require.Positive(t, st.idlePs, "no history had an idle P")
	t.Logf("stealing linearizability: %d histories, %d operations, all linearizable", sum.Histories, sum.Operations)
}

// TestLinearizeCatchesBrokenStealers proves the check can fail: the same
// harness, run with broken stealers, must produce an Illegal history and
// its visualization.
func TestLinearizeCatchesBrokenStealers(t *testing.T) {
	cases := []struct {
		name string
		k    knobs
	}{
		{"visits the Ps in index order", knobs{indexOrder: true}},
		{"runnext on every pass", knobs{nextEveryPass: true}},
		{"skips the busy Ps", knobs{invertIdle: true}},
		{"a stride not coprime with the P count", knobs{anyStride: true}},
		{"loses the task it stole", knobs{dropsStolen: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := linDefaultConfig()
			cfg.newS = linNewHand(tc.k)
			linStress(t.Name(), cfg, new(linStats)).Catches(t, linearize.Catch{Within: 50})
		})
	}
}
