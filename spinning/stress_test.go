package spinning_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/exactlyonce"
	"github.com/schedkit/schedkit/internal/watchdog"
	"github.com/schedkit/schedkit/lfq"
	"github.com/schedkit/schedkit/spinning"
)

// Bar item 4: real goroutines as Ms over a few Ps, each P with an lfq ring,
// plus a global queue, driven through the spinning API exactly as an
// executor's schedule loop would (see doc.go). Submitters publish tasks to
// the global queue with Submit; tasks spawn children into their P's ring
// with Submit; in every fourth round one task blocks until its partner task
// has run, holding its P, so the M that runs it stays busy and the partner
// needs another M.
//
// The run goes in rounds. In each, the submitters submit a few tasks and
// finish; then the round must come to rest: every M parked on the idle
// list. CheckDead reports the instant the last M parks. At rest, nothing may
// be queued and every task submitted so far must have run exactly once; a
// task still queued when every M is parked (or blocked waiting for a
// partner that is queued) is a lost wakeup, since nothing will ever wake an
// M again. A round that does not come to rest within stressWatchdog (a
// livelock, or a hang) fails with a report instead of hanging the test.

const (
	stressProcs      = 4
	stressMs         = 6 // more Ms than Ps: the idle list and handoffs matter
	stressSubmitters = 2
	stressWatchdog   = 10 * time.Second
)

// Kinds of tasks.
const (
	kindPlain   = iota
	kindSpawner // puts 1 to 3 children into its P's ring (Submit)
	kindBlocker // waits until its partner (kindPartner) has run
	kindPartner
)

type stressTask struct {
	id   int
	kind uint8
	pair *pair
}

// pair links a blocker and its partner. state: 0 neither, 1 the blocker
// waits, 2 released (the partner ran, or the run was aborted).
type pair struct {
	state atomic.Int32
	ch    chan struct{}
}

// globalQueue is the executor's global run queue: a FIFO under a mutex,
// with its length readable without the lock for Config.Work.
type globalQueue struct {
	mu    sync.Mutex
	items []*stressTask
	n     atomic.Int64
}

func (q *globalQueue) push(ts ...*stressTask) {
	q.mu.Lock()
	q.items = append(q.items, ts...)
	q.n.Add(int64(len(ts)))
	q.mu.Unlock()
}

func (q *globalQueue) pop() *stressTask {
	if q.n.Load() == 0 {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return nil
	}
	t := q.items[0]
	q.items[0] = nil
	q.items = q.items[1:]
	q.n.Add(-1)
	return t
}

// stressImpl lets TestStressCheckerCatches break one part from the outside.
type stressImpl struct {
	submit    func(s *spinning.Sched, publish func()) // default: s.Submit
	blindWork bool                                    // Config.Work always says no work
	count     func(counts []atomic.Int32, id int)     // default: counts[id]++
}

type stressConfig struct {
	items int
	seed  uint64
	impl  stressImpl
}

// round is the state of one round, reachable from CheckDead.
type round struct {
	n         int
	submitted atomic.Bool
	signaled  atomic.Bool
	timedOut  atomic.Bool
	done      chan struct{}
}

func (r *round) signal() {
	if r.signaled.CompareAndSwap(false, true) {
		close(r.done)
	}
}

type stressHarness struct {
	cfg     stressConfig
	s       *spinning.Sched
	rings   [stressProcs]lfq.Ring[stressTask]
	global  globalQueue
	counts  []atomic.Int32
	next    atomic.Int64 // ids handed out
	ran     atomic.Int64
	blocked atomic.Int64
	cur     atomic.Pointer[round]
	aborted atomic.Bool

	pairsMu sync.Mutex
	pairs   []*pair

	// what the run exercised
	starts, reSpins, needAnswered, steals, spawned, pairsRun, rounds atomic.Int64
}

// stressResult is what runSpinStress observed.
type stressResult struct {
	items                                         int
	rounds, starts, reSpins, needAnswered, steals int64
	spawned, pairs                                int64
	counts                                        []atomic.Int32
}

func (h *stressHarness) queued() (global int64, rings [stressProcs]int, total int64) {
	global = h.global.n.Load()
	total = global
	for p := range h.rings {
		rings[p] = h.rings[p].Len()
		total += int64(rings[p])
	}
	return global, rings, total
}

