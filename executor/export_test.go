package executor

// ExploreAll runs the explorer scenarios of explore_test.go for the kill
// matrix; applicable is false without -tags schedcheck.
func ExploreAll() (applicable bool, err error) { return exploreAll() }
