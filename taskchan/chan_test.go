package taskchan_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/internal/exactlyonce"
	"github.com/schedkit/schedkit/internal/watchdog"
	"github.com/schedkit/schedkit/taskchan"
)

// newExec makes an executor of procs Ps that the test closes at its end,
// under a watchdog, so that a lost wakeup reports as a hang with stacks.
func newExec(t testing.TB, cfg executor.Config) *executor.Executor {
	t.Helper()
	stop := watchdog.Start(t.Name()+": a test with an executor", 3*time.Minute, nil)
	t.Cleanup(stop)
	e, err := executor.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// side is where an operation runs: in a task of an executor, or on a
// goroutine that is not a task (the zero Task).
type side struct {
	name string
	e    *executor.Executor // nil: an outside goroutine
}

// run starts f on the side and returns a channel that gets what f
// panicked with (nil if it returned) once it is done.
func (s side) run(f func(t executor.Task)) <-chan any {
	done := make(chan any, 1)
	body := func(t executor.Task) {
		defer func() { done <- recover() }()
		f(t)
	}
	if s.e == nil {
		go body(executor.Task{})
		return done
	}
	if err := s.e.Go(body); err != nil {
		panic(err)
	}
	return done
}

// sides are a task's side (on e) and an outside goroutine's.
func sides(e *executor.Executor) []side {
	return []side{{name: "task", e: e}, {name: "outside"}}
}

// waitUntil waits for cond, which the operations under test make true
// (a waiter queued); it has no deadline of its own: newExec's watchdog and
// the test binary's timeout report a hang.
func waitUntil(cond func() bool) {
	for !cond() {
		runtime.Gosched()
		time.Sleep(20 * time.Microsecond)
	}
}

func senders[T any](c *taskchan.Chan[T]) int   { s, _ := c.Waiting(); return s }
func receivers[T any](c *taskchan.Chan[T]) int { _, r := c.Waiting(); return r }

// panicText is what a recovered panic prints as.
func panicText(r any) string {
	if r == nil {
		return ""
	}
	return fmt.Sprint(r)
}

// goPanic is the text a real Go channel panics with for f.
func goPanic(f func()) (msg string) {
	defer func() { msg = panicText(recover()) }()
	f()
	return ""
}

// TestChan is runtime/chan_test.go's TestChan, for every capacity it
// uses and from a task and from an outside goroutine: the blocking checks
// see the waiter queued (Waiting) instead of sleeping, so no verdict
// depends on the clock.
func TestChan(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	const n = 20
	for _, s := range sides(e) {
		for chanCap := range n {
			if testing.Short() && chanCap > 3 && chanCap != n-1 {
				continue
			}
			t.Run(fmt.Sprintf("%s/cap%d", s.name, chanCap), func(t *testing.T) {
				// A receive from an empty channel blocks, and a send
				// wakes it with the value.
				c := taskchan.Make[int](chanCap)
				var got int
				done := s.run(func(t executor.Task) { got, _ = c.Recv(t) })
				waitUntil(func() bool { return receivers(c) == 1 })
				require.Empty(t, done, "receive from an empty channel did not block")
				c.Send(executor.Task{}, 7)
				require.Nil(t, <-done)
				assert.Equal(t, 7, got)

				// A non-blocking receive does not block.
				_, _, ready := c.TryRecv()
				assert.False(t, ready)

				// A send to a full channel blocks.
				c = taskchan.Make[int](chanCap)
				for i := range chanCap {
					require.True(t, c.TrySend(i))
				}
				done = s.run(func(t executor.Task) { c.Send(t, 100) })
				waitUntil(func() bool { return senders(c) == 1 })
				require.Empty(t, done, "send to a full channel did not block")
				assert.False(t, c.TrySend(101), "a non-blocking send to a full channel succeeded")
				for i := range chanCap {
					v, ok := c.Recv(executor.Task{})
					require.True(t, ok)
					require.Equal(t, i, v)
				}
				v, ok := c.Recv(executor.Task{})
				assert.Equal(t, []any{100, true}, []any{v, ok})
				require.Nil(t, <-done)

				// The values buffered before a close come out, then zero.
				c = taskchan.Make[int](chanCap)
				for i := range chanCap {
					c.Send(executor.Task{}, i)
				}
				c.Close()
				for i := range chanCap {
					v, ok := c.Recv(executor.Task{})
					require.True(t, ok)
					require.Equal(t, i, v)
				}
				v, ok = c.Recv(executor.Task{})
				assert.Equal(t, []any{0, false}, []any{v, ok})
				v, ok, ready = c.TryRecv()
				assert.Equal(t, []any{0, false, true}, []any{v, ok, ready}, "a closed channel is ready")

				// A close unblocks a receive.
				c = taskchan.Make[int](chanCap)
				done = s.run(func(t executor.Task) { got, ok = c.Recv(t) })
				waitUntil(func() bool { return receivers(c) == 1 })
				c.Close()
				require.Nil(t, <-done)
				assert.Equal(t, []any{0, false}, []any{got, ok})

				// 100 values through the channel in FIFO order.
				c = taskchan.Make[int](chanCap)
				done = s.run(func(t executor.Task) {
					for i := range 100 {
						c.Send(t, i)
					}
				})
				for i := range 100 {
					v, ok := c.Recv(executor.Task{})
					require.True(t, ok)
					require.Equal(t, i, v)
				}
				require.Nil(t, <-done)

				// Four senders and four receivers: each value exactly once.
				c = taskchan.Make[int](chanCap)
				const per = 200
				counts := make([]atomic.Int32, 4*per)
				var dones []<-chan any
				for p := range 4 {
					dones = append(dones, s.run(func(t executor.Task) {
						for i := range per {
							c.Send(t, p*per+i)
						}
					}))
				}
				for range 4 {
					dones = append(dones, s.run(func(t executor.Task) {
						for range per {
							v, _ := c.Recv(t)
							counts[v].Add(1)
						}
					}))
				}
				for _, d := range dones {
					require.Nil(t, <-d)
				}
				require.NoError(t, exactlyonce.Check(counts))

				// Len and Cap.
				c = taskchan.Make[int](chanCap)
				for i := range chanCap {
					assert.Equal(t, i, c.Len())
					c.Send(executor.Task{}, i)
				}
				assert.Equal(t, chanCap, c.Len())
				assert.Equal(t, chanCap, c.Cap())
			})
		}
	}
}

// TestMisusePanicsAsGo: a send on a closed channel (before it or while
// parked), a close of a closed or nil channel, panic with the runtime's
// messages, compared with a real Go channel's.
func TestMisusePanicsAsGo(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	sendClosed := goPanic(func() { c := make(chan int); close(c); c <- 1 })
	closeClosed := goPanic(func() { c := make(chan int); close(c); close(c) })
	closeNil := goPanic(func() { var c chan int; close(c) })
	require.Equal(t, "send on closed channel", sendClosed)

	c := taskchan.Make[int](1)
	c.Close()
	assert.Equal(t, sendClosed, goPanic(func() { c.Send(executor.Task{}, 1) }))
	assert.Equal(t, sendClosed, goPanic(func() { c.TrySend(1) }))
	assert.Equal(t, sendClosed, goPanic(func() { taskchan.Select(executor.Task{}, c.SendCase(1), taskchan.Default()) }))
	assert.Equal(t, closeClosed, goPanic(c.Close))
	var nilc *taskchan.Chan[int]
	assert.Equal(t, closeNil, goPanic(nilc.Close))
	assert.Equal(t, "taskchan: Make called with a negative capacity", goPanic(func() { taskchan.Make[int](-1) }))

	for _, s := range sides(e) {
		// A sender parked when the close comes panics, in a plain send and
		// in a select's send case.
		c := taskchan.Make[int](0)
		d := taskchan.Make[int](0)
		send := s.run(func(t executor.Task) { c.Send(t, 1) })
		sel := s.run(func(t executor.Task) { taskchan.Select(t, c.SendCase(2), d.RecvCase(nil)) })
		waitUntil(func() bool { return senders(c) == 2 })
		c.Close()
		assert.Equal(t, sendClosed, panicText(<-send), s.name)
		assert.Equal(t, sendClosed, panicText(<-sel), s.name)
		assert.Equal(t, 0, receivers(d), "the select left its waiter on d")
	}
	assert.Equal(t, "taskchan: Select called with more than one Default case",
		goPanic(func() { taskchan.Select(executor.Task{}, taskchan.Default(), taskchan.Default()) }))
	assert.Equal(t, "taskchan: Select called with a zero Case",
		goPanic(func() { taskchan.Select(executor.Task{}, taskchan.Case{}) }))
}

// TestSelect: Default when nothing is ready, a nil channel's case never
// chosen, a receive case's ok on a closed channel, a send case into a
// buffer, and a select parked on two channels woken by either.
func TestSelect(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	a, b := taskchan.Make[int](0), taskchan.Make[string](1)
	var nilc *taskchan.Chan[int]
	var v int
	i, ok := taskchan.Select(executor.Task{}, a.RecvCase(&v), nilc.SendCase(1), taskchan.Default())
	assert.Equal(t, []any{2, false}, []any{i, ok})
	i, _ = taskchan.Select(executor.Task{}, taskchan.Default())
	assert.Equal(t, 0, i)
	i, _ = taskchan.Select(executor.Task{}, nilc.RecvCase(&v), b.SendCase("x"))
	assert.Equal(t, 1, i)
	assert.Equal(t, 1, b.Len())
	var sv string
	i, ok = taskchan.Select(executor.Task{}, a.RecvCase(&v), b.RecvCase(&sv))
	assert.Equal(t, []any{1, true, "x"}, []any{i, ok, sv})

	for _, s := range sides(e) {
		for which := range 2 {
			var got int
			var gs string
			var chosen int
			var rok bool
			done := s.run(func(t executor.Task) { chosen, rok = taskchan.Select(t, a.RecvCase(&got), b.RecvCase(&gs)) })
			waitUntil(func() bool { return receivers(a) == 1 && receivers(b) == 1 })
			if which == 0 {
				a.Send(executor.Task{}, 5)
			} else {
				b.Send(executor.Task{}, "y")
			}
			require.Nil(t, <-done)
			assert.Equal(t, which, chosen)
			assert.True(t, rok)
			if which == 0 {
				assert.Equal(t, 5, got)
			} else {
				assert.Equal(t, "y", gs)
			}
			assert.Equal(t, 0, receivers(a)+receivers(b), "a waiter outlived its select")
		}
	}
	a.Close()
	i, ok = taskchan.Select(executor.Task{}, a.RecvCase(&v))
	assert.Equal(t, []any{0, false, 0}, []any{i, ok, v})
}

// TestSelfSelect is runtime/chan_test.go's: two parties each select
// between a send and a receive on one channel; on an unbuffered channel
// neither may receive its own value.
func TestSelfSelect(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	n := 1000
	if testing.Short() {
		n = 200
	}
	for _, chanCap := range []int{0, 10} {
		for _, s := range sides(e) {
			c := taskchan.Make[int](chanCap)
			var dones []<-chan any
			for p := range 2 {
				dones = append(dones, s.run(func(t executor.Task) {
					for i := range n {
						if p == 0 || i%2 == 0 {
							var v int
							if k, _ := taskchan.Select(t, c.SendCase(p), c.RecvCase(&v)); k == 1 && chanCap == 0 && v == p {
								panic(fmt.Sprintf("self receive, p=%d", p))
							}
						} else {
							var v int
							if k, _ := taskchan.Select(t, c.RecvCase(&v), c.SendCase(p)); k == 0 && chanCap == 0 && v == p {
								panic(fmt.Sprintf("self receive, p=%d", p))
							}
						}
					}
				}))
			}
			for _, d := range dones {
				require.Nil(t, <-d, "%s cap %d", s.name, chanCap)
			}
		}
	}
}

// TestSelectStress is runtime/chan_test.go's, smaller: four channels (two
// unbuffered, two of 10), a sender per channel, one party selecting sends
// on all of them and one receiver per channel plus one selecting receives
// on all; every channel gets 2n values and gives 2n.
func TestSelectStress(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	n := 2000
	if testing.Short() {
		n = 300
	}
	for _, s := range sides(e) {
		var c [4]*taskchan.Chan[int]
		c[0], c[1] = taskchan.Make[int](0), taskchan.Make[int](0)
		c[2], c[3] = taskchan.Make[int](10), taskchan.Make[int](10)
		var dones []<-chan any
		for k := range 4 {
			dones = append(dones, s.run(func(t executor.Task) {
				for range n {
					c[k].Send(t, k)
				}
			}))
			dones = append(dones, s.run(func(t executor.Task) {
				for range n {
					if v, _ := c[k].Recv(t); v != k {
						panic(fmt.Sprintf("channel %d gave %d", k, v))
					}
				}
			}))
		}
		dones = append(dones, s.run(func(t executor.Task) {
			var left [4]int
			for k := range left {
				left[k] = n
			}
			for left != [4]int{} {
				var cases [4]taskchan.Case
				for k := range 4 {
					var ch *taskchan.Chan[int]
					if left[k] > 0 {
						ch = c[k]
					}
					cases[k] = ch.SendCase(k)
				}
				k, _ := taskchan.Select(t, cases[:]...)
				left[k]--
			}
		}))
		dones = append(dones, s.run(func(t executor.Task) {
			var left [4]int
			for k := range left {
				left[k] = n
			}
			for left != [4]int{} {
				var v [4]int
				var cases [4]taskchan.Case
				for k := range 4 {
					var ch *taskchan.Chan[int]
					if left[k] > 0 {
						ch = c[k]
					}
					cases[k] = ch.RecvCase(&v[k])
				}
				k, _ := taskchan.Select(t, cases[:]...)
				if v[k] != k {
					panic(fmt.Sprintf("channel %d gave %d", k, v[k]))
				}
				left[k]--
			}
		}))
		for _, d := range dones {
			require.Nil(t, <-d, s.name)
		}
		for k := range 4 {
			assert.Equal(t, [2]int{}, func() [2]int { a, b := c[k].Waiting(); return [2]int{a, b} }())
		}
	}
}

// TestNonblockRecvRace is runtime/chan_test.go's: a buffered channel
// holding a value and then closed is always ready to a non-blocking
// receive, racing with the close.
func TestNonblockRecvRace(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 200
	}
	for range n {
		c := taskchan.Make[int](1)
		c.Send(executor.Task{}, 1)
		var wg sync.WaitGroup
		var notReady atomic.Bool
		wg.Go(func() {
			if _, _, ready := c.TryRecv(); !ready {
				notReady.Store(true)
			}
		})
		c.Close()
		c.Recv(executor.Task{})
		wg.Wait()
		require.False(t, notReady.Load(), "chan is not ready")
	}
}

