package explore

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/atomicx"
)

// The registry maps each goroutine that belongs to a running exploration to
// its role: a *thread of a scenario, or the *execution whose build and Check
// run on the exploring goroutine (the host). Every other goroutine is not in
// it, and the hook lets its atomicx calls through untouched.
var (
	registry   sync.Map     // getg() → *thread | *execution
	registered atomic.Int32 // entries in registry: 0 makes lookup free
)

func register(g uintptr, v any) {
	if _, loaded := registry.Swap(g, v); !loaded {
		registered.Add(1)
	}
}

func unregister(g uintptr) {
	if _, loaded := registry.LoadAndDelete(g); loaded {
		registered.Add(-1)
	}
}

func lookup() any {
	if registered.Load() == 0 {
		return nil
	}
	v, _ := registry.Load(getg())
	return v
}

// The hook is installed while at least one exploration runs.
var (
	hookMu      sync.Mutex
	hookUsers   int
	hookRestore func()
)

func acquireHook() {
	hookMu.Lock()
	defer hookMu.Unlock()
	if hookUsers == 0 {
		hookRestore = setHook(dispatcher{})
	}
	hookUsers++
}

func releaseHook() {
	hookMu.Lock()
	defer hookMu.Unlock()
	hookUsers--
	if hookUsers == 0 {
		hookRestore()
		hookRestore = nil
	}
}

// dispatcher is the atomicx hook: it routes a call to the scenario thread
// making it, or lets it through.
type dispatcher struct{}

// Before parks a scenario thread at the scheduling point of op.
func (dispatcher) Before(op atomicx.Op, addr uintptr) {
	if th, ok := lookup().(*thread); ok {
		th.point(pending{op: op, addr: addr, timeout: -1})
	}
}

// After records the value of the operation in the trace.
func (dispatcher) After(op atomicx.Op, addr uintptr, val uint64) {
	if th, ok := lookup().(*thread); ok {
		th.refine(op) // race.go
		th.after(val)
		th.afterPlain(addr)
	}
}

// Wait parks a scenario thread until its blocking operation may proceed. On
// the exploring goroutine (build and Check) the clock is the virtual one and
// nothing else is controlled.
func (dispatcher) Wait(op atomicx.Op, addr uintptr, ready func() bool, timeout time.Duration) (int64, bool) {
	switch v := lookup().(type) {
	case *thread:
		v.point(pending{op: op, addr: addr, ready: ready, timeout: timeout})
		return v.x.clock, true
	case *execution:
		switch op {
		case atomicx.OpNanotime:
			return v.clock, true
		case atomicx.OpSleep:
			v.clock += int64(max(timeout, 0))
			return v.clock, true
		}
	}
	return 0, false
}
