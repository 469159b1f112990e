package executor

import (
	"math/bits"
	"runtime/trace"
	"time"

	"github.com/schedkit/schedkit/atomicx"
)

// EventKind names a scheduling event.
type EventKind uint8

// The events Config.OnEvent receives.
const (
	EventPark        EventKind = iota + 1 // an M gave its P back and parked (stopm)
	EventUnpark                           // a parked M was handed a P (startm)
	EventHandoff                          // a task gave its P away: Blocking, Yield, a Wait with nothing to run
	EventRetake                           // sysmon (or Shutdown) took a P from a task past its slice
	EventSteal                            // an M stole N tasks from another P
	EventOverflow                         // a full ring sent N tasks to the global queue
	EventGlobalBatch                      // an M took N tasks from the global queue
	EventPanic                            // a task panicked (or called runtime.Goexit)
	EventTaskStart                        // a task starts on P, M (Config.TaskEvents); N is 1 if it came from runnext
	EventTaskEnd                          // the task ends (Config.TaskEvents); P is the one it holds then, or -1
	EventSpin                             // an M started spinning on P (looking for work to steal)
	EventSpinStop                         // a spinning M stopped spinning (it found work, or gave up its P)
	EventReacquire                        // a task that gave its P away or lost it holds P again (exitsyscall)
	EventTaskPark                         // a task parked (Task.Park: gopark) and its P went on
	EventSpare                            // a worker whose M a resumed task took waits as a spare, or ends (P -1)
	EventMExit                            // an M idle for Config.MKeepAlive beyond the Ps exited (P -1)
)

var eventNames = [...]string{
	EventPark: "park", EventUnpark: "unpark", EventHandoff: "handoff", EventRetake: "retake",
	EventSteal: "steal", EventOverflow: "overflow", EventGlobalBatch: "globalbatch", EventPanic: "panic",
	EventTaskStart: "taskstart", EventTaskEnd: "taskend", EventSpin: "spin", EventSpinStop: "spinstop",
	EventReacquire: "reacquire", EventTaskPark: "taskpark", EventSpare: "spare", EventMExit: "mexit",
}

func (k EventKind) String() string {
	if int(k) < len(eventNames) && eventNames[k] != "" {
		return eventNames[k]
	}
	return "event?"
}

// Event is one scheduling event: its kind, the P (-1 if none) and M it
// concerns, and a count where the kind has one.
type Event struct {
	Kind EventKind
	P    int
	M    int
	N    int
	// Victim is the P an EventSteal took from; -1 for other kinds.
	Victim int
	// Task is the task's ID (Task.ID) for EventTaskStart and EventTaskEnd.
	Task uint64
}

// event calls the hook, if any, and logs the event to runtime/trace while
// tracing is on (trace.go).
func (e *Executor) event(k EventKind, p int, w *worker, n int) {
	if e.cfg.OnEvent != nil || trace.IsEnabled() {
		e.emit(k, p, w, n)
	}
}

// parking counts w's park (stopm), just before StopM: on p, the P it gave
// back, or, for an M that held none (a new M, or one whose P was retaken or
// handed to a waiting task), in the executor's count of P-less parks. Every
// StopM is one park, so after Close, when every M has left through a StopM
// that returned false, Parks - Unparks is the number of Ms made.
func (e *Executor) parking(w *worker, p *proc) {
	id := -1
	if p != nil {
		p.stats.parks.Add(1)
		id = p.id
	} else {
		e.parksNoP.Add(1)
	}
	e.event(EventPark, id, w, 0)
}

// unparked makes w the holder of the P that StopM just handed it (old is
// the P it gave back before parking, nil if none) and counts the unpark on
// that P. A starter may have asked for a spinner (Wakep, a handoff): the M
// spins from here, so its spin starts here too, or its SpinStop at
// execute or the drop would pair with nothing. It mirrors startm's
// acquirep for a woken M.
func (e *Executor) unparked(w *worker, old *proc) {
	e.takeP(w)
	p := w.p.Load()
	if mutant == unparkOnOldP && old != nil {
		old.stats.unparks.Add(1)
	} else {
		p.stats.unparks.Add(1)
	}
	e.event(EventUnpark, p.id, w, 0)
	if w.sm.Load().Spinning() && mutant != wokenSpinUncounted {
		e.spinStarted(w, p)
	}
}

