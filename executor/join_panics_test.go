package executor_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// TestJoinPanicsCounted (issue 22, section 4): a panic in a Join's side,
// or a runtime.Goexit, counts once in Stats.Total.Panics, whether b ran
// inline on the joining task or on a thief: before, a panic in b counted
// only when a thief ran it, and a Goexit in a stolen b counted twice (the
// thief's run, then the joiner's task ending). Each case runs in a
// synctest bubble on 2 Ps, b stolen (a sleeps 1ms while the other M
// steals it from the ring; b sleeps 2ms) or not (1 P, b inline), and
// checks which way b ran.
func TestJoinPanicsCounted(t *testing.T) {
	for _, stolen := range []bool{false, true} {
		for _, c := range []struct {
			name         string
			aDoes, bDoes string // "", "panic" or "goexit"
			want         uint64
		}{
			{"b-panics", "", "panic", 1},
			{"b-goexits", "", "goexit", 1},
			{"a-panics", "panic", "", 1},
			{"a-goexits", "goexit", "", 1},
			{"both-panic", "panic", "panic", 2},
		} {
			t.Run(fmt.Sprintf("%s/stolen=%v", c.name, stolen), func(t *testing.T) {
				require.NoError(t, inBubble(t, joinPanicCount(stolen, c.aDoes, c.bDoes, c.want)))
			})
		}
	}
}

var errJoinSide = errors.New("a Join side's panic")

func joinSideDoes(what string) {
	switch what {
	case "panic":
		panic(errJoinSide)
	case "goexit":
		runtime.Goexit()
	}
}

func joinPanicCount(stolen bool, aDoes, bDoes string, want uint64) scenario {
	return func(*testing.T) error {
		procs := 1
		if stolen {
			procs = 2
		}
		var reported atomic.Int64
		e, err := executor.New(executor.Config{Procs: procs, PanicHandler: func(*executor.PanicError) { reported.Add(1) }})
		if err != nil {
			return err
		}
		var thief atomic.Bool
		var joinErr atomic.Pointer[error]
		if err := e.Go(func(tk executor.Task) {
			err := tk.Join(func(executor.Task) {
				if stolen {
					time.Sleep(time.Millisecond)
				}
				joinSideDoes(aDoes)
			}, func(bt executor.Task) {
				thief.Store(bt != tk)
				if stolen {
					time.Sleep(2 * time.Millisecond)
				}
				joinSideDoes(bDoes)
			})
			joinErr.Store(&err)
		}); err != nil {
			return err
		}
		time.Sleep(10 * time.Millisecond)
		if err := e.Close(); err != nil {
			return err
		}
		goexit := aDoes == "goexit" || bDoes == "goexit"
		switch p := joinErr.Load(); {
		case thief.Load() != stolen:
			return fmt.Errorf("b ran on a thief: %v, want %v (the scenario no longer tests its path)", thief.Load(), stolen)
		case goexit && p != nil:
			return fmt.Errorf("the task went on after a Goexit (Join returned %v)", *p)
		case !goexit && (p == nil || !errors.Is(*p, errJoinSide)):
			return fmt.Errorf("Join returned %v, want the side's panic", p)
		}
		if got := e.Stats().Total.Panics; got != want {
			return fmt.Errorf("Stats.Total.Panics = %d, want %d (a: %q, b: %q, b stolen: %v)", got, want, aDoes, bDoes, stolen)
		}
		return nil
	}
}
