package runnext_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/internal/watchdog"
	"github.com/schedkit/schedkit/runnext"
)

// Bar item 5: the real queue under every interleaving, within the
// preemption bound, of small scenarios. Every scheduling point is an
// operation of atomicx (the slot, seq, the ring, the clock), so
// these run only with -tags schedcheck; without it explore.Check skips them.
//
// The steal delay runs on the explorer's virtual clock, which moves only
// when every thread is blocked: a thief that finds the runnext task too
// fresh sleeps until the others are done or blocked, and wakes exactly when
// the task has sat for the delay.
//
// After each execution two oracles judge it: conservation (every task made
// came out exactly once: from Get, Drain, an overflow batch, a steal, or
// what the queue holds at the end) and linearizability of the victim's
// history against linModel (linearize_test.go), with the delay: a thief may
// return the runnext task only once it has sat for the delay.

// xop is one operation of a scenario thread. Thread 0 is the victim's
// owner; the others are thieves, each with its own queue.
type xop uint8

const (
	xPutNext    xop = iota // owner: PutNext a new task
	xPut                   // owner: Put a new task
	xGet                   // owner: Get
	xDrain                 // owner: Drain
	xRespawn               // owner: PutNext the task its last Get returned, the same pointer (ABA)
	xSleep                 // owner: sleep 1µs on the virtual clock, so a put lands inside a thief's wait
	xSleepDelay            // owner: sleep the steal delay, so it acts as a waiting thief wakes
	xSteal                 // thief: StealHalf, not the last pass (stealNext false)
	xStealNext             // thief: StealHalf on the last pass (stealNext true)
	xStealT1               // thief: StealHalf(stealNext) from thief 1's queue, not the victim
	xEmpty                 // anyone: Empty
)

// xScenario is a victim queue that starts holding pre tasks in its ring
// and, if next, a runnext task (put in build; aged: build then sleeps the
// steal delay), thieves whose own queues start with thiefPre tasks in their
// rings, and the operations each thread runs.
type xScenario struct {
	name     string
	pre      int
	next     bool
	aged     bool
	delay    time.Duration // -1: the default, StealDelay
	thiefPre int
	// keep: thieves keep what they steal in their own queues, where others
	// may steal it again, instead of draining them after each steal. The
	// victim's history then has gaps, so only conservation and the delay
	// are judged, not linearizability.
	keep    bool
	threads [][]xop
	opts    explore.Options
	long    bool // too slow for -short and the kill matrix
	bound3  bool // explored at preemption bound 3 in long mode (bound 2 under -short)
}