// spinStarted counts w's spin start on p, the P it spins on.
func (e *Executor) spinStarted(w *worker, p *proc) {
	p.stats.spinStarts.Add(1)
	e.event(EventSpin, p.id, w, 0)
}

// procStats are one P's counters. Most are written by the P's holder only;
// each is an atomic cell, so Stats reads them without a lock while the
// executor runs. On amd64 an atomic store is an XCHG, as locked as an Add,
// so a holder-only counter is an Add: what the hot path saves is counters,
// not instructions per counter.
//
// A task taken from runnext that inherits the slice (the chain's every
// task) is counted once, in runnext: Tasks is derived (Stats), as tasks
// (those that start a slice) plus runnext minus nextOther (runnext hits
// that are not such a task: a resume token, or a task that starts a new
// slice after a preempt request and so counts in tasks). localGet adds to
// runnext before nextOther and Stats loads nextOther first, so a Stats
// taken meanwhile can count a token as a task for a moment, never less
// than nothing.
type procStats struct {
	_                [cacheLine]byte // off the line of the proc fields before it
	runnext          atomicx.Uint64  // written on every chain task: a line of its own
	_                [cacheLine - 8]byte
	tasks            atomicx.Uint64
	nextOther        atomicx.Uint64
	ringGets         atomicx.Uint64
	globalGets       atomicx.Uint64
	globalBatches    atomicx.Uint64
	globalBatchTasks atomicx.Uint64
	steals           atomicx.Uint64
	stolen           atomicx.Uint64
	overflows        atomicx.Uint64
	handoffs         atomicx.Uint64
	retakes          atomicx.Uint64
	preempts         atomicx.Uint64
	resumes          atomicx.Uint64
	yields           atomicx.Uint64
	helped           atomicx.Uint64
	parks            atomicx.Uint64
	unparks          atomicx.Uint64
	spinStarts       atomicx.Uint64
	spinStops        atomicx.Uint64
	panics           atomicx.Uint64
	taskParks        atomicx.Uint64
	taskReadies      atomicx.Uint64
	earlyReadies     atomicx.Uint64
	directSwitches   atomicx.Uint64
	latency          histogram
}

func (s *procStats) init() {}

// ProcStats are the counters of one P, or their sum.
type ProcStats struct {
	Tasks            uint64 // tasks started (dropped ones at a Shutdown deadline included)
	RunnextHits      uint64 // tasks taken from the runnext slot (they inherit the slice)
	RingGets         uint64 // tasks taken from the ring
	GlobalGets       uint64 // single tasks from the global queue (the 61st tick; GlobalQueueOnly)
	GlobalBatches    uint64 // batches taken from the global queue
	GlobalBatchTasks uint64 // tasks in those batches
	Steals           uint64 // successful steals
	Stolen           uint64 // tasks taken by them
	Overflows        uint64 // full rings that sent half to the global queue
	Handoffs         uint64 // Ps given away by their task (Blocking, Yield, Wait)
	Retakes          uint64 // Ps taken by sysmon from a task past its slice
	Preempts         uint64 // runnext tasks sent to the global queue after a retake, not inheriting the slice
	Resumes          uint64 // Ps handed to a task waiting for one
	Yields           uint64 // Yields that gave the P away
	Helped           uint64 // tasks run by a Wait while it waited
	Parks            uint64 // Ms that gave this P back and parked (in Total: every park, see Stats)
	Unparks          uint64 // parked Ms woken with this P
	SpinStarts       uint64 // Ms that started spinning on this P (woken spinning included)
	SpinStops        uint64 // spinning Ms that stopped on this P (found work or gave up)
	Panics           uint64 // tasks that panicked or called runtime.Goexit, and Join sides that panicked (once each, b stolen or not)
	TaskParks        uint64 // tasks that parked on this P (Task.Park: a wait on a channel, a future, a timer) and let it go on; Total also counts tasks that parked holding no P
	TaskReadies      uint64 // parked tasks readied by a task on this P into its runnext (Waker.Ready)
	EarlyReadies     uint64 // parks readied before they committed: the task went on with this P, no switch
	DirectSwitches   uint64 // parks that handed this P straight to the parked task its runnext readied (no spare)
	QueueLen         int    // tasks in the P's queue when read (a hint)
}

