package executor_test

import (
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/explore"
)

// socketpair returns a connected pair of non-blocking stream sockets. It
// skips t in a schedcheck build (explore.Available), whose poller is the
// explorer's fake kernel: OpenFD fails there (TestOpenFDFailsWithoutExplorer).
func socketpair(t *testing.T) (a, b int) {
	t.Helper()
	if explore.Available() {
		t.Skip("built with -tags schedcheck: the poller is the explorer's fake kernel (poll_schedcheck.go) and polls no real socket; run this test without the tag")
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	return fds[0], fds[1]
}

// readTask reads once from f in a task, parking on EAGAIN.
func readTask(f *executor.FD, t executor.Task, buf []byte) (int, error) {
	if err := f.Acquire(); err != nil {
		return 0, err
	}
	defer f.Release()
	for {
		if err := f.PrepareRead(); err != nil {
			return 0, err
		}
		n, err := syscall.Read(f.Fd(), buf)
		if err == syscall.EAGAIN {
			if err := f.WaitRead(t); err != nil {
				return 0, err
			}
			continue
		}
		return n, err
	}
}

// waitFor polls cond until it holds. No deadline of its own: newExec's
// watchdog ends a test that never gets there.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for !cond() {
		time.Sleep(50 * time.Microsecond)
	}
}

func TestPollReadParksAndWakes(t *testing.T) {
	for _, procs := range []int{1, 2} {
		ex := newExec(t, executor.Config{Procs: procs})
		a, b := socketpair(t)
		f, err := ex.OpenFD(a)
		require.NoError(t, err)
		got := make(chan string, 1)
		require.NoError(t, ex.Go(func(t executor.Task) {
			buf := make([]byte, 16)
			n, err := readTask(f, t, buf)
			if err != nil {
				got <- err.Error()
				return
			}
			got <- string(buf[:n])
		}))
		waitFor(t, func() bool { return ex.Stats().Parked == 1 })
		// The reader is parked: its P is free for other work.
		ran := make(chan struct{})
		require.NoError(t, ex.Go(func(executor.Task) { close(ran) }))
		<-ran
		_, err = syscall.Write(b, []byte("hello"))
		require.NoError(t, err)
		assert.Equal(t, "hello", <-got)
		require.NoError(t, f.Close())
		assert.ErrorIs(t, f.Close(), net.ErrClosed)
		syscall.Close(b)
		require.NoError(t, ex.Close())
	}
}

func TestPollCloseAndDeadlineWake(t *testing.T) {
	ex := newExec(t, executor.Config{Procs: 2})
	a, b := socketpair(t)
	defer syscall.Close(b)
	f, err := ex.OpenFD(a)
	require.NoError(t, err)
	errc := make(chan error, 3)
	read := func(t executor.Task) { _, err := readTask(f, t, make([]byte, 4)); errc <- err }

	f.SetReadDeadline(time.Now().Add(time.Millisecond))
	require.NoError(t, ex.Go(read))
	assert.ErrorIs(t, <-errc, os.ErrDeadlineExceeded)

	f.SetReadDeadline(time.Now().Add(-time.Second))
	require.NoError(t, ex.Go(read))
	assert.ErrorIs(t, <-errc, os.ErrDeadlineExceeded, "a deadline in the past fails at once")

	f.SetReadDeadline(time.Time{})
	require.NoError(t, ex.Go(read))
	waitFor(t, func() bool { return ex.Stats().Parked == 1 })
	require.NoError(t, f.Close())
	assert.ErrorIs(t, <-errc, net.ErrClosed)
	require.NoError(t, ex.Close())
}

func TestPollExecutorCloseEvictsWaiters(t *testing.T) {
	ex := newExec(t, executor.Config{Procs: 1})
	a, b := socketpair(t)
	defer syscall.Close(b)
	f, err := ex.OpenFD(a)
	require.NoError(t, err)
	errc := make(chan error, 2)
	require.NoError(t, ex.Go(func(t executor.Task) { _, err := readTask(f, t, make([]byte, 4)); errc <- err }))
	waitFor(t, func() bool { return ex.Stats().Parked == 1 })
	// A goroutine outside the executor waits on another descriptor.
	c, d := socketpair(t)
	defer syscall.Close(d)
	g, err := ex.OpenFD(c)
	require.NoError(t, err)
	defer g.Close()
	go func() {
		_, err := readTask(g, executor.Task{}, make([]byte, 4))
		errc <- err
	}()
	require.NoError(t, ex.Close(), "Close must not wait for ever for a task parked on I/O")
	for range 2 {
		err := <-errc
		assert.True(t, errors.Is(err, executor.ErrPollerClosed) || errors.Is(err, net.ErrClosed), "%v", err)
	}
	_, err = ex.OpenFD(b)
	assert.ErrorIs(t, err, executor.ErrClosed)
	require.NoError(t, f.Close())
}
