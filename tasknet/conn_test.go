package tasknet_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/realtime"
	"github.com/schedkit/schedkit/tasknet"
)

// echo copies what the peer sends back to it until EOF.
func echo(_ executor.Task, c *tasknet.Conn) {
	defer c.Close()
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if _, err := c.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// echoClients runs n std clients against addr, each making rounds round
// trips of growing sizes, and returns the first mismatch or error.
func echoClients(addr string, n, rounds int) error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for r := range rounds {
				msg := bytes.Repeat([]byte{byte('a' + (i+r)%26)}, 1+(i*7+r*131)%3000)
				if _, err := c.Write(msg); err != nil {
					errs <- err
					return
				}
				got := make([]byte, len(msg))
				if _, err := io.ReadFull(c, got); err != nil {
					errs <- fmt.Errorf("client %d round %d: %w", i, r, err)
					return
				}
				if !bytes.Equal(got, msg) {
					errs <- fmt.Errorf("client %d round %d: echo differs", i, r)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// TestEchoManyConnections: hundreds of connections served by tasks that
// park between requests; none holds an M while it waits.
func TestEchoManyConnections(t *testing.T) {
	procsCases(t, func(t *testing.T, procs int) {
		ex, l, stop := startServer(t, procs, echo)
		conns := 300
		if testing.Short() {
			conns = 100
		}
		require.NoError(t, echoClients(l.Addr().String(), conns, 10))
		stop()
		st := ex.Stats()
		assert.Positive(t, st.PollWaits)
		assert.Less(t, st.Ms, conns/4, "a connection waiting for data must not cost an M")
	})
}

// TestEchoUnderLoad is the echo beside busy processes on every core: the
// scheduler of the machine is contended, the verdict is only exactness.
func TestEchoUnderLoad(t *testing.T) {
	needRealPoller(t) // before the busy processes start
	busy, err := realtime.Contend(2, time.Minute)
	require.NoError(t, err)
	defer busy.Stop()
	procsCases(t, func(t *testing.T, procs int) {
		_, l, stop := startServer(t, procs, echo)
		require.NoError(t, echoClients(l.Addr().String(), 50, 10))
		stop()
	})
}

// TestSlowloris: clients that send a byte at a time keep their server
// tasks parked mid-request; the fast clients beside them are all served,
// and so are the slow ones in the end.
func TestSlowloris(t *testing.T) {
	procsCases(t, func(t *testing.T, procs int) {
		ex := newExec(t, procs)
		l, err := tasknet.Listen(ex, "tcp", "127.0.0.1:0")
		require.NoError(t, err)
		// A line server: one reply per line.
		stop := serve(t, ex, l, func(_ executor.Task, c *tasknet.Conn) {
			defer c.Close()
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if _, err := c.Write([]byte("ok " + line)); err != nil {
					return
				}
			}
		})
		addr := l.Addr().String()
		slowDone := make(chan error, 20)
		release := make(chan struct{})
		for range 20 {
			go func() {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					slowDone <- err
					return
				}
				defer c.Close()
				for _, b := range []byte("slow request") {
					if _, err := c.Write([]byte{b}); err != nil {
						slowDone <- err
						return
					}
					time.Sleep(time.Millisecond)
				}
				<-release // the server task stays parked mid-line until the fast ones are done
				if _, err := c.Write([]byte("\n")); err != nil {
					slowDone <- err
					return
				}
				line, err := bufio.NewReader(c).ReadString('\n')
				if err == nil && line != "ok slow request\n" {
					err = fmt.Errorf("slow reply %q", line)
				}
				slowDone <- err
			}()
		}
		var wg sync.WaitGroup
		fastErr := make(chan error, 50)
		for i := range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := net.Dial("tcp", addr)
				if err != nil {
					fastErr <- err
					return
				}
				defer c.Close()
				fmt.Fprintf(c, "fast %d\n", i)
				line, err := bufio.NewReader(c).ReadString('\n')
				if err == nil && line != fmt.Sprintf("ok fast %d\n", i) {
					err = fmt.Errorf("fast reply %q", line)
				}
				fastErr <- err
			}()
		}
		wg.Wait()
		close(fastErr)
		for err := range fastErr {
			require.NoError(t, err)
		}
		close(release)
		for range 20 {
			require.NoError(t, <-slowDone)
		}
		stop()
	})
}

