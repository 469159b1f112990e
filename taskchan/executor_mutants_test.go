//go:build schedmutant

package taskchan_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/realtime"
)

// The checks of the executor's promises that this package makes on its
// own (a wake goes to the waker's runnext; a ping-pong pair cannot keep
// the P past its slice) must fail on the executor's seeded faults that
// break them: ReadySkipsRunnext (Waker.Ready queues globally) for
// pingPong; SysmonOff (no P is ever retaken) and PreemptKeepsNext (a
// retaken P's new M goes on with the runnext ping-pong) for pingpong-hog,
// whose window is four times the bound here, so that the starved pair's
// gap stands out of a loaded machine's stalls (over the bound, a round is
// inconclusive if the ticker stalled or the OS kept a thread off a CPU for
// the excess: a skip, not a pass).

func TestPingPongCatchesReadySkipsRunnext(t *testing.T) {
	restore, err := executor.SetMutation("ReadySkipsRunnext")
	require.NoError(t, err)
	defer restore()
	assert.ErrorContains(t, pingPong(1), "no wake went to the waker's runnext")
}

func TestPingPongHogCatchesStarvation(t *testing.T) {
	for _, m := range []string{"SysmonOff", "PreemptKeepsNext"} {
		t.Run(m, func(t *testing.T) { pingPongHogCatches(t, m) })
	}
}

func pingPongHogCatches(t *testing.T, mutation string) {
	restore, err := executor.SetMutation(mutation)
	require.NoError(t, err)
	defer restore()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	check := realtime.Check{Name: "pingpong-hog/" + mutation, Bound: rtBound, Rounds: 1, Retries: -1}
	r := check.Run(func(int) realtime.Sample { return rtPingPongHog(1, 4*rtBound) })
	if r.Verdict == realtime.Inconclusive {
		t.Skipf("inconclusive on this machine: %v", r)
	}
	assert.Equal(t, realtime.Fail, r.Verdict, "%v", r)
}
