package realtime

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// runDelays reads, per thread of this process, how long it has waited
// runnable for a CPU (the second field of Linux's
// /proc/self/task/TID/schedstat, in nanoseconds). It returns nil where
// the file is not there (another OS, a kernel without schedstats).
func runDelays() map[string]int64 {
	tids, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	m := make(map[string]int64, len(tids))
	for _, tid := range tids {
		b, err := os.ReadFile("/proc/self/task/" + tid.Name() + "/schedstat")
		if err != nil {
			continue // the thread ended meanwhile
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			return nil
		}
		if ns, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			m[tid.Name()] = ns
		}
	}
	return m
}

// stolen is the longest any one thread waited for a CPU between two
// readings of runDelays (a thread new in the second counts from zero); 0
// if either reading failed. Not the sum: a thread that computes all round
// (a hog, a spinning M) waits whenever the machine is busy, and summing
// every such thread would excuse any excess on a loaded machine.
func stolen(before, after map[string]int64) time.Duration {
	if before == nil || after == nil {
		return 0
	}
	var most int64
	for tid, ns := range after {
		most = max(most, ns-before[tid])
	}
	return time.Duration(most)
}
