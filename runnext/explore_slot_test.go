package runnext_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/runnext"
)

// Bar item 5 for the Slot on its own: the Queue's scenarios reach the slot
// only through PutNext, Get and StealHalf, whose seq hides a fill from the
// thieves while a displaced task moves, so a fill that publishes its version
// before it stores its task (mutant PublishBeforeTask) survives them. Here
// Slot.Put, Take and Steal meet directly, under every interleaving within
// the preemption bound, judged by conservation (every task made comes out
// exactly once), the steal delay as the thief observed it, and porcupine on
// the victim slot's history against slotModel.

// sop is one operation of a slot scenario's thread. Thread 0 owns the
// victim slot; each other thread owns a slot of its own.
type sop uint8

const (
	sPut      sop = iota // owner: Put a new task; what it displaces is consumed
	sTake                // owner: Take
	sSleep               // owner: sleep 1µs on the virtual clock, into a thief's wait
	sSteal               // thief: Steal from the victim
	sStealPut            // thief: Steal from the victim and Put the task into its own slot, as a P spawns
	sStealT1             // thief: Steal from thread 1's own slot (a thief that is itself a victim)
	sRespawn             // owner: Put the task its last Take returned, the same pointer (ABA)
)

// sScenario is a victim slot that starts holding a task if full (aged: it
// has sat for the delay before the threads start), and the threads' ops.
type sScenario struct {
	name    string
	full    bool
	aged    bool
	delay   time.Duration // -1: the default, StealDelay
	threads [][]sop
}

var sScenarios = []sScenario{
	// Put displaces an old task while a thief steals it: one of them gets
	// it, and the thief never gets the old task once the new one is in.
	{name: "put-vs-steal", full: true, aged: true, delay: -1, threads: [][]sop{{sPut}, {sSteal}}},
	{name: "put-vs-steal-no-delay", full: true, delay: 0, threads: [][]sop{{sPut}, {sSteal}}},
	// A fill of an empty slot while a thief looks: a thief that reads the
	// cell between a publish and its store takes nil or the last task.
	{name: "fill-empty-vs-steal", delay: 0, threads: [][]sop{{sPut, sPut}, {sSteal}}},
	{name: "fill-empty-vs-steal-delay", delay: -1, threads: [][]sop{{sPut, sSleep, sPut}, {sSteal}}},
	// The owner's Take against a thief's Steal of one aged task.
	{name: "take-vs-steal", full: true, aged: true, delay: -1, threads: [][]sop{{sTake}, {sSteal}}},
	{name: "take-vs-steal-no-delay", full: true, delay: 0, threads: [][]sop{{sTake}, {sSteal}}},
	// ABA: 1µs into the thief's wait the owner takes its task and puts the
	// same pointer back, a new occupancy the thief must wait for in full.
	{name: "aba-same-pointer-reput", full: true, delay: -1, threads: [][]sop{{sSleep, sTake, sRespawn}, {sSteal}}},
	{name: "put-take-put-vs-steal", full: true, delay: 0, threads: [][]sop{{sPut, sTake, sPut}, {sSteal}}},
	// Two thieves at once, against a Take and against a displacing Put.
	{name: "take-vs-two-thieves", full: true, aged: true, delay: -1, threads: [][]sop{{sTake}, {sSteal}, {sSteal}}},
	{name: "put-vs-two-thieves", full: true, delay: 0, threads: [][]sop{{sPut}, {sSteal}, {sSteal}}},
	// A thief that is itself a victim: thread 1 steals from the victim and
	// puts the task into its own slot, displacing what it held, while thread
	// 2 steals from thread 1's slot and the owner puts.
	{name: "thief-is-victim", full: true, delay: 0, threads: [][]sop{{sPut}, {sStealPut}, {sStealT1}}},
}

// sExec is one execution's shared state.
type sExec struct {
	s      sScenario
	slots  []*runnext.Slot[int] // thread k's own slot; slots[0] is the victim
	outs   [][]int              // what each thread consumed
	made   []int                // every task made, once
	fresh  [][]*int             // the tasks each thread may Put, made in build
	filled map[*int]int64       // the virtual time of each task's latest fill
	fills  []*linearize.Client  // thread k's record of the fill half of its Puts
	taken  *int                 // the task the owner's last Take returned
	errs   []error
}

