// Package counter is the README's first explorer example: a lock-free
// counter whose shared state goes through atomicx.
package counter

import "github.com/schedkit/schedkit/atomicx"

type Counter struct{ n atomicx.Int64 }

func (c *Counter) Inc()        { c.n.Add(1) }
func (c *Counter) Load() int64 { return c.n.Load() }
