package stealing_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/exactlyonce"
	"github.com/schedkit/schedkit/internal/watchdog"
	"github.com/schedkit/schedkit/runnext"
	"github.com/schedkit/schedkit/stealing"
)

// Bar item 4: G goroutines, each the owner of one P's real runnext.Queue,
// make tasks (PutNext, as a task spawning, and Put), run them from their own
// queue, and when it is empty steal through the stealer's passes; a P with
// nothing to steal goes idle for a moment in the shared IdleMask. Every
// task must be consumed exactly once. Besides the counts, the harness
// checks the shape of every pass, from a log that the queues' wrapper keeps
// for each thief: no victim twice, never the thief itself, stealNext only on
// the last pass, and a complete pass (one that found nothing) visited every
// P that was busy throughout it.

// stressQ is a P's queue as the stealer sees it: the real runnext.Queue and
// a log of the StealHalf calls its owner made as a thief. Only the owner
// steals into its queue, so only the owner appends to its log.
type stressQ struct {
	q      *runnext.Queue[int]
	id     int
	visits []stealCall
}

// StealHalf makes stressQ a stealing.Queue: it logs the call in the
// thief's (dst's) log, then steals.
func (w *stressQ) StealHalf(dst *stressQ, stealNext bool) *int {
	dst.visits = append(dst.visits, stealCall{victim: w.id, thief: dst.id, stealNext: stealNext})
	return w.q.StealHalf(dst.q, stealNext)
}

// stressStealer is the stealer under test: the real one or a broken one.
type stressStealer interface {
	Steal(self int, rand func() uint32) *int
}

type newStressStealer func(qs []*stressQ, idle *stealing.IdleMask) (stressStealer, error)

func newRealStressStealer(qs []*stressQ, idle *stealing.IdleMask) (stressStealer, error) {
	return stealing.New(qs, idle)
}

func newHandStressStealer(k knobs) newStressStealer {
	return func(qs []*stressQ, idle *stealing.IdleMask) (stressStealer, error) {
		return newHandStealer(k, qs, idle)
	}
}

// stressConfig describes one run of the harness.
type stressConfig struct {
	items    int // ids 0..items-1
	procs    int // goroutines, each owning a P
	seed     uint64
	delay    time.Duration              // the queues' steal delay
	newS     newStressStealer           // the stealer under test
	consume  func([]atomic.Int32, *int) // counts one consumption; nil: counts[*p]++
	deadline time.Duration              // the watchdog: a run still going after this is stopped (0: 2 minutes)
	noShape  bool                       // skip the pass-shape checks, to test the loss checks alone
}

// stressResult is what the harness observed.
type stressResult struct {
	counts                  []atomic.Int32
	steals, found, lastPass int64 // Steal calls; those that returned a task; of them, found on the last pass
	passes, idleSpells      int64
	consumedBy              []int64
	errs                    []error // the pass-shape checker's findings, the watchdog's and the quiescence check's
}

// stressP is one goroutine's harness state for its P.
type stressP struct {
	id      int
	rng     *rand.Rand
	pass    int      // passes begun in the current Steal
	inPass  bool     // a pass is under way
	startSq []uint64 // every P's idle sequence when the pass began
	from    int      // where the pass's visits start in the log
}

