//go:build schedcheck

package executor_test

import (
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/executor"
)

// clockCounter is an atomicx hook that counts the clock reads
// (atomicx.Nanotime) made by one goroutine and lets every operation do the
// real thing.
type clockCounter struct {
	gid   atomic.Int64
	reads atomic.Int64
}

func (*clockCounter) Before(atomicx.Op, uintptr)        {}
func (*clockCounter) After(atomicx.Op, uintptr, uint64) {}
func (c *clockCounter) Wait(op atomicx.Op, _ uintptr, _ func() bool, _ time.Duration) (int64, bool) {
	if op == atomicx.OpNanotime && c.gid.Load() == curGoid() {
		c.reads.Add(1)
	}
	return 0, false // not under the explorer: read the real clock, block for real
}

func curGoid() int64 {
	var buf [64]byte
	s := strings.TrimPrefix(string(buf[:runtime.Stack(buf[:], false)]), "goroutine ")
	id, _ := strconv.ParseInt(s[:strings.IndexByte(s, ' ')], 10, 64)
	return id
}

// TestLocalSpawnReadsNoClock: a thousand local spawns (runnext, the
// displaced tasks to the ring, overflow to the global queue) read the clock
// zero times on the spawning goroutine. The control, which reads the clock
// beside each spawn, shows the counter sees reads.
func TestLocalSpawnReadsNoClock(t *testing.T) {
	for _, control := range []bool{false, true} {
		c := &clockCounter{}
		restore := atomicx.SetHook(c)
		e, err := executor.New(executor.Config{Procs: 2})
		require.NoError(t, err)
		done := make(chan struct{})
		require.NoError(t, e.Go(func(t executor.Task) {
			c.gid.Store(curGoid())
			for range 1000 {
				t.Go(noop)
				if control {
					atomicx.Nanotime()
				}
			}
			c.gid.Store(0)
			close(done)
		}))
		<-done
		require.NoError(t, e.Close())
		restore()
		if control {
			assert.Equal(t, int64(1000), c.reads.Load(), "the control's reads")
		} else {
			assert.Zero(t, c.reads.Load(), "clock reads by 1000 local spawns")
		}
	}
}
