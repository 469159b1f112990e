//go:build !schedkit_checked

package runnext

// ownerGuard is empty in a normal build: the owner-only rule is the
// caller's to keep, and breaking it is not detected (see the package doc,
// "Misuse"). Under the build tag schedkit_checked it asserts a single owner.
type ownerGuard struct{}

// checked reports whether this is a schedkit_checked build.
const checked = false

func (*ownerGuard) enter(string) {}
func (*ownerGuard) exit()        {}
