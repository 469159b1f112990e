package stealing_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/runnext"
	"github.com/schedkit/schedkit/stealing"
)

// Bar item 5: the real Stealer over real runnext queues under every
// interleaving of small scenarios: an owner working on P 0's queue and two
// thieves, P 1 and P 2, each running one Steal. Every scheduling point is an
// operation of atomicx (the idle mask, the queues' slots, rings and
// counters, the steal delay's clock), so these run only with -tags
// schedcheck; without it explore.Check skips them.
//
// After each execution three oracles judge it:
//
//   - conservation: every task made came out exactly once (the owner's
//     Gets, what a Steal returned, what the queues hold at the end);
//   - the shape of each thief's passes, from the log its queue's wrapper
//     keeps: no P twice in a pass, never the thief's own, stealNext on the
//     last pass only, and a Steal that found nothing tried every P that was
//     not idle on its last pass (no P goes idle or busy in a scenario);
//   - at most half plus runnext: what a thief's Steal took (the task it
//     returned, what it left in its own ring, and what the other thief
//     then took from that ring) is at most half, rounded up, of the most
//     its victim's ring ever held, or, on the last pass only, one runnext
//     task;
//   - nil only when empty, where P 0's owner only takes (so P 0 only loses
//     work): a Steal that returned nil must find P 0 empty right after (a
//     P 0 holding work then held it throughout the Steal, and its last pass
//     looked at P 0 with stealNext). The other thieves' rings are left out:
//     the rest of a half is in flight in no ring for a while (doc.go).
//
// TestExploreThievesStealFromEachOther and TestExploreIdleMask add two
// shapes of their own: two thieves that are each other's victim at once,
// and concurrent Set and Clear of different bits of one mask word.

// xQ is a P's queue in a scenario: the real queue and its thief's log.
type xQ struct {
	q      *runnext.Queue[int]
	id     int
	visits []stealCall // StealHalf calls its owner made as a thief
	// roundsDown breaks the queue for TestBrokenStealersFailExploration: a
	// steal from a queue of one task finds nothing, as a grab that rounds
	// the half down would.
	roundsDown bool
}

// StealHalf makes xQ a stealing.Queue; the log is the thief's own memory.
func (w *xQ) StealHalf(dst *xQ, stealNext bool) *int {
	dst.visits = append(dst.visits, stealCall{victim: w.id, thief: dst.id, stealNext: stealNext})
	if w.roundsDown && w.q.Len() == 1 {
		return nil
	}
	return w.q.StealHalf(dst.q, stealNext)
}

// xop is an owner operation on P 0's queue.
type xop uint8

const (
	xGet     xop = iota // Get
	xPut                // Put a new task
	xPutNext            // PutNext a new task (spawn)
)

// xScenario is 3 Ps: P 0 holds ring tasks in its ring and, if next, a
// runnext task, and its owner runs owner; P 1 and P 2, empty, each run one
// Steal with the random numbers rs[k-1], unless idle lists them (an idle P
// runs nothing and is skipped by the thieves).
type xScenario struct {
	name  string
	ring  int
	next  bool
	delay time.Duration // the queues' steal delay: 0 none, -1 the default
	owner []xop
	rs    [2][]uint32
	idle  []int
	opts  explore.Options
	newS  xNewStealer // nil: the real Stealer
	// roundsDown breaks P 0's queue (see xQ).
	roundsDown bool
}

// onlyTakes reports whether P 0's owner only takes in s, so that P 0 only
// ever loses work and the nil-only-when-empty oracle applies.
func (s xScenario) onlyTakes() bool {
	for _, op := range s.owner {
		if op != xGet {
			return false
		}
	}
	return true
}

// xStealer is the stealer a scenario runs: the real one or a broken one.
type xStealer interface {
	Steal(self int, rand func() uint32) *int
}

type xNewStealer func(qs []*xQ, idle *stealing.IdleMask) (xStealer, error)

