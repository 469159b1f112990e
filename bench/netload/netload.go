// Package netload is the benchmark's in-process load generator for the
// network workloads of issue 24 (servers/http1 and servers/resp): N
// keep-alive connections opened with package net, each sending its share
// of a fixed number of requests one at a time (a request, then its
// response, then the next: a closed loop, as wrk's and redis-benchmark's
// connections), every response checked byte for byte, and every request's
// round trip timed for the percentiles.
//
// It is always available; the Debian tools (wrk, ab, redis-benchmark) are
// package tools' business and optional.
package netload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"
)

// A Proto is what one request is and what its response must be.
type Proto int

const (
	// HTTPHello is GET / on servers/http1's Routes: "Hello, World!".
	HTTPHello Proto = iota
	// HTTPEcho is POST /echo with EchoBody: the body comes back.
	HTTPEcho
	// RESP is one command of servers/resp's four, in turn on each
	// connection: PING, SET k v, GET k, INCR n (k and n the connection's
	// own keys, so every reply is known).
	RESP
)

func (p Proto) String() string {
	switch p {
	case HTTPHello:
		return "http-hello"
	case HTTPEcho:
		return "http-echo"
	case RESP:
		return "resp"
	}
	return "Proto(" + strconv.Itoa(int(p)) + ")"
}

// EchoBody is the body http-echo posts: 128 bytes.
var EchoBody = bytes.Repeat([]byte("0123456789abcdef"), 8)

// Result is what a run measured.
type Result struct {
	Requests int           // requests answered (all of them, or the run failed)
	Elapsed  time.Duration // from the first request sent to the last response read
	P50, P99 time.Duration // round-trip percentiles over every request
	Max      time.Duration
	// Latencies are the round trips, sorted: a caller that adds runs up
	// takes its percentiles over all of them.
	Latencies []time.Duration
}

// ReqPerSec is Requests over Elapsed.
func (r Result) ReqPerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

func (r Result) String() string {
	return fmt.Sprintf("%d requests in %v: %.0f req/s, p50 %v, p99 %v, max %v",
		r.Requests, r.Elapsed.Round(time.Microsecond), r.ReqPerSec(), r.P50, r.P99, r.Max)
}

// A Load is n open connections to one server.
type Load struct {
	proto Proto
	conns []*conn
}

// Open dials n connections to addr (TCP) for proto.
func Open(addr string, proto Proto, n int) (*Load, error) {
	if n < 1 {
		return nil, fmt.Errorf("netload: %d connections, want at least 1", n)
	}
	l := &Load{proto: proto}
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("netload: connection %d of %d: %w", i+1, n, err)
		}
		l.conns = append(l.conns, newConn(c, proto, i))
	}
	return l, nil
}

// Conns is the number of connections.
func (l *Load) Conns() int { return len(l.conns) }

// Close closes every connection.
func (l *Load) Close() error {
	var errs []error
	for _, c := range l.conns {
		errs = append(errs, c.c.Close())
	}
	return errors.Join(errs...)
}