// alloc hands out up to n fresh ids, fewer when the run's items run out.
func (h *stressHarness) alloc(n int) (first, got int) {
	for {
		cur := h.next.Load()
		left := int64(h.cfg.items) - cur
		if left <= 0 {
			return 0, 0
		}
		k := min(int64(n), left)
		if h.next.CompareAndSwap(cur, cur+k) {
			return int(cur), int(k)
		}
	}
}

func (h *stressHarness) release(pr *pair) {
	switch pr.state.Swap(2) {
	case 2:
		return
	case 1:
		h.blocked.Add(-1)
	}
	close(pr.ch)
}

// run runs task t on the M holding P p.
func (h *stressHarness) run(p int, t *stressTask, rng *rand.Rand, spill *[]*stressTask) {
	h.cfg.impl.count(h.counts, t.id)
	switch t.kind {
	case kindSpawner:
		first, n := h.alloc(1 + rng.IntN(3))
		for i := range n {
			child := &stressTask{id: first + i}
			h.spawned.Add(1)
			h.cfg.impl.submit(h.s, func() {
				*spill = h.rings[p].Put(child, (*spill)[:0])
				if len(*spill) > 0 {
					h.global.push(*spill...)
				}
			})
		}
	case kindBlocker:
		if t.pair.state.CompareAndSwap(0, 1) {
			h.blocked.Add(1)
			// If every other M parked before the count went up, CheckDead
			// has seen its last call: check for rest here too.
			h.checkDead(h.s.NMIdle(), stressMs)
			<-t.pair.ch // the partner, or an abort, releases it
		}
	case kindPartner:
		h.pairsRun.Add(1)
		h.release(t.pair)
	}
	h.ran.Add(1)
}

// steal tries every other P's ring once, in random order, into p's ring.
func (h *stressHarness) steal(p int, rng *rand.Rand) *stressTask {
	off := rng.IntN(stressProcs)
	for i := range stressProcs {
		v := (off + i) % stressProcs
		if v == p {
			continue
		}
		if t := h.rings[v].StealHalf(&h.rings[p]); t != nil {
			h.steals.Add(1)
			return t
		}
	}
	return nil
}

// mLoop is one M: the executor's schedule loop over the spinning API.
func (h *stressHarness) mLoop(m *spinning.M, seed uint64) {
	rng := rand.New(rand.NewPCG(h.cfg.seed, seed))
	spill := make([]*stressTask, 0, lfq.OverflowLen)
	if !m.StopM() {
		return
	}
	h.starts.Add(1)
	for {
		p := m.P()
		t := h.rings[p].Get()
		if t == nil {
			t = h.global.pop()
		}
		if t == nil && m.BecomeSpinning() {
			t = h.steal(p, rng)
		}
		if t != nil {
			if m.Spinning() {
				m.ResetSpinning()
			}
			h.run(p, t, rng, &spill)
			continue
		}
		if rng.IntN(8) == 0 {
			runtime.Gosched() // widen the window between the last look and the drop
		}
		if !m.ReleaseP() {
			h.needAnswered.Add(1)
			continue
		}
		if m.DropSpinning() {
			h.reSpins.Add(1)
			continue
		}
		if !m.StopM() {
			return
		}
		h.starts.Add(1)
	}
}

// submitter submits this round's share: n roots, or a blocking pair.
func (h *stressHarness) submitter(seed uint64, n int, withPair bool) {
	rng := rand.New(rand.NewPCG(h.cfg.seed, seed))
	submit := func(t *stressTask) {
		h.cfg.impl.submit(h.s, func() {
			if rng.IntN(4) == 0 {
				runtime.Gosched() // widen the window between deciding and publishing
			}
			h.global.push(t)
		})
	}
	if withPair {
		first, got := h.alloc(2)
		if got < 2 {
			if got == 1 {
				submit(&stressTask{id: first})
			}
			return
		}
		pr := &pair{ch: make(chan struct{})}
		h.pairsMu.Lock()
		h.pairs = append(h.pairs, pr)
		h.pairsMu.Unlock()
		submit(&stressTask{id: first, kind: kindBlocker, pair: pr})
		submit(&stressTask{id: first + 1, kind: kindPartner, pair: pr})
		return
	}
	first, got := h.alloc(n)
	for i := range got {
		kind := uint8(kindPlain)
		if rng.IntN(3) == 0 {
			kind = kindSpawner
		}
		submit(&stressTask{id: first + i, kind: kind})
	}
}

