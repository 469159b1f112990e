//go:build !schedkit_checked

package lfq

// ownerGuard is empty in a normal build: misuse by two owners at once goes
// undetected (see Ring). A schedkit_checked build swaps in checked.go's.
type ownerGuard struct{}

func (ownerGuard) enter(ownerCall) {}
func (ownerGuard) exit()           {}
