package http1_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/servers/http1"
)

// tableLimits are small, so each limit's boundary is a short line.
var tableLimits = http1.Limits{MaxLine: 40, MaxHeaderBytes: 100, MaxHeaders: 5, MaxBody: 16}

// A parseCase is a byte stream and what ReadRequest makes of it: the
// requests in order, then the error that ends it (io.EOF for a clean end,
// io.ErrUnexpectedEOF, or a *ParseError with status).
type parseCase struct {
	name   string
	in     string
	want   []http1.Request
	status int   // the ParseError after want; 0: none
	end    error // io.EOF (the default) or io.ErrUnexpectedEOF when status is 0
}

// rq is a want: method, target, HTTP/1.minor, body, then the header fields
// as "Name", "value" pairs.
func rq(method, target string, minor int, body string, fields ...string) http1.Request {
	r := http1.Request{Method: method, Target: target, Minor: minor, Body: []byte(body)}
	for i := 0; i+1 < len(fields); i += 2 {
		r.Header = append(r.Header, http1.Field{Name: fields[i], Value: fields[i+1]})
	}
	r.Close = minor == 0
	return r
}

func with(r http1.Request, f func(*http1.Request)) http1.Request { f(&r); return r }

func closing(r *http1.Request)   { r.Close = true }
func keepAlive(r *http1.Request) { r.Close = false }
func chunked(r *http1.Request)   { r.Chunked = true }
func expect100(r *http1.Request) { r.Expect100 = true }

// pad is a header line "X-<c>: aaa…" exactly n bytes long without its CRLF.
func pad(c byte, n int) string {
	return "X-" + string(c) + ": " + strings.Repeat("a", n-5) + "\r\n"
}

var get = rq("GET", "/", 1, "", "Host", "x")

const host = "Host: x\r\n"