// checkDead is Config.CheckDead: the round is at rest once the submitters
// are done and every M is parked or blocked waiting for a partner.
func (h *stressHarness) checkDead(idle, total int) {
	if r := h.cur.Load(); r != nil && r.submitted.Load() && int64(idle)+h.blocked.Load() == int64(total) {
		r.signal()
	}
}

// abort ends a failed run: no M waits for anything any more.
func (h *stressHarness) abort() {
	h.aborted.Store(true)
	h.s.Shutdown()
	h.pairsMu.Lock()
	for _, pr := range h.pairs {
		h.release(pr)
	}
	h.pairsMu.Unlock()
}

// atRest checks a round that came to rest: nothing queued, no M blocked,
// every task so far run exactly once, no spinner, every P idle.
func (h *stressHarness) atRest(r *round) error {
	g, rings, queued := h.queued()
	if r.timedOut.Load() {
		return fmt.Errorf("round %d did not come to rest within %v (livelock or hang): %d tasks queued (global %d, rings %v), "+
			"%d of %d ids run, %d Ms parked, %d blocked, nmspinning %d, npidle %d",
			r.n, stressWatchdog, queued, g, rings, h.ran.Load(), h.next.Load(), h.s.NMIdle(), h.blocked.Load(),
			h.s.NMSpinning(), h.s.NPIdle())
	}
	if queued > 0 || h.blocked.Load() != 0 {
		return fmt.Errorf("lost wakeup in round %d: %d tasks queued (global %d, rings %v) while every M is parked "+
			"(%d parked, %d blocked waiting for a queued partner); nmspinning %d, npidle %d",
			r.n, queued, g, rings, h.s.NMIdle(), h.blocked.Load(), h.s.NMSpinning(), h.s.NPIdle())
	}
	if ran, next := h.ran.Load(), h.next.Load(); ran != next {
		return fmt.Errorf("round %d at rest with %d of %d tasks run and none queued", r.n, ran, next)
	}
	if n := h.s.NMSpinning(); n != 0 {
		return fmt.Errorf("round %d at rest with nmspinning = %d and every M parked: a leaked spinning count", r.n, n)
	}
	if n := h.s.NPIdle(); n != stressProcs {
		return fmt.Errorf("round %d at rest with npidle = %d of %d", r.n, n, stressProcs)
	}
	return nil
}

// stressDeadline is how long one stress run may take in all.
func stressDeadline() time.Duration {
	if testing.Short() {
		return time.Minute
	}
	return 5 * time.Minute
}

// diag is the watchdog's diagnosis: what is queued, run, parked.
func (h *stressHarness) diag() string {
	g, rings, queued := h.queued()
	s := fmt.Sprintf("%d of %d ids run, %d queued (global %d, rings %v), %d blocked", h.ran.Load(), h.next.Load(),
		queued, g, rings, h.blocked.Load())
	if h.s != nil {
		s += fmt.Sprintf(", nmspinning %d, npidle %d", h.s.NMSpinning(), h.s.NPIdle())
	}
	return s
}

