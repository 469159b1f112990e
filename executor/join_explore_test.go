package executor

import (
	"errors"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
)

// The explorer on Task.Join (-tags schedcheck): the joining task on one
// P's M, the other P's M as a thief, the submitting thread closing. In
// every interleaving within the bound b runs once and the Join returns
// after it (ran[2] counts a Join that found b done); MustReach asks that
// both outcomes occur: b taken back by the Join, and b stolen.

// joinCase's b reports which way it ran.
func joinCase(name string, displace bool) exploreCase {
	return exploreCase{
		name: name, procs: 2, tasks: 4, want: []int32{1, 1, 1, 1},
		submit: func(e *Executor, ran []atomicx.Int32) {
			_ = e.Go(func(t Task) {
				if !displace {
					ran[3].Add(1)
				}
				err := t.Join(func(t Task) {
					ran[0].Add(1)
					if displace { // b goes to the ring, stealable without the delay
						t.Go(count(ran, 3))
					}
				}, func(bt Task) {
					ran[1].Add(1)
					if bt == t {
						explore.Reached("taken back")
					} else {
						explore.Reached("stolen")
					}
				})
				if err == nil && ran[1].Load() == 1 {
					ran[2].Add(1)
				}
			})
		},
	}
}

func TestExploreJoin(t *testing.T) {
	for _, c := range []exploreCase{joinCase("join-ring-vs-thief", true)} {
		t.Run(c.name, func(t *testing.T) {
			opts := exploreOptions(c)
			opts.MustReach = []string{"taken back", "stolen"}
			explore.Check(t, opts, c.run)
		})
	}
}

// The racy shapes of a Join whose b a thief runs (issue 22): the joiner
// helps, gives its P away and parks, or finds b done after giving it
// away, while the thief's finish marks the Join done and readies it; and
// a thief that is itself a victim, its own Join's b stolen by the first
// joiner while it helps. b panics, so a panic recorded after the done
// flag is lost shows too. joinHook names each step as the explorer
// reaches it; MustReach asks for every racy one, so a scenario that stops
// reaching one fails.

var joinBoom = errors.New("boom")

// joinPanicked counts ran[i] if err is b's panic.
func joinPanicked(ran []atomicx.Int32, i int, err error) {
	var pe *PanicError
	if errors.As(err, &pe) && !pe.Goexit && pe.Value == joinBoom {
		ran[i].Add(1)
	}
}

// joinRaceCases: the park-vs-finish shapes. a spawns x (to runnext; b
// waits in the ring), the other P's M (woken by the pushes) steals b
// without the runnext delay, and a sleeps until b has started there. The
// sleeps replace preemptions, which the bound keeps for the race itself.
// In park-vs-finish b sleeps until x has run (in the joiner's help), so
// the joiner goes on to park while b is about to finish; in
// finish-vs-park x then sleeps until b is about to finish, so the thief
// goes on to finish while the joiner is about to look again and park.
var joinRaceCases = []exploreCase{joinParkCase("join-park-vs-finish", false, false), joinParkCase("join-finish-vs-park", true, false)}

// joinParkCase: ran: a, x, b, Join returned b's panic (a's, if aPanics:
// then the Join waits from its deferred recover).
func joinParkCase(name string, xWaits, aPanics bool) exploreCase {
	return exploreCase{
		name: name, procs: 2, tasks: 4,
		submit: func(e *Executor, ran []atomicx.Int32) {
			var xRan, stolen, bEnds atomicx.Note
			explore.Name(&xRan, "xRan")
			explore.Name(&stolen, "bStolen")
			explore.Name(&bEnds, "bEnds")
			_ = e.Go(func(t Task) {
				err := t.Join(func(t Task) {
					ran[0].Add(1)
					t.Go(func(Task) {
						ran[1].Add(1)
						xRan.Wakeup()
						if xWaits {
							bEnds.Sleep()
						}
					})
					stolen.Sleep()
					if aPanics {
						panic(joinBoom)
					}
				}, func(bt Task) {
					ran[2].Add(1)
					if bt != t {
						explore.Reached("stolen")
						stolen.Wakeup()
						xRan.Sleep()
					}
					bEnds.Wakeup()
					panic(joinBoom)
				})
				joinPanicked(ran, 3, err)
			})
		},
	}
}

