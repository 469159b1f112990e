package http1_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/schedkit/schedkit/servers/http1"
	"github.com/schedkit/schedkit/servers/internal/servetest"
)

// A transport is what a server runs on (servetest.Transports: goroutines
// and the executor); every server test runs on each.
type transport = servetest.Transport

var transports = servetest.Transports

// start serves s on a fresh listener of tr and returns its address; the
// test's cleanup closes s and checks that Serve returned ErrServerClosed
// and that every connection loop has ended (Close waits for them).
func start(t testing.TB, tr transport, s *http1.Server) string {
	l := tr.Listen(t)
	s.Spawn, s.SpawnConn = tr.Spawners(l)
	return servetest.Serve(t, s, l, tr.Spawn)
}

func forEachTransport(t *testing.T, f func(t *testing.T, tr transport)) { servetest.ForEach(t, f) }

// A conversation is bytes a client sends at once, then half-closes, and the
// exact bytes the server answers before it closes the connection.
type conversation struct {
	name      string
	send      string
	want      string // the whole answer; or, when prefix is set, its start
	prefix    bool
	responses int // how many responses the answer holds (for prefix answers)
}

const helloResp = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\n\r\nHello, World!"
const helloClose = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\nConnection: close\r\n\r\nHello, World!"

var conversations = []conversation{
	{
		name: "keep-alive: hello, echo, 404, 405, HEAD, then close",
		send: "GET / HTTP/1.1\r\nHost: x\r\n\r\n" +
			"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello" +
			"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n" +
			"GET /echo HTTP/1.1\r\nHost: x\r\n\r\n" +
			"HEAD /?x HTTP/1.1\r\nHost: x\r\n\r\n" +
			"GET http://x/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" +
			"GET / HTTP/1.1\r\nHost: x\r\n\r\n", // after close: never read
		want: helloResp +
			"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 5\r\n\r\nhello" +
			"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 10\r\n\r\nnot found\n" +
			"HTTP/1.1 405 Method Not Allowed\r\nAllow: POST\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 19\r\n\r\nmethod not allowed\n" +
			"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\n\r\n" +
			helloClose,
	},
	{
		name: "chunked echo keeps the connection in step",
		send: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: a/b\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n" +
			"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		want: "HTTP/1.1 200 OK\r\nContent-Type: a/b\r\nContent-Length: 7\r\n\r\nabcdefg" + helloResp,
	},
	{
		name: "body of 16 bytes, then a GET",
		send: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 16\r\n\r\n0123456789abcdef" + "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		want: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 16\r\n\r\n0123456789abcdef" + helloResp,
	},
	{
		name: "HTTP/1.0 closes after one response",
		send: "GET / HTTP/1.0\r\n\r\nGET / HTTP/1.0\r\n\r\n",
		want: helloClose,
	},
	{
		name: "HTTP/1.0 keep-alive, then HTTP/1.0",
		send: "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.0\r\n\r\n",
		want: "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\nConnection: keep-alive\r\n\r\nHello, World!" + helloClose,
	},
	{
		name:   "header fields over MaxHeaderBytes: 431 and close",
		send:   "GET / HTTP/1.1\r\n" + host + pad('A', 40) + pad('B', 40) + "X-D: a\r\n\r\n" + "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		want:   "HTTP/1.1 431 Request Header Fields Too Large\r\n",
		prefix: true, responses: 1,
	},
	{
		name:   "header line over MaxLine: 431 and close",
		send:   "GET / HTTP/1.1\r\n" + host + pad('A', 41) + "\r\n",
		want:   "HTTP/1.1 431 Request Header Fields Too Large\r\n",
		prefix: true, responses: 1,
	},
	{
		name:   "request line over MaxLine: 414 and close",
		send:   "GET /" + strings.Repeat("a", 27) + " HTTP/1.1\r\n" + host + "\r\n",
		want:   "HTTP/1.1 414 URI Too Long\r\n",
		prefix: true, responses: 1,
	},
	{
		name:   "malformed: 400 and close",
		send:   "GET / HTTP/1.1\r\nHost : x\r\n\r\n",
		want:   "HTTP/1.1 400 Bad Request\r\n",
		prefix: true, responses: 1,
	},
	{
		name:   "gzip coding: 501 and close",
		send:   "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nxxxx",
		want:   "HTTP/1.1 501 Not Implemented\r\n",
		prefix: true, responses: 1,
	},
	{
		name:   "body over MaxBody: 413 and close",
		send:   "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\n\r\n0123456789abcdefg",
		want:   "HTTP/1.1 413 Content Too Large\r\n",
		prefix: true, responses: 1,
	},
}