// runStress runs one harness and returns what it saw.
//
// P g makes the tasks of its share of the ids (P 0 three quarters of them
// in bursts of up to 64, the others the rest in equal parts in bursts of up
// to 8, so that the others run dry and steal): most as runnext tasks (PutNext, whose displaced task goes to
// the ring), some with Put. An overflow batch is consumed at once (it
// stands for the global queue). Between bursts the owner runs tasks from
// its queue. With its share made and its queue empty it steals; a Steal
// that found nothing sends the P idle (the mask bit set for a moment, while
// the goroutine yields), then it steals again, until every task has been
// consumed.
//
// Each P has an idle sequence, odd while it is idle: incremented before
// its bit is set and after it is cleared. A P whose sequence is even and
// the same at the start and the end of a pass was busy throughout.
//
// Loss does not hang the harness: when every goroutine is idle at once
// with every task made, nothing is in flight, so a count short of items
// means tasks were lost, and the run stops with that error. A run past
// cfg.deadline is told to stop and reported as an error (a guard, not a
// measurement); one that cannot stop even then (a goroutine stuck inside a
// Steal) is ended a minute later by internal/watchdog, which prints every
// goroutine's stack and how far the run got.
func runStress(cfg stressConfig) *stressResult {
	res := &stressResult{counts: make([]atomic.Int32, cfg.items), consumedBy: make([]int64, cfg.procs)}
	count := cfg.consume
	if count == nil {
		count = func(counts []atomic.Int32, p *int) { counts[*p].Add(1) }
	}
	ids := make([]int, cfg.items)
	for i := range ids {
		ids[i] = i
	}
	qs := make([]*stressQ, cfg.procs)
	for i := range qs {
		q := new(runnext.Queue[int])
		q.SetStealDelay(cfg.delay)
		qs[i] = &stressQ{q: q, id: i}
	}
	idle, err := stealing.NewIdleMask(cfg.procs)
	if err != nil {
		panic(err)
	}
	s, err := cfg.newS(qs, idle)
	if err != nil {
		panic(err)
	}
	idleSeq := make([]atomic.Uint64, cfg.procs)
	var consumed, doneMaking, idlers atomic.Int64
	var stop atomic.Bool
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		res.errs = append(res.errs, err)
		mu.Unlock()
		stop.Store(true)
	}
	var steals, found, lastPass, passes, spells atomic.Int64

	// share returns P g's ids.
	share := func(g int) (lo, hi int) {
		half := cfg.items * 3 / 4
		if g == 0 {
			return 0, half
		}
		per := (cfg.items - half) / (cfg.procs - 1)
		lo = half + (g-1)*per
		hi = lo + per
		if g == cfg.procs-1 {
			hi = cfg.items
		}
		return lo, hi
	}

	// endPass checks the pass P st.id just finished (complete: it found
	// nothing) against the log of its visits.
	endPass := func(st *stressP, complete bool) {
		if !st.inPass || cfg.noShape {
			st.inPass = false
			return
		}
		st.inPass = false
		w := qs[st.id]
		visits := w.visits[st.from:]
		last := st.pass == stealing.StealTries
		var seen []int
		for _, c := range visits {
			switch {
			case c.victim == st.id:
				fail(fmt.Errorf("P %d's pass %d stole from itself (%v)", st.id, st.pass, visits))
			case slices.Contains(seen, c.victim):
				fail(fmt.Errorf("P %d's pass %d visited P %d twice (%v)", st.id, st.pass, c.victim, visits))
			case c.stealNext != last:
				fail(fmt.Errorf("P %d's pass %d of %d had stealNext %v (%v)", st.id, st.pass, stealing.StealTries, c.stealNext, visits))
			}
			seen = append(seen, c.victim)
		}
		if !complete {
			return
		}
		for v := range cfg.procs {
			if v == st.id || slices.Contains(seen, v) {
				continue
			}
			if s0, s1 := st.startSq[v], idleSeq[v].Load(); s0 == s1 && s0%2 == 0 {
				fail(fmt.Errorf("P %d's pass %d found nothing without visiting P %d, busy throughout (%v)", st.id, st.pass, v, visits))
			}
		}
	}

	consume := func(g int, p *int) {
		count(res.counts, p)
		res.consumedBy[g]++
		consumed.Add(1)
	}

	var wg sync.WaitGroup
	for g := range cfg.procs {
		wg.Go(func() {
			st := &stressP{id: g, rng: rand.New(rand.NewPCG(cfg.seed, uint64(g))), startSq: make([]uint64, cfg.procs)}
			w := qs[g]
			lo, hi := share(g)
			next := lo
			var spill []*int
			// rnd begins a pass: it ends the previous one (which found
			// nothing, or Steal would not go on) and snapshots the idle
			// sequences.
			rnd := func() uint32 {
				endPass(st, true)
				st.pass++
				st.inPass = true
				st.from = len(w.visits)
				for v := range cfg.procs {
					st.startSq[v] = idleSeq[v].Load()
				}
				passes.Add(1)
				return st.rng.Uint32()
			}
			for !stop.Load() {
				if st.rng.IntN(64) == 0 {
					runtime.Gosched() // on few cores, let the other Ps run mid-stream
				}
				if next < hi && (st.rng.IntN(4) == 0 || w.q.Empty()) {
					burst := 8
					if g == 0 {
						burst = 64
					}
					for range min(1+st.rng.IntN(burst), hi-next) {
						p := &ids[next]
						next++
						if st.rng.IntN(4) == 0 {
							spill = w.q.Put(p, spill[:0])
						} else {
							spill = w.q.PutNext(p, spill[:0])
						}
						for _, t := range spill {
							consume(g, t) // the overflow went to "the global queue", which ran it
						}
					}
					if next == hi {
						doneMaking.Add(1)
					}
					continue
				}
				if t, _ := w.q.Get(); t != nil {
					consume(g, t)
					continue
				}
				if next < hi {
					continue
				}
				if consumed.Load() >= int64(cfg.items) {
					return
				}
				st.pass = 0
				t := s.Steal(g, rnd)
				endPass(st, t == nil)
				steals.Add(1)
				if t != nil {
					found.Add(1)
					if st.pass == stealing.StealTries {
						lastPass.Add(1)
					}
					consume(g, t)
					continue
				}
				if len(w.visits) > 1<<12 {
					w.visits = w.visits[:0] // the passes that used them are checked
				}
				// Nothing anywhere: go idle for a moment, as pidleput.
				spells.Add(1)
				idleSeq[g].Add(1)
				idle.Set(g)
				if idlers.Add(1) == int64(cfg.procs) && doneMaking.Load() == int64(cfg.procs) {
					// Every P is idle and every task made: none is in
					// flight, so the count is final.
					if n := consumed.Load(); n < int64(cfg.items) {
						fail(fmt.Errorf("every P idle with every task made, and only %d of %d consumed: tasks were lost", n, cfg.items))
					}
				}
				runtime.Gosched()
				idlers.Add(-1)
				idle.Clear(g)
				idleSeq[g].Add(1)
			}
		})
	}
	deadline := cfg.deadline
	if deadline == 0 {
		deadline = 2 * time.Minute
	}
	stopWatchdog := watchdog.Start(fmt.Sprintf("stealing stress (seed %d, %d items, %d Ps)", cfg.seed, cfg.items, cfg.procs),
		deadline+time.Minute, func() string {
			return fmt.Sprintf("%d of %d tasks consumed, %d of %d Ps done making, %d idle, stop %v",
				consumed.Load(), cfg.items, doneMaking.Load(), cfg.procs, idlers.Load(), stop.Load())
		})
	defer stopWatchdog()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(deadline):
		fail(fmt.Errorf("watchdog: the run was still going after %v with %d of %d consumed", deadline, consumed.Load(), cfg.items))
		<-done
	}
	res.steals, res.found, res.lastPass = steals.Load(), found.Load(), lastPass.Load()
	res.passes, res.idleSpells = passes.Load(), spells.Load()
	return res
}

