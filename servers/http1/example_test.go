package http1_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/schedkit/schedkit/servers/http1"
)

// Example serves the workload on goroutines, on a port of its own, and
// sends it two requests on one kept-alive connection with Go's client.
func Example() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	s := &http1.Server{Handler: http1.Routes} // Spawn nil: a goroutine per connection
	go s.Serve(l)
	defer s.Close()

	url := "http://" + l.Addr().String()
	resp, err := http.Get(url + "/")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, string(body))

	resp, err = http.Post(url+"/echo", "text/plain", strings.NewReader("ping"))
	if err != nil {
		panic(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, string(body))
	fmt.Println("connections:", s.Accepted())
	http.DefaultClient.CloseIdleConnections()
	// Output:
	// 200 OK Hello, World!
	// 200 OK ping
	// connections: 1
}

// ExampleReadRequest parses a request from any reader, as the server does
// from a connection.
func ExampleReadRequest() {
	in := "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n"
	var req http1.Request
	err := http1.ReadRequest(bufio.NewReader(strings.NewReader(in)), http1.DefaultLimits, &req)
	fmt.Println(err, req.Method, req.Target, req.Proto(), string(req.Body), req.Chunked)
	err = http1.ReadRequest(bufio.NewReader(strings.NewReader("GET / HTTP/1.1\r\n\r\n")), http1.DefaultLimits, &req)
	fmt.Println(err)
	// Output:
	// <nil> POST /echo HTTP/1.1 Wikipedia true
	// http1: 400 Bad Request: 0 Host fields in an HTTP/1.1 request
}