// TestMultiConsumer is runtime/chan_test.go's: one producer, four
// consumers over a buffered channel feeding a second one; every value is
// consumed exactly once, and the sums agree.
func TestMultiConsumer(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	const nwork, niter = 4, 2000
	for _, s := range sides(e) {
		q := taskchan.Make[int](nwork * 3)
		r := taskchan.Make[int](nwork * 3)
		counts := make([]atomic.Int32, niter)
		var dones []<-chan any
		for range nwork {
			dones = append(dones, s.run(func(t executor.Task) {
				for {
					v, ok := q.Recv(t)
					if !ok {
						return
					}
					counts[v].Add(1)
					r.Send(t, v)
				}
			}))
		}
		expect, sum, n := 0, 0, 0
		recvd := make(chan struct{})
		go func() {
			defer close(recvd)
			for {
				v, ok := r.Recv(executor.Task{})
				if !ok {
					return
				}
				n++
				sum += v
			}
		}()
		for i := range niter {
			expect += i
			q.Send(executor.Task{}, i)
		}
		q.Close()
		for _, d := range dones {
			require.Nil(t, <-d)
		}
		r.Close()
		<-recvd
		assert.Equal(t, niter, n, s.name)
		assert.Equal(t, expect, sum, s.name)
		require.NoError(t, exactlyonce.Check(counts))
	}
}

