package expvars

import (
	"context"
	"encoding/json"
	"expvar"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/schedkit/schedkit/executor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// checkVar reads the published variable's JSON and compares it with want.
func checkVar(name string, want executor.Stats) error {
	v := expvar.Get(name)
	if v == nil {
		return fmt.Errorf("%s is not published", name)
	}
	var got executor.Stats
	if err := json.Unmarshal([]byte(v.String()), &got); err != nil {
		return err
	}
	if !assert.ObjectsAreEqual(want, got) {
		return fmt.Errorf("%s = %+v, want %+v", name, got, want)
	}
	return nil
}

// workload runs 50 tasks from outside, each with a local spawn and a group
// of one, on 2 Ps, and closes the executor.
func workload(t *testing.T, e *executor.Executor) {
	for range 50 {
		require.NoError(t, e.Go(func(t executor.Task) {
			t.Go(func(executor.Task) {})
			g, _ := t.NewGroup(context.Background())
			g.Go(func(executor.Task) error { return nil })
			_ = g.Wait()
		}))
	}
	require.NoError(t, e.Close())
}

func TestPublishedJSONIsStats(t *testing.T) {
	e, err := executor.New(executor.Config{Procs: 2})
	require.NoError(t, err)
	Publish("schedkit_test_json", e)
	require.NoError(t, checkVar("schedkit_test_json", e.Stats()), "before the workload")
	workload(t, e)
	s := e.Stats()
	assert.Equal(t, uint64(150), s.Total.Tasks)
	assert.Equal(t, uint64((50+executor.LatencySample-1)/executor.LatencySample), s.Latency.Count)
	require.NoError(t, checkVar("schedkit_test_json", s), "after it")

	var raw map[string]any
	require.NoError(t, json.Unmarshal([]byte(expvar.Get("schedkit_test_json").String()), &raw))
	assert.Len(t, raw["Procs"], 2, "one entry per P")
}

// A var that snapshots Stats once (not at each read) must fail the check.
func TestJSONCheckCatchesStaleVar(t *testing.T) {
	e, err := executor.New(executor.Config{Procs: 2})
	require.NoError(t, err)
	stale := e.Stats()
	expvar.Publish("schedkit_test_stale", expvar.Func(func() any { return stale }))
	workload(t, e)
	assert.Error(t, checkVar("schedkit_test_stale", e.Stats()))
}

func TestPublishTwicePanics(t *testing.T) {
	e, err := executor.New(executor.Config{Procs: 1})
	require.NoError(t, err)
	defer func() { require.NoError(t, e.Close()) }()
	Publish("schedkit_test_twice", e)
	assert.PanicsWithValue(t, "expvars.Publish: the name schedkit_test_twice is already published",
		func() { Publish("schedkit_test_twice", e) })
	assert.PanicsWithValue(t, "expvars.Func: nil executor", func() { Func(nil) })
}