// The random numbers: with 3 Ps, r % 3 is the start and r/3 % 2 picks the
// stride (1 or 2). Each thief's numbers differ, so that the two visit the
// Ps in different orders.
var (
	rsUp   = []uint32{1, 2, 0, 1}  // stride 1: P 1, then 2, then 0, ...
	rsDown = []uint32{5, 3, 4, 5}  // stride 2 from P 2, stride 1 from P 0, ...
	rsLast = []uint32{0, 7, 2, 3}  // every start in turn, stride 1
	rsTail = []uint32{3, 4, 5, 0}  // stride 2, then 1
	rsAll  = []uint32{2, 3, 4, 11} // a bit of everything
)

// reduced explores every interleaving, with sleep-set reduction: cheaper
// than bound 2 where the threads mostly load (a thief's empty passes), and
// the only exhaustive choice where a thief sleeps on the clock.
var reduced = explore.Options{Bound: explore.Unbounded, Reduce: true}

// xScenarios are the scenarios: two thieves and an owner over 3 Ps.
// Each is explored completely, within preemption bound 2 or (reduced)
// without a bound, whichever is smaller.
var xScenarios = []xScenario{
	// Both thieves split P 0's ring while its owner takes and puts.
	{name: "two-thieves-split-the-ring", ring: 3, owner: []xop{xGet, xPut}, rs: [2][]uint32{rsUp, rsDown}},
	// P 0 has only a runnext task: the thieves find nothing on three
	// passes and go for it on the last one, while the owner takes it
	// (no steal delay: the race is as tight as it gets).
	{name: "last-pass-runnext-vs-owner", next: true, owner: []xop{xGet}, rs: [2][]uint32{rsLast, rsTail}, opts: reduced},
	// With the default steal delay on the virtual clock: one thief takes
	// the ring's task, the other reaches the runnext task on its last pass,
	// finds it fresh and waits, while the owner runs it.
	{name: "last-pass-runnext-waits-delay", ring: 1, next: true, delay: -1, owner: []xop{xGet}, rs: [2][]uint32{rsLast, rsAll}, opts: reduced},
	// One thief waits out the delay while the owner spawns: the task it
	// waited for goes to the ring, a fresh one takes the slot.
	// Bound 3 in long mode.
	{name: "delay-vs-spawn", next: true, delay: -1, owner: []xop{xPutNext, xGet}, rs: [2][]uint32{rsLast, nil},
		opts: explore.Options{LongBound: explore.LongBound}},
	// The owner spawns: a runnext task goes to the ring while both thieves
	// look at the ring and then the slot.
	{name: "spawn-vs-two-thieves", ring: 1, next: true, owner: []xop{xPutNext, xGet}, rs: [2][]uint32{rsAll, rsUp}},
	// P 2 is idle: the one thief skips it on every pass. Bound 3 in long
	// mode.
	{name: "idle-P-skipped", ring: 2, owner: []xop{xGet, xGet}, rs: [2][]uint32{rsDown, nil}, idle: []int{2},
		opts: explore.Options{LongBound: explore.LongBound}},
}

// xDelay is the queues' steal delay for a scenario.
func (s xScenario) xDelay() time.Duration {
	if s.delay < 0 {
		return runnext.StealDelay
	}
	return s.delay
}

