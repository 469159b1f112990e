package executor

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/internal/watchdog"
)

// The no-lost-wakeup rule, pinned with nothing else around to rescue the
// work (issue 14, section 3): a task holds one P, blocked without telling
// the executor, every other M is parked (synctest.Wait, then the Sched's
// own count says so), and then exactly one task is submitted or spawned.
// An idle P must start on it within wakeBound of the bubble's clock. No
// later submit, no Close, and no sysmon: the slice is 100 times the bound,
// and sysmon takes a P only when work waits for it with no P idle.
//
// The rules a bubble cannot reach (a submit with every P held must ask for
// a spinner; the re-check must look at every P's queue) are checked on the
// Sched's operations directly, in the order the M loop calls them.

const (
	wakeBound = 10 * time.Millisecond
	wakeSlice = 100 * wakeBound
)

// wakeChecks are the checks of this file by name, for the kill matrix.
var wakeChecks = map[string]func(*testing.T) error{
	"outside":     bubbled(wakeOutside("Go"), wakeOutside("GoBatch"), wakeOutside("Group.Go")),
	"spawn":       bubbled(wakeSpawn(false)),
	"spawn-group": bubbled(wakeSpawn(true)),
	"blocking":    bubbled(wakeSpawnInBlocking(false), wakeSpawnInBlocking(true)),
	"retaken":     bubbled(wakeSpawnAfterRetake),
	"ready":       bubbled(wakeReadiedWaiter),
	"resume":      bubbled(wakeBlockingResume),
	"needspin":    func(*testing.T) error { return submitAsksForSpinner("Go") },
	"needspin2": func(*testing.T) error {
		return joinErrs(submitAsksForSpinner("GoBatch"), submitAsksForSpinner("Group.Go"))
	},
	"recheck":      func(*testing.T) error { return dropRecheckSeesLocal() },
	"recheck2":     func(*testing.T) error { return handoffSeesLocal() },
	"fair61":       bubbled(fairnessExact(false)),
	"fair61-chain": bubbled(fairnessExact(true)),
}

// WakeupCheck returns the check of wakeup_test.go named name, for the kill
// matrix; it panics for an unknown name.
func WakeupCheck(name string) func(*testing.T) error {
	c, ok := wakeChecks[name]
	if !ok {
		panic("executor: no wakeup check " + name)
	}
	return c
}

// bubbled runs each check in its own synctest bubble; the first error wins.
func bubbled(cs ...func(*testing.T) error) func(*testing.T) error {
	return func(t *testing.T) error {
		for _, c := range cs {
			var err error
			synctest.Test(t, func(t *testing.T) { err = c(t) })
			if err != nil {
				return err
			}
		}
		return nil
	}
}

