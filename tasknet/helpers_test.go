package tasknet_test

import (
	"net"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/watchdog"
	"github.com/schedkit/schedkit/tasknet"
)

// newExec makes an executor that the test closes, under a watchdog that
// ends a hung test with every goroutine's stack instead of a silent
// binary timeout. It also checks that the test leaves no descriptor open.
// Every test here does real I/O through it: it skips under -tags
// schedcheck (needRealPoller).
func newExec(t *testing.T, procs int) *executor.Executor {
	t.Helper()
	needRealPoller(t)
	fds := openFDs(t)
	stop := watchdog.Start(t.Name()+": a tasknet test", 3*time.Minute, nil)
	ex, err := executor.New(executor.Config{Procs: procs})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, ex.Close())
		stop()
		// A closed std client's descriptor may still be on its way out.
		for i := 0; openFDs(t) > fds && i < 1000; i++ {
			runtime.Gosched()
			time.Sleep(time.Millisecond)
		}
		require.LessOrEqual(t, openFDs(t), fds, "descriptors leaked (/proc/self/fd)")
	})
	return ex
}

// needRealPoller skips t in a schedcheck build (explore.Available), whose
// executor poller is the explorer's fake kernel: OpenFD fails there.
func needRealPoller(t testing.TB) {
	t.Helper()
	if explore.Available() {
		t.Skip("built with -tags schedcheck: the executor's poller is the explorer's fake kernel (executor/poll_schedcheck.go) and polls no real socket; run this test without the tag")
	}
}

// openFDs counts this process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd here:", err)
	}
	return len(ents)
}

// serve starts l.Serve in a task with handle, and returns a func that
// closes l and waits for Serve to return net.ErrClosed.
func serve(t *testing.T, ex *executor.Executor, l *tasknet.Listener, handle func(executor.Task, *tasknet.Conn)) (stop func()) {
	t.Helper()
	done := make(chan error, 1)
	require.NoError(t, ex.Go(func(tk executor.Task) { done <- l.Serve(tk, handle) }))
	return func() {
		require.NoError(t, l.Close())
		require.ErrorIs(t, <-done, net.ErrClosed)
	}
}

// startServer makes an executor of procs Ps with a listener on loopback
// served by handle (serve), and returns them with serve's stop.
func startServer(t *testing.T, procs int, handle func(executor.Task, *tasknet.Conn)) (*executor.Executor, *tasknet.Listener, func()) {
	t.Helper()
	ex := newExec(t, procs)
	l, err := tasknet.Listen(ex, "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return ex, l, serve(t, ex, l, handle)
}

// procsCases runs f at GOMAXPROCS 1 and 2 with as many Ps.
func procsCases(t *testing.T, f func(t *testing.T, procs int)) {
	for _, procs := range []int{1, 2} {
		t.Run(map[int]string{1: "P1", 2: "P2"}[procs], func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			f(t, procs)
		})
	}
}