// xScenarios are the scenarios for runnext.
var xScenarios = []xScenario{
	// The owner's Get and a thief's last-pass steal race for one old
	// runnext task: exactly one gets it (TakeWithoutCAS gives it to both).
	{name: "take-vs-steal", next: true, aged: true, delay: -1, threads: [][]xop{{xGet}, {xStealNext}}},
	{name: "take-vs-two-thieves", next: true, aged: true, delay: -1, threads: [][]xop{{xGet}, {xStealNext}, {xStealNext}}, bound3: true},
	// PutNext displaces the old task into the ring while a thief steals:
	// the displaced task is never lost, never taken twice.
	{name: "displace-vs-steal", next: true, aged: true, delay: -1, threads: [][]xop{{xPutNext, xGet}, {xStealNext}}, bound3: true},
	// The owner puts into the ring and takes while a thief makes its last
	// pass, and while one makes two earlier passes (it must not take the
	// runnext task).
	{name: "put-take-vs-last-pass", next: true, aged: true, delay: -1, threads: [][]xop{{xPut, xGet, xGet}, {xStealNext}}},
	{name: "put-take-vs-first-passes", next: true, aged: true, delay: -1, threads: [][]xop{{xPut, xGet}, {xSteal, xSteal}}},
	// A runnext task: the thief waits the delay on the virtual clock from
	// its own look, and takes it exactly then.
	{name: "thief-waits-delay", next: true, delay: -1, threads: [][]xop{{xEmpty}, {xStealNext}}},
	// The owner runs its task within the delay and puts a new one; the
	// thief, woken, waits out the new task's delay in its turn.
	{name: "owner-takes-within-delay", next: true, delay: -1, threads: [][]xop{{xGet, xPutNext}, {xStealNext}}},
	// The same, with the owner's new task put 1µs into the thief's wait: a
	// thief that does not check, when it wakes, that the slot holds what it
	// waited for takes a task it has seen for less than the delay
	// (ThiefNoRecheck).
	{name: "replace-during-wait", next: true, delay: -1, threads: [][]xop{{xSleep, xGet, xPutNext}, {xStealNext}}},
	// ABA: 1µs into the thief's wait the owner runs its task and spawns the
	// same pointer again. A new occupancy: the thief must wait the whole
	// delay for it (ThiefComparesPointer takes it when it wakes).
	{name: "aba-same-pointer-reput", next: true, delay: -1, threads: [][]xop{{xSleep, xGet, xRespawn}, {xStealNext}}},
	// The same at the instant the thief wakes: the owner's take and re-put
	// interleave with the thief's second look and its CAS.
	{name: "aba-reput-as-thief-wakes", next: true, delay: -1, threads: [][]xop{{xSleepDelay, xGet, xRespawn}, {xStealNext}}, bound3: true},
	{name: "replace-as-thief-wakes", next: true, delay: -1, threads: [][]xop{{xSleepDelay, xGet, xPutNext}, {xStealNext}}},
	// Two thieves race the owner's PutNext and Get with the delay on the
	// virtual clock.
	{name: "two-thieves-vs-putnext-get-delay", next: true, delay: -1,
		threads: [][]xop{{xPutNext, xSleep, xGet}, {xStealNext}, {xStealNext}}},
	// Empty while the owner kicks the runnext task into the ring and takes
	// the new one: never "empty" (EmptyMissesRunnext says so).
	{name: "empty-vs-putnext-get", next: true, delay: -1, threads: [][]xop{{xPutNext, xGet}, {xEmpty}}, bound3: true},
	{name: "empty-vs-drain", pre: 1, next: true, delay: -1, threads: [][]xop{{xDrain, xPut}, {xEmpty}}},
	// A last-pass thief that finds the ring empty and then the slot empty
	// may call the queue empty only if the owner added nothing meanwhile.
	{name: "steal-nothing-vs-putnext-get", next: true, delay: -1, threads: [][]xop{{xPutNext, xGet}, {xStealNext}}},
	{name: "drain-vs-steal", pre: 1, next: true, aged: true, delay: -1, threads: [][]xop{{xDrain}, {xStealNext}}},
	// No delay: a thief may take the new runnext task while the displaced
	// one is on its way to the ring; seq keeps it, and Empty, away.
	{name: "no-delay-displace-vs-steal-and-empty", next: true, delay: 0,
		threads: [][]xop{{xPutNext, xGet}, {xStealNext}, {xEmpty}}},
	// A thief whose own queue is not empty steals into it (its ring and its
	// own runnext untouched by the steal), while the victim's owner puts
	// and takes.
	{name: "thief-with-own-tasks", pre: 3, next: true, aged: true, delay: -1, thiefPre: 2,
		threads: [][]xop{{xPut, xGet}, {xSteal, xStealNext}}, bound3: true},
	// A steal into a queue that is itself being stolen from: thief 1 steals
	// the victim's ring into its own queue, which holds tasks of its own,
	// while thief 2 steals from thief 1's queue.
	{name: "steal-into-a-queue-being-stolen", pre: 4, next: true, aged: true, delay: -1, thiefPre: 2, keep: true,
		threads: [][]xop{{xGet}, {xSteal, xStealNext}, {xStealT1}}, bound3: true},
	// The same with no delay, where every steal may end at the slot.
	{name: "steal-into-stolen-no-delay", pre: 2, next: true, delay: 0, thiefPre: 1, keep: true,
		threads: [][]xop{{xPutNext}, {xStealNext}, {xStealT1}}, long: true},
}

// xExec is the state of one execution that the threads share, one at a
// time, and the check reads after they are done.
type xExec struct {
	s        xScenario
	victim   *runnext.Queue[int]
	owns     []*runnext.Queue[int] // thread k's own queue (nil for the owner)
	rec      *linearize.Recorder
	outs     [][]int        // what each thread consumed
	owned    []*int         // the owner's new tasks, made in build
	lastGot  *int           // the task the owner's last Get returned
	filled   map[*int]int64 // the virtual time of each task's latest fill of the victim's slot
	put      []int          // every id put anywhere, once per put
	thiefOwn map[*int]bool  // the tasks the thieves' queues started with
	errs     []error        // failures the threads saw (the delay guarantee)
}

