package atomicx_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
)

func TestMutexCountsEveryIncrement(t *testing.T) {
	var mu atomicx.Mutex
	n := 0
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				mu.Lock()
				n++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 4000, n)
}

func TestNoteSleepReturnsAtOnceWhenAlreadyWoken(t *testing.T) {
	var n atomicx.Note
	n.Wakeup()
	n.Sleep()
	n.Sleep() // still woken: a note stays woken until Clear
	assert.True(t, n.SleepFor(time.Hour))
	assert.True(t, n.SleepFor(0))
}

func TestNoteWakesASleeper(t *testing.T) {
	for range 100 {
		var n atomicx.Note
		done := make(chan bool)
		go func() { n.Sleep(); done <- true }()
		go n.Wakeup()
		assert.True(t, <-done)
	}
}

func TestNoteSleepForWakesBeforeTimeout(t *testing.T) {
	var n atomicx.Note
	done := make(chan bool)
	go func() { done <- n.SleepFor(time.Hour) }()
	n.Wakeup()
	assert.True(t, <-done)
}

func TestNoteSleepForTimesOut(t *testing.T) {
	var n atomicx.Note
	assert.False(t, n.SleepFor(time.Millisecond))
	assert.False(t, n.SleepFor(0), "d <= 0 only polls")
	assert.False(t, n.SleepFor(-time.Second))
	n.Wakeup()
	assert.True(t, n.SleepFor(time.Millisecond))
}

func TestNoteWakeupTwicePanics(t *testing.T) {
	var n atomicx.Note
	n.Wakeup()
	assert.PanicsWithValue(t, "atomicx: Note.Wakeup called twice", n.Wakeup)
	n.Clear()
	assert.NotPanics(t, n.Wakeup, "Clear makes the note ready for one more Wakeup")
}

func TestNoteClearMakesSleepWaitAgain(t *testing.T) {
	var n atomicx.Note
	n.Wakeup()
	n.Sleep()
	n.Clear()
	assert.False(t, n.SleepFor(time.Millisecond), "cleared: nobody woke it")
	done := make(chan struct{})
	go func() { n.Sleep(); close(done) }()
	n.Wakeup()
	<-done
}

func TestClockIsMonotonicAndSleepWaits(t *testing.T) {
	a := atomicx.Nanotime()
	atomicx.Sleep(time.Millisecond)
	b := atomicx.Nanotime()
	require.GreaterOrEqual(t, a, int64(0))
	assert.Greater(t, b, a)
	atomicx.Sleep(0)
	atomicx.Sleep(-time.Second)
	assert.GreaterOrEqual(t, atomicx.Nanotime(), b)
}

func TestOpNames(t *testing.T) {
	for op, name := range map[atomicx.Op]string{
		atomicx.OpLoad: "load", atomicx.OpCAS: "cas", atomicx.OpLock: "lock", atomicx.OpUnlock: "unlock",
		atomicx.OpNoteSleep: "notesleep", atomicx.OpNoteSleepFor: "notetsleep", atomicx.OpNoteWakeup: "notewakeup",
		atomicx.OpNoteClear: "noteclear", atomicx.OpNanotime: "nanotime", atomicx.OpSleep: "sleep",
	} {
		assert.Equal(t, name, op.String())
	}
	assert.Equal(t, "op?", atomicx.Op(7).String())
	assert.Equal(t, "op?", atomicx.Op(200).String())
}

func TestNoteClearDropsAnUntakenToken(t *testing.T) {
	var n atomicx.Note
	n.Wakeup() // no sleeper: the token waits
	n.Clear()
	assert.False(t, n.SleepFor(time.Millisecond), "a cleared note must not wake on the old round's token")
}
