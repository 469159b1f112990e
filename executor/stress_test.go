package executor_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/exactlyonce"
	"github.com/schedkit/schedkit/internal/watchdog"
)

// Bar item 4 for the composition: real goroutines submit tasks from
// outside (one at a time, in batches, in outside groups) while tasks spawn
// locally, wait in groups, block, yield and panic; every task is an id,
// and every id must run exactly once. Long mode runs a million; -short a
// few tens of thousands. Each run has a watchdog.

// stressCfg describes one stress run.
type stressCfg struct {
	items      int
	procs      int
	submitters int
	seed       uint64
	gqOnly     bool
}

type stressRun struct {
	cfg       stressCfg
	e         *executor.Executor
	counts    []atomic.Int32
	next      atomic.Int64
	panics    atomic.Int64 // tasks that panicked on purpose (outside groups)
	gotPanics atomic.Int64 // panics the handler received
	groupErrs atomic.Int64 // group errors seen, of the failing children started
	failing   atomic.Int64
	kinds     [kindCount]atomic.Int64
}

// What a task does besides counting its id.
const (
	kindPlain = iota
	kindSpawner
	kindGroup
	kindBlocker
	kindYielder
	kindPanicker
	kindCount
)

// alloc hands out up to n fresh ids; fewer once the run's items run out.
func (r *stressRun) alloc(n int) (first, got int) {
	for {
		cur := r.next.Load()
		left := int64(r.cfg.items) - cur
		if left <= 0 {
			return 0, 0
		}
		k := min(int64(n), left)
		if r.next.CompareAndSwap(cur, cur+k) {
			return int(cur), int(k)
		}
	}
}

// kindOf picks a task's kind from its id, so a run is the same mix every
// time (the interleaving is not).
func kindOf(id int, seed uint64) int {
	h := (uint64(id) + seed) * 0x9E3779B97F4A7C15
	switch v := h >> 58; { // 0..63
	case v < 40:
		return kindPlain
	case v < 50:
		return kindSpawner
	case v < 55:
		return kindGroup
	case v < 58:
		return kindBlocker
	case v < 61:
		return kindYielder
	default:
		return kindPanicker
	}
}

// task returns the func of task id, inGroup if a group's task (a panic
// there is the group's error, not the handler's).
func (r *stressRun) task(id int) func(executor.Task) error {
	return func(t executor.Task) error {
		r.counts[id].Add(1)
		k := kindOf(id, r.cfg.seed)
		r.kinds[k].Add(1)
		switch k {
		case kindSpawner:
			first, n := r.alloc(1 + id%3)
			for i := range n {
				f := r.task(first + i)
				t.Go(func(t executor.Task) { r.run(f, t) })
			}
		case kindGroup:
			first, n := r.alloc(2 + id%3)
			g, _ := t.NewGroup(context.Background())
			for i := range n {
				g.Go(r.task(first + i))
			}
			if err := g.Wait(); err != nil {
				r.groupErrs.Add(1)
			}
		case kindBlocker:
			if err := t.Blocking(func() { time.Sleep(time.Duration(id%20) * time.Microsecond) }); err != nil {
				panic(err)
			}
		case kindYielder:
			if err := t.Yield(); err != nil {
				panic(err)
			}
		case kindPanicker:
			panic(fmt.Sprintf("task %d panics on purpose", id))
		}
		return nil
	}
}

// run runs f as a task outside any group, counting a deliberate panic
// (which still goes on to the executor's handler).
func (r *stressRun) run(f func(executor.Task) error, t executor.Task) {
	defer func() {
		if v := recover(); v != nil {
			r.panics.Add(1)
			panic(v)
		}
	}()
	_ = f(t)
}

// submitter feeds ids from outside until they run out: single submits,
// batches, and outside groups.
func (r *stressRun) submitter(i int) error {
	rng := rand.New(rand.NewPCG(r.cfg.seed, uint64(i)))
	for {
		switch rng.IntN(8) {
		case 0: // a batch
			first, n := r.alloc(1 + rng.IntN(64))
			if n == 0 {
				return nil
			}
			fs := make([]func(executor.Task), n)
			for j := range fs {
				f := r.task(first + j)
				fs[j] = func(t executor.Task) { r.run(f, t) }
			}
			if err := r.e.GoBatch(fs); err != nil {
				return err
			}
		case 1: // an outside group
			first, n := r.alloc(1 + rng.IntN(8))
			if n == 0 {
				return nil
			}
			g, _ := r.e.NewGroup(context.Background())
			for j := range n {
				g.Go(r.task(first + j))
			}
			if err := g.Wait(); err != nil {
				var pe *executor.PanicError
				if !errors.As(err, &pe) {
					return err
				}
				r.groupErrs.Add(1)
			}
		default:
			first, n := r.alloc(1)
			if n == 0 {
				return nil
			}
			f := r.task(first)
			if err := r.e.Go(func(t executor.Task) { r.run(f, t) }); err != nil {
				return err
			}
		}
		if rng.IntN(64) == 0 {
			runtime.Gosched()
		}
	}
}

