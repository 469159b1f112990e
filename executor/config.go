package executor

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/schedkit/schedkit/runnext"
)

// MaxProcs is the largest Config.Procs New accepts.
const MaxProcs = 256

// DefaultSlice is the time slice when Config.Slice is zero: the runtime's
// forcePreemptNS, after which sysmon takes the P from a task that still
// holds it.
const DefaultSlice = 10 * time.Millisecond

// DefaultSyscallThreshold is how long a Task.Syscall may keep its P while
// work waits when Config.SyscallThreshold is zero: one sysmon tick of the
// runtime (20µs), after which its retake hands a _Psyscall P off.
const DefaultSyscallThreshold = 20 * time.Microsecond

// DefaultMKeepAlive is how long an idle M beyond the Ps waits for work
// before it exits when Config.MKeepAlive is zero: tokio's blocking pool
// keeps an idle thread 10 s (Builder::thread_keep_alive), long enough that
// a steady pace of bursts a few seconds apart reuses its Ms, short enough
// that a burst's Ms are gone soon after it.
const DefaultMKeepAlive = 10 * time.Second

// MaxSlice bounds Config.Slice: a slice longer than this disables handoff in
// all but name, which is a configuration mistake.
const MaxSlice = time.Minute

// Config describes an Executor. The zero Config is valid: GOMAXPROCS Ps,
// the runtime's slice and steal delay, panics collected for Close.
type Config struct {
	// Procs is the number of Ps, 1..MaxProcs; 0 means runtime.GOMAXPROCS(0)
	// (capped at MaxProcs).
	Procs int

	// Slice is how long a task may hold its P while work waits before
	// sysmon hands the P to another M; 0 means DefaultSlice. A task run
	// from runnext inherits the slice of the task that spawned it.
	Slice time.Duration

	// SyscallThreshold is how long a call in Task.Syscall keeps its P
	// while work waits before sysmon hands the P to another M; 0 means
	// DefaultSyscallThreshold, or Slice if that is shorter. 1µs..Slice.
	SyscallThreshold time.Duration

	// StealDelay is how long a task must sit in a P's runnext slot before a
	// thief may take it; 0 means runnext.StealDelay. At most Slice.
	StealDelay time.Duration

	// MaxQueued bounds the outside tasks accepted and not yet started
	// (submitted by Executor.Go, GoBatch, GoContext, TryGo, or an outside
	// group's Go); 0 means no bound. Local spawns (Task.Go) and the
	// children of a group made by a task are never counted or refused.
	// With a bound, Go, GoBatch and an outside group's Go wait for room;
	// GoContext waits for room or its context's end; TryGo never waits
	// and returns an error wrapping ErrFull. A task counts from its accept
	// until an M takes it to run (or drops it at a Shutdown deadline), so
	// the bound also holds the memory a producer faster than the executor
	// can pile up. Negative is a Config error.
	MaxQueued int

	// PanicHandler, if not nil, receives every panic of a task that is not
	// in a group (a group's panics become the group's error), on the M that
	// ran the task. If nil, panics are collected and Close returns them:
	// the first 100 one by one, the rest counted in one more error ("N more
	// panics"), so a storm of panics cannot grow the executor's memory.
	// It must not panic itself: that would end the M's goroutine.
	PanicHandler func(*PanicError)

	// OnEvent, if not nil, is called on the M (or sysmon) where a
	// scheduling event happens: parks, handoffs, steals, overflows. It must
	// not block and must not call the Executor. Local spawns are not events
	// (they are the hot path), nor are task starts and ends unless
	// TaskEvents is set; Stats counts them.
	OnEvent func(Event)

	// TaskEvents makes OnEvent also receive EventTaskStart and EventTaskEnd
	// for every task (a call and a clock read per task, on the hot path;
	// off by default). See trace.go.
	TaskEvents bool

	// GlobalQueueOnly makes every P use the one locked global queue and
	// nothing else: no ring, no runnext, no stealing. It is the same
	// executor with its run queues switched off, for comparison.
	GlobalQueueOnly bool

	// MaxBlocking caps the Task.Blocking and Task.Syscall calls in flight
	// at once (each may hold an M); 0 means no cap. A call past it parks
	// (Task.Park: no M) until a call returns and hands it its slot, first
	// come first served, as errgroup's SetLimit bounds its goroutines; a
	// call nested in another capped call of its task takes no second
	// slot. So N blocked calls make at most Procs + MaxBlocking Ms.
	// Stats.BlockingWaiting and BlockingWaits count the waits. Negative
	// is a Config error.
	MaxBlocking int

	// MKeepAlive is how long an M beyond the Ps may idle before it exits:
	// a burst of blocking calls (Task.Syscall, Task.Blocking) makes Ms,
	// one for each P handed off while its call blocks, and once the burst
	// is over every M parked that long while more Ms are alive than Ps
	// are in service exits (its goroutine ends), down to one M per P, also
	// after SetProcs has taken Ps away. 0
	// means DefaultMKeepAlive; negative means Ms never exit, as the Go
	// runtime keeps its idle Ms. Stats.LiveMs and IdleMs count them.
	MKeepAlive time.Duration

	bcap *blockCap // MaxBlocking's slots, made by resolve (blockcap.go)
}

