//go:build linux && !schedcheck

package executor

import (
	"syscall"
	"time"

	"github.com/schedkit/schedkit/atomicx"
)

// usleep sleeps d in nanosleep, the OS's timer, as the runtime's sysmon
// does (usleep), and reports whether it did. sysmon uses it only while no
// M runs, when a Go timer of 20µs lasts a whole millisecond (every Go P
// idle: netpoll's timeout is in milliseconds) and no M can wake it
// (kickSysmon). Its Go P waits in the system call meanwhile, which nothing
// else needs then. On a clock that does not move with the OS's (a
// synctest bubble's) it sleeps once, finds the clock still, and reports
// false from then on: the bubble's timers are exact anyway.
func (e *Executor) usleep(d time.Duration) bool {
	if e.fakeClock {
		return false
	}
	t0 := atomicx.Nanotime()
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
	if atomicx.Nanotime()-t0 < int64(d) {
		e.fakeClock = true
		return false
	}
	return true
}
