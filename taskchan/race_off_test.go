//go:build !race

package taskchan_test

// raceBuild reports a build with the race detector, which reports a Go
// channel's close racing a blocked send as a data race: the model then
// closes its channel only with no sender blocked.
const raceBuild = false
