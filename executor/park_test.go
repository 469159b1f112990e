package executor_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// mailbox is the smallest wait structure on Task.Park: one slot and the
// Waker of the task waiting for it to fill (get) or empty (put). Its lock
// is held across the check and the publication of the Waker, and released
// before Park, as a channel's.
type mailbox struct {
	mu     sync.Mutex
	full   bool
	v      int
	waiter executor.Waker
	waits  bool
}

func (m *mailbox) put(t executor.Task, v int) {
	for {
		m.mu.Lock()
		if !m.full {
			m.full, m.v = true, v
			m.wake(t)
			return
		}
		m.wait(t)
	}
}

func (m *mailbox) get(t executor.Task) int {
	for {
		m.mu.Lock()
		if m.full {
			m.full = false
			v := m.v
			m.wake(t)
			return v
		}
		m.wait(t)
	}
}

// wake readies the waiter, if any; it unlocks m.
func (m *mailbox) wake(t executor.Task) {
	k, waits := m.waiter, m.waits
	m.waits = false
	m.mu.Unlock()
	if waits {
		k.Ready(t)
	}
}

// wait publishes t's Waker, unlocks m and parks.
func (m *mailbox) wait(t executor.Task) {
	k := t.Waker()
	m.waiter, m.waits = k, true
	m.mu.Unlock()
	t.Park(k)
}

func TestParkPingPong(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(map[int]string{1: "1P", 2: "2P"}[procs], func(t *testing.T) {
			e := newExec(t, executor.Config{Procs: procs})
			const n = 2000
			var ab, ba mailbox
			var got []int
			g, _ := e.NewGroup(context.Background())
			g.Go(func(t executor.Task) error {
				for i := range n {
					ab.put(t, i)
					got = append(got, ba.get(t))
				}
				return nil
			})
			g.Go(func(t executor.Task) error {
				for range n {
					ba.put(t, ab.get(t)*2)
				}
				return nil
			})
			require.NoError(t, g.Wait())
			require.Len(t, got, n)
			for i, v := range got {
				require.Equal(t, 2*i, v)
			}
			s := e.Stats()
			assert.NotZero(t, s.Total.TaskParks)
			assert.Zero(t, s.Parked)
			assert.LessOrEqual(t, s.Ms, procs+2, "a parked task costs no M")
			require.NoError(t, e.Close())
		})
	}
}

// TestParkedTasksCostNoM parks many tasks at once, each on its own
// mailbox, and readies them from outside: no M is made per parked task.
func TestParkedTasksCostNoM(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 2})
	const n = 2000
	boxes := make([]mailbox, n)
	var started, done atomic.Int64
	for i := range boxes {
		require.NoError(t, e.Go(func(t executor.Task) {
			started.Add(1)
			if boxes[i].get(t) == i {
				done.Add(1)
			}
		}))
	}
	for e.Stats().Parked < n {
		time.Sleep(time.Millisecond)
	}
	s := e.Stats()
	assert.Equal(t, int64(n), started.Load())
	assert.LessOrEqual(t, s.Ms, 4, "Ms with %d tasks parked", n)
	for i := range boxes {
		boxes[i].put(executor.Task{}, i)
	}
	require.NoError(t, e.Close())
	assert.Equal(t, int64(n), done.Load())
	s = e.Stats()
	assert.Equal(t, uint64(n), s.OutsideReadies, "early %d, local %d", s.Total.EarlyReadies, s.Total.TaskReadies)
	assert.Equal(t, uint64(n), s.Total.TaskParks)
	assert.Zero(t, s.Parked)
}

func TestReadyTwicePanics(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 1})
	var msg any
	done := make(chan struct{})
	require.NoError(t, e.Go(func(t executor.Task) {
		defer close(done)
		k := t.Waker()
		k.Ready(t) // before the park: Park returns at once
		t.Park(k)
		defer func() { msg = recover() }()
		k.Ready(t)
	}))
	<-done
	assert.Equal(t, "executor: Waker.Ready called twice for one park", msg)
	require.NoError(t, e.Close())
	assert.Equal(t, uint64(1), e.Stats().Total.EarlyReadies)
}

func TestParkMisusePanics(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 1})
	msgs := make(chan any, 3)
	require.NoError(t, e.Go(func(t executor.Task) {
		func() {
			defer func() { msgs <- recover() }()
			t.Park(executor.Waker{})
		}()
		k := t.Waker()
		func() {
			defer func() { msgs <- recover() }()
			t.Waker()
		}()
		k.Ready(executor.Task{})
		t.Park(k)
		func() {
			defer func() { msgs <- recover() }()
			executor.Waker{}.Ready(t)
		}()
	}))
	require.NoError(t, e.Close())
	assert.Equal(t, "executor: Task.Park called with a Waker that is not the task's current one", <-msgs)
	assert.Equal(t, "executor: Task.Waker called twice without a Park between", <-msgs)
	assert.Equal(t, "executor: Waker.Ready called on the zero Waker", <-msgs)
}

// TestCloseWaitsForParked: a parked task is an accepted task that has not
// finished, so Close waits for it, and returns once it is readied and done.
func TestCloseWaitsForParked(t *testing.T) {
	e := newExec(t, executor.Config{Procs: 1})
	var box mailbox
	var ran atomic.Bool
	require.NoError(t, e.Go(func(t executor.Task) { ran.Store(box.get(t) == 7) }))
	for e.Stats().Parked != 1 {
		time.Sleep(time.Millisecond)
	}
	closed := make(chan error)
	go func() { closed <- e.Close() }()
	select {
	case <-closed:
		t.Fatal("Close returned with a task parked")
	case <-time.After(20 * time.Millisecond):
	}
	box.put(executor.Task{}, 7)
	require.NoError(t, <-closed)
	assert.True(t, ran.Load())
}
