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

	"github.com/schedkit/schedkit/lfq"
)

// Work conservation, composed (issue 22, section 2): an idle P must start
// waiting work within wakeBound of the bubble's clock, for every path that
// makes work runnable, in the shape where a lost wakeup is lost for good:
// every P busy but one (each held by a holder task blocked in it, so no M
// comes back to look), the idle P's M parked and no M spinning, then the
// path fires once. wakeup_test.go pins each wakeup on 2 Ps; here the
// busy Ps are more than one (conserveProcs), and the paths a scenario did
// not put beside an idle P before (a Join's b, a Wait's help, ring
// overflow, the preempt requeue, a call's return) are in the table too.
//
// The paths, the executor function that makes the work runnable, the
// runtime function it mirrors, and the check that fires it:
//
//	local spawn (Task.Go)         spawn, wakeQueued        newproc, runqput, wakep   spawn
//	group spawn in a task         spawn (Group.Go)         newproc                   spawn-group
//	outside Go/GoBatch/GoContext  submit                   (injectglist's startIdle) outside, outside2
//	  and an outside group's Go
//	ring overflow to the global   overflow                 runqputslow               overflow
//	Join's b                      joinPush                 (runqput next=false)      join
//	a Wait's help                 helpWait, its spawned    (none: errgroup blocks)   help
//	  children left queued
//	ready/resume token            ready, waitP, resume     ready, goready            ready (wakeup_test.go)
//	Blocking's return             reacquire                exitsyscall               blocking-return
//	Syscall's exit                exitSyscall, exitsyscall0  exitsyscall(0)          syscall-return
//	retake/handoffp               retake, giveUpP          retake, handoffp          retaken (wakeup_test.go),
//	                                                                                 recheck2 (wakeup_test.go)
//	preempt/slice requeue to the  localGet's preempted     gopreempt_m, globrunqput  preempt, preempt2
//	  global queue                  branch
//	the spinner's drop-and-       findRunnable, spinning's findRunnable's            droprecheck, dropneed,
//	  recheck                       DropSpinning             checkRunqsNoP           dropneed2, recheck
//	                                                                                 (wakeup_test.go)
//	work queued behind what the   execute's                resetspinning's wakep     lastspinner,
//	  last spinner found            ResetSpinning                                    lastspinner2
//
// Two of these are the shapes of shipped Go bugs. golang/go#45867 (work
// conservation broken by CL 310850, seen as TestGoroutineParallelism
// hangs on Go's builders): a non-spinning M gave up its P without
// re-checking while a wakep found no idle P, so a runnable goroutine sat
// in a run queue beside an idle P; the fix's needspinning handshake is
// findRunnable's ReleaseP here (spinning's pidleput path), the spinner's
// recheck that finds work and no idle P (DropSpinning's pidlegetSpinning),
// and every Wakep that finds no idle P (submit, ready, waitP,
// exitsyscall0). The mutants SpinNoNeedSpinning and
// SpinDropNoNeedSpinning select spinning's faults of those two functions
// (needspin, needspin2 and dropneed, dropneed2 kill them);
// SpinNoWakeOnLastSpinner selects its NoWakeOnLastSpinner (lastspinner,
// lastspinner2). The shape of
// golang/go#27732's problem 4, a runnable goroutine requeued to the global
// queue by the preempt path with no wakeup of an idle P, is localGet's
// preempted branch. The preempt path fires only after a look at a ring or
// a global queue that holds work, which an idle P with a parked M never
// leaves there for long (the spawn that put it woke the M, which steals),
// so no bubble reaches it with the M parked: preempt and preempt2 build
// that state (work in the ring, an idle P, no M spinning) and make the M
// loop's next steps directly. TLC reaches that state at the Go code's
// grain (ExecutorFinePreempt_long_mutant_PreemptNoWake: a dropping
// spinner's re-check passes the P's queue while the runnext task is
// between localGet's get and its global.Put), which a bubble cannot aim at.

// conserveProcs is the Ps of the composed shape: two busy, one idle.
const conserveProcs = 3

