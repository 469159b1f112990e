package atomicx_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/schedkit/schedkit/atomicx"
)

// TestBatonHandsTurns: two goroutines pass one baton each way many times;
// every Give is taken once, whether it comes before or after the Take.
func TestBatonHandsTurns(t *testing.T) {
	var ab, ba atomicx.Baton
	ab.Init()
	ba.Init()
	const n = 10000
	got := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range n {
			ab.Take()
			got++
			ba.Give()
		}
	}()
	ab.Give() // before the first Take, or after: both are taken once
	for range n - 1 {
		ba.Take()
		ab.Give()
	}
	ba.Take()
	<-done
	assert.Equal(t, n, got)
}