// xRun builds one execution of s.
func (s xScenario) xRun() explore.Run {
	const nP = 3
	qs := make([]*xQ, nP)
	for i := range qs {
		q := new(runnext.Queue[int])
		if d := s.xDelay(); d == 0 {
			q.SetStealDelay(0)
		} else {
			q.SetStealDelay(d)
		}
		explore.Name(q, fmt.Sprintf("P%d", i))
		qs[i] = &xQ{q: q, id: i}
	}
	qs[0].roundsDown = s.roundsDown
	idle, err := stealing.NewIdleMask(nP)
	if err != nil {
		panic(err)
	}
	explore.Name(idle, "idle")
	for _, p := range s.idle {
		idle.Set(p)
	}
	var st xStealer
	if s.newS != nil {
		st, err = s.newS(qs, idle)
	} else {
		st, err = stealing.New(qs, idle)
	}
	if err != nil {
		panic(err)
	}
	made := 0
	newTask := func() *int {
		p := new(int)
		*p = made
		explore.Name(p, fmt.Sprintf("task%d", made))
		made++
		return p
	}
	var runnextIDs []int // tasks that were ever a runnext task
	for range s.ring {
		qs[0].q.Put(newTask(), nil)
	}
	if s.next {
		p := newTask()
		runnextIDs = append(runnextIDs, *p)
		qs[0].q.PutNext(p, nil)
	}
	// The owner's new tasks are made here, so that its thread touches no
	// shared state to make them; they are made whether it puts them or not.
	owned := make([]*int, 0, len(s.owner))
	for _, op := range s.owner {
		if op != xGet {
			p := newTask()
			if op == xPutNext {
				runnextIDs = append(runnextIDs, *p)
			}
			owned = append(owned, p)
		}
	}
	maxRing0 := s.ring + len(owned) // P 0's ring never held more: every new task, and a displaced one, is one more
	total := made

	var ownerGot []int
	got := make([]*int, nP)     // what each thief's Steal returned
	passes := make([][]int, nP) // for each thief, where each pass begins in its log
	p0Empty := make([]bool, nP) // whether P 0 was empty right after thief k's Steal returned nil
	threads := []func(){func() {
		for _, op := range s.owner {
			switch op {
			case xGet:
				if t, _ := qs[0].q.Get(); t != nil {
					ownerGot = append(ownerGot, *t)
				}
			case xPut:
				qs[0].q.Put(owned[0], nil)
				owned = owned[1:]
			case xPutNext:
				qs[0].q.PutNext(owned[0], nil)
				owned = owned[1:]
			}
		}
	}}
	for k := 1; k < nP; k++ {
		rs := s.rs[k-1]
		if rs == nil {
			continue
		}
		threads = append(threads, func() {
			n := 0
			got[k] = st.Steal(k, func() uint32 {
				passes[k] = append(passes[k], len(qs[k].visits))
				n++
				return rs[n-1]
			})
			if got[k] == nil {
				p0Empty[k] = qs[0].q.Empty()
			}
		})
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			// Conservation.
			out := slices.Clone(ownerGot)
			for k := range nP {
				if got[k] != nil {
					out = append(out, *got[k])
				}
			}
			left := make([][]int, nP)
			for i, w := range qs {
				left[i] = itemIDs(w.q.Drain(nil))
				out = append(out, left[i]...)
			}
			slices.Sort(out)
			if want := seqInts(total); !slices.Equal(out, want) {
				return fmt.Errorf("conservation: tasks out %v, want each of 0..%d once", out, total-1)
			}
			// The shape of the passes.
			for k := 1; k < nP; k++ {
				if s.rs[k-1] == nil {
					continue
				}
				if err := xCheckPasses(qs[k].visits, passes[k], k, got[k] != nil, s.idle); err != nil {
					return err
				}
			}
			// Nil only when empty.
			for k := 1; k < nP; k++ {
				if s.rs[k-1] != nil && got[k] == nil && s.onlyTakes() && !p0Empty[k] {
					return fmt.Errorf("thief %d's Steal returned nil, but P 0, which only lost work, still held some after it: it held it throughout (visits %v)",
						k, qs[k].visits)
				}
			}
			// At most half plus runnext: haul[k] is what thief k's Steal
			// took from its victim.
			haul := make([]int, nP)
			victim := make([]int, nP)
			for k := 1; k < nP; k++ {
				if got[k] != nil {
					victim[k] = qs[k].visits[len(qs[k].visits)-1].victim
					haul[k] = 1 + len(left[k])
				}
			}
			for k := 1; k < nP; k++ { // add what the other thief took from k's ring
				if j := 3 - k; got[j] != nil && victim[j] == k {
					haul[k] += haul[j]
				}
			}
			for k := 1; k < nP; k++ {
				if got[k] == nil {
					continue
				}
				v := victim[k]
				call := qs[k].visits[len(qs[k].visits)-1]
				maxRing := maxRing0
				if v != 0 {
					maxRing = (maxRing0+1)/2 - 1 // a thief's ring holds what its steal left there
				}
				if haul[k] <= (maxRing+1)/2 && maxRing > 0 {
					continue
				}
				if haul[k] == 1 && call.stealNext && slices.Contains(runnextIDs, *got[k]) {
					continue // the runnext task, on the last pass
				}
				return fmt.Errorf("thief %d took %d tasks from P %d, whose ring held at most %d, in %v (returned task %d)",
					k, haul[k], v, maxRing, call, *got[k])
			}
			return nil
		},
	}
}

