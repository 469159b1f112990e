package watchdog

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A run that ends in time is not reported.
func TestStopInTimeReportsNothing(t *testing.T) {
	fired := make(chan string, 1)
	old := exit
	exit = func(msg string) { fired <- msg }
	defer func() { exit = old }()
	stop := Start("quick run", 50*time.Millisecond, nil)
	stop()
	stop() // twice is fine
	time.Sleep(100 * time.Millisecond)
	select {
	case msg := <-fired:
		t.Fatalf("watchdog fired after stop: %s", msg)
	default:
	}
}

// A run that hangs is reported with its name and its diagnosis.
func TestHangIsReported(t *testing.T) {
	fired := make(chan string, 1)
	old := exit
	exit = func(msg string) { fired <- msg }
	defer func() { exit = old }()
	diagCalled := make(chan struct{}, 1)
	stop := Start("stuck run", 10*time.Millisecond, func() string { diagCalled <- struct{}{}; return "schedule 0x1" })
	defer stop()
	select {
	case msg := <-fired:
		assert.True(t, strings.Contains(msg, "stuck run did not finish within 10ms"), msg)
	case <-time.After(10 * time.Second):
		t.Fatal("watchdog never fired")
	}
	select {
	case <-diagCalled:
	default:
		t.Fatal("diagnosis not asked for")
	}
}
