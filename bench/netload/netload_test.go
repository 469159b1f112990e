package netload

import (
	"bufio"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRunAgainstServers drives every server impl of every workload at
// GOMAXPROCS 1 and 2: all requests answered and checked, percentiles in
// order, and the executor's Ms fewer than its connections (a task per
// connection parks on the poller, it holds no M).
func TestRunAgainstServers(t *testing.T) {
	const conns, reqs = 16, 400
	for _, procs := range []int{1, 2} {
		for _, proto := range []Proto{HTTPHello, HTTPEcho, RESP} {
			impls := []string{Executor, Goroutines}
			if proto != RESP {
				impls = append(impls, NetHTTP)
			}
			for _, impl := range impls {
				t.Run(proto.String()+"/"+impl+"/P"+strconv.Itoa(procs), func(t *testing.T) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					s, err := Start(impl, proto, procs)
					if err != nil {
						t.Fatal(err)
					}
					l, err := Open(s.Addr, proto, conns)
					if err != nil {
						s.Close()
						t.Fatal(err)
					}
					var r Result
					for range 2 { // twice: INCR's count goes on over runs
						if r, err = l.Run(reqs); err != nil {
							break
						}
					}
					ms := s.Ms()
					l.Close()
					if cerr := s.Close(); cerr != nil {
						t.Error(cerr)
					}
					if err != nil {
						t.Fatal(err)
					}
					if r.Requests != reqs || len(r.Latencies) != reqs {
						t.Errorf("%d requests, %d round trips, want %d", r.Requests, len(r.Latencies), reqs)
					}
					if !(0 < r.P50 && r.P50 <= r.P99 && r.P99 <= r.Max) || r.ReqPerSec() <= 0 {
						t.Errorf("figures out of order: %v", r)
					}
					if impl == Executor && ms >= conns {
						t.Errorf("the executor made %d Ms for %d connections", ms, conns)
					}
				})
			}
		}
	}
}

