//go:build race

package netpoll_test

// raceBuild reports a build with -race, whose detector slows the stress.
const raceBuild = true