func (s *ProcStats) add(o ProcStats) {
	s.Tasks += o.Tasks
	s.RunnextHits += o.RunnextHits
	s.RingGets += o.RingGets
	s.GlobalGets += o.GlobalGets
	s.GlobalBatches += o.GlobalBatches
	s.GlobalBatchTasks += o.GlobalBatchTasks
	s.Steals += o.Steals
	s.Stolen += o.Stolen
	s.Overflows += o.Overflows
	s.Handoffs += o.Handoffs
	s.Retakes += o.Retakes
	s.Preempts += o.Preempts
	s.Resumes += o.Resumes
	s.Yields += o.Yields
	s.Helped += o.Helped
	s.Parks += o.Parks
	s.Unparks += o.Unparks
	s.SpinStarts += o.SpinStarts
	s.SpinStops += o.SpinStops
	s.Panics += o.Panics
	s.TaskParks += o.TaskParks
	s.TaskReadies += o.TaskReadies
	s.EarlyReadies += o.EarlyReadies
	s.DirectSwitches += o.DirectSwitches
	s.QueueLen += o.QueueLen
}

// LatencySample is the sampling period of the latency histogram: the
// outside tasks are numbered as they are submitted, and those numbered
// 0, LatencySample, 2*LatencySample... have their latency recorded (n
// outside tasks record ceil(n/LatencySample), however their submits
// interleave). Each recorded task costs two clock reads, about 60 ns here,
// most of a tiny task's submit; the runtime samples its own scheduling
// latency the same way, one transition in gTrackingPeriod (8) per
// goroutine (casgstatus, runtime2.go).
const LatencySample = 8

// Stats is a snapshot of the executor's counters: per P, their total, and
// the scheduling latency of tasks submitted from outside. Each counter is
// read atomically but not all at one instant.
//
// Each counter equals the events of its kind (Config.OnEvent), P by P:
// Parks EventPark, Unparks EventUnpark (on the P the M was given), SpinStarts
// EventSpin, SpinStops EventSpinStop, Handoffs EventHandoff, Retakes
// EventRetake. Total is the Ps' sum, except that Total.Parks also counts
// the parks of Ms that held no P (EventPark with P -1: a new M, or one
// whose P was retaken or handed to a waiting task). Every M parks once more
// than it is woken, so after Close Total.Parks - Total.Unparks == Ms, and
// every M that started spinning stopped: SpinStarts == SpinStops.
type Stats struct {
	Procs     []ProcStats
	Total     ProcStats
	GlobalLen int           // tasks in the global queue
	Ms        int           // Ms (worker goroutines) made so far
	LiveMs    int           // Ms alive now: made, less those that exited after Config.MKeepAlive idle
	IdleMs    int           // Ms parked with no P now (on the idle list)
	ExitedMs  int           // Ms that exited after Config.MKeepAlive idle, so far
	Spinning  int           // Ms spinning now
	IdleProcs int           // Ps idle now
	Dropped   int           // tasks dropped at a Shutdown deadline
	Queued    int           // outside tasks accepted and not yet started, at most Config.MaxQueued (0 without a bound: not counted)
	Calls     int           // Task.Syscall calls in progress (nested ones not counted)
	MaxCalls  int           // the most Task.Syscall calls in progress at once so far
	Latency   LatencyStats  // submit (Executor.Go, GoBatch, an outside group's Go) to start, one task in LatencySample
	Slice     time.Duration // the configured slice
	// Parked is the tasks parked now (Task.Park) and not yet readied;
	// OutsideReadies the readies that went to the global queue (by an
	// outside goroutine, or a task with no P). Spares is the worker
	// goroutines with no M waiting to take a parking task's P: a parked
	// task costs a goroutine, not an M.
	Parked         int
	OutsideReadies uint64
	Spares         int
	// TimersFired counts the timers that fired (Sleep, AfterFunc,
	// GoTimeout), TimersLate those that fired more than LateTimer after
	// their time, TimerMaxLate the latest any fired.
	TimersFired  uint64
	TimersLate   uint64
	TimerMaxLate time.Duration
	// InService is the Ps in service (Executor.Procs); Procs has one
	// entry per P made, and those past InService were taken away by
	// SetProcs (their counters stay in Total). Retired counts the Ps
	// taken away so far, Moved the tasks they held, handed to the global
	// queue (resize.go).
	InService int
	Retired   uint64
	Moved     uint64
	// BlockingWaiting is the Task.Blocking and Task.Syscall calls parked
	// now for a slot under Config.MaxBlocking; BlockingWaits the calls
	// that have waited so far.
	BlockingWaiting int
	BlockingWaits   uint64
	// PollWaits counts the waits on descriptors (FD.WaitRead, WaitWrite),
	// PollWaiting those parked now, PollReadies the waiters that a poll
	// or a deadline's timer readied (not those Close woke), Polls the non-blocking epoll_waits
	// (findRunnable's and sysmon's), PollFDs the descriptors open.
	PollWaits   uint64
	PollWaiting int
	PollReadies uint64
	Polls       uint64
	PollFDs     int
}

