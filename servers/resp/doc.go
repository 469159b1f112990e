// Package resp is a small RESP2 server (the protocol of Redis) with PING,
// SET, GET and INCR: a workload and an example for the executor's network
// poller (issue 24), not a production server and not a Redis. It is written
// against net.Listener and net.Conn only, so the same code serves on plain
// goroutines with package net (the comparison) and on the executor's
// task-side listener, whose Accept, Read and Write park a task instead of a
// thread; redis-benchmark and redis-cli talk to it.
//
// # Use
//
//	l, _ := net.Listen("tcp", "127.0.0.1:6380")
//	resp.ServeGo(l, resp.NewStore())                      // a goroutine per connection
//	resp.Serve(l, func(f func()) { go f() }, st)          // the same, spawn spelled out
//
//	s := &resp.Server{Store: st, Spawn: spawn, Limits: resp.Limits{MaxBulk: 4 << 10}}
//	go s.Serve(l)                                         // Accepted counts connections; Close ends them all
//
//	tl, _ := tasknet.Listen(ex, "tcp", "127.0.0.1:6380")        // on the executor:
//	s := &resp.Server{Store: st, SpawnConn: tasknet.SpawnConn(ex)} // each connection a task, bound to it
//	go s.Serve(tl)                                        // the accept loop on a goroutine
//
// Spawn starts each connection's loop (and nothing else): `go f()` on
// goroutines. On the executor set SpawnConn instead: it is given the
// connection too, and tasknet.SpawnConn runs the loop as a task with the
// connection bound to that task, so a read with no data parks the task
// (Spawn with a bare task would block its M). The loop reads
// commands through a bufio.Reader over the connection (Reader), runs each
// on the Store (Store.Exec), appends the reply to the connection's output
// and writes that output when the reader would otherwise block, so a
// pipeline's replies go out in one write.
//
// # What it speaks
//
//   - Commands as arrays of bulk strings ("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"),
//     as every client sends them, and inline commands ("PING\r\n", as
//     redis-benchmark's PING_INLINE and a person at telnet send them), split
//     as Redis's sdssplitargs splits them, quotes and escapes included.
//     Empty lines and "*0" are skipped, as Redis skips them.
//   - PING [message], SET key value (no options: "ERR syntax error"), GET key
//     ("$-1" when missing), INCR key (a missing key counts as 0), QUIT;
//     replies and errors in Redis's words: "ERR wrong number of arguments
//     for 'get' command", "ERR value is not an integer or out of range",
//     "ERR increment or decrement would overflow", "ERR unknown command
//     'x', with args beginning with: 'a' " (Redis 7's form). Integers are
//     read as Redis's string2ll reads them: no '+', no spaces, no leading
//     zeros.
//   - Input that is not RESP ("ERR Protocol error: invalid bulk length",
//     "… unbalanced quotes in request", …) is answered and the connection
//     closed, as Redis does; after it and after QUIT the server half-closes
//     and reads what the client still sends (up to 1 s) before it closes, so
//     the client reads the last reply instead of a reset. Limits (Limits, DefaultLimits) bound a line, the
//     arguments of a command, a bulk string and a command's bytes together.
//   - The Store is 64 shards, each a map under its own mutex held only for
//     the map operation; INCR's read, add and write are one step under it.
//
// # Checks
//
// TestReadCommand (parse_test.go) is the parser's table, bad input and each
// limit's boundary included; TestExec the commands' exact replies;
// TestConversations sends fixed byte streams to a real server over loopback
// and compares the exact answer; FuzzParseRESP requires that any bytes parse
// without a panic into commands that survive a round trip (AppendCommand and
// back) and get exactly one well-formed reply, or end with a clean error.
// TestPipelinedClients is a client written in the test sending 8 pipelines
// of 300 commands at once; TestRedisCLI runs redis-cli (skipped when it is
// missing). Each server test runs over every transport in server_test.go's
// transports list, one line per listener.
//
// The seeded mutations (mutation.go) are the checkers' proof that they can
// fail: TestKillMatrix (tags schedcheck,schedmutant) requires each to be
// caught by two of the parse table, the command table, the conversations
// and the round trip; the clients (the pipelines and TestSlowClient's) are
// an extra column of its full table. TestConcurrentIncrCatchesLostUpdates
// feeds TestStoreConcurrentIncr's check an INCR that is two steps and
// requires it to fail.
package resp
