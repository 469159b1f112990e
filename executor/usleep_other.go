//go:build !linux || schedcheck

package executor

import "time"

// usleep is the OS timer's sleep where there is one (usleep.go); here,
// and under the explorer's virtual clock, sysmon keeps to its Go timer.
func (e *Executor) usleep(time.Duration) bool { return false }
