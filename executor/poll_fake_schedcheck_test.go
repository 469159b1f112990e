//go:build schedcheck

package executor

import "github.com/schedkit/schedkit/netpoll"

// pollInject makes fakeFD ready for m in the fake kernel.
func pollInject(e *Executor, m netpoll.Mode) { e.np.Load().sys.inject(fakeFD, m) }

// pollBroken is how many blocking waits of the fake kernel a break ended.
func pollBroken(e *Executor) uint32 { return e.np.Load().sys.broken.Load() }