// xRun builds one execution of s: fresh queues, a recorder, the threads
// and the oracles.
func (s xScenario) xRun() explore.Run {
	victim := new(runnext.Queue[int])
	if s.delay >= 0 {
		victim.SetStealDelay(s.delay)
	}
	explore.Name(victim, "victim")
	x := &xExec{s: s, victim: victim, filled: map[*int]int64{}, thiefOwn: map[*int]bool{},
		owns: make([]*runnext.Queue[int], len(s.threads))}
	made := 0
	newTask := func() *int {
		p := new(int)
		*p = made
		explore.Name(p, fmt.Sprintf("task%d", made)) // traces show &task3, not an address
		made++
		return p
	}
	init := linState{next: linNone}
	for range s.pre {
		p := newTask()
		victim.Put(p, nil)
		init.ring = append(init.ring, *p)
		x.put = append(x.put, *p)
	}
	if s.next {
		p := newTask()
		init.nextAt = atomicx.Nanotime()
		victim.PutNext(p, nil)
		x.filled[p] = init.nextAt
		init.next = *p
		x.put = append(x.put, *p)
	}
	if s.aged {
		atomicx.Sleep(victim.StealDelay())
	}
	for k := 1; k < len(s.threads); k++ {
		own := new(runnext.Queue[int])
		if s.delay >= 0 {
			own.SetStealDelay(s.delay)
		}
		explore.Name(own, fmt.Sprintf("thief%d", k))
		for range s.thiefPre {
			p := newTask()
			own.Put(p, nil)
			x.thiefOwn[p] = true
			x.put = append(x.put, *p)
		}
		x.owns[k] = own
	}
	// The owner's tasks are made here, so that its thread touches no shared
	// state to make them.
	for range 4 {
		x.owned = append(x.owned, newTask())
	}

	x.rec = linearize.New(s.name)
	x.outs = make([][]int, len(s.threads))
	threads := make([]func(), len(s.threads))
	for k, ops := range s.threads {
		c := x.rec.Client(k)
		threads[k] = func() {
			for _, op := range ops {
				x.do(k, op, c)
			}
		}
	}
	return explore.Run{
		Threads: threads,
		Check: func() error {
			if len(x.errs) > 0 {
				return x.errs[0]
			}
			consumed := slices.Concat(x.outs...)
			consumed = append(consumed, linIDs(victim.Drain(nil))...)
			for _, own := range x.owns[1:] {
				consumed = append(consumed, linIDs(own.Drain(nil))...)
			}
			if !slices.Equal(sorted(consumed), sorted(x.put)) {
				return fmt.Errorf("conservation: tasks out %v, want %v (each put once)", sorted(consumed), sorted(x.put))
			}
			if s.keep {
				return nil
			}
			res, err := x.rec.Check(linModel(init, victim.StealDelay()), 0)
			if err != nil {
				return fmt.Errorf("linearizability: %w (%d operations)", err, res.Operations)
			}
			return nil
		},
	}
}

// do runs one operation of thread k, records it, and notes what it
// consumed.
func (x *xExec) do(k int, op xop, c *linearize.Client) {
	victim, own := x.victim, x.owns[k]
	switch op {
	case xPutNext, xPut, xRespawn:
		var p *int
		switch {
		case op != xRespawn:
			p, x.owned = x.owned[0], x.owned[1:]
		case x.lastGot != nil:
			p, x.lastGot = x.lastGot, nil
			x.outs[k] = slices.DeleteFunc(x.outs[k], func(v int) bool { return v == *p }) // it runs again later
		default:
			return // the owner's Get found nothing to spawn again
		}
		kind, put := linPutNext, victim.PutNext
		if op == xPut {
			kind, put = linPut, victim.Put
		}
		at := atomicx.Nanotime() // the fill's time: the clock cannot move while this thread can run
		c.Begin(linInput{kind: kind, items: []int{*p}, at: at})
		spill := linIDs(put(p, nil))
		if kind == linPutNext {
			x.filled[p] = at
		}
		if op != xRespawn {
			x.put = append(x.put, *p)
		}
		c.End(linOutput{items: spill})
		x.outs[k] = append(x.outs[k], spill...)
	case xGet:
		c.Begin(linInput{kind: linGet})
		p, inherit := victim.Get()
		if p == nil {
			c.End(linOutput{flag: inherit})
			return
		}
		c.End(linOutput{items: []int{*p}, flag: inherit})
		x.lastGot = p
		x.outs[k] = append(x.outs[k], *p)
	case xDrain:
		c.Begin(linInput{kind: linDrain})
		got := linIDs(victim.Drain(nil))
		c.End(linOutput{items: got})
		x.outs[k] = append(x.outs[k], got...)
	case xSleep:
		atomicx.Sleep(time.Microsecond)
	case xSleepDelay:
		atomicx.Sleep(victim.StealDelay())
	case xSteal, xStealNext:
		stealNext := op == xStealNext
		start := atomicx.Nanotime()
		if x.s.keep {
			p, fromSlot := runnext.StealHalfFrom(victim, own, stealNext)
			x.checkDelay(k, p, fromSlot, start)
			if p != nil {
				x.outs[k] = append(x.outs[k], *p)
			}
			return
		}
		c.Begin(linInput{kind: linStealHalf, stealNext: stealNext})
		p, fromSlot := runnext.StealHalfFrom(victim, own, stealNext)
		at := atomicx.Nanotime() // the time of the steal: the clock cannot move while this thread can run
		// own is the thief's: what it holds but its own tasks is what the
		// steal published. Its own tasks go back, so that it stays non-empty.
		var got []int
		for _, q := range own.Drain(nil) {
			if x.thiefOwn[q] {
				own.Put(q, nil)
			} else {
				got = append(got, *q)
			}
		}
		x.checkDelay(k, p, fromSlot, start)
		if p != nil {
			got = append(got, *p)
		}
		c.End(linOutput{items: got, at: at})
		x.outs[k] = append(x.outs[k], got...)
	case xStealT1:
		if p := x.owns[1].StealHalf(own, true); p != nil {
			x.outs[k] = append(x.outs[k], *p)
		}
	case xEmpty:
		c.Begin(linInput{kind: linEmpty})
		c.End(linOutput{flag: victim.Empty()})
	default:
		panic(fmt.Sprintf("xDo: unknown op %d", op))
	}
}