// conserveChecks are this file's checks by name, for the kill matrix.
var conserveChecks = map[string]func(*testing.T) error{
	"spawn":           bubbled(conserveSpawn(false)),
	"spawn-group":     bubbled(conserveSpawn(true)),
	"outside":         bubbled(conserveOutside("Go"), conserveOutside("GoBatch")),
	"outside2":        bubbled(conserveOutside("GoContext"), conserveOutside("Group.Go")),
	"overflow":        bubbled(conserveOverflow),
	"join":            bubbled(conserveJoin),
	"help":            bubbled(conserveHelp),
	"blocking-return": bubbled(conserveBlockingReturn),
	"syscall-return":  bubbled(conserveSyscallReturn),
	"preempt":         func(*testing.T) error { return preemptRequeueWakes(false) },
	"preempt2":        func(*testing.T) error { return preemptRequeueWakes(true) },
	"droprecheck":     func(*testing.T) error { return dropRecheckSeesSubmit() },
	"dropneed":        func(*testing.T) error { return dropSetsNeedSpinning(false) },
	"dropneed2":       func(*testing.T) error { return dropSetsNeedSpinning(true) },
	"spawnneed": func(*testing.T) error {
		return joinErrs(spawnAsksForSpinner("Go"), spawnAsksForSpinner("Group.Go"))
	},
	"spawnneed2":   func(*testing.T) error { return spawnAsksForSpinner("Join") },
	"stalereq":     func(*testing.T) error { return staleRequestWakes("Go") },
	"stalereq2":    func(*testing.T) error { return staleRequestWakes("Join") },
	"lastspinner":  func(*testing.T) error { return spinnerWakesAnother(false) },
	"lastspinner2": func(*testing.T) error { return spinnerWakesAnother(true) },
}

func init() {
	conserveChecks["local"] = joinChecks("spawn", "spawn-group", "join", "help")
	conserveChecks["global"] = joinChecks("outside", "outside2", "blocking-return", "syscall-return", "droprecheck")
}

// joinChecks runs the named checks in turn; the first error wins.
func joinChecks(names ...string) func(*testing.T) error {
	return func(t *testing.T) error {
		for _, n := range names {
			if err := conserveChecks[n](t); err != nil {
				return err
			}
		}
		return nil
	}
}

// ConserveCheck returns the check of conserve_test.go named name, for the
// kill matrix; it panics for an unknown name.
func ConserveCheck(name string) func(*testing.T) error {
	c, ok := conserveChecks[name]
	if !ok {
		panic("executor: no conserve check " + name)
	}
	return c
}

// busyButOne is the composed shape: an executor of procs Ps, each P but
// one held by a holder task that runs the funcs sent to it (with its Task)
// and blocks between them, until release closes.
type busyButOne struct {
	e       *Executor
	do      []chan func(Task)
	release chan struct{}
}

// newBusyButOne starts the holders one at a time (each submit wakes an M
// for an idle P) and checks the shape: every M but the holders' parked,
// none spinning, one P idle.
func newBusyButOne(procs int, cfg Config) (*busyButOne, error) {
	cfg.Procs = procs
	if cfg.Slice == 0 {
		cfg.Slice = wakeSlice
	}
	e, err := New(cfg)
	if err != nil {
		return nil, err
	}
	b := &busyButOne{e: e, release: make(chan struct{})}
	for range procs - 1 {
		do, started := make(chan func(Task)), make(chan struct{})
		b.do = append(b.do, do)
		if err := e.Go(func(t Task) {
			close(started)
			for {
				select {
				case f := <-do:
					f(t)
				case <-b.release:
					return
				}
			}
		}); err != nil {
			return nil, errors.Join(err, e.Close())
		}
		<-started
	}
	synctest.Wait()
	err = othersParked(e, procs-1)
	if err == nil && e.sched.NPIdle() != 1 {
		err = fmt.Errorf("precondition: %d Ps idle, want 1", e.sched.NPIdle())
	}
	if err != nil {
		return nil, b.close(err)
	}
	return b, nil
}

// in runs f in holder 0's task and returns once f has returned.
func (b *busyButOne) in(f func(Task)) {
	done := make(chan struct{})
	b.do[0] <- func(t Task) { f(t); close(done) }
	<-done
}

// inAsync starts f in holder 0's task and returns once f has started; f
// may block (its P held) until the check lets it go.
func (b *busyButOne) inAsync(f func(Task)) {
	in := make(chan struct{})
	b.do[0] <- func(t Task) { close(in); f(t) }
	<-in
}

