package explore

// Position reports, in a thread of a running exploration, the thread's
// number and the index (from 0) of the latest step of the execution, the
// one the thread is running in (-1 before the first step); ok is false
// anywhere else. A history recorder (explore/lincheck) stamps calls with
// it: a call that begins at position p starts, at the latest, just before
// the thread's first step after p, and one that returns at p ends just
// after step p, the tightest interval the execution allows, with no
// scheduling point added.
func Position() (threadID, step int, ok bool) {
	th, is := lookup().(*thread)
	if !is {
		return 0, 0, false
	}
	return th.id, len(th.x.steps) - 1, true
}

// Steps returns the steps of the running execution so far, in Run.Check,
// Run.Outcome, build or a thread; nil anywhere else. The slice is the
// explorer's own: read it before Check returns, and do not change it.
func Steps() []Step {
	switch r := lookup().(type) {
	case *thread:
		return r.x.steps
	case *execution:
		return r.steps
	}
	return nil
}

// Locate replays f, a failure of the scenario build makes under opts,
// once, and returns it with every step's file:line (Step.Where), as Check
// reports it; f as it was if the replay does not reproduce it.
func Locate(opts Options, build func() Run, f *Failure) *Failure {
	return locate(opts, build, f)
}

// ReplayCommand is the go test command line that replays f in the package
// directory of test, with the build tags, -short and the SCHEDKIT_
// settings of this run, as Check prints it.
func ReplayCommand(test string, f *Failure) string { return replayCommand(test, f) }