// checkDelay judges a steal by thread k that began at start: if it took
// the victim's runnext task p, the thief must have waited the delay from
// its own look, which came after both the call began and p's fill.
func (x *xExec) checkDelay(k int, p *int, fromSlot bool, start int64) {
	if !fromSlot {
		return
	}
	now := atomicx.Nanotime()
	fill, ok := x.filled[p]
	if !ok {
		x.errs = append(x.errs, fmt.Errorf("thief %d took task %d from the slot, which was never put there", k, *p))
		return
	}
	if seen := max(start, fill); now-seen < int64(x.victim.StealDelay()) {
		x.errs = append(x.errs, fmt.Errorf("steal delay: thief %d took runnext task %d at %v, %v after it could first have seen it (call at %v, fill at %v), want at least %v",
			k, *p, time.Duration(now), time.Duration(now-seen), time.Duration(start), time.Duration(fill), x.victim.StealDelay()))
	}
}

// xExactlyOnce reports whether ids holds each of 0..n-1 exactly once.
func xExactlyOnce(ids []int, n int) bool {
	if len(ids) != n {
		return false
	}
	for i, v := range sorted(ids) {
		if v != i {
			return false
		}
	}
	return true
}

func sorted(ids []int) []int { s := slices.Clone(ids); slices.Sort(s); return s }

// exploreRunnext runs every scenario but the long ones and returns the
// first failure, for the kill matrix; t only receives logs.
func exploreRunnext(t testing.TB) error { return exploreCases(t, runnextCases()) }

// xCase is a scenario as TestExplore* and the kill matrix run it.
type xCase struct {
	name  string // the subtest's
	watch string // the watchdog's
	long  bool   // long mode only
	opts  explore.Options
	run   func() explore.Run
}

func runnextCases() []xCase {
	var cs []xCase
	for _, s := range xScenarios {
		cs = append(cs, xCase{s.name, "runnext explore " + s.name, s.long, s.options(), s.xRun})
	}
	return cs
}

// exploreCases explores each case but the long ones, each under a
// watchdog, and returns the first failure; t only receives logs.
func exploreCases(t testing.TB, cs []xCase) error {
	for _, c := range cs {
		if c.long {
			continue
		}
		stop := watchdog.Start(c.watch, xDeadline(), nil)
		res, err := explore.Explore(c.opts, c.run)
		stop()
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

// testExploreCases checks each case in a subtest (the long ones in long
// mode only): every interleaving within the bound, explored to the end.
func testExploreCases(t *testing.T, cs []xCase) {
	for _, c := range cs {
		t.Run(c.name, func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("long mode only")
			}
			defer watchdog.Start(c.watch, xDeadline(), nil)()
			res := explore.Check(t, c.opts, c.run)
			if !res.Complete && !res.Replayed {
				t.Errorf("exploration of %s was cut short at %d executions", c.name, res.Executions)
			}
		})
	}
}

