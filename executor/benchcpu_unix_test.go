//go:build unix

package executor_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, user and system: a
// benchmark's cpu-ns/task, which other load on the machine inflates less
// than its wall time.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