func runStress(t *testing.T, cfg stressCfg) *stressRun {
	r := &stressRun{cfg: cfg, counts: make([]atomic.Int32, cfg.items)}
	e, err := executor.New(executor.Config{
		Procs:           cfg.procs,
		GlobalQueueOnly: cfg.gqOnly,
		PanicHandler:    func(*executor.PanicError) { r.gotPanics.Add(1) },
	})
	require.NoError(t, err)
	r.e = e
	d := 60 * time.Second
	if !testing.Short() {
		d = 5 * time.Minute
	}
	stop := watchdog.Start(fmt.Sprintf("executor stress %+v", cfg), d, func() string {
		s := e.Stats()
		return fmt.Sprintf("ids handed out %d of %d; stats %+v; global %d, Ms %d, spinning %d, idle Ps %d",
			r.next.Load(), cfg.items, s.Total, s.GlobalLen, s.Ms, s.Spinning, s.IdleProcs)
	})
	defer stop()
	var wg sync.WaitGroup
	errs := make([]error, cfg.submitters)
	for i := range cfg.submitters {
		wg.Go(func() { errs[i] = r.submitter(i) })
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	require.NoError(t, e.Close())
	require.Equal(t, int64(cfg.items), r.next.Load(), "every id was handed out")
	require.NoError(t, exactlyonce.Check(r.counts))
	assert.Equal(t, r.panics.Load(), r.gotPanics.Load(), "every panic outside a group reached the handler")
	s := e.Stats()
	assert.Equal(t, uint64(cfg.items), s.Total.Tasks, "Stats counted every task")
	assert.Zero(t, s.GlobalLen)
	return r
}

func TestStressExactlyOnce(t *testing.T) {
	items := 1_000_000
	if testing.Short() {
		items = 30_000
	}
	for _, c := range []stressCfg{
		{items: items, procs: 4, submitters: 3, seed: 1},
		{items: items / 4, procs: 1, submitters: 2, seed: 2},
		{items: items / 4, procs: 3, submitters: 2, seed: 3, gqOnly: true},
	} {
		t.Run(fmt.Sprintf("procs=%d/gq=%v", c.procs, c.gqOnly), func(t *testing.T) {
			r := runStress(t, c)
			var kinds []int64
			for k := range r.kinds {
				kinds = append(kinds, r.kinds[k].Load())
			}
			s := r.e.Stats().Total
			t.Logf("%d tasks exactly once; kinds (plain, spawner, group, blocker, yielder, panicker) %v; "+
				"runnext %d, ring %d, global batches %d, steals %d, overflows %d, handoffs %d, retakes %d, resumes %d, helped %d, parks %d",
				c.items, kinds, s.RunnextHits, s.RingGets, s.GlobalBatches, s.Steals, s.Overflows,
				s.Handoffs, s.Retakes, s.Resumes, s.Helped, s.Parks)
		})
	}
}

// TestCloseUnderLoadLosesNothing closes while submitters still submit and
// tasks still spawn: every submit Go accepted runs exactly once, every one
// it refused never runs, and Close returns only after all of them.
func TestCloseUnderLoadLosesNothing(t *testing.T) {
	stop := watchdog.Start("executor close under load", 2*time.Minute, nil)
	defer stop()
	for round := range 5 {
		e, err := executor.New(executor.Config{Procs: 3})
		require.NoError(t, err)
		const perSubmitter = 20_000
		const submitters = 3
		counts := make([]atomic.Int32, submitters*perSubmitter*2)
		accepted := make([]atomic.Bool, submitters*perSubmitter)
		var wg sync.WaitGroup
		for s := range submitters {
			wg.Go(func() {
				for i := range perSubmitter {
					id := s*perSubmitter + i
					err := e.Go(func(t executor.Task) {
						counts[2*id].Add(1)
						t.Go(func(executor.Task) { counts[2*id+1].Add(1) }) // accepted with its parent
					})
					if err == nil {
						accepted[id].Store(true)
					} else if !errors.Is(err, executor.ErrClosed) {
						panic(err)
					}
				}
			})
		}
		time.Sleep(time.Duration(round) * time.Millisecond) // let some submits in first
		require.NoError(t, e.Close())
		closedAt := snapshot(counts)
		wg.Wait()
		n := 0
		for id := range accepted {
			want := int32(0)
			if accepted[id].Load() {
				want = 1
				n++
			}
			for _, c := range []int{2 * id, 2*id + 1} {
				require.Equal(t, want, counts[c].Load(), "round %d: id %d accepted=%v", round, id, want == 1)
				require.Equal(t, want, closedAt[c], "round %d: id %d ran after Close returned", round, id)
			}
		}
		t.Logf("round %d: %d of %d submits accepted before Close", round, n, len(accepted))
	}
}

func snapshot(counts []atomic.Int32) []int32 {
	s := make([]int32, len(counts))
	for i := range counts {
		s[i] = counts[i].Load()
	}
	return s
}
