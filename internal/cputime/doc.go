// Package cputime reads the process's CPU time (getrusage), for the
// benchmarks' cpu-ns/task: the executor's own benchmarks and the bench
// module's suite report it, and other load on the machine inflates it
// less than wall time.
package cputime