// options are the explorer's options for s: its own, the bound 3 of long
// mode where it asks for it, and a cap on executions.
func (s xScenario) options() explore.Options {
	opts := s.opts
	opts.Name = "runnext-" + s.name
	opts.MaxExecutions = 200000
	if s.bound3 && !testing.Short() {
		opts.Bound = 3
	}
	return opts
}

// xDeadline is a scenario's wall-clock limit: a hang is reported with every
// goroutine's stack, not as the test binary's timeout.
func xDeadline() time.Duration {
	if testing.Short() {
		return 2 * time.Minute
	}
	return 8 * time.Minute
}

func TestExploreRunnext(t *testing.T) { testExploreCases(t, runnextCases()) }

// TestExploreTwoOwnersPanic: two goroutines calling PutNext on one empty
// queue at once (a misuse: PutNext is an owner method) is detected in some
// interleaving, where one finds the slot filled under it, and panics naming
// the call rather than losing a task.
func TestExploreTwoOwnersPanic(t *testing.T) {
	res, err := explore.Explore(explore.Options{Name: "runnext-two-owners"}, func() explore.Run {
		q := new(runnext.Queue[int])
		explore.Name(q, "q")
		a, b := item(1), item(2)
		return explore.Run{Threads: []func(){
			func() { q.PutNext(a, nil) },
			func() { q.PutNext(b, nil) },
		}}
	})
	if errors.Is(err, explore.ErrNoSchedcheck) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Summary())
	var pe *explore.PanicError
	if res.Failure == nil || !errors.As(res.Failure.Err, &pe) {
		t.Fatalf("no interleaving of two concurrent PutNexts panicked: %+v", res.Failure)
	}
	want := "runnext: Queue.PutNext: the slot filled up under the owner: owner methods called concurrently"
	if runnext.Checked {
		want = "runnext: Queue.PutNext: owner methods called by two goroutines at once" // the checked build's guard comes first
	}
	if msg := fmt.Sprint(pe.Value); msg != want {
		t.Fatalf("panicked with %q, want %q", msg, want)
	}
	t.Logf("schedule %s: %v", res.Failure.Schedule, pe.Value)
}

// emptyAcrossPutRun is Empty against an owner that puts a task into the
// ring and runs its runnext task (thread 1), then spawns a new runnext task
// and steals the put task into another queue, as a thief would (thread 2,
// once thread 1 is done: the owner's methods stay on one thread at a
// time). The queue holds a task at every instant, so Empty must say false.
// Empty reads the ring, the slot and the ring again between two reads of
// seq; SeqBeforePut lets its first read of seq see the bump of a put not
// yet in the ring. It takes three preemptions: two of Empty, one in the
// Put.
func emptyAcrossPutRun() explore.Run {
	q := new(runnext.Queue[int])
	explore.Name(q, "victim")
	a, b, c := item(1), item(2), item(3)
	q.PutNext(a, nil)
	var ownerDone atomicx.Note
	var stage atomicx.Int32 // 1 once the Put has returned, 2 once the steal has
	explore.Name(&ownerDone, "ownerDone")
	explore.Name(&stage, "stage")
	var got, stolen *int
	var empty bool
	return explore.Run{
		Threads: []func(){
			func() {
				q.Put(b, nil)
				stage.Store(1)
				got, _ = q.Get()
				ownerDone.Wakeup()
			},
			func() {
				ownerDone.Sleep()
				q.PutNext(c, nil)
				var thief runnext.Queue[int]
				stolen = q.StealHalf(&thief, false)
				stage.Store(2)
			},
			func() {
				before := stage.Load()
				empty = q.Empty()
				if before == 0 && stage.Load() == 2 {
					explore.Reached(emptySpanned)
				}
			},
		},
		Check: func() error {
			if got != a || stolen != b {
				return fmt.Errorf("the owner's Get returned task %d and the steal task %d, want 1 and 2", id(got), id(stolen))
			}
			if empty {
				return errors.New("Empty said true; the queue held a task at every instant")
			}
			return nil
		},
	}
}

// emptySpanned labels the racy shape: one Empty call began before the Put
// returned and ended after the steal.
const emptySpanned = "Empty spanned the Put and the steal"

// emptyAcrossPutOptions: bound 3 is complete in about 2000 executions.
var emptyAcrossPutOptions = explore.Options{Name: "runnext-empty-across-put", Bound: 3, MustReach: []string{emptySpanned}}

func TestExploreEmptyAcrossPut(t *testing.T) {
	explore.Check(t, emptyAcrossPutOptions, emptyAcrossPutRun)
}
