//go:build !unix

package executor_test

import "time"

// processCPU is not available here: benchmarks omit cpu-ns/task.
func processCPU() (time.Duration, bool) { return 0, false }