// close releases the holders and closes the executor, joining err.
func (b *busyButOne) close(err error) error {
	close(b.release)
	return joinErrs(err, b.e.Close())
}

// conserveSpawn: a holder spawns (Task.Go, or a group's Go in the task)
// and blocks on: the idle P must steal the child.
func conserveSpawn(viaGroup bool) func(*testing.T) error {
	return func(*testing.T) error {
		b, err := newBusyButOne(conserveProcs, Config{})
		if err != nil {
			return err
		}
		ran := make(chan struct{})
		b.in(func(t Task) {
			if viaGroup {
				g, _ := t.NewGroup(context.Background())
				g.Go(func(Task) error { close(ran); return nil })
			} else {
				t.Go(func(Task) { close(ran) })
			}
		})
		return b.close(awaitRun(ran, fmt.Sprintf("composed: local spawn (group=%v) beside an idle P", viaGroup)))
	}
}

// conserveOutside: an outside submit with every P but one held.
func conserveOutside(kind string) func(*testing.T) error {
	return func(*testing.T) error {
		b, err := newBusyButOne(conserveProcs, Config{})
		if err != nil {
			return err
		}
		ran := make(chan struct{})
		x := func(Task) { close(ran) }
		var g *Group
		switch kind {
		case "Go":
			err = b.e.Go(x)
		case "GoBatch":
			err = b.e.GoBatch([]func(Task){x})
		case "GoContext":
			err = b.e.GoContext(context.Background(), x)
		case "Group.Go":
			g, _ = b.e.NewGroup(context.Background())
			g.Go(func(t Task) error { x(t); return nil })
		}
		if err == nil {
			err = awaitRun(ran, "composed: outside "+kind)
		}
		if g != nil && err == nil {
			err = g.Wait()
		}
		return b.close(err)
	}
}

// conserveOverflow: a holder spawns more tasks than its ring holds and
// blocks on: the idle P must run every one of them. Whether the ring
// overflows (half of it to the global queue) depends on how fast the
// woken M steals meanwhile (the bubble runs its goroutines in parallel),
// so this scenario is not in the kill matrix's deterministic columns; the
// verdict holds either way.
func conserveOverflow(*testing.T) error {
	b, err := newBusyButOne(conserveProcs, Config{})
	if err != nil {
		return err
	}
	const n = lfq.Size + 2
	var left atomic.Int64
	left.Store(n)
	ran := make(chan struct{})
	b.in(func(t Task) {
		for range n {
			t.Go(func(Task) {
				if left.Add(-1) == 0 {
					close(ran)
				}
			})
		}
	})
	return b.close(awaitRun(ran, fmt.Sprintf("composed: %d spawns, the ring overflowed %d times (%d left)", n, b.e.Stats().Total.Overflows, left.Load())))
}

// conserveJoin: a holder joins a, which blocks, with b: b waits in the
// holder's runnext, and the idle P must steal and run it.
func conserveJoin(*testing.T) error {
	b, err := newBusyButOne(conserveProcs, Config{})
	if err != nil {
		return err
	}
	ran, aGo := make(chan struct{}), make(chan struct{})
	joined := make(chan error, 1)
	b.inAsync(func(t Task) {
		joined <- t.Join(func(Task) { <-aGo }, func(Task) { close(ran) })
	})
	err = awaitRun(ran, "composed: a Join's b while a blocks")
	close(aGo)
	return b.close(joinErrs(err, <-joined))
}

// conserveHelp: a holder's group has two children that each wait for the
// other to start; its Wait runs one inline (its help), which blocks, so
// the idle P must start the other.
func conserveHelp(*testing.T) error {
	b, err := newBusyButOne(conserveProcs, Config{})
	if err != nil {
		return err
	}
	ran := make(chan struct{})
	var started atomic.Int64
	child := func(Task) error {
		if started.Add(1) == 2 {
			close(ran)
		}
		<-ran
		return nil
	}
	waited := make(chan error, 1)
	b.inAsync(func(t Task) {
		g, _ := t.NewGroup(context.Background())
		g.Go(child)
		g.Go(child)
		waited <- g.Wait()
	})
	err = awaitRun(ran, "composed: a Wait's other child while its help runs one that blocks")
	return b.close(joinErrs(err, <-waited))
}