// sRun builds one execution of s.
func (s sScenario) sRun() explore.Run {
	x := &sExec{s: s, filled: map[*int]int64{}, outs: make([][]int, len(s.threads)), fresh: make([][]*int, len(s.threads))}
	newTask := func() *int {
		p := new(int)
		*p = len(x.made)
		explore.Name(p, fmt.Sprintf("task%d", *p))
		x.made = append(x.made, *p)
		return p
	}
	for k := range s.threads {
		sl := new(runnext.Slot[int])
		if s.delay >= 0 {
			sl.SetStealDelay(s.delay)
		}
		explore.Name(sl, fmt.Sprintf("slot%d", k))
		x.slots = append(x.slots, sl)
		for range 3 {
			x.fresh[k] = append(x.fresh[k], newTask())
		}
	}
	victim := x.slots[0]
	init := linNone
	if s.full {
		p := newTask()
		x.filled[p] = atomicx.Nanotime()
		victim.Put(p)
		init = *p
	}
	if s.aged {
		atomicx.Sleep(victim.StealDelay())
	}
	rec := linearize.New("slot-" + s.name)
	threads := make([]func(), len(s.threads))
	x.fills = make([]*linearize.Client, len(s.threads))
	for k, ops := range s.threads {
		c := rec.Client(k)
		x.fills[k] = rec.Client(len(s.threads) + k)
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
			for k, sl := range x.slots {
				if p := sl.Take(); p != nil {
					consumed = append(consumed, *p)
				}
				for _, p := range x.fresh[k] { // made but never put
					consumed = append(consumed, *p)
				}
			}
			if !slices.Equal(sorted(consumed), sorted(x.made)) {
				return fmt.Errorf("conservation: tasks out %v, want %v (each made once)", sorted(consumed), sorted(x.made))
			}
			res, err := rec.Check(slotModel(init), 0)
			if err != nil {
				return fmt.Errorf("linearizability of the victim slot: %w (%d operations)", err, res.Operations)
			}
			return nil
		},
	}
}

// slotIn and slotOut are a victim slot operation's input and output; a
// task is its id, linNone for none. A Put is recorded as a take (sTake,
// whose output is the task displaced) and a fill (sPut), each over the
// whole call.
type slotIn struct {
	op   sop // sPut (a fill), sTake or sSteal (a steal of any kind)
	task int // sPut: the task put
}

type slotOut struct{ task int } // Take, Steal: the task taken; a fill: linNone

// slotModel is the sequential slot: one task or none. A fill needs the
// slot empty; Take and Steal empty it and return its task. The delay only
// narrows when a steal can happen, so it is checked apart.
func slotModel(init int) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return init },
		Step: func(state, input, output any) (bool, any) {
			cur, in, out := state.(int), input.(slotIn), output.(slotOut)
			if in.op == sPut {
				return cur == linNone, in.task
			}
			return out.task == cur, linNone
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(slotIn), output.(slotOut)
			switch in.op {
			case sPut:
				return fmt.Sprintf("fill(%d)", in.task)
			case sTake:
				return fmt.Sprintf("Take() -> %d", out.task)
			}
			return fmt.Sprintf("Steal() -> %d", out.task)
		},
	}
}

func slotID(p *int) int {
	if p == nil {
		return linNone
	}
	return *p
}

