//go:build !race

package timers_test

const raceBuild = false