// xCheckPasses checks the log of thief k's one Steal: visits, and starts[i]
// where pass i begins in it; found tells whether the Steal returned a task.
func xCheckPasses(visits []stealCall, starts []int, k int, found bool, idle []int) error {
	if len(starts) > stealing.StealTries {
		return fmt.Errorf("thief %d made %d passes", k, len(starts))
	}
	for i, from := range starts {
		to := len(visits)
		if i+1 < len(starts) {
			to = starts[i+1]
		}
		pass := visits[from:to]
		var seen []int
		for _, c := range pass {
			switch {
			case c.victim == k:
				return fmt.Errorf("thief %d's pass %d stole from itself: %v", k, i+1, pass)
			case slices.Contains(idle, c.victim):
				return fmt.Errorf("thief %d's pass %d tried P %d, which is idle: %v", k, i+1, c.victim, pass)
			case slices.Contains(seen, c.victim):
				return fmt.Errorf("thief %d's pass %d visited P %d twice: %v", k, i+1, c.victim, pass)
			case c.stealNext != (i == stealing.StealTries-1):
				return fmt.Errorf("thief %d's pass %d of %d has stealNext %v: %v", k, i+1, stealing.StealTries, c.stealNext, pass)
			}
			seen = append(seen, c.victim)
		}
		if complete := i+1 < len(starts) || !found; complete {
			for v := range 3 {
				if v != k && !slices.Contains(idle, v) && !slices.Contains(seen, v) {
					return fmt.Errorf("thief %d's pass %d found nothing without trying P %d, which is not idle: %v", k, i+1, v, pass)
				}
			}
		}
	}
	if !found && len(starts) != stealing.StealTries {
		return fmt.Errorf("thief %d gave up after %d passes", k, len(starts))
	}
	return nil
}