// ErrClosed is returned by a submit after Close or Shutdown began.
var ErrClosed = errors.New("executor: closed")

// ErrCloseInTask is returned by Close or Shutdown called from one of the
// executor's own Ms (a task, a panic handler, an event hook): waiting for
// every task to end would wait for the caller.
var ErrCloseInTask = errors.New("executor: Close called from inside a task of the executor")

// ErrNotInTask is returned by Task.Blocking and Task.Yield on a Task that is
// not the running task: the zero Task, or one whose task has returned.
var ErrNotInTask = errors.New("executor: called on a Task that is not running")

// ErrFull is wrapped by the error TryGo returns when Config.MaxQueued
// outside tasks are queued already; the error names the bound.
var ErrFull = errors.New("executor: queue full")

// ErrBatchTooLarge is wrapped by the error GoBatch returns for a batch of
// more funcs than Config.MaxQueued: it could never fit, so it is refused
// at once rather than waited for.
var ErrBatchTooLarge = errors.New("executor: batch larger than Config.MaxQueued")

// ErrAbandoned is a group's error when Shutdown's deadline passed before one
// of its tasks ran.
var ErrAbandoned = errors.New("executor: task abandoned at the Shutdown deadline")

// ErrConfig is wrapped by every error New returns for a bad Config field.
var ErrConfig = errors.New("executor: bad Config")

// resolve fills in the defaults and checks every field, naming the bad one.
func (c Config) resolve() (Config, error) {
	bad := func(field string, format string, args ...any) (Config, error) {
		return c, fmt.Errorf("%w: %s: %s", ErrConfig, field, fmt.Sprintf(format, args...))
	}
	switch {
	case c.Procs == 0:
		c.Procs = min(runtime.GOMAXPROCS(0), MaxProcs)
	case c.Procs < 0 || c.Procs > MaxProcs:
		return bad("Procs", "%d, want 1..%d (0 for GOMAXPROCS)", c.Procs, MaxProcs)
	}
	switch {
	case c.Slice == 0:
		c.Slice = DefaultSlice
	case c.Slice < time.Microsecond || c.Slice > MaxSlice:
		return bad("Slice", "%v, want %v..%v (0 for %v)", c.Slice, time.Microsecond, MaxSlice, DefaultSlice)
	}
	switch {
	case c.SyscallThreshold == 0:
		c.SyscallThreshold = min(DefaultSyscallThreshold, c.Slice)
	case c.SyscallThreshold < time.Microsecond || c.SyscallThreshold > c.Slice:
		return bad("SyscallThreshold", "%v, want %v..Slice (%v) (0 for %v)", c.SyscallThreshold, time.Microsecond, c.Slice, DefaultSyscallThreshold)
	}
	switch {
	case c.StealDelay == 0:
		c.StealDelay = runnext.StealDelay
	case c.StealDelay < 0 || c.StealDelay > c.Slice:
		return bad("StealDelay", "%v, want 0..Slice (%v)", c.StealDelay, c.Slice)
	}
	if c.MKeepAlive == 0 {
		c.MKeepAlive = DefaultMKeepAlive
	}
	if c.MaxQueued < 0 {
		return bad("MaxQueued", "%d, want 0 (no bound) or more", c.MaxQueued)
	}
	c.bcap = nil
	switch {
	case c.MaxBlocking < 0:
		return bad("MaxBlocking", "%d, want 0 (no cap) or more", c.MaxBlocking)
	case c.MaxBlocking > 0:
		c.bcap = &blockCap{max: c.MaxBlocking, nested: map[*worker]int{}}
	}
	return c, nil
}
