package netpoll_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/netpoll"
)

// chanParker parks a goroutine on a channel: the W is the channel.
type chanParker struct{ parks, skips int }

func (p *chanParker) Waiter() chan struct{} { return make(chan struct{}, 1) }

func (p *chanParker) Park(w chan struct{}, committed bool) {
	if !committed {
		p.skips++
		return
	}
	p.parks++
	<-w
}

func wake(w chan struct{}) { w <- struct{}{} }

func TestReadyBeforeWaitIsConsumed(t *testing.T) {
	var d netpoll.Desc[chan struct{}]
	d.Ready(netpoll.Read, false, func(chan struct{}) { t.Fatal("nobody waits") })
	var p chanParker
	require.NoError(t, d.Wait(netpoll.Read, &p))
	assert.Zero(t, p.parks, "a pending event is consumed without parking")
}

func TestResetForgetsAnOldEdge(t *testing.T) {
	var d netpoll.Desc[chan struct{}]
	d.Ready(netpoll.ReadWrite, false, wake)
	require.NoError(t, d.Reset(netpoll.Read))
	done := make(chan error)
	p := &chanParker{}
	go func() { done <- d.Wait(netpoll.Read, p) }()
	for !d.Waiting(netpoll.Read) {
	}
	d.Ready(netpoll.Read, false, wake)
	require.NoError(t, <-done)
	var q chanParker
	require.NoError(t, d.Wait(netpoll.Write, &q), "Reset(Read) leaves the write edge")
	assert.Zero(t, q.parks)
}

func TestCloseWakesBothDirections(t *testing.T) {
	var d netpoll.Desc[chan struct{}]
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, m := range []netpoll.Mode{netpoll.Read, netpoll.Write} {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = d.Wait(m, &chanParker{}) }()
		for !d.Waiting(m) {
		}
	}
	d.Close(wake)
	wg.Wait()
	assert.ErrorIs(t, errs[0], netpoll.ErrClosing)
	assert.ErrorIs(t, errs[1], netpoll.ErrClosing)
	assert.ErrorIs(t, d.Wait(netpoll.Read, &chanParker{}), netpoll.ErrClosing)
	assert.ErrorIs(t, d.Reset(netpoll.Write), netpoll.ErrClosing)
	assert.Panics(t, func() { d.Close(wake) })
}

func TestDeadlines(t *testing.T) {
	var d netpoll.Desc[chan struct{}]
	seq := d.SetDeadline(netpoll.Read, netpoll.Pending, wake)
	done := make(chan error)
	go func() { done <- d.Wait(netpoll.Read, &chanParker{}) }()
	for !d.Waiting(netpoll.Read) {
	}
	assert.True(t, d.Expire(netpoll.Read, seq, wake))
	assert.ErrorIs(t, <-done, netpoll.ErrDeadline)
	assert.NoError(t, d.Err(netpoll.Write), "the write side has no deadline")

	// A timer armed for a deadline moved since is stale.
	old := d.SetDeadline(netpoll.Read, netpoll.Pending, wake)
	d.SetDeadline(netpoll.Read, netpoll.NoDeadline, wake)
	assert.False(t, d.Expire(netpoll.Read, old, wake))
	assert.NoError(t, d.Err(netpoll.Read))

	// A deadline in the past fails waits at once.
	d.SetDeadline(netpoll.Write, netpoll.Expired, wake)
	assert.ErrorIs(t, d.Wait(netpoll.Write, &chanParker{}), netpoll.ErrDeadline)

	// One timer for both directions.
	both := d.SetDeadline(netpoll.ReadWrite, netpoll.Pending, wake)
	assert.True(t, d.Expire(netpoll.ReadWrite, both, wake))
	assert.ErrorIs(t, d.Err(netpoll.Read), netpoll.ErrDeadline)
	assert.ErrorIs(t, d.Err(netpoll.Write), netpoll.ErrDeadline)
}

func TestEventErrorFailsReads(t *testing.T) {
	var d netpoll.Desc[chan struct{}]
	d.Ready(netpoll.ReadWrite, true, wake)
	assert.ErrorIs(t, d.Err(netpoll.Read), netpoll.ErrEvent)
	assert.NoError(t, d.Err(netpoll.Write))
	d.Ready(netpoll.Read, false, wake)
	assert.NoError(t, d.Err(netpoll.Read), "a later event without the error clears it")
}

func TestDoubleWaitPanics(t *testing.T) {
	var d netpoll.Desc[chan struct{}]
	go func() { _ = d.Wait(netpoll.Read, &chanParker{}) }()
	for !d.Waiting(netpoll.Read) {
	}
	assert.PanicsWithValue(t, "netpoll: Desc.Wait called by two waiters at once in one direction",
		func() { _ = d.Wait(netpoll.Read, &chanParker{}) })
	d.Close(wake)
}

func TestTableDropsStaleTags(t *testing.T) {
	var tab netpoll.Table[chan struct{}]
	a, b := new(netpoll.Desc[chan struct{}]), new(netpoll.Desc[chan struct{}])
	ta := tab.Open(a)
	assert.Same(t, a, tab.Lookup(ta))
	assert.Panics(t, func() { tab.Open(a) })
	assert.True(t, tab.Free(a))
	assert.False(t, tab.Free(a))
	assert.Nil(t, tab.Lookup(ta))
	tb := tab.Open(b) // reuses a's slot under a new generation
	assert.Equal(t, uint32(ta), uint32(tb), "the slot is reused")
	assert.NotEqual(t, ta, tb)
	assert.Nil(t, tab.Lookup(ta), "a's old event must not reach b")
	assert.Same(t, b, tab.Lookup(tb))
	assert.Equal(t, 1, tab.Len())
	for range 3000 { // past a chunk
		tab.Open(new(netpoll.Desc[chan struct{}]))
	}
	assert.Same(t, b, tab.Lookup(tb))
	assert.Nil(t, tab.Lookup(1<<40|5000))
}

func TestBreakerWritesOncePerDrain(t *testing.T) {
	var b netpoll.Breaker
	writes := 0
	w := func() { writes++ }
	assert.True(t, b.Break(w))
	assert.False(t, b.Break(w), "a write is pending")
	b.Drained()
	assert.True(t, b.Break(w))
	assert.Equal(t, 2, writes)
}
