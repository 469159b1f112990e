//go:build !unix

package cputime

import "time"

// Process is not available here: benchmarks then omit cpu-ns/task.
func Process() (time.Duration, bool) { return 0, false }
