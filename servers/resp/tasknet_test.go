package resp_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/servers/internal/servetest"
	"github.com/schedkit/schedkit/servers/resp"
	"github.com/schedkit/schedkit/tasknet"
)

// The RESP clients on the executor at GOMAXPROCS 1 and 2, at a scale the
// transports' tests (server_test.go, an executor of 2 Ps) do not reach, and
// redis-cli wherever the benchmark unpacked it.

// onExecutor serves s on a tasknet listener of a fresh executor of procs
// Ps, as the package's doc shows: Server.Serve's accept loop on a
// goroutine, each connection's loop a task (SpawnConn). The test's cleanup
// closes s, checks that Serve returned ErrServerClosed, and closes the
// executor (no task panicked).
func onExecutor(t *testing.T, procs int, s *resp.Server) (addr string, ex *executor.Executor) {
	t.Helper()
	l, ex := servetest.OnExecutor(t, procs, "resp")
	s.SpawnConn = tasknet.SpawnConn(ex)
	return servetest.Serve(t, s, l, func(f func()) { go f() }), ex
}

// onProcs runs f at GOMAXPROCS 1 and 2, the executor with as many Ps.
func onProcs(t *testing.T, f func(t *testing.T, procs int)) { servetest.OnProcs(t, f) }

// TestTasknetPipelinedClients: 200 connections open at once, each writing
// a pipeline of 10 rounds (SET and GET of its own key, INCR of a shared
// counter) and a PING, then reading its 31 replies in order
// (pipelinedClient), twice over (once with -short): 12,400 commands
// (6,200) against the server on the executor. Every reply is exact, the
// counter ends at 200*10 per wave, 200 connections per wave were served, and the executor made a small fraction of that
// in Ms: a connection waiting for its next pipeline is a parked task.
func TestTasknetPipelinedClients(t *testing.T) {
	onProcs(t, func(t *testing.T, procs int) {
		s := &resp.Server{Store: resp.NewStore()}
		addr, ex := onExecutor(t, procs, s)
		const clients, rounds = 200, 10
		waves := 2
		if testing.Short() {
			waves = 1
		}
		for w := range waves {
			var wg sync.WaitGroup
			errs := make(chan error, clients)
			for c := range clients {
				wg.Go(func() {
					if err := pipelinedClient(addr, w*clients+c, rounds); err != nil {
						errs <- fmt.Errorf("wave %d client %d: %w", w, c, err)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
		}
		got, _ := s.Store.Get([]byte("counter"))
		if string(got) != strconv.Itoa(clients*rounds*waves) {
			t.Fatalf("counter %q after %d INCRs", got, clients*rounds*waves)
		}
		if n := s.Accepted(); n != int64(clients*waves) {
			t.Fatalf("%d connections accepted, want %d", n, clients*waves)
		}
		st := ex.Stats()
		t.Logf("P%d: %d commands on %d connections; Ms %d, poll waits %d", procs, clients*waves*(3*rounds+1), clients*waves, st.Ms, st.PollWaits)
		if st.Ms > clients/10 {
			t.Fatalf("the executor made %d Ms for %d connections at once: a waiting connection must not cost an M", st.Ms, clients)
		}
	})
}

// redisCLI finds redis-cli: in PATH, or unpacked by the benchmark
// (bench/cmd/netbench fetches Debian's redis-tools into the user's cache
// dir, schedkit/tools/root, to be run with its own libraries).
func redisCLI(t *testing.T) (path string, env []string) {
	if p, err := exec.LookPath("redis-cli"); err == nil {
		return p, nil
	}
	where := "the user cache dir"
	if dir, err := os.UserCacheDir(); err == nil {
		root := filepath.Join(dir, "schedkit", "tools", "root")
		where = root
		p := filepath.Join(root, "usr", "bin", "redis-cli")
		if _, err := os.Stat(p); err == nil {
			libs, _ := filepath.Glob(filepath.Join(root, "usr", "lib", "*-linux-gnu"))
			env = []string{"LD_LIBRARY_PATH=" + strings.Join(libs, ":")}
			if out, err := cliCommand(p, env, "--version").CombinedOutput(); err == nil {
				return p, env
			} else {
				t.Logf("%s does not run: %v: %s", p, err, out)
			}
		}
	}
	t.Skipf("redis-cli is missing (not in PATH, not under %s; Debian's redis-tools, which bench/cmd/netbench fetches): the redis-cli checks on the executor did not run", where)
	return "", nil
}

func cliCommand(path string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// TestTasknetRedisCLI: redis-cli, when it is found, against the server on
// the executor: each command's words as Redis says them, 500 INCRs on one
// connection (-r; 100 with -short: one at a time on 1 P, each waits for the
// executor's idle path), and commands read from its stdin.
func TestTasknetRedisCLI(t *testing.T) {
	cli, env := redisCLI(t)
	onProcs(t, func(t *testing.T, procs int) {
		s := &resp.Server{Store: resp.NewStore()}
		addr, _ := onExecutor(t, procs, s)
		host, port, _ := net.SplitHostPort(addr)
		run := func(stdin string, args ...string) string {
			t.Helper()
			cmd := cliCommand(cli, env, append([]string{"-h", host, "-p", port}, args...)...)
			cmd.Stdin = strings.NewReader(stdin)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("redis-cli %v: %v: %s", args, err, out)
			}
			return strings.TrimSpace(string(out))
		}
		for _, c := range []struct{ args, want string }{
			{"PING", "PONG"},
			{"PING hello", "hello"},
			{"SET k v1", "OK"},
			{"GET k", "v1"},
			{"INCR n", "1"},
			{"INCR k", "ERR value is not an integer or out of range"},
			{"GET", "ERR wrong number of arguments for 'get' command"},
		} {
			if got := run("", strings.Fields(c.args)...); !strings.HasSuffix(got, c.want) {
				t.Errorf("redis-cli %s: %q, want %q", c.args, got, c.want)
			}
		}
		before := s.Accepted()
		incrs := 500
		if testing.Short() {
			incrs = 100
		}
		var want []string
		for i := 2; i <= incrs+1; i++ {
			want = append(want, strconv.Itoa(i))
		}
		if got := run("", "-r", strconv.Itoa(incrs), "INCR", "n"); got != strings.Join(want, "\n") {
			t.Fatalf("redis-cli -r %d INCR n: %d bytes, want 2..%d", incrs, len(got), incrs+1)
		}
		if n := s.Accepted() - before; n != 1 {
			t.Fatalf("redis-cli -r %d: %d connections accepted, want 1", incrs, n)
		}
		if got := run("SET a 1\nINCR a\nGET a\nPING\n"); got != "OK\n2\n2\nPONG" {
			t.Fatalf("commands from stdin: %q", got)
		}
	})
}
