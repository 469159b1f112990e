package treiber

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/exampletest"
)

// plainNext is Stack with next as plain memory: what Stack's comment on
// next says it cannot be. A pop reads next[top] after its load of the
// head while another thread, having popped that node meanwhile, pushes it
// back and writes its next: the version makes the stale pop's CAS fail, so
// the stack stays right, but the read and the write are a data race all
// the same (the Go memory model makes its value undefined).
type plainNext struct {
	head atomicx.Uint64
	next []atomicx.Plain[uint32]
}

func (s *plainNext) name() {
	explore.Name(&s.head, "head")
	for i := range s.next {
		explore.Name(&s.next[i], fmt.Sprintf("next[%d]", i))
	}
}

func (s *plainNext) Push(i int) {
	for {
		old := s.head.Load()
		s.next[i].Store(uint32(old))
		if s.head.CompareAndSwap(old, pack(old>>32+1, uint32(i)+1)) {
			return
		}
	}
}

func (s *plainNext) Pop() (int, bool) {
	for {
		old := s.head.Load()
		top := uint32(old)
		if top == 0 {
			return 0, false
		}
		next := s.next[top-1].Load()
		if s.head.CompareAndSwap(old, pack(old>>32+1, next)) {
			return int(top - 1), true
		}
	}
}

// TestPlainNextIsADataRace: the explorer reports the race on a node's next
// that made Stack keep next in atomic cells, with both steps.
func TestPlainNextIsADataRace(t *testing.T) {
	_, dr := exampletest.DataRace(t, explore.Options{Name: "treiber-plain-next", Mode: explore.DPOR},
		abaScenario(func(n int) pool { return &plainNext{next: make([]atomicx.Plain[uint32], n)} }))
	require.Regexp(t, `^next\[[0-2]\]$`, dr.Cell)
	require.True(t, dr.First.Write != dr.Second.Write, "a read and a write: %v", dr)
}