// LatencyStats summarizes a latency histogram. The quantiles are the upper
// bounds of their buckets: within 25% above the true value.
type LatencyStats struct {
	Count uint64
	P50   time.Duration
	P99   time.Duration
	Max   time.Duration
	// Sum is the total of every recorded latency, so Sum/Count is the mean
	// (and a Prometheus histogram's _sum).
	Sum time.Duration
	// Buckets are the histogram's non-empty buckets in increasing order of
	// Upper; their counts sum to Count. A bucket's bounds are fixed, so the
	// same Upper names the same bucket in every Stats.
	Buckets []LatencyBucket
}

// LatencyBucket is one bucket of the latency histogram: Count latencies
// were in [Lower, Upper]. The bounds are fixed (four buckets per power of
// two, one per nanosecond below 8ns), so Upper is within 25% above any
// latency in the bucket, and Lower-1 is the Upper of the bucket below,
// listed or not.
type LatencyBucket struct {
	Lower time.Duration
	Upper time.Duration
	Count uint64
}

// Stats returns the counters. It takes no lock the Ms take on their paths
// (only each cell's atomic load and the global queue's length cell).
func (e *Executor) Stats() Stats {
	freed := e.sched.NMFreed() // before Ms: an exit in between counts the M alive
	s := Stats{
		Procs:     make([]ProcStats, len(e.allPs())), // every P made, in service or taken away (resize.go)
		GlobalLen: e.global.Len(),
		Ms:        int(e.nm.Load()),
		ExitedMs:  freed,
		IdleMs:    e.sched.NMIdleHint(),
		Spinning:  e.sched.NMSpinning(),
		IdleProcs: e.sched.NPIdle(),
		Dropped:   int(e.dropped.Load()),
		Queued:    int(e.queued.Load()),
		Calls:     int(e.calls.Load()),
		MaxCalls:  int(e.maxCalls.Load()),
		Slice:     e.cfg.Slice,

		Parked:         int(e.parked.Load()),
		OutsideReadies: e.outsideReadies.Load(),
		TimersFired:    e.timersFired.Load(),
		TimersLate:     e.timersLate.Load(),
		TimerMaxLate:   time.Duration(e.timerMaxLate.Load()),
	}
	e.spareMu.Lock()
	s.Spares = len(e.spares)
	e.spareMu.Unlock()
	if np := e.np.Load(); np != nil {
		s.PollWaits, s.PollWaiting = np.waits.Load(), int(np.waiting.Load())
		s.PollReadies, s.Polls, s.PollFDs = np.readies.Load(), np.polls.Load(), np.tab.Len()
	}
	var lat latencyAcc
	for i, p := range e.allPs()[:len(s.Procs)] {
		ps := &p.stats
		other := ps.nextOther.Load() // before runnext: see procStats
		next := ps.runnext.Load()
		s.Procs[i] = ProcStats{
			Tasks: ps.tasks.Load() + next - other, RunnextHits: next, RingGets: ps.ringGets.Load(),
			GlobalGets: ps.globalGets.Load(), GlobalBatches: ps.globalBatches.Load(),
			GlobalBatchTasks: ps.globalBatchTasks.Load(), Steals: ps.steals.Load(), Stolen: ps.stolen.Load(),
			Overflows: ps.overflows.Load(), Handoffs: ps.handoffs.Load(), Retakes: ps.retakes.Load(), Preempts: ps.preempts.Load(),
			Resumes: ps.resumes.Load(), Yields: ps.yields.Load(), Helped: ps.helped.Load(),
			Parks: ps.parks.Load(), Unparks: ps.unparks.Load(), SpinStarts: ps.spinStarts.Load(),
			SpinStops: ps.spinStops.Load(), Panics: ps.panics.Load(), QueueLen: p.q.Len(),
			TaskParks: ps.taskParks.Load(), TaskReadies: ps.taskReadies.Load(), EarlyReadies: ps.earlyReadies.Load(),
			DirectSwitches: ps.directSwitches.Load(),
		}
		s.Total.add(s.Procs[i])
		lat.add(&ps.latency)
	}
	s.Total.Parks += e.parksNoP.Load()
	e.cfg.bcap.stats(&s)
	s.Total.TaskParks += e.taskParksNoP.Load()
	s.Latency = lat.summarize()
	e.resizeStats(&s)
	s.LiveMs = s.Ms - s.ExitedMs
	return s
}

