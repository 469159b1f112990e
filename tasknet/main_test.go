package tasknet_test

import (
	"testing"

	"go.uber.org/goleak"

	_ "github.com/schedkit/schedkit/internal/realtime" // its busy children start from this binary
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
