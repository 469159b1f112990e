package counter

import (
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore/lincheck"
)

type incLoader interface {
	Inc()
	Load() int64
}

// count is the sequential model: the number of increments.
var count = lincheck.Model[int64]{Init: func() int64 { return 0 }}

func countOps[C incLoader]() []lincheck.Op[C, int64] {
	return []lincheck.Op[C, int64]{
		{Name: "inc", Run: func(c C, _ int) any { c.Inc(); return nil }, Step: func(n int64, _ int) (int64, any) { return n + 1, nil }},
		{Name: "load", Run: func(c C, _ int) any { return c.Load() }, Step: func(n int64, _ int) (int64, any) { return n, n }},
	}
}

var linOpts = lincheck.Options{Threads: 2, OpsPerThread: 2, Seeds: 12}

// TestCounterIsLinearizable: Inc and Load behave as a sequential counter.
func TestCounterIsLinearizable(t *testing.T) {
	lincheck.Check(t, linOpts, count, func() *Counter { return new(Counter) }, countOps[*Counter]()...)
}

// loadStore is the counter whose Inc is a load then a store.
type loadStore struct{ n atomicx.Int64 }

func (c *loadStore) Inc()        { c.n.Store(c.n.Load() + 1) }
func (c *loadStore) Load() int64 { return c.n.Load() }

// TestLoadStoreCounterIsNotLinearizable: the lost update shows as a load,
// after both increments returned, that sees one.
func TestLoadStoreCounterIsNotLinearizable(t *testing.T) {
	lincheck.CheckFails(t, linOpts, count, func() *loadStore { return new(loadStore) }, countOps[*loadStore]()...)
}
