package explore

import "time"

// SetStuckAfter shortens how long a thread may run outside the explorer
// before it is reported stuck, and returns a function restoring it.
func SetStuckAfter(d time.Duration) (restore func()) {
	old := stuckAfter
	stuckAfter = d
	return func() { stuckAfter = old }
}

// EncodeSchedule and ParseSchedule expose the schedule format to tests.
var (
	EncodeSchedule = encodeSchedule
	ParseSchedule  = parseSchedule
)

// SetBackstop caps how long after Options.Deadline the watchdog ends a
// process whose exploration cannot report, and returns a function
// restoring it.
func SetBackstop(d time.Duration) (restore func()) {
	old := backstop
	backstop = d
	return func() { backstop = old }
}

// ExploreKeepGoing explores like Explore, but counts each failure as the
// outcome "failure: ERROR" and goes on, so that tests can compare the
// failures two searches reach.
func ExploreKeepGoing(opts Options, build func() Run) (Result, error) {
	return explore(opts, build, true)
}

// ObserveTraces calls f with the scenario's name and the trace of every
// execution that runs to its end, until restore is called.
func ObserveTraces(f func(name string, trace []Step)) (restore func()) {
	observer.Store(&f)
	return func() { observer.Store(nil) }
}

// SetEndStates turns end-state fingerprints on or off, and returns a
// function restoring the setting.
func SetEndStates(on bool) (restore func()) {
	old := endStates
	endStates = on
	return func() { endStates = old }
}

// MutantBuild reports a build with -tags schedmutant.
const MutantBuild = mutantBuild

// EncodeToken exposes the compact schedule token to tests.
var EncodeToken = encodeToken
