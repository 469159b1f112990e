package future_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/watchdog"
)

// newExec is an executor closed at the test's end, under a watchdog.
func newExec(t *testing.T, cfg executor.Config) *executor.Executor {
	t.Helper()
	d := 9 * time.Minute
	if testing.Short() {
		d = 3 * time.Minute
	}
	stop := watchdog.Start(t.Name()+": a test with an executor", d, nil)
	t.Cleanup(stop)
	e, err := executor.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// gate holds a future's func parked (Task.Waker/Park, as the executor's
// mailbox test structure) until the test opens it, so a test decides when
// each result is set.
type gate struct {
	mu    sync.Mutex
	open  bool
	k     executor.Waker
	waits bool
}

// wait parks t until the gate is open.
func (g *gate) wait(t executor.Task) {
	g.mu.Lock()
	if g.open {
		g.mu.Unlock()
		return
	}
	k := t.Waker()
	g.k, g.waits = k, true
	g.mu.Unlock()
	t.Park(k)
}

// release opens the gate, readying its task (by: the zero Task from
// outside); it reports whether a task was parked on it.
func (g *gate) release(by executor.Task) bool {
	g.mu.Lock()
	g.open = true
	k, waits := g.k, g.waits
	g.waits = false
	g.mu.Unlock()
	if waits {
		k.Ready(by)
	}
	return waits
}

// scenario is a deterministic check run in a synctest bubble.
type scenario func() error

// bubble runs s in a synctest bubble and returns its error. A mutant that
// leaves tasks parked for ever makes the bubble's end panic (goroutines
// left blocked): the scenario's own error is returned then, or the panic's.
func bubble(t *testing.T, s scenario) (err error) {
	stop := watchdog.Start(t.Name()+": a synctest bubble's scenario", time.Minute, nil)
	defer stop()
	var serr error
	defer func() {
		if r := recover(); r != nil {
			err = serr
			if err == nil {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	synctest.Test(t, func(*testing.T) { serr = s() })
	return serr
}

// bubbles runs each scenario in its own bubble, the first error ends it.
func bubbles(ss ...scenario) func(*testing.T) error {
	return func(t *testing.T) error {
		for _, s := range ss {
			if err := bubble(t, s); err != nil {
				return err
			}
		}
		return nil
	}
}

// runtimeGoexit is runtime.Goexit, named for the model's funcs.
func runtimeGoexit() { runtime.Goexit() }

// settle lets the bubble run until nothing more can happen: fake time
// moves on past sysmon's rounds, a slice and the steal delay (progress an
// M or sysmon makes only when a timer fires: a thief's wait for a
// runnext, a retake), then synctest.Wait returns once every goroutine is
// durably blocked. It costs no real time.
func settle() {
	time.Sleep(100 * time.Millisecond)
	synctest.Wait()
}
