package resp_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/schedkit/schedkit/servers/internal/servetest"
	"github.com/schedkit/schedkit/servers/resp"
)

// A transport is what a server runs on (servetest.Transports: goroutines
// and the executor); every server test runs on each.
type transport = servetest.Transport

var transports = servetest.Transports

// start serves s on a fresh listener of tr and returns its address; the
// test's cleanup closes s and checks that Serve returned ErrServerClosed
// and that every connection loop has ended (Close waits for them).
func start(t testing.TB, tr transport, s *resp.Server) string {
	l := tr.Listen(t)
	s.Spawn, s.SpawnConn = tr.Spawners(l)
	return servetest.Serve(t, s, l, tr.Spawn)
}

func forEachTransport(t *testing.T, f func(t *testing.T, tr transport)) { servetest.ForEach(t, f) }

// A conversation is bytes a client sends at once, then half-closes, and the
// exact bytes the server answers before it closes the connection.
type conversation struct {
	name, send, want string
}

var conversations = []conversation{
	{
		name: "pipelined arrays and inline commands",
		send: "PING\r\n*2\r\n$4\r\nPING\r\n$2\r\nhi\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\na\r\n\r\n" +
			"GET k\r\n*2\r\n$3\r\nGET\r\n$1\r\nz\r\nINCR n\r\nincr n\r\nGET k z\r\n",
		want: "+PONG\r\n$2\r\nhi\r\n+OK\r\n$3\r\na\r\n\r\n$-1\r\n:1\r\n:2\r\n-ERR wrong number of arguments for 'get' command\r\n",
	},
	{
		name: "INCR errors",
		send: "SET a x\r\nINCR a\r\nSET b 9223372036854775807\r\nINCR b\r\nGET b\r\nNOPE 1\r\n",
		want: "+OK\r\n-ERR value is not an integer or out of range\r\n+OK\r\n-ERR increment or decrement would overflow\r\n" +
			"$19\r\n9223372036854775807\r\n-ERR unknown command 'NOPE', with args beginning with: '1' \r\n",
	},
	{
		name: "QUIT ends the connection",
		send: "PING\r\nQUIT\r\nPING\r\n",
		want: "+PONG\r\n+OK\r\n",
	},
	{
		name: "a bulk of MaxBulk bytes, then one over: the protocol error ends the connection",
		send: "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$20\r\n01234567890123456789\r\n*2\r\n$3\r\nGET\r\n$1\r\nb\r\n" +
			"*2\r\n$3\r\nGET\r\n$21\r\n01234567890123456789x\r\nPING\r\n",
		want: "+OK\r\n$20\r\n01234567890123456789\r\n-ERR Protocol error: invalid bulk length\r\n",
	},
	{
		name: "unbalanced quotes",
		send: "SET \"a b\r\nPING\r\n",
		want: "-ERR Protocol error: unbalanced quotes in request\r\n",
	},
}

// talk sends c.send on a new connection to addr, half-closes it and reads
// the answer to the end.
func talk(addr string, c conversation) (string, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, c.send); err != nil {
		return "", err
	}
	if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
		return "", err
	}
	got, err := io.ReadAll(conn)
	return string(got), err
}

// runConversations is the conversation checker's verdict on tr: a server
// whose bulk strings are at most 20 bytes, every conversation on a
// connection of its own.
func runConversations(t testing.TB, tr transport) error {
	addr := start(t, tr, &resp.Server{Limits: resp.Limits{MaxBulk: 20}})
	for _, c := range conversations {
		got, err := talk(addr, c)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if got != c.want {
			return fmt.Errorf("%s: answer\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
	return nil
}

func TestConversations(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr transport) {
		if err := runConversations(t, tr); err != nil {
			t.Fatal(err)
		}
	})
}

// TestPipelinedClients: 8 clients, each on one connection, write 300
// commands at once (SET and GET of their own keys, INCR of a shared
// counter, PING) and then read the 300 replies in order; the counter ends
// at 8*100, each client's values are its own, and 8 connections served it.
func TestPipelinedClients(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr transport) {
		if err := runPipelinedClients(t, tr); err != nil {
			t.Fatal(err)
		}
	})
}