// joinVictimCases: the thief is a victim. b, stolen as above (a sleeps
// until it is), joins c and d on the thief's P; c spawns y (d to the
// ring) and, on the thief, sleeps until x has run, so the first joiner,
// helping, steals d from the thief's P (robbed) while the thief's own
// Join waits for d or finds it done. (d sleeping until y has run, for
// the thief's park against d's finish, took over 100000 executions: a
// third M is needed once both joiners sleep.) With it, park-vs-finish
// again with a panicking a, whose Join waits for b from its deferred
// recover.
var joinVictimCases = []exploreCase{
	joinParkCase("join-park-vs-finish-apanics", false, true),
	{
		// ran: a, x, b, c, y, d, b's Join returned d's panic, the
		// Join returned nil.
		name: "join-thief-victim", procs: 2, tasks: 8,
		submit: func(e *Executor, ran []atomicx.Int32) {
			var n, stolen atomicx.Note
			explore.Name(&n, "xRan")
			explore.Name(&stolen, "bStolen")
			_ = e.Go(func(t Task) {
				err := t.Join(func(t Task) {
					ran[0].Add(1)
					t.Go(func(Task) { ran[1].Add(1); n.Wakeup() })
					stolen.Sleep()
				}, func(bt Task) {
					ran[2].Add(1)
					if bt != t {
						stolen.Wakeup()
					}
					err := bt.Join(func(ct Task) {
						ran[3].Add(1)
						ct.Go(count(ran, 4))
						if bt != t {
							n.Sleep()
						}
					}, func(dt Task) {
						ran[5].Add(1)
						if bt != t && dt.w == t.w {
							explore.Reached("victim robbed by the joiner")
						}
						panic(joinBoom)
					})
					joinPanicked(ran, 6, err)
				})
				if err == nil {
					ran[7].Add(1)
				}
			})
		},
	},
}

// joinRun is c.run with joinHook reporting each step to the explorer.
func joinRun(c exploreCase) func() explore.Run {
	return func() explore.Run {
		joinHook = explore.Reached
		return c.run()
	}
}

// joinRaceReach is what each scenario must reach.
var joinRaceReach = map[string][]string{
	"join-park-vs-finish":         {"stolen", "parked", "park lost", "readied", "finished first"},
	"join-finish-vs-park":         {"stolen", "parked", "readied", "finished first"},
	"join-park-vs-finish-apanics": {"stolen", "parked", "park lost", "readied", "finished first"},
	"join-thief-victim":           {"victim robbed by the joiner", "parked", "park lost", "readied", "finished first"},
}

func TestExploreJoinRaces(t *testing.T) {
	// The scenarios run two at a time (each explores an executor of its
	// own), so joinHook is set once for them all, before, and cleared
	// after the last: joinRun would write it in every build, beside the
	// other scenario's reads. explore.Reached reports to the exploration
	// of the thread that calls it.
	joinHook = explore.Reached
	t.Cleanup(func() { joinHook = nil })
	for _, c := range slices.Concat(joinRaceCases, joinVictimCases) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			opts := exploreOptions(c)
			opts.MustReach = joinRaceReach[c.name]
			explore.Check(t, opts, c.run)
		})
	}
}

// ExploreJoinRaces runs the scenario of joinRaceCases or joinVictimCases
// named name at bound 1 for the kill matrix, with its MustReach (a cell
// per scenario: a mutant's cell stops at its first failure without
// exploring the scenarios before it); applicable is false without -tags
// schedcheck.
func ExploreJoinRaces(name string) (applicable bool, err error) {
	defer func() { joinHook = nil }()
	for _, c := range slices.Concat(joinRaceCases, joinVictimCases) {
		if c.name != name {
			continue
		}
		opts := exploreOptions(c)
		opts.MustReach = joinRaceReach[c.name]
		return exploreCell(c.name, opts, joinRun(c), true)
	}
	panic("executor: no Join race scenario " + name)
}