// talk sends c.send on a new connection to addr, half-closes it and reads
// the answer to the end.
func talk(addr string, c conversation) (string, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, c.send); err != nil {
		return "", err
	}
	if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
		return "", err
	}
	got, err := io.ReadAll(conn)
	return string(got), err
}

func checkConversation(addr string, c conversation) error {
	got, err := talk(addr, c)
	if err != nil {
		return err
	}
	switch {
	case !c.prefix && got != c.want:
		return fmt.Errorf("answer\n%q\nwant\n%q", got, c.want)
	case c.prefix && !strings.HasPrefix(got, c.want):
		return fmt.Errorf("answer\n%q\nwant it to start with\n%q", got, c.want)
	case c.prefix && (strings.Count(got, "HTTP/1.1 ") != c.responses || !strings.Contains(got, "\r\nConnection: close\r\n")):
		return fmt.Errorf("answer\n%q\nwant %d response ending the connection", got, c.responses)
	}
	return nil
}

// runConversations is the conversation checker's verdict on tr: a server
// with tableLimits, every conversation on a connection of its own.
func runConversations(t testing.TB, tr transport) error {
	s := &http1.Server{Limits: tableLimits}
	addr := start(t, tr, s)
	for _, c := range conversations {
		if err := checkConversation(addr, c); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	if n := s.Accepted(); n != int64(len(conversations)) {
		return fmt.Errorf("%d connections accepted, want %d", n, len(conversations))
	}
	return nil
}

func TestConversations(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr transport) {
		s := &http1.Server{Limits: tableLimits}
		addr := start(t, tr, s)
		for _, c := range conversations {
			t.Run(c.name, func(t *testing.T) {
				if err := checkConversation(addr, c); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}

// TestExpectContinue: a client that sends its head and waits gets "100
// Continue" before it sends the body, then the response, on one connection.
func TestExpectContinue(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr transport) {
		addr := start(t, tr, &http1.Server{})
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		br := bufio.NewReader(conn)
		io.WriteString(conn, "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
		line, err := br.ReadString('\n')
		if err != nil || line != "HTTP/1.1 100 Continue\r\n" {
			t.Fatalf("read %q, %v; want the 100 Continue line", line, err)
		}
		if blank, _ := br.ReadString('\n'); blank != "\r\n" {
			t.Fatalf("read %q after 100 Continue, want an empty line", blank)
		}
		io.WriteString(conn, "abc")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || string(body) != "abc" {
			t.Fatalf("status %d body %q, want 200 abc", resp.StatusCode, body)
		}
	})
}

// TestNetHTTPClient: Go's client, a real one nobody here wrote, sends 50
// requests in turn (GET, POST of growing bodies) on one kept-alive
// connection, then 8 goroutines send 20 each on at most 8 connections.
func TestNetHTTPClient(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr transport) {
		if err := runNetHTTPClient(t, tr); err != nil {
			t.Fatal(err)
		}
	})
}

// runNetHTTPClient is TestNetHTTPClient's verdict on tr (and the kill
// matrix's "clients" column).
func runNetHTTPClient(t testing.TB, tr transport) error {
	s := &http1.Server{}
	url := "http://" + start(t, tr, s)
	hc := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 8, MaxIdleConnsPerHost: 8}}
	defer hc.CloseIdleConnections()
	reused := 0
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		if i.Reused {
			reused++
		}
	}}
	ctx := httptrace.WithClientTrace(context.Background(), trace)
	for i := range 50 {
		var req *http.Request
		want := "Hello, World!"
		if i%2 == 0 {
			req, _ = http.NewRequestWithContext(ctx, "GET", url+"/", nil)
		} else {
			want = strings.Repeat(fmt.Sprint(i), 100*i)
			req, _ = http.NewRequestWithContext(ctx, "POST", url+"/echo", strings.NewReader(want))
		}
		if err := roundTripHTTP(hc, req, want); err != nil {
			return fmt.Errorf("request %d: %v", i, err)
		}
	}
	if reused != 49 || s.Accepted() != 1 {
		return fmt.Errorf("%d of 50 requests on a reused connection, %d accepted; want 49 and 1", reused, s.Accepted())
	}
	// A body of unknown length: the client sends it chunked.
	req, _ := http.NewRequest("POST", url+"/echo", io.MultiReader(strings.NewReader("chunk"), strings.NewReader("ed")))
	if err := roundTripHTTP(hc, req, "chunked"); err != nil {
		return fmt.Errorf("chunked: %v", err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				body := fmt.Sprintf("g%d-%d", g, i)
				req, _ := http.NewRequest("POST", url+"/echo", strings.NewReader(body))
				if err := roundTripHTTP(hc, req, body); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err, ok := <-errs; ok {
		return err
	}
	if n := s.Accepted(); n > 8 {
		return fmt.Errorf("%d connections accepted for 211 requests of at most 8 at once, want at most 8", n)
	}
	return nil
}

func roundTripHTTP(hc *http.Client, req *http.Request, want string) error {
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 || string(body) != want {
		return fmt.Errorf("status %d body of %d bytes, want 200 and %d bytes", resp.StatusCode, len(body), len(want))
	}
	return nil
}

// TestCurl: curl, when it is installed, fetches / twice on one connection
// (two URLs in one command), posts a body of 200 KB (curl sends Expect:
// 100-continue for a large one), posts one chunked, and speaks HTTP/1.0.
func TestCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed: the curl checks did not run")
	}
	forEachTransport(t, func(t *testing.T, tr transport) {
		s := &http1.Server{}
		url := "http://" + start(t, tr, s)
		run := func(stdin string, args ...string) string {
			t.Helper()
			cmd := exec.Command(curl, append([]string{"-sS", "--fail", "--http1.1"}, args...)...)
			cmd.Stdin = strings.NewReader(stdin)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("curl %v: %v: %s", args, err, stderr.String())
			}
			return string(out)
		}
		if got := run("", url+"/", url+"/"); got != "Hello, World!Hello, World!" {
			t.Fatalf("two GETs: %q", got)
		}
		if s.Accepted() != 1 {
			t.Fatalf("two GETs in one curl: %d connections accepted, want 1 (kept alive)", s.Accepted())
		}
		big := strings.Repeat("0123456789", 20_000)
		if got := run(big, "--data-binary", "@-", url+"/echo"); got != big {
			t.Fatalf("POST of %d bytes: echo of %d", len(big), len(got))
		}
		if got := run("abc", "-H", "Transfer-Encoding: chunked", "--data-binary", "@-", url+"/echo"); got != "abc" {
			t.Fatalf("chunked POST: %q", got)
		}
		if got := run("", "-0", "-i", url+"/"); !strings.Contains(got, "Connection: close\r\n") || !strings.HasSuffix(got, "Hello, World!") {
			t.Fatalf("HTTP/1.0: %q", got)
		}
	})
}