// checkExactlyOnce reports every id not consumed exactly once (the first
// few of each kind and how many in all).
func checkExactlyOnce(counts []atomic.Int32) error { return exactlyonce.Check(counts) }

// check is the harness's verdict: the pass-shape findings, then the counts.
func (r *stressResult) check() error {
	return errors.Join(errors.Join(r.errs...), checkExactlyOnce(r.counts))
}

const stressProcs = 4

func stressItems() int {
	if testing.Short() {
		return 50_000
	}
	return 1_000_000
}

func TestStressExactlyOnce(t *testing.T) {
	n := stressItems()
	seed := rand.Uint64()
	res := runStress(stressConfig{items: n, procs: stressProcs, seed: seed, delay: runnext.StealDelay, newS: newRealStressStealer})
	if err := res.check(); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	t.Logf("stress paths: %d Steals, %d found a task (%d on the last pass), %d passes checked, %d idle spells; consumed by P: %v",
		res.steals, res.found, res.lastPass, res.passes, res.idleSpells, res.consumedBy)
	// How much is stolen depends on the machine's scheduling; the long
	// mode makes enough Steals that none finding a task means a bug.
	if res.found == 0 && !testing.Short() {
		t.Errorf("no Steal found a task (seed %d)", seed)
	}
	t.Logf("stealing stress: %d items consumed exactly once by %d goroutines", n, stressProcs)
}

// TestStressCheckerCatchesBrokenStealers proves the stress checks can fail:
// the same harness, run with a consumer that counts twice and with broken
// stealers, must return an error, and none may hang it.
func TestStressCheckerCatchesBrokenStealers(t *testing.T) {
	const n = 20_000
	cases := []struct {
		name    string
		newS    newStressStealer
		consume func([]atomic.Int32, *int)
		noShape bool
		want    []string // the error mentions one of these
	}{
		{"consumer counts some items twice", newRealStressStealer,
			func(counts []atomic.Int32, p *int) {
				counts[*p].Add(1)
				if *p%1000 == 999 {
					counts[*p].Add(1)
				}
			}, false, []string{"consumed more than once"}},
		// The pass checks would see the pass that lost its task stop early;
		// without them the loss itself must show, and must not hang.
		{"stealer loses what it stole", newHandStressStealer(knobs{dropsStolen: true}), nil, true, []string{"tasks were lost", "never consumed"}},
		{"stealer skips the busy Ps", newHandStressStealer(knobs{invertIdle: true}), nil, false, []string{"busy throughout"}},
		{"runnext on every pass", newHandStressStealer(knobs{nextEveryPass: true}), nil, false, []string{"stealNext"}},
		// A stride that shares a factor with 4 visits some P twice, or
		// (stride 4) only the thief's own P, missing the busy ones.
		{"stride not coprime", newHandStressStealer(knobs{anyStride: true}), nil, false, []string{"twice", "busy throughout"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for seed := range uint64(10) {
				res := runStress(stressConfig{items: n, procs: stressProcs, seed: seed, delay: 0, newS: c.newS, consume: c.consume,
					noShape: c.noShape, deadline: 20 * time.Second})
				err := res.check()
				if err == nil {
					continue // some broken stealers need the right interleaving; try another seed
				}
				if !slices.ContainsFunc(c.want, func(w string) bool { return strings.Contains(err.Error(), w) }) {
					t.Fatalf("seed %d: caught, but not for an expected reason %q: %v", seed, c.want, err)
				}
				first, _, _ := strings.Cut(err.Error(), "\n")
				t.Logf("caught with seed %d: %v", seed, first)
				return
			}
			t.Fatal("the harness accepted the broken variant in 10 runs")
		})
	}
}
