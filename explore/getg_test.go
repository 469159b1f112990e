package explore

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

func growStack(n int) uintptr {
	var pad [256]byte
	if n == 0 {
		return getg() + uintptr(pad[0])
	}
	return growStack(n - 1)
}

// TestGetgIdentifiesGoroutines: getg is stable within a goroutine, also
// across stack growth, and differs between live goroutines.
func TestGetgIdentifiesGoroutines(t *testing.T) {
	me := getg()
	assert.NotZero(t, me)
	assert.Equal(t, me, growStack(200), "the stack moved, the goroutine did not")
	const n = 8
	ids := make([]uintptr, n)
	var wg, started sync.WaitGroup
	release := make(chan struct{})
	started.Add(n)
	for i := range n {
		wg.Go(func() {
			ids[i] = getg()
			started.Done()
			<-release // all alive at once: no descriptor reused
		})
	}
	started.Wait()
	close(release)
	wg.Wait()
	seen := map[uintptr]bool{me: true}
	for _, id := range ids {
		assert.False(t, seen[id], "two live goroutines share an id")
		seen[id] = true
	}
}
