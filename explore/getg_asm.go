//go:build amd64 || arm64

package explore

// getg returns the address of the calling goroutine's runtime descriptor. It
// identifies a live goroutine in a few nanoseconds (runtime.Stack, the
// portable way, costs microseconds on every atomic access). The explorer
// uses it only as a map key while the goroutine is registered.
func getg() uintptr
