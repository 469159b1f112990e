package serve_test

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/schedkit/schedkit/servers/internal/serve"
)

// fakeListener hands out its errors and connections in order, then blocks
// until Close.
type fakeListener struct {
	results chan any // error or net.Conn
	closed  chan struct{}
}

func newFake(results ...any) *fakeListener {
	l := &fakeListener{results: make(chan any, len(results)), closed: make(chan struct{})}
	for _, r := range results {
		l.results <- r
	}
	return l
}

func (l *fakeListener) Accept() (net.Conn, error) {
	select {
	case r := <-l.results:
		if err, ok := r.(error); ok {
			return nil, err
		}
		return r.(net.Conn), nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *fakeListener) Close() error {
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
	return nil
}

func (l *fakeListener) Addr() net.Addr { return &net.TCPAddr{} }

// TestServeRetriesOutOfFds: Accept failing with EMFILE and ECONNABORTED is
// tried again (after the backoff), and the connection after them is served;
// Close then ends the loop with ErrClosed.
func TestServeRetriesOutOfFds(t *testing.T) {
	server, client := net.Pipe()
	l := newFake(&net.OpError{Op: "accept", Err: syscall.EMFILE}, syscall.ECONNABORTED, server)
	var loop serve.Loop
	done := make(chan error, 1)
	go func() {
		done <- loop.Serve(l, nil, func(c net.Conn) {
			x := &serve.Conn{Conn: c}
			b := make([]byte, 4)
			n, _ := io.ReadFull(x, b)
			x.Out = append(x.Out, b[:n]...)
			x.Flush()
		})
	}()
	client.Write([]byte("ping"))
	got := make([]byte, 4)
	if _, err := io.ReadFull(client, got); err != nil || string(got) != "ping" {
		t.Fatalf("echo %q, %v", got, err)
	}
	loop.Close()
	if err := <-done; err != serve.ErrClosed {
		t.Fatalf("Serve returned %v, want ErrClosed", err)
	}
	if n := loop.Accepted(); n != 1 {
		t.Fatalf("%d accepted, want 1", n)
	}
}

// TestServeReturnsOtherErrors: an Accept error that is not about fds ends
// Serve with that error.
func TestServeReturnsOtherErrors(t *testing.T) {
	boom := errors.New("boom")
	var loop serve.Loop
	if err := loop.Serve(newFake(boom), nil, func(net.Conn) {}); err != boom {
		t.Fatalf("Serve returned %v, want boom", err)
	}
}

// TestConnFlushesBeforeItReads: the pending output goes out before a read
// that would block, so a client that waits for it is answered.
func TestConnFlushesBeforeItReads(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	x := &serve.Conn{Conn: server, Out: []byte("answer")}
	go func() {
		b := make([]byte, 6)
		io.ReadFull(client, b) // waits for the answer before it sends more
		client.Write(b)
	}()
	b := make([]byte, 6)
	if _, err := io.ReadFull(x, b); err != nil || string(b) != "answer" {
		t.Fatalf("read %q, %v", b, err)
	}
	server.Close()
}
