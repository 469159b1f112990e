package globalq

// FairnessPeriod is how often, in schedule ticks, a P looks at the global
// queue before its own ring: findRunnable's pp.schedtick%61 check. Without
// it two goroutines that keep spawning each other would hold a P's ring
// (and runnext) forever and starve the global queue. 61 is a prime, so the
// check does not fall into step with other periodic events of a P that
// count the same ticks (a multiple of 2, 4, 8 or 10 would keep landing on
// the same phase of them), and it is small enough that a task in the global
// queue waits at most about 61 ticks of a busy P.
const FairnessPeriod = 61

// FairnessTick reports whether a P on schedule tick schedtick must take one
// item from the global queue (Queue.Get) before it looks at its own runnext
// and ring: every FairnessPeriod-th tick, tick 0 included, as findRunnable
// does with pp.schedtick%61 == 0. When the uint32 tick wraps, one period is
// shortened (2^32 is not a multiple of 61); nothing else changes.
func FairnessTick(schedtick uint32) bool { return schedtick%FairnessPeriod == 0 }
