package executor_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// executor a test makes must have closed, its Ms and sysmon gone.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