// histogram is a log-linear latency histogram of nanoseconds: below
// histSub values one bucket each, then histSub buckets per power of two,
// so a bucket's upper bound is within 1/histSub above any value in it.
// Written by the P's holder.
type histogram struct {
	buckets [histBuckets]atomicx.Uint64
	sum     atomicx.Int64 // nanoseconds; overflows after 292 years of latency
	max     atomicx.Int64
}

const (
	histSubBits = 2
	histSub     = 1 << histSubBits
	histBuckets = (64 - histSubBits + 1) * histSub
)

// bucket returns the bucket of v >= 0.
func bucket(v uint64) int {
	if v < histSub {
		return int(v)
	}
	exp := bits.Len64(v) - 1 // >= histSubBits
	sub := (v >> (exp - histSubBits)) & (histSub - 1)
	return (exp-histSubBits+1)*histSub + int(sub)
}

// upper returns the largest value bucket b holds.
func upper(b int) uint64 {
	if b < histSub {
		return uint64(b)
	}
	exp := b/histSub + histSubBits - 1
	sub := uint64(b % histSub)
	lo := (histSub + sub) << (exp - histSubBits)
	return lo + 1<<(exp-histSubBits) - 1
}

// lower returns the least value bucket b holds.
func lower(b int) uint64 {
	if b == 0 {
		return 0
	}
	return upper(b-1) + 1
}

func (h *histogram) record(ns int64) {
	if ns < 0 { // a clock step back: count it as no wait
		ns = 0
	}
	h.buckets[bucket(uint64(ns))].Add(1)
	h.sum.Add(ns)
	if ns > h.max.Load() {
		h.max.Store(ns)
	}
}

// latencyAcc merges the Ps' histograms as Stats reads them, one atomic load
// per cell.
type latencyAcc struct {
	h        [histBuckets]uint64
	sum, max int64
}

func (a *latencyAcc) add(h *histogram) {
	for b := range a.h {
		a.h[b] += h.buckets[b].Load()
	}
	a.sum += h.sum.Load()
	a.max = max(a.max, h.max.Load())
}

// summarize turns the merged counts into LatencyStats: the count, sum and
// max, the non-empty buckets, and the quantiles read from them.
func (a *latencyAcc) summarize() LatencyStats {
	h, maxLat := &a.h, a.max
	ls := LatencyStats{Max: time.Duration(maxLat), Sum: time.Duration(a.sum)}
	for b, c := range h {
		if c != 0 {
			ls.Count += c
			ls.Buckets = append(ls.Buckets, LatencyBucket{Lower: time.Duration(lower(b)), Upper: time.Duration(upper(b)), Count: c})
		}
	}
	n := ls.Count
	if n == 0 {
		return ls
	}
	q := func(f float64) time.Duration {
		rank := uint64(f*float64(n-1)) + 1
		var seen uint64
		for b, c := range h {
			seen += c
			if seen >= rank {
				return time.Duration(min(upper(b), uint64(maxLat)))
			}
		}
		return time.Duration(maxLat)
	}
	ls.P50, ls.P99 = q(0.50), q(0.99)
	return ls
}
