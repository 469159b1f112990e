package resp_test

import (
	"bufio"
	"fmt"
	"net"

	"github.com/schedkit/schedkit/servers/resp"
)

// Example serves a store on goroutines, on a port of its own, and sends it
// a pipeline: three commands in one write, then their replies in order.
func Example() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	s := &resp.Server{Store: resp.NewStore()} // Spawn nil: a goroutine per connection
	go s.Serve(l)
	defer s.Close()

	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	var out []byte
	out = resp.AppendCommand(out, []byte("SET"), []byte("greeting"), []byte("hello"))
	out = resp.AppendCommand(out, []byte("GET"), []byte("greeting"))
	out = resp.AppendCommand(out, []byte("INCR"), []byte("greeting"))
	out = append(out, "PING\r\n"...) // an inline command, as redis-benchmark sends PING
	conn.Write(out)

	br := bufio.NewReader(conn)
	for range 5 { // +OK, the bulk string's two lines, the error, +PONG
		line, _ := br.ReadString('\n')
		fmt.Printf("%q\n", line)
	}
	// Output:
	// "+OK\r\n"
	// "$5\r\n"
	// "hello\r\n"
	// "-ERR value is not an integer or out of range\r\n"
	// "+PONG\r\n"
}
