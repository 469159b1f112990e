package executor_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/realtime"
)

// TestRealtimeSleepNeverEarly: on the real clock, at GOMAXPROCS 1 and 2,
// alone and beside a busy process on every core, tasks sleeping random
// durations (0.1 to 3 ms) each wake no earlier than asked (time.Sleep's
// promise; time's TestSleep), and every timer fires once. How late they
// wake depends on the machine's load, so it is logged, not judged: the
// bubble tests (timer_test.go) judge lateness on an exact clock.
func TestRealtimeSleepNeverEarly(t *testing.T) {
	rtSkipChecked(t)
	for _, contended := range []bool{false, true} {
		for _, gmp := range []int{1, 2} {
			t.Run(fmt.Sprintf("GOMAXPROCS=%d/contended=%v", gmp, contended), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(gmp))
				if contended {
					c, err := realtime.Contend(runtime.NumCPU(), time.Minute)
					require.NoError(t, err)
					defer c.Stop()
				}
				e := newExec(t, executor.Config{Procs: gmp})
				const n = 200
				var mu sync.Mutex
				var early []string
				var worst time.Duration
				r := rand.New(rand.NewPCG(uint64(gmp), 7))
				for i := range n {
					d := time.Duration(100+r.IntN(2900)) * time.Microsecond
					require.NoError(t, e.Go(func(t executor.Task) {
						t0 := time.Now()
						_ = t.Sleep(d)
						slept := time.Since(t0)
						mu.Lock()
						defer mu.Unlock()
						if slept < d {
							early = append(early, fmt.Sprintf("task %d slept %v of %v", i, slept, d))
						}
						worst = max(worst, slept-d)
					}))
				}
				require.NoError(t, e.Close())
				require.Empty(t, early, "woke early")
				require.Equal(t, uint64(n), e.Stats().TimersFired)
				t.Logf("%d sleepers, the latest woke %v late (%d late past %v by Stats)", n, worst, e.Stats().TimersLate, executor.LateTimer)
			})
		}
	}
}
