// Package http1 is a small HTTP/1.1 keep-alive server: a workload and an
// example for the executor's network poller (issue 24), not a production
// server. It is written against net.Listener and net.Conn only, so the same
// code serves on plain goroutines with package net (the comparison) and on
// the executor's task-side listener, whose Accept, Read and Write park a
// task instead of a thread.
//
// # Use
//
//	l, _ := net.Listen("tcp", "127.0.0.1:8080")
//	http1.ServeGo(l, http1.Routes)                 // a goroutine per connection
//	http1.Serve(l, func(f func()) { go f() }, h)   // the same, spawn spelled out
//
//	s := &http1.Server{Handler: http1.Routes, Spawn: spawn, Limits: http1.Limits{MaxBody: 64 << 10}}
//	go s.Serve(l)                                  // Accepted counts connections; Close ends them all
//
//	tl, _ := tasknet.Listen(ex, "tcp", "127.0.0.1:8080")   // on the executor:
//	s := &http1.Server{SpawnConn: tasknet.SpawnConn(ex)}  // each connection a task, bound to it
//	go s.Serve(tl)                                 // the accept loop on a goroutine
//
// Spawn starts each connection's loop (and nothing else): `go f()` on
// goroutines. On the executor set SpawnConn instead: it is given the
// connection too, and tasknet.SpawnConn runs the loop as a task with the
// connection bound to that task, so a read with no data parks the task
// (Spawn with a bare task would block its M). The loop reads a
// request through a bufio.Reader over the connection, calls the Handler,
// appends the response to the connection's output and writes that output
// when the reader would otherwise block, so pipelined requests are answered
// in one write and a client waiting for a response is never kept waiting.
// Routes serves the workload: GET / answers "Hello, World!", POST /echo the
// body it was sent; Hello and Echo are the two handlers alone.
//
// # What it speaks
//
//   - Request line, header fields and the body (RFC 9112): Content-Length
//     (digits only; duplicates must agree) or Transfer-Encoding: chunked
//     (extensions ignored, trailer fields read and dropped). Another coding
//     is 501; chunked not last, or twice, or with Content-Length, or in an
//     HTTP/1.0 request, is 400.
//   - Keep-alive: an HTTP/1.1 connection stays open until "Connection:
//     close"; an HTTP/1.0 one closes after its response unless the request
//     said "Connection: keep-alive" (then the response says it too).
//     HTTP/1.x for x > 1 is served as 1.1; another major version is 505.
//   - "Expect: 100-continue" gets "100 Continue" before the body is read
//     (unless the body is already there or is over the limit); another
//     expectation is 417.
//   - Limits (Limits, DefaultLimits): a request line longer than MaxLine is
//     414, a header line longer than MaxLine, header fields longer than
//     MaxHeaderBytes together or more than MaxHeaders is 431, a body over
//     MaxBody is 413. A bare LF ends a line as CRLF does; empty lines before
//     a request line are skipped; obsolete line folding, a space before the
//     colon, a missing or repeated Host in HTTP/1.1 and control bytes are 400.
//   - A refused request is answered with its status and "Connection: close".
//     Whenever the server ends a connection (after a refusal, "Connection:
//     close" or HTTP/1.0), it half-closes and reads what the client still
//     sends for up to a second (a lingering close, as net/http's), so the
//     client reads the last response instead of a reset; a client that
//     reads to the end and closes ends the wait at once.
//
// Left out, as a workload needs none of it: no Date header, no timeouts (an
// idle connection stays until the client or Close ends it, which is what an
// idle-connection benchmark wants), no HTTP/2, no TLS, no response
// streaming (a Handler returns the whole body).
//
// # Checks
//
// TestReadRequest (parse_test.go) is the parser's table, bad input and each
// limit's boundary included; TestConversations sends fixed byte streams to a
// real server over loopback and compares the exact answer; FuzzParseRequest
// requires that any bytes parse without a panic into requests that survive
// a round trip (AppendWire, and again chunked) or end with a clean error.
// Real clients nobody here wrote: TestNetHTTPClient (net/http, keep-alive
// reuse counted by httptrace and Server.Accepted) and TestCurl (skipped
// when curl is missing). Each server test runs over every transport in
// server_test.go's transports list, one line per listener.
//
// The seeded mutations (mutation.go) are the checkers' proof that they can
// fail: TestKillMatrix (tags schedcheck,schedmutant) requires each to be
// caught by two of the table, the conversations and the round trip (the
// real clients, net/http's and TestSlowClient's, are an extra column), and
// TestParseTableCatchesBrokenParsers feeds the table parsers broken on
// purpose in a normal build.
package http1