// TestCloseEndsConnections: Close ends idle kept-alive connections and the
// accept loop, and a client then sees its connection closed.
func TestCloseEndsConnections(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr transport) {
		s := &http1.Server{}
		l := tr.Listen(t)
		s.Spawn = tr.Spawn
		done := make(chan error, 1)
		tr.Spawn(func() { done <- s.Serve(l) })
		conn, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("first response: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		s.Close() // returns once every connection's loop has ended
		if err := <-done; err != http1.ErrServerClosed {
			t.Fatalf("Serve returned %v, want ErrServerClosed", err)
		}
		if _, err := br.ReadByte(); !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !isReset(err) {
			t.Fatalf("read after Close: %v, want EOF", err)
		}
		if err := s.Serve(tr.Listen(t)); err != http1.ErrServerClosed {
			t.Fatalf("Serve after Close: %v", err)
		}
	})
}

func isReset(err error) bool { return err != nil && strings.Contains(err.Error(), "connection reset") }

// TestSlowClient: a client that sends a keep-alive conversation one byte
// per write (a slow writer, each byte its own segment with TCP_NODELAY)
// gets the same exact answer as one that sends it at once.
func TestSlowClient(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr transport) {
		if err := runSlowClient(t, tr); err != nil {
			t.Fatal(err)
		}
	})
}

// runSlowClient is TestSlowClient's verdict on tr (and the kill matrix's
// "clients" column).
func runSlowClient(t testing.TB, tr transport) error {
	addr := start(t, tr, &http1.Server{Limits: tableLimits})
	c := conversations[0]
	// Without the request after "Connection: close": the server has
	// closed by then, and a write of it would fail.
	got, err := talkSlowly(addr, strings.TrimSuffix(c.send, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	if err != nil {
		return err
	}
	if got != c.want {
		return fmt.Errorf("slow client: answer\n%q\nwant\n%q", got, c.want)
	}
	return nil
}

// talkSlowly sends send one byte per write, half-closes and reads the answer
// to the end; the answer is read as it comes, so the server never waits on
// a full socket buffer.
func talkSlowly(addr, send string) (string, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(conn); got <- b }()
	for i := range len(send) {
		if _, err := conn.Write([]byte{send[i]}); err != nil {
			return "", err
		}
	}
	if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
		return "", err
	}
	return string(<-got), nil
}
