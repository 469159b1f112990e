package taskchan_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// executor a test makes must have closed, every blocked goroutine woken.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