func joinErrs(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// othersParked says whether every M but busy ones is parked and none spins:
// the state in which a lost wakeup is lost for good. Call it after
// synctest.Wait.
func othersParked(e *Executor, busy int) error {
	if idle, all := e.sched.NMIdle(), int(e.nm.Load()); idle != all-busy || e.sched.NMSpinning() != 0 {
		return fmt.Errorf("precondition: %d of %d Ms parked and %d spinning, want %d parked and none spinning",
			idle, all, e.sched.NMSpinning(), all-busy)
	}
	return nil
}

// awaitRun waits up to wakeBound of the bubble's clock for ran to close.
func awaitRun(ran chan struct{}, what string) error {
	select {
	case <-ran:
		return nil
	case <-time.After(wakeBound):
		return fmt.Errorf("%s: the task did not start within %v with a P idle and every other M parked (lost wakeup)", what, wakeBound)
	}
}

// holder submits a task that holds a P, blocked until release closes, and
// waits until every other M is parked. inTask, if not nil, runs in the
// holder first (with the Task), when spawn closes.
func holder(e *Executor, spawn, release chan struct{}, inTask func(Task)) error {
	started := make(chan struct{})
	if err := e.Go(func(t Task) {
		close(started)
		<-spawn
		if inTask != nil {
			inTask(t)
		}
		<-release
	}); err != nil {
		return err
	}
	<-started
	synctest.Wait()
	return othersParked(e, 1)
}

// wakeOutside: on 2 Ps, one held, an outside submit (Executor.Go, GoBatch,
// an outside group's Go) must wake the parked M for the idle P.
func wakeOutside(kind string) func(*testing.T) error {
	return func(*testing.T) error {
		e, err := New(Config{Procs: 2, Slice: wakeSlice})
		if err != nil {
			return err
		}
		spawn, release, ran := make(chan struct{}), make(chan struct{}), make(chan struct{})
		close(spawn)
		err = holder(e, spawn, release, nil)
		var g *Group
		if err == nil {
			x := func(Task) { close(ran) }
			switch kind {
			case "Go":
				err = e.Go(x)
			case "GoBatch":
				err = e.GoBatch([]func(Task){x})
			case "Group.Go":
				g, _ = e.NewGroup(context.Background())
				g.Go(func(t Task) error { x(t); return nil })
			}
		}
		if err == nil {
			err = awaitRun(ran, "outside "+kind)
		}
		close(release)
		if g != nil {
			err = joinErrs(err, g.Wait())
		}
		return joinErrs(err, e.Close())
	}
}

// wakeSpawn: on 2 Ps, the task holding one spawns locally (Task.Go, or a
// group's Go in the task) and holds on: the parked M must be woken for the
// idle P and steal the child (from runnext, after the steal delay).
func wakeSpawn(viaGroup bool) func(*testing.T) error {
	return func(*testing.T) error {
		e, err := New(Config{Procs: 2, Slice: wakeSlice})
		if err != nil {
			return err
		}
		spawn, release, ran := make(chan struct{}), make(chan struct{}), make(chan struct{})
		var g *Group
		err = holder(e, spawn, release, func(t Task) {
			if viaGroup {
				g, _ = t.NewGroup(context.Background())
				g.Go(func(Task) error { close(ran); return nil })
			} else {
				t.Go(func(Task) { close(ran) })
			}
		})
		close(spawn)
		if err == nil {
			err = awaitRun(ran, fmt.Sprintf("local spawn (group=%v)", viaGroup))
		}
		close(release)
		err = joinErrs(err, e.Close())
		if g != nil && err == nil {
			// Wait was not called: the child ran; its group is done.
			if n := g.n.Load(); n != 0 {
				err = fmt.Errorf("group has %d tasks unfinished after Close", n)
			}
		}
		return err
	}
}

// wakeSpawnInBlocking: on 2 Ps, a task in Blocking (its P handed off, both
// Ps idle) spawns: the child goes to the global queue, and a parked M must
// be woken for it.
func wakeSpawnInBlocking(viaGroup bool) func(*testing.T) error {
	return func(*testing.T) error {
		e, err := New(Config{Procs: 2, Slice: wakeSlice})
		if err != nil {
			return err
		}
		spawn, release, ran := make(chan struct{}), make(chan struct{}), make(chan struct{})
		started := make(chan struct{})
		var g *Group
		if err := e.Go(func(t Task) {
			if viaGroup {
				g, _ = t.NewGroup(context.Background())
			}
			_ = t.Blocking(func() {
				close(started)
				<-spawn
				if viaGroup {
					g.Go(func(Task) error { close(ran); return nil })
				} else {
					t.Go(func(Task) { close(ran) })
				}
				<-release
			})
			if g != nil {
				_ = g.Wait()
			}
		}); err != nil {
			return err
		}
		<-started
		synctest.Wait()
		err = othersParked(e, 1)
		close(spawn)
		if err == nil {
			err = awaitRun(ran, fmt.Sprintf("spawn in Blocking (group=%v)", viaGroup))
		}
		close(release)
		return joinErrs(err, e.Close())
	}
}

// wakeSpawnAfterRetake: on 1 P, sysmon takes the P from a blocked task for
// a task queued behind it; once that task has run and its M parked, the
// blocked task, now without a P, spawns: the child goes to the global queue
// and the parked M must be woken for the idle P.
func wakeSpawnAfterRetake(*testing.T) error {
	e, err := New(Config{Procs: 1})
	if err != nil {
		return err
	}
	spawn, release, ran, queued := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
	started := make(chan struct{})
	if err := e.Go(func(t Task) {
		close(started)
		<-spawn
		t.Go(func(Task) { close(ran) })
		<-release
	}); err != nil {
		return err
	}
	<-started
	if err := e.Go(func(Task) { close(queued) }); err != nil {
		return err
	}
	<-queued // sysmon took the P for it
	synctest.Wait()
	err = othersParked(e, 1)
	if n := e.Stats().Total.Retakes; err == nil && n != 1 {
		err = fmt.Errorf("precondition: %d retakes, want 1", n)
	}
	close(spawn)
	if err == nil {
		err = awaitRun(ran, "spawn after a retake")
	}
	close(release)
	return joinErrs(err, e.Close())
}

// wakeReadiedWaiter: on 2 Ps, a task waits on an outside group whose only
// task runs (blocked) on the other P; its Wait parks (park.go), its P and
// M going on and idling, so only the child's M is busy. When that task
// ends, the waiter must go on within the bound.
func wakeReadiedWaiter(*testing.T) error {
	e, err := New(Config{Procs: 2, Slice: wakeSlice})
	if err != nil {
		return err
	}
	g, _ := e.NewGroup(context.Background())
	childIn, release, resumed := make(chan struct{}), make(chan struct{}), make(chan struct{})
	g.Go(func(Task) error { close(childIn); <-release; return nil })
	<-childIn
	if err := e.Go(func(Task) {
		_ = g.Wait()
		close(resumed)
	}); err != nil {
		return err
	}
	synctest.Wait() // the waiter is parked, its P idle; the child blocks
	err = othersParked(e, 1)
	if err == nil && e.sched.NPIdle() != 1 {
		err = fmt.Errorf("precondition: %d Ps idle, want 1 (the waiter's)", e.sched.NPIdle())
	}
	close(release)
	if err == nil {
		err = awaitRun(resumed, "a readied waiter")
	}
	return joinErrs(err, e.Close())
}

// wakeBlockingResume: on 1 P, a task returns from Blocking while another
// task holds the P, so it queues its resume token and sleeps; when that
// task hands the P off in a Blocking of its own, the first must go on
// within the bound.
func wakeBlockingResume(*testing.T) error {
	e, err := New(Config{Procs: 1, Slice: wakeSlice})
	if err != nil {
		return err
	}
	inBlock, back, resumed := make(chan struct{}), make(chan struct{}), make(chan struct{})
	holderIn, handOff, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	if err := e.Go(func(t Task) {
		_ = t.Blocking(func() { close(inBlock); <-back })
		close(resumed)
	}); err != nil {
		return err
	}
	<-inBlock
	if err := e.Go(func(t Task) {
		close(holderIn)
		<-handOff
		_ = t.Blocking(func() { <-release })
	}); err != nil {
		return err
	}
	<-holderIn
	close(back) // the first task finds no idle P: its token is queued
	synctest.Wait()
	err = othersParked(e, 2)
	close(handOff)
	if err == nil {
		err = awaitRun(resumed, "a Blocking task's resume")
	}
	close(release)
	return joinErrs(err, e.Close())
}

// heldByMs builds an executor of procs Ps that starts no goroutine,
// starts ms Ms and has each take an idle P, as an M's first look does; a
// check then makes the M loop's next steps itself, in findRunnable's order.
func heldByMs(procs, ms int) (*Executor, []*worker, error) {
	e, err := build(Config{Procs: procs}, func(func()) {}, false)
	if err != nil {
		return nil, nil, err
	}
	for range ms {
		e.startM()
	}
	ws := e.workers[:ms]
	for _, w := range ws {
		if !w.sm.Load().AcquireP() {
			return nil, nil, errors.New("precondition: no idle P")
		}
		e.takeP(w)
	}
	return e, ws, nil
}

// submitAsksForSpinner: with every P held and no M spinning, an outside
// submit must ask for a spinner (Wakep's needspinning), so that an M that
// looked at every queue before the submit and is about to give its P up
// without spinning spins instead (ReleaseP returns false). The M loop's
// steps are made directly, in findRunnable's order; no goroutine runs.
func submitAsksForSpinner(kind string) error {
	e, ws, err := heldByMs(1, 1)
	if err != nil {
		return err
	}
	w := ws[0]
	// w has found every queue empty and not spun; now the submit.
	x := func(Task) {}
	switch kind {
	case "Go":
		err = e.Go(x)
	case "GoBatch":
		err = e.GoBatch([]func(Task){x, x})
	case "Group.Go":
		g, _ := e.NewGroup(context.Background())
		g.Go(func(Task) error { return nil })
	}
	if err != nil {
		return err
	}
	if w.sm.Load().ReleaseP() {
		return fmt.Errorf("%s with every P held and no spinner did not ask for one: the M giving its P up after its look parks, the task queued", kind)
	}
	return nil
}

// dropRecheckSeesLocal: a spinning M that found nothing gives its P up;
// meanwhile a task spawned into another P's queue and skipped its wakeup,
// seeing the spinner. The drop-and-recheck must see that local queue and
// take the P back.
func dropRecheckSeesLocal() error {
	e, ws, err := heldByMs(2, 2)
	if err != nil {
		return err
	}
	w0, w1 := ws[0], ws[1]
	if !w1.sm.Load().BecomeSpinning() {
		return errors.New("precondition: the second M may not spin")
	}
	p0 := w0.p.Load()
	w0.gen++
	w0.top = w0.gen
	p0.status.Store(w0.word(pTask))
	Task{w: w0, gen: w0.gen}.Go(func(Task) {}) // after the spinner's last look at P0
	p1 := w1.p.Load()
	e.idle.Set(p1.id)
	p1.status.Store(pIdle)
	w1.p.Store(nil)
	if !w1.sm.Load().ReleaseP() {
		return errors.New("precondition: the spinner did not give its P up")
	}
	if !w1.sm.Load().DropSpinning() {
		return errors.New("a spinner's drop-and-recheck missed a task in another P's queue: it parks, the task queued, a P idle")
	}
	return nil
}

// handoffSeesLocal: a task spawned locally (its wakeup skipped: an M spun
// then) and hands its P off (Blocking): the handoff must see the P's own
// queue and give the P to an M, not make it idle, even with a P idle
// elsewhere (so no spinner is started for it).
func handoffSeesLocal() error {
	e, ws, err := heldByMs(2, 1)
	if err != nil {
		return err
	}
	w := ws[0]
	p := w.p.Load()
	p.status.Store(own(w.id, pTask))
	// The task's spawn, whose wakeup was skipped (an M spun then).
	p.q.PutNext(&task{fn: func(Task) {}}, p.spill[:0])
	e.giveUpP(w) // Blocking's handoff
	if n := e.sched.NPIdle(); n != 1 {
		return fmt.Errorf("a handoff of a P holding a local task left %d Ps idle, want 1: the task's P went idle with the task in it", n)
	}
	return nil
}

// fairnessExact: on 1 P a task spawns 150 local tasks (each a ring task,
// or, with chain, a ring task that spawns one more into runnext, which
// inherits the slice and ticks nothing) and submits two global tasks. The
// P takes one global task at every tick that is a multiple of 61 (the
// first task, from the global queue, is tick 0 and its run tick 1), so the
// two must start exactly at ticks 61 and 122: not merely soon.
func fairnessExact(chain bool) func(*testing.T) error {
	return func(*testing.T) error {
		e, err := New(Config{Procs: 1})
		if err != nil {
			return err
		}
		at := make(chan uint64, 2)
		ticks := func() uint64 {
			s := e.Stats().Procs[0]
			return s.Tasks - s.RunnextHits
		}
		var locals atomic.Int64
		if err := e.Go(func(t Task) {
			for range 150 {
				t.Go(func(t Task) {
					locals.Add(1)
					if chain {
						t.Go(func(Task) { locals.Add(1) })
					}
				})
			}
			for range 2 {
				if err := e.Go(func(Task) { at <- ticks() - 1 }); err != nil {
					panic(err)
				}
			}
		}); err != nil {
			return err
		}
		first, second := <-at, <-at
		err = e.Close()
		if first != 61 || second != 122 {
			return joinErrs(err, fmt.Errorf("global tasks started at ticks %d and %d of a busy P (chain=%v), want exactly 61 and 122", first, second, chain))
		}
		return err
	}
}

func TestWakeupNoneLost(t *testing.T) {
	for _, name := range []string{"outside", "spawn", "spawn-group", "blocking", "retaken", "ready", "resume"} {
		t.Run(name, func(t *testing.T) { require.NoError(t, wakeChecks[name](t)) })
	}
}

func TestSubmitAsksForSpinner(t *testing.T) {
	for _, kind := range []string{"Go", "GoBatch", "Group.Go"} {
		require.NoError(t, submitAsksForSpinner(kind), kind)
	}
}

func TestRecheckSeesLocalQueues(t *testing.T) {
	require.NoError(t, dropRecheckSeesLocal(), "drop-and-recheck")
	require.NoError(t, handoffSeesLocal(), "handoff")
}

func TestFairnessExactTicks(t *testing.T) {
	for _, chain := range []bool{false, true} {
		t.Run(fmt.Sprintf("chain=%v", chain), func(t *testing.T) {
			require.NoError(t, bubbled(fairnessExact(chain))(t))
		})
	}
}

// TestWakeupNoneLostReal is wakeOutside and wakeSpawn on the real clock:
// with the other M seen parked, the task must start. A wait past 10 s is
// judged by a health ticker beside it: if the ticker stalled too, the
// machine did and the run is inconclusive; otherwise it fails.
func TestWakeupNoneLostReal(t *testing.T) {
	stop := watchdog.Start("executor real-time wakeups", 2*time.Minute, nil)
	defer stop()
	for _, kind := range []string{"Go", "Task.Go"} {
		t.Run(kind, func(t *testing.T) {
			e, err := New(Config{Procs: 2, Slice: time.Minute})
			require.NoError(t, err)
			defer func() { require.NoError(t, e.Close()) }()
			release, ran, started := make(chan struct{}), make(chan struct{}), make(chan struct{})
			spawn := make(chan struct{})
			require.NoError(t, e.Go(func(t Task) {
				close(started)
				<-spawn
				if kind == "Task.Go" {
					t.Go(func(Task) { close(ran) })
				}
				<-release
			}))
			defer close(release)
			<-started
			for e.sched.NMIdle() != int(e.nm.Load())-1 || e.sched.NMSpinning() != 0 {
				time.Sleep(100 * time.Microsecond) // the watchdog bounds this
			}
			var lastTick atomic.Int64
			lastTick.Store(time.Now().UnixNano())
			tickStop := make(chan struct{})
			defer close(tickStop)
			go func() {
				for {
					select {
					case <-tickStop:
						return
					case <-time.After(time.Millisecond):
						lastTick.Store(time.Now().UnixNano())
					}
				}
			}()
			close(spawn)
			if kind == "Go" {
				require.NoError(t, e.Go(func(Task) { close(ran) }))
			}
			select {
			case <-ran:
			case <-time.After(10 * time.Second):
				if gap := time.Since(time.Unix(0, lastTick.Load())); gap > time.Second {
					t.Skipf("inconclusive: the health ticker stalled %v too", gap)
				}
				t.Fatalf("%s: the task did not start within 10s with a P idle and the other M parked (lost wakeup)", kind)
			}
		})
	}
}