func seqInts(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// exploreStealing runs every scenario, the two shapes of their own
// included, and returns the first failure, for the kill matrix; t only
// receives logs.
func exploreStealing(t testing.TB) error {
	type named struct {
		name  string
		opts  explore.Options
		build func() explore.Run
	}
	all := []named{
		{"mutual-thieves", explore.Options{}, xMutualRun},
		{"idle-mask", explore.Options{}, xIdleMaskRun},
	}
	for _, s := range xScenarios {
		all = append(all, named{s.name, s.opts, s.xRun})
	}
	for _, s := range all {
		opts := s.opts
		opts.Name = "stealing-" + s.name
		opts.MaxExecutions = 200000
		res, err := explore.Explore(opts, s.build)
		if err != nil {
			return err
		}
		if res.Failure != nil {
			return errors.New(res.Failure.String())
		}
		t.Log(res.Summary())
	}
	return nil
}

// xMutualRun: P 1 and P 2 each hold three tasks in their rings and steal
// at once, each starting its pass at the other: each thief is the other's
// victim while it steals (P 0 is empty and does nothing). A thief's ring
// only grows by the rest of its own half, so neither ring ever empties:
// both Steals must find a task at their first victim. Beyond that, every
// task comes out once, the passes have their shape, and each thief took
// at most half, rounded up, of its victim's ring at its largest (its three
// and the one task of rest it could have published: two).
func xMutualRun() explore.Run {
	const nP, each = 3, 3
	qs := make([]*xQ, nP)
	for i := range qs {
		q := new(runnext.Queue[int])
		q.SetStealDelay(0)
		explore.Name(q, fmt.Sprintf("P%d", i))
		qs[i] = &xQ{q: q, id: i}
	}
	st, err := stealing.New(qs, nil)
	if err != nil {
		panic(err)
	}
	origin := map[int]int{} // task -> the P whose ring it began in
	for k := 1; k < nP; k++ {
		for range each {
			p := new(int)
			*p = len(origin)
			explore.Name(p, fmt.Sprintf("task%d", *p))
			origin[*p] = k
			qs[k].q.Put(p, nil)
		}
	}
	// r % 3 is the start, r/3 % 2 = 0 the stride 1: P 1 goes to P 2 first,
	// P 2 to P 1.
	rs := [nP][]uint32{1: {2, 2, 2, 2}, 2: {1, 1, 1, 1}}
	got := make([]*int, nP)
	passes := make([][]int, nP)
	var threads []func()
	for k := 1; k < nP; k++ {
		threads = append(threads, func() {
			n := 0
			got[k] = st.Steal(k, func() uint32 {
				passes[k] = append(passes[k], len(qs[k].visits))
				n++
				return rs[k][n-1]
			})
		})
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			var out []int
			left := make([][]int, nP)
			for i, w := range qs {
				left[i] = itemIDs(w.q.Drain(nil))
				out = append(out, left[i]...)
			}
			for k := 1; k < nP; k++ {
				if got[k] == nil {
					return fmt.Errorf("thief %d's Steal returned nil, though P %d's ring never emptied (visits %v)", k, 3-k, qs[k].visits)
				}
				out = append(out, *got[k])
			}
			slices.Sort(out)
			if want := seqInts(len(origin)); !slices.Equal(out, want) {
				return fmt.Errorf("conservation: tasks out %v, want each of 0..%d once", out, len(origin)-1)
			}
			for k := 1; k < nP; k++ {
				if err := xCheckPasses(qs[k].visits, passes[k], k, true, nil); err != nil {
					return err
				}
				v := 3 - k
				if first := qs[k].visits[0].victim; first != v || len(qs[k].visits) != 1 {
					return fmt.Errorf("thief %d visited %v, want one steal from P %d", k, qs[k].visits, v)
				}
				if origin[*got[k]] != v {
					return fmt.Errorf("thief %d returned task %d, which began in P %d, not its victim P %d", k, *got[k], origin[*got[k]], v)
				}
				haul := 1
				for _, id := range left[k] {
					if origin[id] == v {
						haul++
					}
				}
				if most := (each + 1 + 1) / 2; haul > most {
					return fmt.Errorf("thief %d took %d tasks from P %d, whose ring held at most %d (its ring now %v)", k, haul, v, each+1, left[k])
				}
			}
			return nil
		},
	}
}

// xIdleMaskRun: three threads change bits of one mask word at once, and one
// bit of a second word, each reading back its own bits as it goes; at the
// end the mask must hold exactly the bits expected. A Set or Clear that
// rewrote the whole word without a CAS would lose another thread's change.
func xIdleMaskRun() explore.Run {
	m, err := stealing.NewIdleMask(40) // two words: P 0..31 and P 32..39
	if err != nil {
		panic(err)
	}
	explore.Name(m, "idle")
	m.Set(3)
	m.Set(4)
	m.Set(35)
	var errs [3]error
	read := func(k, p int, want bool) {
		if got := m.Read(p); got != want && errs[k] == nil {
			errs[k] = fmt.Errorf("thread %d read P %d idle = %v right after its own change, want %v", k, p, got, want)
		}
	}
	return explore.Run{
		Threads: []func(){
			func() { m.Set(1); read(0, 1, true); m.Clear(1); read(0, 1, false) },
			func() { m.Set(2); read(1, 2, true); m.Clear(35) },
			func() { m.Clear(3); read(2, 3, false); m.Set(33) },
		},
		Check: func() error {
			if err := errors.Join(errs[:]...); err != nil {
				return err
			}
			var got []int
			for p := range m.Len() {
				if m.Read(p) {
					got = append(got, p)
				}
			}
			if want := []int{2, 4, 33}; !slices.Equal(got, want) {
				return fmt.Errorf("idle Ps at the end: %v, want %v", got, want)
			}
			return nil
		},
	}
}

