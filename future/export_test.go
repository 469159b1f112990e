package future

// ExploreScenario runs the explorer scenario named (explore_test.go) with
// its MustReach, for the kill matrix; applicable is false without -tags
// schedcheck.
func ExploreScenario(name string) (applicable bool, err error) { return exploreScenario(name) }