// do runs one op of thread k; c records the ops on the victim slot.
func (x *sExec) do(k int, op sop, c *linearize.Client) {
	victim, own := x.slots[0], x.slots[k]
	put := func(sl *runnext.Slot[int], p *int, rec bool) {
		x.filled[p] = atomicx.Nanotime() // the fill's time: the clock cannot move while this thread can run
		if rec {
			// Put is a take, then a fill: a thief may find the slot empty in
			// between. Its halves are two operations, each spanning the call.
			c.Begin(slotIn{op: sTake})
			x.fills[k].Begin(slotIn{op: sPut, task: *p})
		}
		d := sl.Put(p)
		if rec {
			c.End(slotOut{task: slotID(d)})
			x.fills[k].End(slotOut{task: linNone})
		}
		if d != nil {
			x.outs[k] = append(x.outs[k], *d)
		}
	}
	steal := func(from *runnext.Slot[int], rec bool) *int {
		start := atomicx.Nanotime()
		if rec {
			c.Begin(slotIn{op: sSteal})
		}
		p := from.Steal()
		if rec {
			c.End(slotOut{task: slotID(p)})
		}
		if p != nil {
			fill, ok := x.filled[p]
			now := atomicx.Nanotime()
			switch {
			case !ok:
				x.errs = append(x.errs, fmt.Errorf("thread %d stole task %d, which was never put", k, *p))
			case now-max(start, fill) < int64(from.StealDelay()):
				x.errs = append(x.errs, fmt.Errorf("steal delay: thread %d stole task %d %v after it could first have seen it, want at least %v",
					k, *p, time.Duration(now-max(start, fill)), from.StealDelay()))
			}
		}
		return p
	}
	switch op {
	case sPut:
		var p *int
		p, x.fresh[k] = x.fresh[k][0], x.fresh[k][1:]
		put(victim, p, true)
	case sTake:
		c.Begin(slotIn{op: sTake})
		p := victim.Take()
		c.End(slotOut{task: slotID(p)})
		if p != nil {
			x.outs[k] = append(x.outs[k], *p)
		}
		x.taken = p
	case sRespawn:
		if p := x.taken; p != nil {
			x.outs[k] = slices.DeleteFunc(x.outs[k], func(v int) bool { return v == *p }) // it runs again later
			put(victim, p, true)
		}
	case sSleep:
		atomicx.Sleep(time.Microsecond)
	case sSteal:
		if p := steal(victim, true); p != nil {
			x.outs[k] = append(x.outs[k], *p)
		}
	case sStealPut:
		if p := steal(victim, true); p != nil {
			put(own, p, false) // it runs later, from the thief's own slot, or a thief of the thief takes it
		}
	case sStealT1:
		if p := steal(x.slots[1], false); p != nil {
			x.outs[k] = append(x.outs[k], *p)
		}
	default:
		panic(fmt.Sprintf("slot scenario: unknown op %d", op))
	}
}

// options are the explorer's options for s.
func (s sScenario) options() explore.Options {
	return explore.Options{Name: "runnext-slot-" + s.name, MaxExecutions: 200000, LongBound: explore.LongBound}
}

// exploreSlots runs every slot scenario and returns the first failure, for
// the kill matrix; t only receives logs.
func exploreSlots(t testing.TB) error { return exploreCases(t, slotCases()) }

func slotCases() []xCase {
	var cs []xCase
	for _, s := range sScenarios {
		cs = append(cs, xCase{s.name, "runnext explore slot " + s.name, false, s.options(), s.sRun})
	}
	return cs
}

func TestExploreSlot(t *testing.T) { testExploreCases(t, slotCases()) }

// TestSlotModelRefutes proves slotModel can fail: a thief that takes the
// task a Put displaced (the owner has it too) and a fill that lands on a
// full slot are not linearizable; the same Put with the thief taking the
// new task is.
func TestSlotModelRefutes(t *testing.T) {
	op := func(client int, in slotIn, task int, call, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: in, Output: slotOut{task: task}, Call: call, Return: ret}
	}
	// Put(1) over task 0 (its take half returns 0, its fill half puts 1),
	// and a steal that overlaps it.
	history := func(stolen int) []porcupine.Operation {
		return []porcupine.Operation{
			op(0, slotIn{op: sTake}, 0, 1, 4),
			op(2, slotIn{op: sPut, task: 1}, linNone, 2, 5),
			op(1, slotIn{op: sSteal}, stolen, 3, 6),
		}
	}
	t.Setenv(linearize.DirEnv, t.TempDir())
	if _, err := linearize.CheckOperations("slot-legal", slotModel(0), history(1), 0); err != nil {
		t.Fatalf("a steal of the new task: %v", err)
	}
	if _, err := linearize.CheckOperations("slot-legal-empty", slotModel(0), history(linNone), 0); err != nil {
		t.Fatalf("a steal between the take and the fill: %v", err)
	}
	_, err := linearize.CheckOperations("slot-stale", slotModel(0), history(0), 0)
	if !errors.Is(err, linearize.ErrNotLinearizable) {
		t.Fatalf("a steal of the displaced task: %v, want not linearizable", err)
	}
	fillFull := []porcupine.Operation{op(2, slotIn{op: sPut, task: 1}, linNone, 1, 2)}
	if _, err := linearize.CheckOperations("slot-fill-full", slotModel(0), fillFull, 0); !errors.Is(err, linearize.ErrNotLinearizable) {
		t.Fatalf("a fill of a full slot: %v, want not linearizable", err)
	}
}