func TestExploreThievesStealFromEachOther(t *testing.T) {
	res := explore.Check(t, explore.Options{MaxExecutions: 200000, LongBound: explore.LongBound}, xMutualRun)
	if !res.Complete && !res.Replayed {
		t.Errorf("exploration cut short at %d executions", res.Executions)
	}
}

func TestExploreIdleMask(t *testing.T) {
	res := explore.Check(t, explore.Options{MaxExecutions: 200000, LongBound: explore.LongBound}, xIdleMaskRun)
	if !res.Complete && !res.Replayed {
		t.Errorf("exploration cut short at %d executions", res.Executions)
	}
}

func TestExploreStealing(t *testing.T) {
	for _, s := range xScenarios {
		t.Run(s.name, func(t *testing.T) {
			opts := s.opts
			opts.MaxExecutions = 200000
			opts.Name = "stealing-" + s.name
			res := explore.Check(t, opts, s.xRun)
			if !res.Complete && !res.Replayed {
				t.Errorf("exploration of %s was cut short at %d executions", s.name, res.Executions)
			}
		})
	}
}

// TestBrokenStealersFailExploration proves the explorer's oracles can fail:
// the scenarios, run with broken stealers, must each fail an execution.
// (Which random order a pass follows is not the explorer's business: the
// model, the fuzz target and the linearizability spec check it.)
func TestBrokenStealersFailExploration(t *testing.T) {
	hand := func(k knobs) xNewStealer {
		return func(qs []*xQ, idle *stealing.IdleMask) (xStealer, error) { return newHandStealer(k, qs, idle) }
	}
	cases := []struct {
		name string
		k    knobs
		want string // the failure must say this ("" for anything)
	}{
		{"a stride not coprime with the P count", knobs{anyStride: true}, ""},
		{"runnext on every pass", knobs{nextEveryPass: true}, ""},
		{"steals from itself", knobs{noSelfSkip: true}, ""},
		{"skips the busy Ps", knobs{invertIdle: true}, ""},
		{"loses the task it stole", knobs{dropsStolen: true}, ""},
		// Only the nil-only-when-empty oracle sees this one: every pass
		// is whole, nothing is lost.
		{"a victim whose steal rounds the half down", knobs{}, "returned nil, but P 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, s := range xScenarios {
				s.newS = hand(c.k)
				s.roundsDown = c.k == knobs{} // the stealer is right, the queue is not
				opts := s.opts
				opts.Name = "stealing-broken-" + s.name
				opts.MaxExecutions = 200000
				res, err := explore.Explore(opts, s.xRun)
				if errors.Is(err, explore.ErrNoSchedcheck) {
					t.Skip(err)
				}
				if err != nil {
					t.Fatal(err)
				}
				if res.Failure != nil {
					first, _, _ := strings.Cut(res.Failure.String(), "\n")
					if !strings.Contains(first, c.want) {
						t.Fatalf("caught by %s, but not for the expected reason %q: %s", s.name, c.want, first)
					}
					t.Logf("caught by %s after %d executions: %s", s.name, res.Executions, first)
					return
				}
			}
			t.Fatal("every scenario passed with a broken stealer")
		})
	}
}
