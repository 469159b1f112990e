package realtime

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// BusyEnv selects the child mode: a process of any binary that imports
// this package, started with BusyEnv set to a number of milliseconds,
// busy-loops on one core for that long (or until its parent is gone) and
// exits, before main or any test runs. Contend sets it.
const BusyEnv = "SCHEDKIT_REALTIME_BUSY"

// busyReady is the line a child writes once it loops.
const busyReady = "busy"

func init() {
	if v := os.Getenv(BusyEnv); v != "" {
		os.Exit(busyChild(v))
	}
}

// sink keeps the busy loop from being optimised away.
var sink uint64

// busyChild burns one core for ms milliseconds, or until its parent
// exits (it is then re-parented), and returns the exit status.
func busyChild(ms string) int {
	n, err := strconv.Atoi(ms)
	if err != nil || n <= 0 {
		fmt.Fprintf(os.Stderr, "realtime: %s=%q, want a positive number of milliseconds\n", BusyEnv, ms)
		return 2
	}
	parent := os.Getppid()
	end := time.Now().Add(time.Duration(n) * time.Millisecond)
	fmt.Println(busyReady)
	for x := uint64(1); ; x++ {
		sink += x * x
		if x&(1<<20-1) == 0 && (time.Now().After(end) || os.Getppid() != parent) {
			return 0
		}
	}
}

// Contention is a set of busy child processes.
type Contention struct {
	cmds []*exec.Cmd
}

// Contend starts n child processes of the running binary (os.Executable)
// that each keep a core busy for at most limit, and returns once each has
// said it loops (or with an error, the started ones stopped, if one does
// not within 30 seconds). Stop ends them sooner; a child also ends when
// this process does. It panics if n or limit is not positive.
func Contend(n int, limit time.Duration) (*Contention, error) {
	if n <= 0 || limit <= 0 {
		panic(fmt.Sprintf("realtime: Contend called with n %d and limit %v", n, limit))
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("realtime: no binary to re-execute: %w", err)
	}
	c := &Contention{}
	for range n {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), BusyEnv+"="+strconv.FormatInt(max(limit.Milliseconds(), 1), 10))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			c.Stop()
			return nil, fmt.Errorf("realtime: starting a busy child: %w", err)
		}
		c.cmds = append(c.cmds, cmd)
		ready := make(chan error, 1)
		go func() {
			line, err := bufio.NewReader(out).ReadString('\n')
			if err == nil && line != busyReady+"\n" {
				err = fmt.Errorf("it wrote %q", line)
			}
			ready <- err
		}()
		select {
		case err = <-ready:
		case <-time.After(30 * time.Second):
			err = errors.New("it did not say it loops within 30s")
		}
		if err != nil {
			c.Stop()
			return nil, fmt.Errorf("realtime: busy child %d: %w", len(c.cmds), err)
		}
	}
	return c, nil
}

// Len returns how many children were started.
func (c *Contention) Len() int { return len(c.cmds) }

// Stop kills the children and waits for them. It may be called more than
// once.
func (c *Contention) Stop() {
	for _, cmd := range c.cmds {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
}
