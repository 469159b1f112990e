package executor

import (
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
