// Package runnext is a P's runnext slot, the one-task LIFO in front of its
// local run queue, and the queue a P holds: that slot before an lfq.Ring.
//
// A task that a running task makes runnable (a spawn, a channel wakeup) goes
// in the slot and runs next, in the current time slice, so a producer and
// its consumer run back to back on one P while their data is still in its
// cache; the task the slot held before goes to the ring's tail. Thieves take
// the ring's older half first, and the runnext task only on their last pass
// over the victims and only once it has sat in the slot for the steal delay,
// long enough that its P is really busy rather than about to run it.
//
// Each operation mirrors a function of the runtime's proc.go and an action
// of proofs/tla/Runnext.tla of the same name:
//
//	Slot.Put        runqput (next=true), the slot part      PutNext's steps
//	Slot.Take       runqget's runnext CAS                    Take (TakeLoad, TakeCAS)
//	Slot.Steal      runqgrab's stealRunNextG branch          StealHalf's slot steps
//	Queue.PutNext   runqput (next=true), runqputslow if full PutNext
//	Queue.Put       runqput (next=false)                     Put
//	Queue.PutBatch  runqputbatch                             (Put's publication, several tasks)
//	Queue.Get       runqget                                  Get
//	Queue.StealHalf runqsteal + runqgrab (stealRunNextG)     StealHalf
//	Queue.Drain     runqdrain                                Drain
//	Queue.Empty     runqempty                                Empty
//	Queue.Len       runqlen (a hint)                         -
//
// # Invariants
//
//   - Only the owner makes the slot non-empty (Put, PutNext). The owner's
//     take and every thief's steal empty it by a CAS from the task they
//     loaded, so a task leaves the slot exactly once: the owner and a thief
//     never both get it.
//   - The slot holds only the task put last; the task it displaces is
//     queued at the ring's tail, behind everything there (or, if the ring is
//     full, handed back with the ring's older half as one overflow batch).
//     No task is lost when displaced.
//   - The slot is a version and a task cell: the version is odd while the
//     slot holds a task and grows by one at every fill and every take, so
//     it names one occupancy and never comes back; takes are a CAS of it.
//   - The steal delay is the thief's to wait, as runqgrab's usleep(3) is:
//     the owner reads no clock. A thief that finds a task notes its version,
//     sleeps the delay (StealDelay, 3µs, unless SetStealDelay set another)
//     and takes it only by a CAS from that same version, so the task sat in
//     the slot, untouched, for the whole delay as that thief observed it. A
//     task taken and put back, the same pointer, is a new version and
//     starts a new wait; a thief that finds another occupancy when it looks
//     again waits for that one in its turn, at the ring first.
//   - A thief takes the runnext task only when the ring gives nothing: the
//     ring was empty, with no task on its way to it, at an instant while the
//     task sat in the slot. It re-reads the ring's length just before its
//     CAS, and the owner's move of a displaced task makes seq odd, which
//     thieves wait out.
//   - Empty never reports true spuriously: the queue (ring, slot, and a task
//     on its way from the slot to the ring) was empty at some instant during
//     the call. StealHalf with stealNext set returns nil only under the same
//     condition.
//
// # seq, and how this differs from the runtime
//
// runqempty re-reads runqtail to tell whether the owner added work while it
// read the ring and the slot; lfq does not export its tail, so Queue keeps
// seq, the owner's count of publications into the ring: +2 after each Put,
// PutBatch and steal into the queue, and odd while PutNext moves a displaced
// task from the slot to the ring and while Drain empties the queue. Empty
// reads seq, the ring's length, the slot, the length again and seq again,
// and answers true only if seq stood still and even.
//
// The odd phases close two windows the runtime leaves open. Between
// runqput's CAS of runnext and its store of the ring's tail, the displaced
// task is in neither place: a thief that took the new runnext task then
// (possible once the owner stalls for the whole steal delay, or at once with
// no delay) would make runqempty report an empty queue that is not. And the
// runtime's thief that finds the ring empty sleeps and then CASes runnext
// without looking at the ring again. Here thieves leave the slot alone while
// seq is odd and re-read the ring before their CAS, so every operation but
// Len is linearizable; the tests check that with porcupine, under the race
// detector and under every interleaving the explorer runs. The price is one
// atomic add on each Put and two on each PutNext that displaces.
//
// A reader that finds seq odd waits for the owner's move (a few of the
// owner's own atomic operations) by sleeping 1ns: in a real build a few
// hundred nanoseconds; on the explorer's virtual clock it lets the owner run
// first.
//
// In a real build atomicx.Sleep is time.Sleep, whose timers are coarse: on
// the 2-core development machine, under load, a 3µs sleep took about 0.4ms.
// A thief that finds a runnext task therefore waits far longer than the
// delay; the runtime's usleep(3) is a nanosleep and coarse as well.
//
// # Use
//
// The zero Slot and the zero Queue are empty, with the default steal delay,
// and ready to use. The owner methods (Put and Take of a Slot; PutNext, Put,
// PutBatch, Get, Drain of a Queue; SetStealDelay of either) must be called by
// one goroutine at a time, the P's current M; any goroutine may call Steal,
// StealHalf, Empty and Len. PutNext detects a second owner when it finds the
// slot filled under it, and panics. Every put of a nil task panics with a
// message naming the call, as do StealHalf into nil, into the victim itself,
// or into a queue whose ring holds more than lfq.Size/2 tasks.
//
// Len reads the ring and the slot at two instants, so under concurrent
// steals it is a hint, like the runtime's runqlen; it is exact when no other
// goroutine uses the queue.
//
// Under the build tag schedmutant the package exports Mutations and
// SetMutation, which select a seeded fault (ThiefIgnoresDelay,
// DisplacedDropped, TakeWithoutCAS, EmptyMissesRunnext, ThiefNoRecheck,
// ThiefComparesPointer) for the kill matrix; in a normal build the faults
// compile away.
package runnext
