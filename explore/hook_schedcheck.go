//go:build schedcheck

package explore

import "github.com/schedkit/schedkit/atomicx"

// hookAvailable reports whether atomicx calls a hook: only under -tags schedcheck.
const hookAvailable = true

var _ atomicx.Hook = dispatcher{}

func setHook(d dispatcher) (restore func()) { return atomicx.SetHook(d) }
