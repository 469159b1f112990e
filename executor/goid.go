package executor

import "runtime"

// goid returns the calling goroutine's id, parsed from the first line of
// its stack trace ("goroutine 123 [running]:"). It costs a stack walk, so
// it is used only off the hot path: when an M starts, and by Close and a
// Wait on a group made outside, to tell whether they run on one of the
// executor's Ms.
func goid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) || string(b[:len(prefix)]) != prefix {
		panic("executor: unexpected stack trace header")
	}
	var id int64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + int64(c-'0')
	}
	return id
}
