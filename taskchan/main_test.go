package taskchan_test

import (
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// executor a test makes must have closed, every blocked goroutine woken.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// long reports long mode as explore.Long does (go test without -short,
// or SCHEDKIT_LONG=1; SCHEDKIT_LONG=0 forces short), without importing the
// explorer: the test command's explorer step runs again every test of a
// file that imports it, and the stress and real-time tests have nothing
// to explore.
func long() bool {
	switch strings.TrimSpace(os.Getenv("SCHEDKIT_LONG")) {
	case "1":
		return true
	case "0":
		return false
	}
	return !testing.Short()
}
