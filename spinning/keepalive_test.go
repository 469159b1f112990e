package spinning_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedkit/schedkit/spinning"
)

// keepAliveAfterRetire: two Ms park in StopM on two Ps (each needed when
// it parks: no timer), then RetireP takes a P away. In a synctest bubble,
// whose clock moves only when every goroutine waits, once the keep-alive
// has run out twice over exactly one M must have exited (its StopM
// returned false, Exited) and one stay parked; Shutdown then releases it.
// No verdict depends on the machine's speed.
func keepAliveAfterRetire() error {
	const keep = time.Second
	q := new(queue)
	s, err := spinning.New(spinning.Config{Procs: 2, Work: q.has, NeedM: func() {}, KeepAlive: keep})
	if err != nil {
		return err
	}
	var exited, returned atomic.Int32
	done := make(chan struct{}, 2)
	for range 2 {
		m := s.NewM()
		go func() {
			defer func() { done <- struct{}{} }()
			if !m.StopM() {
				returned.Add(1)
				if m.Exited() {
					exited.Add(1)
				}
			}
		}()
	}
	synctest.Wait() // both parked, with no timer
	time.Sleep(2 * keep)
	synctest.Wait()
	var errs []error
	if n := exited.Load(); n != 0 {
		errs = append(errs, fmt.Errorf("%d Ms exited while the two Ps needed both", n))
	}
	if !s.RetireP(1) {
		return errors.New("set-up: RetireP of an idle P did not retire it")
	}
	time.Sleep(2 * keep)
	synctest.Wait()
	if n := exited.Load(); n != 1 {
		errs = append(errs, fmt.Errorf("%d Ms exited in twice the keep-alive after RetireP left one P for two idle Ms, want 1: an M that parked while it was needed stays alive beyond the Ps", n))
	}
	s.Shutdown()
	<-done
	<-done
	if n := returned.Load(); n != 2 {
		errs = append(errs, fmt.Errorf("%d of 2 StopMs returned after Shutdown", n))
	}
	return errors.Join(errs...)
}

// TestKeepAliveAfterRetire: go test -run '^TestKeepAliveAfterRetire$' ./spinning/
func TestKeepAliveAfterRetire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if err := keepAliveAfterRetire(); err != nil {
			t.Fatal(err)
		}
	})
}
