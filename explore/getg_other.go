//go:build !amd64 && !arm64

package explore

import "runtime"

// getg returns the calling goroutine's id, read from the header line of its
// stack trace ("goroutine 17 [running]:"). It is slow (microseconds), the
// portable fallback for architectures without getg_*.s.
func getg() uintptr {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	var id uintptr
	for _, c := range buf[len("goroutine "):n] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uintptr(c-'0')
	}
	return id
}
