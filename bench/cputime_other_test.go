//go:build !unix

package bench

import "time"

// processCPU is not available here; benchmarks then omit cpu-ns/op.
func processCPU() (time.Duration, bool) { return 0, false }
