package http1_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/servers/http1"
	"github.com/schedkit/schedkit/servers/internal/servetest"
	"github.com/schedkit/schedkit/tasknet"
)

// The real clients on the executor at GOMAXPROCS 1 and 2, at a scale the
// transports' tests (server_test.go, an executor of 2 Ps) do not reach:
// thousands of requests, 200 connections at once, and the Ms they cost.

// onExecutor serves s on a tasknet listener of a fresh executor of procs
// Ps, as the package's doc shows: Server.Serve's accept loop on a
// goroutine, each connection's loop a task (SpawnConn). The test's cleanup
// closes s, checks that Serve returned ErrServerClosed, and closes the
// executor (no task panicked).
func onExecutor(t *testing.T, procs int, s *http1.Server) (addr string, ex *executor.Executor) {
	t.Helper()
	l, ex := servetest.OnExecutor(t, procs, "http1")
	s.SpawnConn = tasknet.SpawnConn(ex)
	return servetest.Serve(t, s, l, func(f func()) { go f() }), ex
}

// onProcs runs f at GOMAXPROCS 1 and 2, the executor with as many Ps.
func onProcs(t *testing.T, f func(t *testing.T, procs int)) { servetest.OnProcs(t, f) }

// TestTasknetNetHTTPClient: Go's net/http client, keep-alive, against the
// server on the executor. Sixteen goroutines share a Transport of at most
// four connections and make 2,000 requests (8 and 200 with -short; GET /
// and POST /echo of a body of their own, in turn): every answer exact, at
// most four connections accepted, all but the first request of each on a
// reused one (httptrace). Then 200 connections at once, ten requests each
// (five with -short) read by net/http's ReadResponse: 2,000 more answers
// (1,000), and the Ms the executor made stay a tenth of the connections or
// fewer (a connection waiting for its next request is a parked task, not
// a thread).
func TestTasknetNetHTTPClient(t *testing.T) {
	onProcs(t, func(t *testing.T, procs int) {
		s := &http1.Server{}
		addr, ex := onExecutor(t, procs, s)
		url := "http://" + addr
		hc := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 4, MaxIdleConnsPerHost: 4}}
		defer hc.CloseIdleConnections()
		goroutines, each := 16, 125
		if testing.Short() {
			goroutines, each = 8, 25
		}
		t0 := time.Now()
		var reused atomic.Int64
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
			if i.Reused {
				reused.Add(1)
			}
		}})
		var wg sync.WaitGroup
		errs := make(chan error, goroutines)
		for g := range goroutines {
			wg.Go(func() {
				for i := range each {
					var req *http.Request
					want := "Hello, World!"
					if i%2 == 0 {
						req, _ = http.NewRequestWithContext(ctx, "GET", url+"/", nil)
					} else {
						want = fmt.Sprintf("g%d-%d:%s", g, i, strings.Repeat("x", i))
						req, _ = http.NewRequestWithContext(ctx, "POST", url+"/echo", strings.NewReader(want))
					}
					if err := roundTripHTTP(hc, req, want); err != nil {
						errs <- fmt.Errorf("goroutine %d request %d: %w", g, i, err)
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if n := s.Accepted(); n < 1 || n > 4 {
			t.Fatalf("%d connections accepted for %d requests over a Transport of at most 4", n, goroutines*each)
		}
		if r := reused.Load(); r < int64(goroutines*each-4) {
			t.Fatalf("%d of %d requests on a reused connection, want all but the first per connection", r, goroutines*each)
		}
		hc.CloseIdleConnections()
		t1 := time.Now()
		conns, rounds := 200, 10
		if testing.Short() {
			rounds = 5
		}
		if err := manyConnections(addr, conns, rounds); err != nil {
			t.Fatal(err)
		}
		if n := s.Accepted(); n < int64(conns) {
			t.Fatalf("%d connections accepted after %d clients of their own", n, conns)
		}
		st := ex.Stats()
		t.Logf("P%d: %d requests on at most 4 connections in %v, %d on %d in %v; %d accepted, Ms %d, poll waits %d",
			procs, goroutines*each, t1.Sub(t0).Round(time.Millisecond), conns*rounds, conns, time.Since(t1).Round(time.Millisecond), s.Accepted(), st.Ms, st.PollWaits)
		if st.Ms > conns/10 {
			t.Fatalf("the executor made %d Ms for %d connections: a waiting connection must not cost an M", st.Ms, conns)
		}
	})
}

// manyConnections opens conns connections at once (each dialed before any
// sends), then each makes rounds keep-alive GETs, read by net/http's
// ReadResponse.
func manyConnections(addr string, conns, rounds int) error {
	cs := make([]net.Conn, conns)
	defer func() {
		for _, c := range cs {
			if c != nil {
				c.Close()
			}
		}
	}()
	for i := range cs {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return fmt.Errorf("dial %d: %w", i, err)
		}
		cs[i] = c
	}
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for i, c := range cs {
		wg.Go(func() {
			br := bufio.NewReader(c)
			for r := range rounds {
				if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: tasknet\r\n\r\n"); err != nil {
					errs <- fmt.Errorf("connection %d round %d: %w", i, r, err)
					return
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					errs <- fmt.Errorf("connection %d round %d: %w", i, r, err)
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 || string(body) != "Hello, World!" || resp.Close {
					errs <- fmt.Errorf("connection %d round %d: %d %q close=%v, %v", i, r, resp.StatusCode, body, resp.Close, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// TestTasknetCurl: curl, when it is installed, against the server on the
// executor: 100 GETs in one command on one kept-alive connection (20 with
// -short: one at a time on 1 P, each waits for the executor's idle path), a POST
// of 200 KB (Expect: 100-continue), a chunked POST, and HTTP/1.0.
func TestTasknetCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed: the curl checks on the executor did not run")
	}
	onProcs(t, func(t *testing.T, procs int) {
		s := &http1.Server{}
		addr, _ := onExecutor(t, procs, s)
		url := "http://" + addr
		run := func(stdin string, args ...string) string {
			t.Helper()
			cmd := exec.Command(curl, append([]string{"-sS", "--fail", "--http1.1"}, args...)...)
			cmd.Stdin = strings.NewReader(stdin)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("curl %v: %v: %s", args[:min(len(args), 4)], err, stderr.String())
			}
			return string(out)
		}
		gets := 100
		if testing.Short() {
			gets = 20
		}
		var urls []string
		for range gets {
			urls = append(urls, url+"/")
		}
		if got := run("", urls...); got != strings.Repeat("Hello, World!", gets) {
			t.Fatalf("%d GETs: %d bytes, want %d hellos", gets, len(got), gets)
		}
		if n := s.Accepted(); n != 1 {
			t.Fatalf("%d GETs in one curl: %d connections accepted, want 1 (kept alive)", gets, n)
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
