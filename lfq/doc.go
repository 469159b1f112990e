// Package lfq is a P's local run queue: a 256-slot lock-free ring with one
// producer (the owner) and many consumers (the owner and thieves).
//
// The ring is the runtime's p.runq with p.runqhead and p.runqtail
// (runtime2.go), and each operation mirrors a function of proc.go and an
// action of proofs/tla/Ring.tla of the same name:
//
//	Ring.Put        runqput (next=false)  Put      owner: append at the tail
//	  (when full)   runqputslow           Overflow owner: half of the ring + the new item leave as one batch
//	Ring.PutBatch   runqputbatch          PutBatch owner: append a prefix, one publishing store
//	Ring.Get        runqget (ring part)   Get      owner: take from the head (FIFO)
//	Ring.Drain      runqdrain             Drain    owner: take everything, for shutdown
//	Ring.StealHalf  runqgrab + runqsteal  StealHalf any goroutine: take half into its own ring
//
// # Invariants
//
// head and tail are free-running uint32 indices; slot i lives at i%Size and
// their difference survives wraparound.
//
//   - Only the owner writes slots and stores tail. Every consumer (the owner's
//     Get and Drain, thieves' StealHalf) takes items only by a CAS that moves
//     head forward, so an item leaves the ring exactly once.
//   - 0 <= tail-head <= Size whenever the two are read consistently. A thief
//     that reads head and then tail can see a difference over Size (the owner
//     took and put in between); it retries rather than steal too much.
//   - The owner writes a slot before it stores tail, so a consumer that loads
//     tail and then the slot sees the item (all cells are sequentially
//     consistent atomics, stronger than the runtime's StoreRel/LoadAcq pair).
//   - A consumer copies slots before its CAS on head. If the CAS succeeds no
//     one consumed those indices in between, and the owner cannot have
//     overwritten them: it writes index i+Size only after head passed i.
//   - Items leave in FIFO order from the head: Get, Drain, StealHalf and the
//     overflow batch each take a run of the oldest items.
//
// Slots are atomic pointers, so a thief that reads a slot the owner is
// rewriting (and then fails its CAS) is not a data race for the race
// detector. A consumed slot keeps its pointer until the owner overwrites it,
// so a ring may keep up to Size consumed items reachable for the collector;
// Drain clears the slots it empties.
//
// A zero Ring is empty and ready to use. Owner methods must be called by one
// goroutine at a time (the P's current M); this is not detected.
//
// # Verification
//
// Each rung of the ladder in DESIGN.md has its file: ring_test.go (units),
// model_test.go (a rapid state machine against a slice), ../fuzz
// (FuzzRing), stress_test.go (race detector, exactly-once counting),
// explore_test.go (every interleaving within preemption bound 2, under
// -tags schedcheck), linearize_test.go (porcupine), ../proofs/tla/Ring.tla
// (TLC), and killmatrix_test.go: mutation.go seeds five faults into this
// code as branches on a constant, dead in a normal build and selectable
// under -tags schedmutant, and every one must be caught by two checkers.
package lfq
