//go:build !schedcheck

package atomicx_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/schedkit/schedkit/atomicx"
)

// In a normal build parking costs no allocation after the first round (a
// schedcheck build passes the hook a method value, which does allocate).
func TestNoteRoundsDoNotAllocate(t *testing.T) {
	var n atomicx.Note
	n.Wakeup()
	n.Sleep()
	n.Clear()
	allocs := testing.AllocsPerRun(100, func() {
		n.Wakeup()
		n.Sleep()
		n.Clear()
	})
	assert.Zero(t, allocs)
}
