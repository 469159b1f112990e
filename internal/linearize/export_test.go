package linearize

import "time"

// SetStartWatchdog replaces how a history arms its deadline, so a test can
// fire the diagnosis without a hang; it returns the restore function.
func SetStartWatchdog(f func(what string, d time.Duration, diag func() string) (stop func())) (restore func()) {
	old := startWatchdog
	startWatchdog = f
	return func() { startWatchdog = old }
}
