// Package watchdog gives a stress or exploration run its own deadline, so a
// bug that makes it hang is reported as a hang, with every goroutine's stack
// and the run's own diagnosis, instead of as the test binary's 10-minute
// timeout with nothing said about which run stuck.
package watchdog

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
)

// exit is how the process ends when a deadline passes; tests replace it.
var exit = func(msg string) { panic(msg) }

// Start arms a deadline for the run named what. If stop is not called
// within d, Start's goroutine writes what, the result of diag (when not nil:
// a schedule, a tally so far) and the stacks of every goroutine to stderr,
// then panics with a message that names the run: the stuck goroutines cannot
// be stopped from outside, so the process must end (a kill-matrix cell
// counts it as caught). stop may be called more than once.
func Start(what string, d time.Duration, diag func() string) (stop func()) {
	done := make(chan struct{})
	var once sync.Once
	go func() {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-done:
			return
		case <-t.C:
		}
		msg := fmt.Sprintf("watchdog: %s did not finish within %v", what, d)
		report := msg + "\n"
		if diag != nil {
			report += "diagnosis: " + diag() + "\n"
		}
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		fmt.Fprintf(os.Stderr, "%sgoroutines:\n%s\n", report, buf)
		exit(msg)
	}()
	return func() { once.Do(func() { close(done) }) }
}
