package http1_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"testing"

	"github.com/schedkit/schedkit/servers/http1"
)

// fuzzLimits are small, so the fuzzer reaches every limit.
var fuzzLimits = http1.Limits{MaxLine: 64, MaxHeaderBytes: 256, MaxHeaders: 8, MaxBody: 64}

// requestSeeds are the fuzz target's seeds written here; testdata/fuzz
// holds the ones copied from the shared go-fuzz corpus (testdata/README.md).
var requestSeeds = []string{
	"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.0\r\n\r\n",
	"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhelloGET / HTTP/1.1\r\nHost: x\r\n\r\n",
	"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=y\r\n world\r\n0\r\nT: 1\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
	"PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi",
	"\r\nGET http://example.com/?q HTTP/1.1\nHost:  y \n\n",
	"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n",
}

// checkRequestStream is the fuzz target's property on one input: reading
// requests from it never panics, ends with io.EOF, io.ErrUnexpectedEOF or a
// *ParseError, keeps to the limits, and every request read survives a round
// trip: written with AppendWire (and again with its body chunked) and read
// back, it is the same request.
func checkRequestStream(data []byte) error {
	br := bufio.NewReaderSize(bytes.NewReader(data), 16)
	var req http1.Request
	for i := 0; ; i++ {
		err := http1.ReadRequest(br, fuzzLimits, &req)
		var pe *http1.ParseError
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return nil
		case errors.As(err, &pe):
			if http1.StatusText(pe.Status) == "" {
				return fmt.Errorf("request %d: status %d has no reason phrase", i, pe.Status)
			}
			return nil
		case err != nil:
			return fmt.Errorf("request %d: unexpected error %v", i, err)
		}
		if int64(len(req.Body)) > fuzzLimits.MaxBody || len(req.Header) > fuzzLimits.MaxHeaders {
			return fmt.Errorf("request %d over the limits: %s", i, show(&req))
		}
		if cl, ok := req.Get("Content-Length"); ok && !req.Chunked && !sameNumber(cl, len(req.Body)) {
			return fmt.Errorf("request %d: Content-Length %s, body of %d bytes", i, cl, len(req.Body))
		}
		wire := req.AppendWire(nil)
		if err := roundTrip(&req, wire, false); err != nil {
			return fmt.Errorf("request %d: %w", i, err)
		}
		if req.Minor >= 1 && len(req.Body) > 0 {
			if err := roundTrip(&req, chunkedWire(&req), true); err != nil {
				return fmt.Errorf("request %d, chunked: %w", i, err)
			}
		}
	}
}

// sameNumber reports whether the digits cl are n (leading zeros allowed).
func sameNumber(cl string, n int) bool {
	v, err := strconv.ParseUint(cl, 10, 63)
	return err == nil && v == uint64(n)
}

// roundTrip reads wire back (with limits loose enough for the fields the
// writing normalized) and compares it with want.
func roundTrip(want *http1.Request, wire []byte, chunked bool) error {
	lim := http1.Limits{MaxLine: 2 * fuzzLimits.MaxLine, MaxHeaderBytes: 4 * fuzzLimits.MaxHeaderBytes,
		MaxHeaders: fuzzLimits.MaxHeaders + 1, MaxBody: fuzzLimits.MaxBody}
	br := bufio.NewReaderSize(bytes.NewReader(wire), 16)
	var got http1.Request
	if err := http1.ReadRequest(br, lim, &got); err != nil {
		return fmt.Errorf("%q read back: %v", wire, err)
	}
	if _, err := br.Peek(1); err != io.EOF {
		return fmt.Errorf("%q read back leaves %d bytes", wire, br.Buffered())
	}
	if got.Method != want.Method || got.Target != want.Target || got.Minor != want.Minor ||
		!slices.Equal(withoutFraming(got.Header), withoutFraming(want.Header)) ||
		!bytes.Equal(got.Body, want.Body) || got.Close != want.Close ||
		got.Expect100 != want.Expect100 || got.Chunked != chunked {
		return fmt.Errorf("%q read back\n got  %s\n want %s", wire, show(&got), show(want))
	}
	return nil
}

func withoutFraming(h []http1.Field) []http1.Field {
	var out []http1.Field
	for _, f := range h {
		if n := string(bytes.ToLower([]byte(f.Name))); n != "content-length" && n != "transfer-encoding" {
			out = append(out, f)
		}
	}
	return out
}

// chunkedWire is AppendWire with the body in chunks of 1, 2, 3, … bytes.
func chunkedWire(r *http1.Request) []byte {
	c := *r
	c.Body = nil
	wire := c.AppendWire(nil)
	wire = append(wire[:len(wire)-2], "Transfer-Encoding: chunked\r\n\r\n"...)
	body := r.Body
	for n := 1; len(body) > 0; n++ {
		k := min(n, len(body))
		wire = fmt.Appendf(wire, "%x\r\n%s\r\n", k, body[:k])
		body = body[k:]
	}
	return append(wire, "0\r\n\r\n"...)
}

func FuzzParseRequest(f *testing.F) {
	for _, s := range requestSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := checkRequestStream(data); err != nil {
			t.Fatal(err)
		}
	})
}

// checkRequestSeeds is the round-trip checker's verdict: the property on
// every seed written here.
func checkRequestSeeds() error {
	for i, s := range requestSeeds {
		if err := checkRequestStream([]byte(s)); err != nil {
			return fmt.Errorf("seed %d: %w", i, err)
		}
	}
	return nil
}