// conserveBlockingReturn: a holder's Blocking hands its P off (two Ps
// idle) and returns: the task must take an idle P and go on.
func conserveBlockingReturn(*testing.T) error {
	b, err := newBusyButOne(conserveProcs, Config{})
	if err != nil {
		return err
	}
	back, ran := make(chan struct{}), make(chan struct{})
	b.inAsync(func(t Task) {
		_ = t.Blocking(func() { <-back })
		close(ran)
	})
	synctest.Wait()
	err = othersParked(b.e, conserveProcs-1)
	close(back)
	if err == nil {
		err = awaitRun(ran, "composed: a task back from Blocking")
	}
	return b.close(err)
}

// conserveSyscallReturn: a holder's call in Syscall lasts a whole slice,
// so sysmon retakes its P (nothing queued: the P goes idle), and returns:
// the task must take an idle P and go on.
func conserveSyscallReturn(*testing.T) error {
	b, err := newBusyButOne(conserveProcs, Config{Slice: wakeBound})
	if err != nil {
		return err
	}
	back, ran := make(chan struct{}), make(chan struct{})
	b.inAsync(func(t Task) {
		_ = t.Syscall(func() { <-back })
		close(ran)
	})
	time.Sleep(3 * wakeBound) // sysmon's rounds, on the bubble's clock
	synctest.Wait()
	if n := b.e.Stats().Total.Retakes; n != 1 {
		err = fmt.Errorf("precondition: %d retakes of the call's P, want 1", n)
	}
	close(back)
	if err == nil {
		err = awaitRun(ran, "composed: a task back from Syscall after a retake")
	}
	return b.close(err)
}

// preemptRequeueWakes: the preempt path (localGet's preempted branch)
// puts the runnext task on the global queue while the P's ring holds
// another; a P is idle and no M spins, so it must wake an M for the idle
// P: the holder goes on with its ring, which may take a slice. The M loop's
// steps are made directly, no goroutine runs. Without afterRetake (2 Ps)
// the holder is between tasks after sysmon's request; with it (3 Ps, one
// held) sysmon's retake hands the P to a new M, whose first get requeues.
func preemptRequeueWakes(afterRetake bool) error {
	procs, ms := 2, 1
	if afterRetake {
		procs, ms = 3, 2
	}
	e, ws, err := heldByMs(procs, ms)
	if err != nil {
		return err
	}
	w, p := ws[0], ws[0].p.Load()
	p.q.PutNext(&task{fn: func(Task) {}}, p.spill[:0]) // to the ring, displaced by the next
	p.q.PutNext(&task{fn: func(Task) {}}, p.spill[:0]) // runnext
	if afterRetake {
		p.status.Store(own(w.id, pTask))
		if !e.retake(w, p, own(w.id, pTask)) {
			return errors.New("precondition: the retake failed")
		}
		e.startM()
		w = e.workers[len(e.workers)-1]
		if !w.sm.Load().StopM() { // takes the retake's handoff at once
			return errors.New("precondition: the new M got no P")
		}
		e.takeP(w)
		if w.p.Load() != p {
			return errors.New("precondition: the retake's handoff was not the retaken P")
		}
	} else {
		p.preempted.Store(1) // sysmon's request
	}
	if e.sched.NPIdle() != 1 || e.sched.NMSpinning() != 0 {
		return fmt.Errorf("precondition: %d Ps idle and %d Ms spinning, want 1 and 0", e.sched.NPIdle(), e.sched.NMSpinning())
	}
	if t, _ := e.localGet(w, p); t == nil {
		return errors.New("precondition: the holder's get found nothing")
	}
	if e.global.Len() != 1 {
		return fmt.Errorf("precondition: %d tasks in the global queue after the preempted get, want its runnext task", e.global.Len())
	}
	if e.sched.NPIdle() != 0 {
		return fmt.Errorf("the preempt path (afterRetake=%v) requeued a runnable task to the global queue beside an idle P with no M spinning and woke no M: it waits while the holder runs its ring (golang/go#27732's problem 4)", afterRetake)
	}
	return nil
}

