//go:build schedcheck

package atomicx_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/schedkit/schedkit/internal/atomicx"
)

type event struct {
	op     atomicx.Op
	before bool
	val    uint64
}

type recorder struct{ events []event }

func (r *recorder) Before(op atomicx.Op, _ uintptr) { r.events = append(r.events, event{op, true, 0}) }
func (r *recorder) After(op atomicx.Op, _ uintptr, v uint64) {
	r.events = append(r.events, event{op, false, v})
}

func TestHookSeesEveryAccessInOrder(t *testing.T) {
	rec := &recorder{}
	restore := atomicx.SetHook(rec)
	var x atomicx.Uint32
	x.Store(3)
	x.Load()
	x.CompareAndSwap(3, 4)
	x.CompareAndSwap(3, 5)
	restore()
	x.Load() // not seen: the hook is gone

	assert.Equal(t, []event{
		{atomicx.OpStore, true, 0}, {atomicx.OpStore, false, 3},
		{atomicx.OpLoad, true, 0}, {atomicx.OpLoad, false, 3},
		{atomicx.OpCAS, true, 0}, {atomicx.OpCAS, false, 1},
		{atomicx.OpCAS, true, 0}, {atomicx.OpCAS, false, 0},
	}, rec.events)
}
