package tasknet_test

import (
	"fmt"
	"net"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// idleConns is how many idle connections TestIdleConnectionsCostNoM
// holds: both ends are in this process, two descriptors each.
func idleConns() int {
	if testing.Short() {
		return 500
	}
	return 4000
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse + ms.StackInuse
}

// TestIdleConnectionsCostNoM: thousands of connections whose server tasks
// are parked in Read hold Procs Ms (plus the two the executor may make
// for a handoff), not one each; the memory per connection is logged beside
// the same server on goroutines and package net.
func TestIdleConnectionsCostNoM(t *testing.T) {
	n := idleConns()
	for _, procs := range []int{1, 2} {
		ex, l, stop := startServer(t, procs, echo)
		before := heapInUse()
		clients := make([]net.Conn, 0, n)
		for range n {
			c, err := net.Dial("tcp", l.Addr().String())
			require.NoError(t, err)
			clients = append(clients, c)
		}
		for ex.Stats().PollWaiting < n { // every server task parked in its Read
			runtime.Gosched()
		}
		perConn := float64(heapInUse()-before) / float64(n)
		st := ex.Stats()
		t.Logf("Procs %d: %d idle connections parked, Ms %d, spares %d, %.0f B per connection (client ends included)", procs, n, st.Ms, st.Spares, perConn)
		assert.LessOrEqual(t, st.Ms, procs+2, "parked connections must not cost Ms")
		for _, c := range clients {
			c.Close()
		}
		stop()
	}
	// The same on goroutines and package net, for the log.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	before := heapInUse()
	clients := make([]net.Conn, 0, n)
	for range n {
		c, err := net.Dial("tcp", l.Addr().String())
		require.NoError(t, err)
		clients = append(clients, c)
	}
	for runtime.NumGoroutine() < n {
		runtime.Gosched()
	}
	t.Log(fmt.Sprintf("goroutines and net: %.0f B per connection (client ends included)", float64(heapInUse()-before)/float64(n)))
	for _, c := range clients {
		c.Close()
	}
	l.Close()
}