// runPipelinedClients is TestPipelinedClients' verdict on tr (and the kill
// matrix's "clients" column).
func runPipelinedClients(t testing.TB, tr transport) error {
	s := &resp.Server{}
	addr := start(t, tr, s)
	const clients, rounds = 8, 100
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Go(func() {
			if err := pipelinedClient(addr, c, rounds); err != nil {
				errs <- fmt.Errorf("client %d: %w", c, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	if err, ok := <-errs; ok {
		return err
	}
	got, _ := s.Store.Get([]byte("counter"))
	if string(got) != strconv.Itoa(clients*rounds) {
		return fmt.Errorf("counter %q after %d INCRs", got, clients*rounds)
	}
	if n := s.Accepted(); n != clients {
		return fmt.Errorf("%d connections accepted, want %d", n, clients)
	}
	return nil
}

func pipelinedClient(addr string, c, rounds int) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	var out []byte
	var want []string
	for i := range rounds {
		key, val := fmt.Sprintf("c%d:%d", c, i), fmt.Sprintf("v%d-%d", c, i)
		out = resp.AppendCommand(out, []byte("SET"), []byte(key), []byte(val))
		out = resp.AppendCommand(out, []byte("GET"), []byte(key))
		out = resp.AppendCommand(out, []byte("INCR"), []byte("counter"))
		want = append(want, "+OK", val, "")
	}
	out = append(out, "PING\r\n"...)
	want = append(want, "+PONG")
	errc := make(chan error, 1)
	go func() { _, err := conn.Write(out); errc <- err }()
	br := bufio.NewReader(conn)
	last := int64(0)
	for i, w := range want {
		got, err := readReply(br)
		if err != nil {
			return fmt.Errorf("reply %d: %w", i, err)
		}
		if i%3 == 2 && i < len(want)-1 { // INCR: an integer that only grows on this connection
			n, err := strconv.ParseInt(strings.TrimPrefix(got, ":"), 10, 64)
			if err != nil || !strings.HasPrefix(got, ":") || n <= last {
				return fmt.Errorf("reply %d: INCR answered %q after %d", i, got, last)
			}
			last = n
			continue
		}
		if got != w {
			return fmt.Errorf("reply %d: %q, want %q", i, got, w)
		}
	}
	return <-errc
}

// TestRedisCLI: redis-cli, when it is installed, runs each command on the
// server and prints Redis's words.
func TestRedisCLI(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli is not installed (Debian's redis-tools): the redis-cli checks did not run")
	}
	forEachTransport(t, func(t *testing.T, tr transport) {
		host, port, _ := net.SplitHostPort(start(t, tr, &resp.Server{}))
		for _, c := range []struct{ args, want string }{
			{"PING", "PONG"},
			{"PING hello", "hello"},
			{"SET k v1", "OK"},
			{"GET k", "v1"},
			{"INCR n", "1"},
			{"INCR n", "2"},
			{"INCR k", "ERR value is not an integer or out of range"},
			{"GET", "ERR wrong number of arguments for 'get' command"},
		} {
			out, err := exec.Command(cli, append([]string{"-h", host, "-p", port}, strings.Fields(c.args)...)...).CombinedOutput()
			if got := strings.TrimSpace(string(out)); err != nil || !strings.HasSuffix(got, c.want) {
				t.Errorf("redis-cli %s: %q, %v; want %q", c.args, got, err, c.want)
			}
		}
	})
}

// TestStoreConcurrentIncr: INCR is one step under its shard's lock, so 8
// goroutines' 1000 INCRs each of one key end at 8000.
func TestStoreConcurrentIncr(t *testing.T) {
	st := resp.NewStore()
	if err := checkConcurrentIncr(st.Incr, st.Get); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentIncrCatchesLostUpdates feeds the check an INCR broken on
// purpose, a GET and a SET with a yield between them (so other goroutines
// run there even on one P), and requires the check to fail.
func TestConcurrentIncrCatchesLostUpdates(t *testing.T) {
	st := resp.NewStore()
	broken := func(key []byte) (int64, error) {
		v, _ := st.Get(key)
		n, _ := strconv.ParseInt(string(v), 10, 64)
		runtime.Gosched()
		st.Set(key, strconv.AppendInt(nil, n+1, 10))
		return n + 1, nil
	}
	err := checkConcurrentIncr(broken, st.Get)
	if err == nil {
		t.Fatal("the check passes an INCR whose read and write are two steps")
	}
	t.Logf("caught: %v", err)
}

// checkConcurrentIncr runs 8 goroutines of 1000 incr each on one key and
// requires the key to end at 8000.
func checkConcurrentIncr(incr func([]byte) (int64, error), get func([]byte) ([]byte, bool)) error {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				if _, err := incr([]byte("k")); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err, ok := <-errs; ok {
		return err
	}
	if v, _ := get([]byte("k")); string(v) != "8000" {
		return fmt.Errorf("k = %q after 8000 INCRs: updates lost", v)
	}
	return nil
}

// TestSlowClient: a client that sends a pipeline one byte per write (a slow
// writer, each byte its own segment with TCP_NODELAY) gets the same exact
// answer as one that sends it at once.
func TestSlowClient(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr transport) {
		if err := runSlowClient(t, tr); err != nil {
			t.Fatal(err)
		}
	})
}

// runSlowClient is TestSlowClient's verdict on tr (and the kill matrix's
// "clients" column).
func runSlowClient(t testing.TB, tr transport) error {
	addr := start(t, tr, &resp.Server{Limits: resp.Limits{MaxBulk: 20}})
	for _, c := range conversations[:2] {
		got, err := talkSlowly(addr, c.send)
		if err != nil {
			return err
		}
		if got != c.want {
			return fmt.Errorf("slow client, %s: answer\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
	return nil
}

// talkSlowly sends send one byte per write, half-closes and reads the answer
// to the end; the answer is read as it comes, so the server never waits on
// a full socket buffer.
func talkSlowly(addr, send string) (string, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(conn); got <- b }()
	for i := range len(send) {
		if _, err := conn.Write([]byte{send[i]}); err != nil {
			return "", err
		}
	}
	if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
		return "", err
	}
	return string(<-got), nil
}