// TestWaitersFIFO: receivers parked in order are served in that order,
// and so are senders.
func TestWaitersFIFO(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	for _, s := range sides(e) {
		c := taskchan.Make[int](0)
		got := make([]int, 3)
		var dones []<-chan any
		for i := range 3 {
			dones = append(dones, s.run(func(t executor.Task) { got[i], _ = c.Recv(t) }))
			waitUntil(func() bool { return receivers(c) == i+1 })
		}
		for i := range 3 {
			c.Send(executor.Task{}, i)
		}
		for _, d := range dones {
			require.Nil(t, <-d)
		}
		assert.Equal(t, []int{0, 1, 2}, got, s.name)

		dones = dones[:0]
		for i := range 3 {
			dones = append(dones, s.run(func(t executor.Task) { c.Send(t, i) }))
			waitUntil(func() bool { return senders(c) == i+1 })
		}
		for i := range 3 {
			v, _ := c.Recv(executor.Task{})
			assert.Equal(t, i, v, s.name)
		}
		for _, d := range dones {
			require.Nil(t, <-d)
		}
	}
}

// TestPingPong: two tasks bounce a value over two unbuffered channels;
// each wake readies the partner into the waker's runnext, so the partner
// runs next on the same P.
func TestPingPong(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprint(procs, "P"), func(t *testing.T) {
			require.NoError(t, pingPong(procs))
		})
	}
}