// dropRecheckSeesSubmit: a spinning M that found nothing gives its P up;
// then an outside submit skips its wakeup, seeing the spinner; the
// spinner's drop-and-recheck must see the task and take a P back (with
// another P held busy, so no other M would come for it).
func dropRecheckSeesSubmit() error {
	e, ws, err := heldByMs(2, 2)
	if err != nil {
		return err
	}
	w0, w1 := ws[0], ws[1]
	w0.p.Load().status.Store(own(w0.id, pTask))
	if !w1.sm.Load().BecomeSpinning() {
		return errors.New("precondition: the second M may not spin")
	}
	if !e.returnP(w1) {
		return errors.New("precondition: the spinner did not give its P up")
	}
	if err := e.Go(func(Task) {}); err != nil {
		return err
	}
	if e.sched.NMSpinning() != 1 || e.sched.NPIdle() != 1 {
		return fmt.Errorf("precondition: the submit woke an M (%d spinning, %d Ps idle)", e.sched.NMSpinning(), e.sched.NPIdle())
	}
	if !w1.sm.Load().DropSpinning() {
		return errors.New("a spinner's drop-and-recheck missed a task submitted while it dropped (its wakeup skipped for the spinner): it parks, the task queued, a P idle")
	}
	return nil
}

// dropSetsNeedSpinning: golang/go#45867's handshake on the recheck's
// side. On 2 Ps, a task on P0 holds it; M1 spins, finds nothing and gives
// P1 up; M2, back from a blocking call, takes P1 (exitsyscall's pidleget),
// finds its queues empty and may not spin (M1 still counts); the task on
// P0 spawns (before M2's look, or after it with afterLook); M1's
// drop-and-recheck sees the child but no idle P, so it must ask for a
// spinner (pidlegetSpinning's needspinning), and M2, giving P1 up
// without spinning, must spin instead (ReleaseP false): otherwise both
// park and the child waits behind the task on P0 with P1 idle. The M
// loop's steps are made directly, as findRunnable makes them.
func dropSetsNeedSpinning(afterLook bool) error {
	e, ws, err := heldByMs(2, 2)
	if err != nil {
		return err
	}
	w0, w1 := ws[0], ws[1]
	e.startM()
	w2 := e.workers[len(e.workers)-1]
	runTask(w0)
	if err := e.spinAndReturnP(w1); err != nil {
		return err
	}
	spawn := func() error {
		idle := e.sched.NPIdle()
		Task{w: w0, gen: w0.gen}.Go(func(Task) {})
		if e.sched.NPIdle() != idle || e.sched.NMSpinning() != 1 {
			return errors.New("precondition: the spawn woke an M with M1 spinning")
		}
		return nil
	}
	if !afterLook {
		if err := spawn(); err != nil {
			return err
		}
	}
	if err := e.takeBackNoSpin(w2); err != nil {
		return err
	}
	if afterLook {
		if err := spawn(); err != nil {
			return err
		}
	}
	if w1.sm.Load().DropSpinning() {
		return errors.New("precondition: M1's recheck found an idle P")
	}
	if e.returnP(w2) {
		return fmt.Errorf("a spinner's drop-and-recheck saw a task in another P's queue and no idle P, and a non-spinning M then gave its P up (afterLook=%v): the task waits behind the task holding its P with a P idle (golang/go#45867's lost needspinning)", afterLook)
	}
	return nil
}

