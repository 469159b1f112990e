package linearize

import (
	"testing"
	"time"
)

// StressItems is how many items one exactly-once stress run of a component
// moves (docs/DESIGN.md, rung 4): a million in long mode, 50,000 under
// -short, where CI runs it.
func StressItems() int {
	if testing.Testing() && testing.Short() {
		return 50_000
	}
	return 1_000_000
}

// StressDeadline is the watchdog's limit on one whole stress run: a minute
// under -short, five in long mode. A run takes seconds; the limit only
// turns a hang into a diagnosis, so it is generous for a loaded machine.
func StressDeadline() time.Duration {
	if testing.Testing() && testing.Short() {
		return time.Minute
	}
	return 5 * time.Minute
}

// Histories is how many histories a component's linearizability test
// checks (CheckAll's n): 2,000 in long mode, 200 under -short. Each is a
// few hundred operations, short enough for porcupine.
func Histories() int {
	if testing.Testing() && testing.Short() {
		return 200
	}
	return 2000
}