// TestResetAndHalfClose: a peer that resets makes the server's read fail
// (not hang); a peer that half-closes still gets its reply.
func TestResetAndHalfClose(t *testing.T) {
	results := make(chan error, 4)
	_, l, stop := startServer(t, 2, func(_ executor.Task, c *tasknet.Conn) {
		defer c.Close()
		b, err := io.ReadAll(c) // until EOF, or the reset
		if err != nil {
			results <- err
			return
		}
		_, err = c.Write(append([]byte("got "), b...))
		results <- err
	})
	addr := l.Addr().String()

	// Half-close: the client shuts its write side and reads the reply.
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, err = c.Write([]byte("half"))
	require.NoError(t, err)
	require.NoError(t, c.(*net.TCPConn).CloseWrite())
	reply, err := io.ReadAll(c)
	require.NoError(t, err)
	assert.Equal(t, "got half", string(reply))
	require.NoError(t, <-results)
	c.Close()

	// Reset: linger 0 makes close send RST while the server reads.
	c, err = net.Dial("tcp", addr)
	require.NoError(t, err)
	_, err = c.Write([]byte("partial"))
	require.NoError(t, err)
	require.NoError(t, c.(*net.TCPConn).SetLinger(0))
	require.NoError(t, c.Close())
	err = <-results
	assert.ErrorIs(t, err, syscall.ECONNRESET)
	stop()
}

// TestCloseWhileParked: closing a connection from another task wakes the
// task parked in its Read with net.ErrClosed; closing the listener ends a
// parked Accept the same way (serve's stop checks that).
func TestCloseWhileParked(t *testing.T) {
	accepted := make(chan *tasknet.Conn, 1)
	readErr := make(chan error, 1)
	ex, l, stop := startServer(t, 2, func(tk executor.Task, c *tasknet.Conn) {
		accepted <- c
		_, err := c.Read(make([]byte, 8))
		readErr <- err
	})
	cl, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	defer cl.Close()
	c := <-accepted
	for ex.Stats().PollWaiting == 0 { // parked in its Read
		time.Sleep(100 * time.Microsecond)
	}
	require.NoError(t, ex.Go(func(executor.Task) { _ = c.Close() }))
	err = <-readErr
	assert.ErrorIs(t, err, net.ErrClosed)
	assert.ErrorIs(t, c.Close(), net.ErrClosed, "a second Close")
	stop()
}

// TestDeadlines: a read deadline in the past fails at once; one in the
// future ends a parked read; both are net.Error timeouts wrapping
// os.ErrDeadlineExceeded; clearing it lets the read wait for data.
func TestDeadlines(t *testing.T) {
	results := make(chan error, 3)
	_, l, stop := startServer(t, 1, func(_ executor.Task, c *tasknet.Conn) {
		defer c.Close()
		buf := make([]byte, 8)
		c.SetReadDeadline(time.Now().Add(-time.Second))
		_, err := c.Read(buf)
		results <- err
		c.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
		_, err = c.Read(buf)
		results <- err
		c.SetReadDeadline(time.Time{})
		n, err := c.Read(buf)
		if err == nil && string(buf[:n]) != "x" {
			err = fmt.Errorf("read %q", buf[:n])
		}
		results <- err
	})
	cl, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	defer cl.Close()
	for range 2 {
		err := <-results
		assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
		var ne net.Error
		require.True(t, errors.As(err, &ne))
		assert.True(t, ne.Timeout())
	}
	_, err = cl.Write([]byte("x"))
	require.NoError(t, err)
	require.NoError(t, <-results)
	stop()
}

// TestBulkTransfer: megabytes through small socket buffers, so reads and
// writes hit EAGAIN thousands of times (an EAGAIN storm), in both
// directions, with a task as the client (Dial) and the bytes checked.
func TestBulkTransfer(t *testing.T) {
	procsCases(t, func(t *testing.T, procs int) {
		ex, l, stop := startServer(t, procs, echo)
		size := 8 << 20
		if testing.Short() {
			size = 2 << 20
		}
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*7 + i>>9)
		}
		want := sha256.Sum256(data)
		done := make(chan error, 1)
		require.NoError(t, ex.Go(func(tk executor.Task) {
			c, err := tasknet.Dial(ex, tk, "tcp", l.Addr().String())
			if err != nil {
				done <- err
				return
			}
			defer c.Close()
			// The writer is a task of its own: one waiter per direction.
			wrote := make(chan error, 1)
			tk.Go(func(tw executor.Task) {
				_, err := c.In(tw).Write(data)
				if err == nil {
					err = c.In(tw).CloseWrite()
				}
				wrote <- err
			})
			h := sha256.New()
			_, err = io.Copy(h, c)
			if err == nil {
				err = <-wrote
			}
			if err == nil && !bytes.Equal(h.Sum(nil), want[:]) {
				err = errors.New("the echo differs")
			}
			done <- err
		}))
		require.NoError(t, <-done)
		assert.Positive(t, ex.Stats().PollWaits)
		stop()
	})
}

// TestDialRefused: a connect to a closed port fails with ECONNREFUSED.
func TestDialRefused(t *testing.T) {
	ex := newExec(t, 1)
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := probe.Addr().String()
	probe.Close()
	done := make(chan error, 1)
	require.NoError(t, ex.Go(func(tk executor.Task) {
		_, err := tasknet.Dial(ex, tk, "tcp", addr)
		done <- err
	}))
	assert.ErrorIs(t, <-done, syscall.ECONNREFUSED)
	_, err = tasknet.Listen(ex, "udp", ":0")
	assert.Error(t, err)
}