// spawnAsksForSpinner: golang/go#45867's handshake on the spawner's side,
// in steps each of which the M loop makes. On 2 Ps a task T runs on P0;
// M1 spins, finds nothing and gives P1 up; M2, back from a blocking call,
// takes P1, finds its queues empty and may not spin (M1 still counts); M1
// drops, re-checks (nothing yet) and parks; then T spawns. No P is idle
// and no M spins, so the spawn must ask for a spinner (newproc's wakep,
// pidlegetSpinning's needspinning) and M2, giving P1 up without spinning,
// must spin instead: otherwise the child waits in P0's queue behind T,
// beside the idle P1, until sysmon retakes P0 a slice later.
func spawnAsksForSpinner(kind string) error {
	e, ws, err := heldByMs(2, 2)
	if err != nil {
		return err
	}
	w0, w1 := ws[0], ws[1]
	e.startM()
	w2 := e.workers[len(e.workers)-1]
	runTask(w0)
	if err := e.spinAndReturnP(w1); err != nil {
		return err
	}
	if err := e.takeBackNoSpin(w2); err != nil {
		return err
	}
	if w1.sm.Load().DropSpinning() {
		return errors.New("precondition: M1's recheck found work")
	}
	t := Task{w: w0, gen: w0.gen}
	switch kind {
	case "Go":
		t.Go(func(Task) {})
	case "Group.Go":
		g, _ := t.NewGroup(context.Background())
		g.Go(func(Task) error { return nil })
	case "Join": // Join's push of b, before it runs a
		if r, _, _ := e.joinPush(w0, func(Task) {}); r == nil {
			return errors.New("precondition: the Join pushed nothing")
		}
	}
	if e.returnP(w2) {
		return fmt.Errorf("a local put (%s) with every P held and no M spinning did not ask for a spinner, and a non-spinning M then gave its P up: the child waits behind its spawner with a P idle (golang/go#45867's shape on the spawner's side)", kind)
	}
	return nil
}

// spinnerWakesAnother: resetspinning's rule. M0 spins holding P0, one P
// idle; two tasks arrive while it spins (their puts skip Wakep, seeing the
// spinner): a GoBatch of two, which M0 takes as a global batch (the second
// to its ring), or with fromSteal two spawns of a task holding a third P,
// of which M0 steals one (the other in that P's runnext). Starting the
// first must start another spinner for the idle P, or the second waits
// behind a busy P with a P idle. The M loop's steps are made directly
// (findRunnable's get, then execute, whose ResetSpinning wakes).
func spinnerWakesAnother(fromSteal bool) error {
	procs, ms := 2, 1
	if fromSteal {
		procs, ms = 3, 2
	}
	e, ws, err := heldByMs(procs, ms)
	if err != nil {
		return err
	}
	w, p := ws[0], ws[0].p.Load()
	if !w.sm.Load().BecomeSpinning() {
		return errors.New("precondition: M0 may not spin")
	}
	e.spinStarted(w, p)
	var ran atomic.Int64
	x := func(Task) { ran.Add(1) }
	var t *task
	if fromSteal {
		h := ws[1]
		h.gen++
		h.top = h.gen
		h.p.Load().status.Store(h.word(pTask))
		Task{w: h, gen: h.gen}.Go(x)
		Task{w: h, gen: h.gen}.Go(x) // the first to the ring, this one in runnext
		t, _ = e.steal(w, p)
	} else {
		if err := e.GoBatch([]func(Task){x, x}); err != nil {
			return err
		}
		t = e.globalBatch(w, p)
	}
	if t == nil || !t.take() {
		return fmt.Errorf("precondition: the spinner found nothing (fromSteal=%v)", fromSteal)
	}
	if !e.work() {
		return errors.New("precondition: nothing left queued behind the first task")
	}
	if e.sched.NPIdle() != 1 || e.sched.NMSpinning() != 1 {
		return fmt.Errorf("precondition: %d Ps idle and %d Ms spinning, want 1 and 1", e.sched.NPIdle(), e.sched.NMSpinning())
	}
	e.execute(w, t, false)
	if ran.Load() != 1 {
		return errors.New("precondition: the first task did not run")
	}
	if e.sched.NPIdle() != 0 {
		return fmt.Errorf("the last spinner started a task with another queued behind it (fromSteal=%v) and started no spinner for the idle P: resetspinning's wakep", fromSteal)
	}
	return nil
}

func TestConserveComposed(t *testing.T) {
	for _, name := range []string{"spawn", "spawn-group", "outside", "outside2", "overflow", "join", "help",
		"blocking-return", "syscall-return", "preempt", "preempt2", "droprecheck", "dropneed", "dropneed2", "spawnneed", "spawnneed2", "stalereq", "stalereq2", "lastspinner", "lastspinner2"} {
		t.Run(name, func(t *testing.T) { require.NoError(t, conserveChecks[name](t)) })
	}
}

