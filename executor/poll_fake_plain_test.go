//go:build !schedcheck

package executor

import "github.com/schedkit/schedkit/netpoll"

// pollInject, pollBroken and pollFake need the fake kernel of -tags schedcheck: the
// poll scenarios that call them run only there.
func pollInject(*Executor, netpoll.Mode) { panic("executor: pollInject needs -tags schedcheck") }
func pollBroken(*Executor) uint32        { panic("executor: pollBroken needs -tags schedcheck") }
func pollFake(*Executor)                 { panic("executor: pollFake needs -tags schedcheck") }
