package cputime

import (
	"runtime"
	"testing"
)

// Process moves forward while the process computes (on unix, where it can
// be read).
func TestProcessGrowsWithWork(t *testing.T) {
	start, ok := Process()
	if !ok {
		if runtime.GOOS != "windows" && runtime.GOOS != "plan9" && runtime.GOOS != "js" && runtime.GOOS != "wasip1" {
			t.Fatalf("no CPU time on %s", runtime.GOOS)
		}
		t.Skip("no getrusage here")
	}
	x := uint64(1)
	for i := range 1000 { // about 10^9 multiplications: far past a clock tick
		for range 1 << 20 {
			x = x*6364136223846793005 + 1
		}
		if end, _ := Process(); end > start {
			t.Logf("CPU time moved after %d rounds", i+1)
			return
		}
	}
	t.Fatalf("CPU time stayed at %v through 10^9 multiplications (x=%d)", start, x)
}