// Run sends requests requests spread over the connections (each sends its
// share one at a time) and waits for every response. A wrong response or a
// failed connection fails the run: the Load is then unusable.
func (l *Load) Run(requests int) (Result, error) {
	if requests < len(l.conns) {
		return Result{}, fmt.Errorf("netload: %d requests over %d connections: want at least one each", requests, len(l.conns))
	}
	var (
		wg   sync.WaitGroup
		errs = make([]error, len(l.conns))
		lats = make([][]time.Duration, len(l.conns))
	)
	start := time.Now()
	for i, c := range l.conns {
		share := requests / len(l.conns)
		if i < requests%len(l.conns) {
			share++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			lats[i], errs[i] = c.run(share)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return Result{}, err
	}
	all := slices.Concat(lats...)
	slices.Sort(all)
	return Result{
		Requests: len(all), Elapsed: elapsed,
		P50: Percentile(all, 50), P99: Percentile(all, 99), Max: all[len(all)-1], Latencies: all,
	}, nil
}

// Percentile is the p-th percentile of sorted (nearest rank); 0 for none.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// conn is one connection's client: its requests, in turn, and what each
// response must be.
type conn struct {
	c     net.Conn
	br    *bufio.Reader
	proto Proto
	reqs  [][]byte // sent in turn
	want  [][]byte // reqs[i]'s exact reply (RESP), or its body after a 200 (HTTP)
	next  int
}

func newConn(c net.Conn, proto Proto, id int) *conn {
	x := &conn{c: c, br: bufio.NewReaderSize(c, 16<<10), proto: proto}
	switch proto {
	case HTTPHello:
		x.add("GET / HTTP/1.1\r\nHost: netload\r\n\r\n", "Hello, World!")
	case HTTPEcho:
		x.add(fmt.Sprintf("POST /echo HTTP/1.1\r\nHost: netload\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n%s", len(EchoBody), EchoBody),
			string(EchoBody))
	case RESP:
		k, n := fmt.Sprintf("key:%d", id), fmt.Sprintf("counter:%d", id)
		x.add(multibulk("PING"), "+PONG\r\n")
		x.add(multibulk("SET", k, "xxx"), "+OK\r\n")
		x.add(multibulk("GET", k), "$3\r\nxxx\r\n")
		x.add(multibulk("INCR", n), "") // the reply is the count: checked by incr
	}
	return x
}

func (x *conn) add(req, want string) {
	x.reqs = append(x.reqs, []byte(req))
	x.want = append(x.want, []byte(want))
}

// multibulk is a RESP array of bulk strings, as redis-cli sends commands.
func multibulk(args ...string) string {
	s := "*" + strconv.Itoa(len(args)) + "\r\n"
	for _, a := range args {
		s += "$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n"
	}
	return s
}

// run sends n requests one at a time and returns their round trips.
func (x *conn) run(n int) ([]time.Duration, error) {
	lats := make([]time.Duration, 0, n)
	got := make([]byte, 0, 512)
	var incr int64
	// INCR's reply is the count so far, which a connection reused over
	// runs carries on: read it from the first reply, then expect +1.
	for range n {
		i := x.next
		x.next = (x.next + 1) % len(x.reqs)
		t0 := time.Now()
		if _, err := x.c.Write(x.reqs[i]); err != nil {
			return nil, fmt.Errorf("netload %v: write: %w", x.proto, err)
		}
		var err error
		got, err = x.read(got[:0])
		lats = append(lats, time.Since(t0))
		if err != nil {
			return nil, fmt.Errorf("netload %v: read: %w", x.proto, err)
		}
		if w := x.want[i]; len(w) == 0 { // INCR
			v, err := parseInt(got)
			if err != nil {
				return nil, fmt.Errorf("netload %v: INCR answered %q: %v", x.proto, got, err)
			}
			if incr != 0 && v != incr+1 {
				return nil, fmt.Errorf("netload %v: INCR answered %d after %d", x.proto, v, incr)
			}
			incr = v
		} else if !x.match(got, w) {
			return nil, fmt.Errorf("netload %v: response %q, want %q", x.proto, got, w)
		}
	}
	return lats, nil
}

// match says whether got is the response wanted: a RESP reply byte for
// byte; an HTTP/1.1 200 with the body w (its header fields are the
// server's: net/http's adds a Date).
func (x *conn) match(got, w []byte) bool {
	if x.proto == RESP {
		return bytes.Equal(got, w)
	}
	return bytes.HasPrefix(got, []byte("HTTP/1.1 200 ")) && bytes.HasSuffix(got, append([]byte("\r\n\r\n"), w...))
}

// read appends one whole response to dst: an HTTP response (head and its
// Content-Length body) or one RESP reply (a line, or a bulk string's two).
func (x *conn) read(dst []byte) ([]byte, error) {
	if x.proto == RESP {
		line, err := x.line(dst)
		if err != nil || len(line) == 0 || line[0] != '$' {
			return line, err
		}
		n, err := strconv.Atoi(string(bytes.TrimSpace(line[1:])))
		if err != nil || n < 0 {
			return line, err
		}
		return x.body(line, n+2)
	}
	clen := -1
	for {
		start := len(dst)
		var err error
		dst, err = x.line(dst)
		if err != nil {
			return dst, err
		}
		h := dst[start:]
		if string(h) == "\r\n" {
			break
		}
		if k, v, ok := bytes.Cut(h, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
			clen, err = strconv.Atoi(string(bytes.TrimSpace(v)))
			if err != nil {
				return dst, fmt.Errorf("bad Content-Length %q", v)
			}
		}
	}
	if clen < 0 {
		return dst, errors.New("response without Content-Length")
	}
	return x.body(dst, clen)
}

// line appends one line, its CRLF included.
func (x *conn) line(dst []byte) ([]byte, error) {
	for {
		b, err := x.br.ReadSlice('\n')
		dst = append(dst, b...)
		if err != bufio.ErrBufferFull {
			return dst, err
		}
	}
}

// body appends the next n bytes.
func (x *conn) body(dst []byte, n int) ([]byte, error) {
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	_, err := io.ReadFull(x.br, dst[start:])
	return dst, err
}

// parseInt reads a RESP integer reply, ":n\r\n".
func parseInt(b []byte) (int64, error) {
	if len(b) < 4 || b[0] != ':' || !bytes.HasSuffix(b, []byte("\r\n")) {
		return 0, errors.New("not an integer reply")
	}
	return strconv.ParseInt(string(b[1:len(b)-2]), 10, 64)
}
