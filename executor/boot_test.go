package executor_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// New starts Procs Ms and returns once they have parked: a submit made at
// once finds them idle. Before, a submit that came before the Ms' first
// park found none idle and made one more (newm), and the boot M it raced
// with then parked unused: 4 Ms at Procs 2 in a bubble.

// bootMs: on procs Ps, the first submit comes right after New (no
// synctest.Wait between them): one Go, or a GoBatch of 2*procs tasks
// that each spawn a child (every P busy at once). Every task runs once,
// and the executor made exactly Procs Ms: nothing blocked, so no M was
// ever needed beyond those New started.
func bootMs(procs int, batch bool) scenario {
	return func(*testing.T) error {
		e, l, err := countedExec(executor.Config{Procs: procs})
		if err != nil {
			return err
		}
		var ran atomic.Int64
		want := int64(1)
		if batch {
			fs := make([]func(executor.Task), 2*procs)
			for i := range fs {
				fs[i] = func(t executor.Task) {
					ran.Add(1)
					t.Go(func(executor.Task) { ran.Add(1) })
				}
			}
			want = int64(4 * procs)
			err = e.GoBatch(fs)
		} else {
			err = e.Go(func(executor.Task) { ran.Add(1) })
		}
		if err != nil {
			return err
		}
		if err := closeAndCheck(e, l); err != nil {
			return err
		}
		if ran.Load() != want {
			return fmt.Errorf("%d of %d tasks ran", ran.Load(), want)
		}
		if s := e.Stats(); s.Ms != procs {
			how := "a Go"
			if batch {
				how = "a GoBatch"
			}
			return fmt.Errorf("%s right after New on %d Ps made %d Ms, want %d (a submit before the boot Ms parked made more)",
				how, procs, s.Ms, procs)
		}
		return nil
	}
}

func TestBootMakesProcsMs(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		for _, batch := range []bool{false, true} {
			t.Run(fmt.Sprintf("procs=%d/batch=%v", procs, batch), func(t *testing.T) {
				require.NoError(t, inBubble(t, bootMs(procs, batch)))
			})
		}
	}
}

// TestBootMakesProcsMsReal: the same on the real runtime, GOMAXPROCS 1 and
// 2, 20 rounds of New and a Go at once: the count of Ms depends on no
// clock, only on New waiting for its Ms' first park.
func TestBootMakesProcsMsReal(t *testing.T) {
	for _, gmp := range []int{1, 2} {
		for _, procs := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("GOMAXPROCS=%d/procs=%d", gmp, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(gmp))
				within(t, time.Minute, "20 rounds of New, a Go and Close", func() {
					for round := range 20 {
						e, err := executor.New(executor.Config{Procs: procs})
						require.NoError(t, err)
						ran := make(chan struct{})
						require.NoError(t, e.Go(func(executor.Task) { close(ran) }))
						<-ran
						require.NoError(t, e.Close())
						require.Equal(t, procs, e.Stats().Ms, "round %d: a Go right after New made more Ms than Procs", round)
					}
				})
			})
		}
	}
}
