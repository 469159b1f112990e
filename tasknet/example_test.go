//go:build !schedcheck

// The example does real I/O, which a schedcheck build's executor poller
// (the explorer's fake kernel) cannot, and an Example cannot skip.

package tasknet_test

import (
	"bufio"
	"fmt"
	"io"
	"net"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/tasknet"
)

// Example: an echo server whose connections are tasks. A Read with no data
// parks the task on the poller (no M held); epoll readies it into the P
// that polls. The client is plain package net.
func Example() {
	e, _ := executor.New(executor.Config{Procs: 2})
	l, _ := tasknet.Listen(e, "tcp", "127.0.0.1:0")
	_ = e.Go(func(t executor.Task) {
		_ = l.Serve(t, func(t executor.Task, c *tasknet.Conn) { // a task per connection
			defer c.Close()
			_, _ = io.Copy(c, c) // parks t while the socket is not ready
		})
	})
	c, _ := net.Dial("tcp", l.Addr().String())
	fmt.Fprintln(c, "hello, poller")
	line, _ := bufio.NewReader(c).ReadString('\n')
	fmt.Print(line)
	c.Close()
	l.Close()              // Serve returns net.ErrClosed
	fmt.Println(e.Close()) // wakes any task still parked on a socket
	// Output:
	// hello, poller
	// <nil>
}