// runSpinStress runs the harness to cfg.items tasks or the first failure.
func runSpinStress(cfg stressConfig) (*stressResult, error) {
	if cfg.impl.submit == nil {
		cfg.impl.submit = func(s *spinning.Sched, publish func()) { s.Submit(publish) }
	}
	if cfg.impl.count == nil {
		cfg.impl.count = func(counts []atomic.Int32, id int) { counts[id].Add(1) }
	}
	h := &stressHarness{cfg: cfg, counts: make([]atomic.Int32, cfg.items)}
	// A whole run's deadline, beside each round's: a hang anywhere (an M
	// that never exits after Shutdown, say) fails with every stack.
	stop := watchdog.Start(fmt.Sprintf("spinning stress seed %d (%d items)", cfg.seed, cfg.items), stressDeadline(), h.diag)
	defer stop()
	s, err := spinning.New(spinning.Config{
		Procs: stressProcs,
		Work: func() bool {
			if cfg.impl.blindWork {
				return false
			}
			_, _, n := h.queued()
			return n > 0
		},
		CheckDead: h.checkDead,
	})
	if err != nil {
		return nil, err
	}
	h.s = s
	var ms sync.WaitGroup
	for i := range stressMs {
		m := s.NewM()
		ms.Go(func() { h.mLoop(m, uint64(i)) })
	}
	rng := rand.New(rand.NewPCG(cfg.seed, 1<<32))
	var failure error
	for n := 0; h.next.Load() < int64(cfg.items); n++ {
		r := &round{n: n, done: make(chan struct{})}
		h.cur.Store(r)
		h.rounds.Add(1)
		// Every fourth round is one blocking pair alone, so that no other
		// submission's wakeup covers for a missing one.
		pairRound := n%4 == 3
		var subs sync.WaitGroup
		for k := range stressSubmitters {
			size := 1 + rng.IntN(4)
			if rng.IntN(2) == 0 {
				size = 1 + rng.IntN(64)
			}
			if pairRound && k > 0 {
				continue
			}
			subs.Go(func() { h.submitter(uint64(n)<<8|uint64(k), size, pairRound) })
		}
		subs.Wait()
		r.submitted.Store(true)
		if int64(s.NMIdle())+h.blocked.Load() == stressMs {
			r.signal() // already at rest: CheckDead fired before submitted was set
		}
		watchdog := time.AfterFunc(stressWatchdog, func() { r.timedOut.Store(true); r.signal() })
		<-r.done
		watchdog.Stop()
		if err := h.atRest(r); err != nil {
			failure = err
			break
		}
	}
	h.cur.Store(nil)
	if failure != nil {
		h.abort()
	}
	s.Shutdown()
	ms.Wait()
	res := &stressResult{
		items: int(h.next.Load()), rounds: h.rounds.Load(), starts: h.starts.Load(), reSpins: h.reSpins.Load(),
		needAnswered: h.needAnswered.Load(), steals: h.steals.Load(), spawned: h.spawned.Load(),
		pairs: h.pairsRun.Load(), counts: h.counts,
	}
	if failure != nil {
		return res, failure
	}
	return res, checkExactlyOnce(h.counts[:res.items])
}

// checkExactlyOnce reports every id not run exactly once (the first few of
// each kind and how many in all).
func checkExactlyOnce(counts []atomic.Int32) error { return exactlyonce.Check(counts) }

func stressItems() int {
	if testing.Short() {
		return 50_000
	}
	return 1_000_000
}

func TestStressExactlyOnce(t *testing.T) {
	n := stressItems()
	seed := rand.Uint64()
	res, err := runSpinStress(stressConfig{items: n, seed: seed})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	t.Logf("stress paths: %d rounds, %d M starts from StopM, %d re-spins after the drop, %d needspinning answered, "+
		"%d steals, %d spawned children, %d blocking pairs", res.rounds, res.starts, res.reSpins, res.needAnswered,
		res.steals, res.spawned, res.pairs)
	t.Logf("spinning stress: %d items consumed exactly once by %d goroutines", res.items, stressMs)
}

// TestStressCheckerCatchesBrokenVariants proves the stress checker can
// fail: the same harness, with one part broken from the outside, must
// report an error and end (not hang).
func TestStressCheckerCatchesBrokenVariants(t *testing.T) {
	cases := []struct {
		name string
		impl stressImpl
		want string
	}{
		{"a submitter that never wakes an M", stressImpl{submit: func(_ *spinning.Sched, publish func()) { publish() }}, "lost wakeup"},
		{"a task counted twice", stressImpl{count: func(c []atomic.Int32, id int) {
			c[id].Add(1)
			if id%1000 == 999 {
				c[id].Add(1)
			}
		}}, "consumed more than once"},
		{"the drop's re-check sees no work", stressImpl{blindWork: true}, "lost wakeup"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(5) {
				_, err := runSpinStress(stressConfig{items: 20_000, seed: seed, impl: tc.impl})
				if err == nil {
					continue
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("caught, but not for the expected reason %q: %v", tc.want, err)
				}
				t.Logf("caught (seed %d): %v", seed, err)
				return
			}
			t.Fatalf("the stress checker accepted %q in 5 runs", tc.name)
		})
	}
}