// pingPong is TestPingPong at procs Ps: an error names what broke. The
// slice is a minute, so that sysmon never takes a P from the pair (a task
// whose P was taken readies into the global queue): every wake but the
// close's is a task's, whatever the machine's load.
func pingPong(procs int) error {
	e, err := executor.New(executor.Config{Procs: procs, Slice: executor.MaxSlice})
	if err != nil {
		return err
	}
	const n = 2000
	ping, pong := taskchan.Make[int](0), taskchan.Make[int](0)
	a := side{e: e}.run(func(t executor.Task) {
		for i := range n {
			ping.Send(t, i)
			if v, _ := pong.Recv(t); v != 2*i {
				panic(fmt.Sprintf("pong %d, want %d", v, 2*i))
			}
		}
		ping.Close()
	})
	b := side{e: e}.run(func(t executor.Task) {
		for {
			v, ok := ping.Recv(t)
			if !ok {
				return
			}
			pong.Send(t, 2*v)
		}
	})
	ra, rb := <-a, <-b
	if err := e.Close(); err != nil {
		return err
	}
	s := e.Stats()
	switch {
	case ra != nil || rb != nil:
		return fmt.Errorf("the pair panicked: %v, %v", ra, rb)
	case s.Total.TaskParks == 0:
		return errors.New("no task parked")
	case s.Total.TaskReadies == 0:
		return errors.New("no wake went to the waker's runnext")
	case s.OutsideReadies > 1: // the close's, from no task
		return fmt.Errorf("%d wakes went to the global queue, want the close's at most", s.OutsideReadies)
	case s.Ms > procs+2:
		return fmt.Errorf("%d Ms at %d Ps: a parked task cost an M", s.Ms, procs)
	}
	return nil
}
