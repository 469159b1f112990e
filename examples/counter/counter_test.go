package counter

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/explore"
)

func TestCounter(t *testing.T) {
	explore.Check(t, explore.Options{Mode: explore.DPOR}, func() explore.Run { // afresh for every execution
		var c Counter
		explore.Name(&c.n, "counter") // traces say "counter", not an address
		return explore.Run{
			Threads: []func(){c.Inc, c.Inc},
			Check: func() error { // after every execution
				if n := c.Load(); n != 2 {
					return fmt.Errorf("counter = %d", n)
				}
				return nil
			},
		}
	})
}
