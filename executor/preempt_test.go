package executor_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// pingPongSpawnFirst: on 1 P two tasks spawn each other through runnext,
// each spawning its partner first and then working 100µs (a sleep in the
// bubble), so sysmon's retake for the overrun slice finds the partner in
// runnext. The M the P is handed to must not let it inherit the slice:
// the task queued meanwhile (from outside, or localQueued: spawned
// locally into the ring before the partner) must run within a few
// slices. A retake that let runnext go first would hand the ping-pong
// from M to M for ever (here, until maxHops).
func pingPongSpawnFirst(localQueued bool) scenario {
	return func(*testing.T) error {
		e, err := executor.New(executor.Config{Procs: 1})
		if err != nil {
			return err
		}
		const maxHops = 20000 // two seconds of the bubble's clock
		var hops atomic.Int64
		var queuedRan atomic.Bool
		var submitted time.Time
		var waited time.Duration
		queued := func(executor.Task) {
			waited = time.Since(submitted)
			queuedRan.Store(true)
		}
		started := make(chan struct{})
		var ping func(executor.Task)
		ping = func(t executor.Task) {
			n := hops.Add(1)
			if n == 1 {
				if localQueued {
					submitted = time.Now()
					t.Go(queued) // displaced into the ring by the partner below
				} else {
					close(started)
				}
			}
			if !queuedRan.Load() && n < maxHops {
				t.Go(ping)
			}
			time.Sleep(100 * time.Microsecond)
		}
		if err := e.Go(ping); err != nil {
			return err
		}
		if !localQueued {
			<-started
			submitted = time.Now()
			if err := e.Go(queued); err != nil {
				return err
			}
		}
		if err := e.Close(); err != nil {
			return err
		}
		if !queuedRan.Load() {
			return fmt.Errorf("the queued task never ran")
		}
		if limit := 3 * executor.DefaultSlice; waited > limit {
			return fmt.Errorf("the queued task waited %v (%d hops) behind a runnext ping-pong that spawns first, want at most %v: after a retake the runnext task inherited the slice", waited, hops.Load(), limit)
		}
		return nil
	}
}

func TestPreemptedRunnextGoesBehind(t *testing.T) {
	for _, local := range []bool{false, true} {
		t.Run(fmt.Sprintf("localQueued=%v", local), func(t *testing.T) {
			require.NoError(t, inBubble(t, pingPongSpawnFirst(local)))
		})
	}
}
