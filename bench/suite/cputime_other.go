//go:build !unix

package suite

import "time"

// ProcessCPU is not available here; benchmarks then omit cpu-ns/task.
func ProcessCPU() (time.Duration, bool) { return 0, false }