// TestRunCatchesWrongAnswers serves each workload from a fake server that
// answers one request wrong, the checker's broken variants: a run over it
// must fail and say why.
func TestRunCatchesWrongAnswers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		proto Proto
		// answer maps a request's first line to the answer; n counts
		// the requests so far on this connection.
		answer func(line string, n int) string
		want   string
	}{
		{"hello body", HTTPHello, func(string, int) string {
			return "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nHello, World?"
		}, "response"},
		{"hello status", HTTPHello, func(string, int) string {
			return "HTTP/1.1 404 Not Found\r\nContent-Length: 13\r\n\r\nHello, World!"
		}, "response"},
		{"echo body", HTTPEcho, func(string, int) string {
			return "HTTP/1.1 200 OK\r\nContent-Length: 128\r\n\r\n" + strings.Repeat("x", 128)
		}, "response"},
		{"resp get", RESP, func(line string, n int) string {
			return map[int]string{0: "+PONG\r\n", 1: "+OK\r\n", 2: "$3\r\nyyy\r\n", 3: ":1\r\n"}[n%4]
		}, "response"},
		{"resp incr stuck", RESP, func(line string, n int) string {
			return map[int]string{0: "+PONG\r\n", 1: "+OK\r\n", 2: "$3\r\nxxx\r\n", 3: ":7\r\n"}[n%4]
		}, "INCR answered 7 after 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := fakeServer(t, tc.proto, tc.answer)
			l, err := Open(addr, tc.proto, 2)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			_, err = l.Run(40)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run over a wrong server: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// fakeServer answers each request (an HTTP head and its body, or one RESP
// array of bulk strings) with answer.
func fakeServer(t *testing.T, proto Proto, answer func(string, int) string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	go func() {
		defer close(done)
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			go func() {
				br := bufio.NewReader(c)
				for n := 0; ; n++ {
					line, err := readRequest(br, proto)
					if err != nil {
						return
					}
					if _, err := c.Write([]byte(answer(line, n))); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func readRequest(br *bufio.Reader, proto Proto) (string, error) {
	first, err := br.ReadString('\n')
	if err != nil {
		return "", err
	}
	if proto == RESP { // *n, then n pairs of $len and the bytes
		n, err := strconv.Atoi(strings.TrimSpace(first[1:]))
		if err != nil {
			return "", err
		}
		for range 2 * n {
			if _, err := br.ReadString('\n'); err != nil {
				return "", err
			}
		}
		return first, nil
	}
	clen := 0
	for {
		h, err := br.ReadString('\n')
		if err != nil {
			return "", err
		}
		if h == "\r\n" {
			break
		}
		if k, v, ok := strings.Cut(h, ":"); ok && strings.EqualFold(k, "Content-Length") {
			clen, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	_, err = br.Discard(clen)
	return first, err
}

// TestParseToolReports reads reports the Debian tools printed here
// (testdata: wrk 4.1.0 --latency, ab 2.3 -k, redis-benchmark 7.0.15 --csv
// with its warning that a server without CONFIG gives).
func TestParseToolReports(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	w, err := ParseWrk(read("wrk.txt"))
	if err != nil || w.ReqPerSec != 19633.48 || w.P99 != 47840*time.Microsecond || w.Errors != "" {
		t.Errorf("wrk: %+v, %v; want 19633.48 req/s, p99 47.84ms, no errors", w, err)
	}
	a, err := ParseAB(read("ab.txt"))
	if err != nil || a.ReqPerSec != 17268.17 || a.P99 != time.Millisecond || a.Errors != "" {
		t.Errorf("ab: %+v, %v; want 17268.17 req/s, p99 1ms, no errors", a, err)
	}
	rb, err := ParseRedisBenchmark(read("redis-benchmark.csv"))
	if err != nil || len(rb) != 5 || rb["GET"].ReqPerSec != 18181.82 || rb["GET"].P99 != 631*time.Microsecond {
		t.Errorf("redis-benchmark: %+v, %v; want 5 tests, GET 18181.82 req/s p99 0.631ms", rb, err)
	}
	// What each parser must refuse or flag.
	if _, err := ParseWrk(strings.Replace(read("wrk.txt"), "99%", "98%", 1)); err == nil {
		t.Error("wrk: a report without its 99% line parsed")
	}
	if w, _ := ParseWrk(read("wrk.txt") + "  Non-2xx or 3xx responses: 12\n"); w.Errors == "" {
		t.Error("wrk: non-2xx responses not reported")
	}
	if a, _ := ParseAB(strings.Replace(read("ab.txt"), "Failed requests:        0", "Failed requests:        3", 1)); a.Errors == "" {
		t.Error("ab: failed requests not reported")
	}
	if _, err := ParseRedisBenchmark("WARNING: Could not connect\n"); err == nil {
		t.Error("redis-benchmark: output without results parsed")
	}
}

// TestFindSaysWhy: a tool that is neither in PATH nor unpacked is missing
// with its package and the reason named, with fetching off and with no
// apt-get to fetch with; an unknown name is refused.
func TestFindSaysWhy(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Find("redis-benchmark", t.TempDir(), false)
	if err == nil || !strings.Contains(err.Error(), "redis-tools") || !strings.Contains(err.Error(), "fetching is off") {
		t.Errorf("Find with no tool and no fetch: %v", err)
	}
	// Fetching on, but no apt-get in PATH: the error names the package and why.
	_, err = Find("wrk", t.TempDir(), true)
	if err == nil || !strings.Contains(err.Error(), "fetching Debian package wrk failed") || !strings.Contains(err.Error(), "no apt-get") {
		t.Errorf("Find with fetching but no apt-get: %v", err)
	}
	if _, err := Find("nc", t.TempDir(), false); err == nil {
		t.Error("Find of a tool the bench does not know succeeded")
	}
	if got := parseDepends("libc6 (>= 2.14), libluajit-5.1-2 (>= 2.0.4+dfsg) | libluajit2-5.1-2 (>= 2.1~), libssl3:amd64"); strings.Join(got, " ") != "libc6 libluajit-5.1-2 libssl3" {
		t.Errorf("parseDepends: %q", got)
	}
}