// staleRequestWakes: a request for a spinner (needspinning) can outlive
// the state that made it. M1 drops spinning and, seeing P0's child with no
// P idle, asks for a spinner while M3 still spins holding P2; the child is
// taken, and M3, spinning, gives P2 up (a spinner's ReleaseP keeps the
// request) and parks with nothing to see. A local put must still wake an
// M for the idle P: wakeQueued skips Wakep on a pending request only
// while no P idles. kind is "Go" or "Join" (Join's push of b).
func staleRequestWakes(kind string) error {
	e, ws, err := heldByMs(3, 3)
	if err != nil {
		return err
	}
	w0, w1, w3 := ws[0], ws[1], ws[2]
	e.startM()
	w2 := e.workers[len(e.workers)-1]
	p0 := w0.p.Load()
	t := runTask(w0)
	if !w1.sm.Load().BecomeSpinning() || !w3.sm.Load().BecomeSpinning() {
		return errors.New("precondition: M1 and M3 may not both spin")
	}
	if !e.returnP(w1) {
		return errors.New("precondition: the spinner M1 kept its P")
	}
	if !w2.sm.Load().AcquireP() { // M2, back from a call, takes P1
		return errors.New("precondition: M2 found no idle P")
	}
	e.takeP(w2)
	t.Go(func(Task) {}) // M1 and M3 spin: no wakeup needed
	if w1.sm.Load().DropSpinning() {
		return errors.New("precondition: M1's recheck found an idle P")
	}
	if !e.sched.NeedSpinning() {
		return errors.New("precondition: M1's recheck asked for no spinner")
	}
	if x, _ := p0.q.Get(); x == nil { // the child is taken (run by M0, say)
		return errors.New("precondition: P0's queue is empty")
	}
	if !e.returnP(w3) {
		return errors.New("precondition: the spinner M3 kept its P")
	}
	if w3.sm.Load().DropSpinning() {
		return errors.New("precondition: M3's recheck found work")
	}
	if !e.sched.NeedSpinning() || e.sched.NPIdle() != 1 || e.sched.NMSpinning() != 0 {
		return errors.New("precondition: not a stale request beside an idle P")
	}
	switch kind {
	case "Go":
		t.Go(func(Task) {})
	case "Join":
		if r, _, _ := e.joinPush(w0, func(Task) {}); r == nil {
			return errors.New("precondition: the Join pushed nothing")
		}
	}
	if e.sched.NMSpinning() == 0 && e.sched.NPIdle() != 0 {
		return fmt.Errorf("a local put (%s) beside an idle P woke no M: it took the pending request for a spinner, left by a spinner that gave its P up, for a wakeup, and the child waits behind its spawner", kind)
	}
	return nil
}

// runTask makes w's P run a task, as execute does (pTask, the worker's
// next generation current), and returns the task's handle.
func runTask(w *worker) Task {
	w.gen++
	w.top = w.gen
	w.p.Load().status.Store(w.word(pTask))
	return Task{w: w, gen: w.gen}
}

// returnP is findRunnable's "return P" for w: its P idles and its
// spinning.M releases it. It reports ReleaseP's answer (false: the M was
// asked to spin, and keeps the P).
func (e *Executor) returnP(w *worker) bool {
	p := w.p.Load()
	e.idle.Set(p.id)
	p.status.Store(pIdle)
	w.p.Store(nil)
	return w.sm.Load().ReleaseP()
}

// spinAndReturnP: w's M starts spinning, finds nothing and gives its P up
// (still spinning: findRunnable before its drop-and-recheck).
func (e *Executor) spinAndReturnP(w *worker) error {
	if !w.sm.Load().BecomeSpinning() {
		return fmt.Errorf("precondition: M%d may not spin", w.id)
	}
	if !e.returnP(w) {
		return fmt.Errorf("precondition: the spinner M%d did not give its P up", w.id)
	}
	return nil
}

// takeBackNoSpin: w's M, back from a blocking call, takes an idle P
// (exitsyscall's pidleget), finds its queues empty and may not spin (a
// spinner still counts).
func (e *Executor) takeBackNoSpin(w *worker) error {
	if !w.sm.Load().AcquireP() {
		return fmt.Errorf("precondition: M%d found no idle P", w.id)
	}
	e.takeP(w)
	if w.sm.Load().BecomeSpinning() {
		return fmt.Errorf("precondition: M%d may spin beside the spinner", w.id)
	}
	return nil
}
