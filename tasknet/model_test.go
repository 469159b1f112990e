package tasknet_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/proptest"
	"github.com/schedkit/schedkit/tasknet"
)

// The property rung: a connected pair of tasknet Conns against a model of
// two in-memory pipes (one byte queue per direction, a write-closed flag
// per side). Each operation runs in a task of its own, with the Conn bound
// to it. A read may return any non-empty prefix of its queue (TCP keeps
// no message boundaries), EOF once the queue is empty and the peer closed
// its writing side; a read past its deadline fails with a timeout even
// with data queued; a write after CloseWrite fails. Reads are drawn only
// when the model says they cannot block for ever. A broken model (a pipe
// that drops a byte) must be refuted by the same machine.

type pipeModel struct {
	q      [2][]byte // q[i]: bytes written by side 1-i, not yet read by side i
	closed [2]bool   // closed[i]: side i has closed its writing side
}

type connMachine struct {
	ex    *executor.Executor
	c     [2]*tasknet.Conn
	m     pipeModel
	drops bool // the broken model: a write loses its last byte
}

// inTask runs f in a task with side i's Conn bound to it.
func (cm *connMachine) inTask(t *rapid.T, i int, f func(c *tasknet.Conn) error) error {
	done := make(chan error, 1)
	if err := cm.ex.Go(func(tk executor.Task) { done <- f(cm.c[i].In(tk)) }); err != nil {
		t.Fatalf("submit: %v", err)
	}
	return <-done
}

func (cm *connMachine) write(t *rapid.T) {
	i := rapid.IntRange(0, 1).Draw(t, "side")
	data := rapid.SliceOfN(rapid.Byte(), 1, 2000).Draw(t, "data")
	err := cm.inTask(t, i, func(c *tasknet.Conn) error { _, err := c.Write(data); return err })
	if cm.m.closed[i] {
		if err == nil {
			t.Fatalf("side %d: a write after CloseWrite succeeded", i)
		}
		return
	}
	if err != nil {
		t.Fatalf("side %d: write: %v", i, err)
	}
	if cm.drops {
		data = data[:len(data)-1]
	}
	cm.m.q[1-i] = append(cm.m.q[1-i], data...)
}

func (cm *connMachine) read(t *rapid.T) {
	i := rapid.IntRange(0, 1).Draw(t, "side")
	if len(cm.m.q[i]) == 0 && !cm.m.closed[1-i] {
		t.Skip("the read would wait for ever")
	}
	buf := make([]byte, rapid.IntRange(1, 3000).Draw(t, "n"))
	var n int
	err := cm.inTask(t, i, func(c *tasknet.Conn) error {
		var err error
		n, err = c.Read(buf)
		return err
	})
	q := cm.m.q[i]
	switch {
	case len(q) == 0:
		if err != io.EOF {
			t.Fatalf("side %d: read from a drained, write-closed pipe: %d bytes, %v (want EOF)", i, n, err)
		}
	case err != nil || n == 0:
		t.Fatalf("side %d: read with %d bytes queued: %d, %v", i, len(q), n, err)
	case !bytes.Equal(buf[:n], q[:n]):
		t.Fatalf("side %d: read %d bytes that are not the queue's head", i, n)
	default:
		cm.m.q[i] = q[n:]
	}
}

func (cm *connMachine) readPastDeadline(t *rapid.T) {
	i := rapid.IntRange(0, 1).Draw(t, "side")
	err := cm.inTask(t, i, func(c *tasknet.Conn) error {
		c.SetReadDeadline(time.Now().Add(-time.Second))
		_, err := c.Read(make([]byte, 8))
		c.SetReadDeadline(time.Time{})
		return err
	})
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("side %d: a read past its deadline: %v", i, err)
	}
}

func (cm *connMachine) closeWrite(t *rapid.T) {
	i := rapid.IntRange(0, 1).Draw(t, "side")
	if cm.m.closed[i] {
		t.Skip("closed already")
	}
	if err := cm.inTask(t, i, func(c *tasknet.Conn) error { return c.CloseWrite() }); err != nil {
		t.Fatalf("side %d: CloseWrite: %v", i, err)
	}
	cm.m.closed[i] = true
}

// drain checks, at the end, that each side reads exactly its queue.
func (cm *connMachine) drain(t *rapid.T) {
	for i := range 2 {
		want := cm.m.q[i]
		got := make([]byte, 0, len(want))
		err := cm.inTask(t, i, func(c *tasknet.Conn) error {
			buf := make([]byte, 4096)
			for len(got) < len(want) { // never more than the queue: no read waits for ever
				n, err := c.Read(buf[:min(len(buf), len(want)-len(got))])
				got = append(got, buf[:n]...)
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("side %d: the rest of the stream: %d of %d bytes, equal %v, %v", i, len(got), len(want), bytes.Equal(got, want), err)
		}
	}
}

// pair makes a connected pair on ex: a listener, one Dial, one Accept.
func pair(t *testing.T, ex *executor.Executor) [2]*tasknet.Conn {
	t.Helper()
	l, err := tasknet.Listen(ex, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	acc := make(chan *tasknet.Conn, 1)
	go func() { c, _ := l.AcceptConn(); acc <- c }()
	c, err := tasknet.Dial(ex, executor.Task{}, "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-acc
	if s == nil {
		t.Fatal("accept failed")
	}
	return [2]*tasknet.Conn{c, s}
}

// connProp is the property: a fresh pair per case on ex.
func connProp(t *testing.T, ex *executor.Executor, drops bool) func(*rapid.T) {
	return func(rt *rapid.T) {
		cm := &connMachine{ex: ex, c: pair(t, ex), drops: drops}
		defer cm.c[0].Close()
		defer cm.c[1].Close()
		rt.Repeat(map[string]func(*rapid.T){
			"write":            cm.write,
			"read":             cm.read,
			"readPastDeadline": cm.readPastDeadline,
			"closeWrite":       cm.closeWrite,
			"":                 func(*rapid.T) {},
		})
		cm.drain(rt)
	}
}

func TestConnAgainstPipes(t *testing.T) {
	ex := newExec(t, 2)
	rapid.Check(t, connProp(t, ex, false))
}

// TestConnModelCatchesADroppedByte: the same machine, with a model whose
// pipe loses a byte per write, must fail.
func TestConnModelCatchesADroppedByte(t *testing.T) {
	ex := newExec(t, 2)
	rec := proptest.ExpectFailure(t, connProp(t, ex, true))
	t.Log("refuted:", rec.FirstError())
}
