//go:build !schedcheck

package atomicx

import "sync"

// Cond is sync.Cond in a normal build: a condition variable whose L (an
// atomicx.Mutex, or any sync.Locker) is held around Wait. Under the
// explorer it is a model of sync.Cond's notify list whose Wait, Signal and
// Broadcast are scheduling points; a waiting thread is not scheduled until
// a Signal or Broadcast wakes it (no spurious wakeups), and threads all
// waiting are a deadlock. Write atomicx.Cond{L: &mu} or NewCond(&mu).
type Cond = sync.Cond

// NewCond returns a Cond with locker l, as sync.NewCond.
func NewCond(l sync.Locker) *Cond { return sync.NewCond(l) }
