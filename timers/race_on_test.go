//go:build race

package timers_test

// raceBuild reports a build with -race, whose detector allocates.
const raceBuild = true
