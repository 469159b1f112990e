//go:build !linux && !schedcheck

package executor

import (
	"errors"
	"time"
)

// pollSys has no implementation here: the poller is epoll's.
type pollSys struct{}

func (s *pollSys) init() error                      { return errors.ErrUnsupported }
func (s *pollSys) add(fd int, tag uint64) error     { return errors.ErrUnsupported }
func (s *pollSys) del(fd int)                       {}
func (s *pollSys) wakeup()                          {}
func (s *pollSys) wait(np *poller, d time.Duration) {}
func (s *pollSys) close()                           {}
func closeFD(fd int)                                {}
