//go:build !schedcheck

package explore

// hookAvailable reports whether atomicx calls a hook: only under -tags
// schedcheck. Without it Explore returns ErrNoSchedcheck and Check skips.
const hookAvailable = false

func setHook(dispatcher) (restore func()) { return func() {} }