var parseCases = []parseCase{
	{name: "empty stream", in: ""},
	{name: "GET", in: "GET / HTTP/1.1\r\nHost: x\r\n\r\n", want: []http1.Request{get}},
	{
		name: "pipelined GET, POST with a body, GET",
		in: "GET /a?b=c HTTP/1.1\r\nHost: x\r\n\r\n" +
			"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello" +
			"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		want: []http1.Request{
			rq("GET", "/a?b=c", 1, "", "Host", "x"),
			rq("POST", "/echo", 1, "hello", "Host", "x", "Content-Length", "5"),
			get,
		},
	},
	{name: "HTTP/1.0 closes", in: "GET / HTTP/1.0\r\n\r\n", want: []http1.Request{rq("GET", "/", 0, "")}},
	{
		name: "HTTP/1.0 keep-alive",
		in:   "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
		want: []http1.Request{with(rq("GET", "/", 0, "", "Connection", "Keep-Alive"), keepAlive)},
	},
	{
		name: "HTTP/1.1 Connection: close among other tokens",
		in:   "GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, CLOSE\r\n\r\n",
		want: []http1.Request{with(rq("GET", "/", 1, "", "Host", "x", "Connection", "keep-alive, CLOSE"), closing)},
	},
	{
		name: "bare LF line ends, leading empty lines, whitespace around values",
		in:   "\r\n\nGET / HTTP/1.1\nHost: \t x \t\n\n",
		want: []http1.Request{get},
	},
	{name: "HTTP/1.2 is served as 1.x", in: "GET * HTTP/1.2\r\nHost: x\r\n\r\n", want: []http1.Request{rq("GET", "*", 2, "", "Host", "x")}},
	{
		name: "chunked body with an extension and a trailer, then a GET",
		in: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"5\r\nhello\r\n6;ext=1\r\n world\r\n1 \r\n!\r\n0\r\nT: t\r\n\r\n" + "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		want: []http1.Request{
			with(rq("POST", "/echo", 1, "hello world!", "Host", "x", "Transfer-Encoding", "chunked"), chunked),
			get,
		},
	},
	{
		name: "chunked body of MaxBody bytes, upper-case hex",
		in: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"6\r\nabcdef\r\nA\r\n0123456789\r\n0\r\n\r\n" + "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		want: []http1.Request{
			with(rq("POST", "/echo", 1, "abcdef0123456789", "Host", "x", "Transfer-Encoding", "chunked"), chunked),
			get,
		},
	},
	{
		name:   "chunked body of MaxBody+1 bytes",
		in:     "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\nB\r\n0123456789a\r\n0\r\n\r\n",
		status: 413,
	},
	{
		name: "chunked body within the limit",
		in: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n" + "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		want: []http1.Request{
			with(rq("POST", "/echo", 1, "abcde", "Host", "x", "Transfer-Encoding", "chunked"), chunked),
			get,
		},
	},
	{
		name: "Expect: 100-continue and identical Content-Lengths",
		in:   "PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-Continue\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\nhi",
		want: []http1.Request{with(rq("PUT", "/x", 1, "hi", "Host", "x", "Expect", "100-Continue", "Content-Length", "2", "content-length", "2"), expect100)},
	},
	// The limits' boundaries: at the limit passes, one past it is refused.
	{
		name: "request line of MaxLine bytes",
		in:   "GET /" + strings.Repeat("a", 40-len("GET / HTTP/1.1")) + " HTTP/1.1\r\n" + host + "\r\n",
		want: []http1.Request{rq("GET", "/"+strings.Repeat("a", 26), 1, "", "Host", "x")},
	},
	{name: "request line of MaxLine+1 bytes", in: "GET /" + strings.Repeat("a", 27) + " HTTP/1.1\r\n" + host + "\r\n", status: 414},
	{
		name: "header line of MaxLine bytes, fields of MaxHeaderBytes",
		in:   "GET / HTTP/1.1\r\n" + host + pad('A', 40) + pad('B', 40) + "X-D: \r\n\r\n",
		want: []http1.Request{rq("GET", "/", 1, "", "Host", "x", "X-A", strings.Repeat("a", 35), "X-B", strings.Repeat("a", 35), "X-D", "")},
	},
	{name: "header line of MaxLine+1 bytes", in: "GET / HTTP/1.1\r\n" + host + pad('A', 41) + "\r\n", status: 431},
	{name: "fields of MaxHeaderBytes+1", in: "GET / HTTP/1.1\r\n" + host + pad('A', 40) + pad('B', 40) + "X-D: a\r\n\r\n", status: 431},
	{name: "MaxHeaders+1 fields", in: "GET / HTTP/1.1\r\n" + host + "A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n", status: 431},
	{
		name: "body of MaxBody bytes",
		in:   "POST / HTTP/1.1\r\n" + host + "Content-Length: 16\r\n\r\n0123456789abcdef",
		want: []http1.Request{rq("POST", "/", 1, "0123456789abcdef", "Host", "x", "Content-Length", "16")},
	},
	{name: "body of MaxBody+1 bytes", in: "POST / HTTP/1.1\r\n" + host + "Content-Length: 17\r\n\r\n0123456789abcdefg", status: 413},
	{name: "trailer over the limits", in: "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n0\r\n" + pad('A', 40) + pad('B', 40) + pad('C', 40) + "\r\n", status: 431},
	// Malformed request lines.
	{name: "no version", in: "GET /\r\n\r\n", status: 400},
	{name: "two spaces", in: "GET  / HTTP/1.1\r\n" + host + "\r\n", status: 400},
	{name: "space after the version", in: "GET / HTTP/1.1 \r\n" + host + "\r\n", status: 400},
	{name: "method not a token", in: "G@T / HTTP/1.1\r\n" + host + "\r\n", status: 400},
	{name: "control byte in the target", in: "GET /\x01 HTTP/1.1\r\n" + host + "\r\n", status: 400},
	{name: "lower-case version", in: "GET / http/1.1\r\n" + host + "\r\n", status: 400},
	{name: "HTTP/2.0", in: "GET / HTTP/2.0\r\n" + host + "\r\n", status: 505},
	{name: "HTTP/0.9 style", in: "GET /\r\n", status: 400},
	// Malformed header fields.
	{name: "HTTP/1.1 without Host", in: "GET / HTTP/1.1\r\n\r\n", status: 400},
	{name: "two Hosts", in: "GET / HTTP/1.1\r\n" + host + host + "\r\n", status: 400},
	{name: "space before the colon", in: "GET / HTTP/1.1\r\nHost : x\r\n\r\n", status: 400},
	{name: "obsolete line folding", in: "GET / HTTP/1.1\r\n" + host + "X: a\r\n b\r\n\r\n", status: 400},
	{name: "no colon", in: "GET / HTTP/1.1\r\n" + host + "Xyz\r\n\r\n", status: 400},
	{name: "empty name", in: "GET / HTTP/1.1\r\n" + host + ": v\r\n\r\n", status: 400},
	{name: "control byte in a value", in: "GET / HTTP/1.1\r\n" + host + "X: a\x00b\r\n\r\n", status: 400},
	{name: "CR inside a line", in: "GET / HTTP/1.1\r\n" + host + "X: a\rb\r\n\r\n", status: 400},
	{name: "Content-Length not a number", in: "POST / HTTP/1.1\r\n" + host + "Content-Length: abc\r\n\r\n", status: 400},
	{name: "Content-Length with a sign", in: "POST / HTTP/1.1\r\n" + host + "Content-Length: +5\r\n\r\n", status: 400},
	{name: "Content-Length as a list", in: "POST / HTTP/1.1\r\n" + host + "Content-Length: 5, 5\r\n\r\n", status: 400},
	{name: "Content-Length empty", in: "POST / HTTP/1.1\r\n" + host + "Content-Length:\r\n\r\n", status: 400},
	{name: "Content-Lengths that disagree", in: "POST / HTTP/1.1\r\n" + host + "Content-Length: 1\r\nContent-Length: 2\r\n\r\nab", status: 400},
	{name: "Content-Length far too large", in: "POST / HTTP/1.1\r\n" + host + "Content-Length: 99999999999999999999\r\n\r\n", status: 400},
	{name: "Transfer-Encoding with Content-Length", in: "POST / HTTP/1.1\r\n" + host + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", status: 400},
	{name: "Transfer-Encoding gzip", in: "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: gzip\r\n\r\n", status: 501},
	{name: "gzip then chunked", in: "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: gzip, chunked\r\n\r\n", status: 501},
	{name: "chunked twice", in: "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", status: 400},
	{name: "Transfer-Encoding in HTTP/1.0", in: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", status: 400},
	{name: "unknown expectation", in: "POST / HTTP/1.1\r\n" + host + "Expect: 200-ok\r\n\r\n", status: 417},
	// Malformed chunked bodies.
	{name: "chunk size not hex", in: "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\nxyz\r\n", status: 400},
	{name: "chunk size with junk", in: "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n5x\r\nhello\r\n0\r\n\r\n", status: 400},
	{name: "chunk size of 16 digits", in: "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n1000000000000000\r\n", status: 400},
	{name: "chunk data not followed by CRLF", in: "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n", status: 400},
	{name: "chunk size line too long", in: "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n1;" + strings.Repeat("e", 40) + "\r\n", status: 400},
	// Ends inside a request.
	{name: "only an empty line", in: "\r\n", end: io.ErrUnexpectedEOF},
	{name: "inside the request line", in: "GET / HT", end: io.ErrUnexpectedEOF},
	{name: "inside the header", in: "GET / HTTP/1.1\r\nHost: x\r\n", end: io.ErrUnexpectedEOF},
	{name: "inside the body", in: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhel", end: io.ErrUnexpectedEOF},
	{name: "inside a chunk", in: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", end: io.ErrUnexpectedEOF},
	{name: "before the last chunk", in: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", end: io.ErrUnexpectedEOF},
}

// A readFunc reads one request, as http1.ReadRequest does; the tests take it
// as a parameter so a deliberately broken parser can be fed to them.
type readFunc func(br *bufio.Reader, lim http1.Limits, req *http1.Request) error

// checkParseCase runs one case through read, over a reader of 16 bytes (the
// smallest bufio allows, so lines longer than it take the long path) and
// over one of 4096.
func checkParseCase(read readFunc, c parseCase) error {
	for _, size := range []int{16, 4096} {
		br := bufio.NewReaderSize(strings.NewReader(c.in), size)
		var req http1.Request
		for i := 0; ; i++ {
			err := read(br, tableLimits, &req)
			if err != nil {
				if i < len(c.want) {
					return fmt.Errorf("buffer %d: request %d: %v, want %s", size, i, err, show(&c.want[i]))
				}
				return checkEnd(err, c)
			}
			if i >= len(c.want) {
				return fmt.Errorf("buffer %d: request %d %s, want the end (status %d)", size, i, show(&req), c.status)
			}
			if !sameRequest(&req, &c.want[i]) {
				return fmt.Errorf("buffer %d: request %d\n got  %s\n want %s", size, i, show(&req), show(&c.want[i]))
			}
		}
	}
	return nil
}

func checkEnd(err error, c parseCase) error {
	var pe *http1.ParseError
	switch {
	case c.status != 0:
		if !errors.As(err, &pe) || pe.Status != c.status {
			return fmt.Errorf("ends with %v, want status %d", err, c.status)
		}
	case errors.As(err, &pe):
		return fmt.Errorf("ends with %v, want %v", err, cmp(c.end, io.EOF))
	case err != cmp(c.end, io.EOF):
		return fmt.Errorf("ends with %v, want %v", err, cmp(c.end, io.EOF))
	}
	return nil
}

func cmp(err, or error) error {
	if err == nil {
		return or
	}
	return err
}

func sameRequest(a, b *http1.Request) bool {
	return a.Method == b.Method && a.Target == b.Target && a.Minor == b.Minor &&
		slices.Equal(a.Header, b.Header) && string(a.Body) == string(b.Body) &&
		a.Close == b.Close && a.Chunked == b.Chunked && a.Expect100 == b.Expect100
}

func show(r *http1.Request) string {
	return fmt.Sprintf("%s %q HTTP/1.%d %q body %q close=%v chunked=%v expect100=%v",
		r.Method, r.Target, r.Minor, r.Header, r.Body, r.Close, r.Chunked, r.Expect100)
}

// checkParseCases is the table's verdict on read: the first case it fails.
func checkParseCases(read readFunc) error {
	for _, c := range parseCases {
		if err := checkParseCase(read, c); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return nil
}

func TestReadRequest(t *testing.T) {
	for _, c := range parseCases {
		t.Run(c.name, func(t *testing.T) {
			if err := checkParseCase(http1.ReadRequest, c); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestParseTableCatchesBrokenParsers feeds the table parsers broken on
// purpose, outside the seeded mutants: each must fail it.
func TestParseTableCatchesBrokenParsers(t *testing.T) {
	broken := map[string]readFunc{
		// Reads every request as if it asked to close.
		"always closes": func(br *bufio.Reader, lim http1.Limits, req *http1.Request) error {
			err := http1.ReadRequest(br, lim, req)
			req.Close = true
			return err
		},
		// Gives every limit one more byte.
		"limits one byte loose": func(br *bufio.Reader, lim http1.Limits, req *http1.Request) error {
			lim.MaxLine++
			lim.MaxHeaderBytes++
			lim.MaxBody++
			return http1.ReadRequest(br, lim, req)
		},
		// Takes every refusal for a 400.
		"every refusal a 400": func(br *bufio.Reader, lim http1.Limits, req *http1.Request) error {
			err := http1.ReadRequest(br, lim, req)
			if pe := (*http1.ParseError)(nil); errors.As(err, &pe) {
				return &http1.ParseError{Status: 400, Reason: pe.Reason}
			}
			return err
		},
		// Drops the header fields.
		"drops the header": func(br *bufio.Reader, lim http1.Limits, req *http1.Request) error {
			err := http1.ReadRequest(br, lim, req)
			req.Header = req.Header[:0]
			return err
		},
	}
	for name, read := range broken {
		if err := checkParseCases(read); err == nil {
			t.Errorf("the table passes a parser that %s", name)
		} else {
			t.Logf("%s: caught: %v", name, strings.SplitN(err.Error(), "\n", 2)[0])
		}
	}
}
