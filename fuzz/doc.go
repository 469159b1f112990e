// Package fuzz holds the go test -fuzz targets for every schedkit component
// (bar item 3 of the design brief) and the small byte decoder they share.
//
// A target turns its input bytes into a Program: a number of actors and a
// sequence of steps, each naming an actor, an operation and an argument
// (see Spec.Decode). Actors are the component's users: the owner of a queue
// and the thieves that steal from it. The steps run one after another in the
// order the bytes give, which fixes one interleaving of the actors at the
// granularity of whole operations; interleavings inside an operation are the
// business of the explorer (internal/explore, bar item 5). After every step a
// sequential model of the component (a slice per queue, a counter) predicts
// each result and the target fails on the first difference; at the end every
// item that went in must have come out exactly once, in the model's order.
//
// Decoding is total: every byte string is a valid program, an exhausted input
// reads as zeros, and programs are cut at Spec.MaxSteps so that a 4 KiB input
// stays fast. The same Spec can Encode a hand-written Program back into bytes,
// which is how the targets write readable seeds.
//
// # Targets
//
//	FuzzRing      lfq.Ring: Put (with overflow), PutBatch, Get, Drain, Len,
//	              StealHalf between 2 to 4 rings, and misuse that must panic
//	FuzzRunnext   runnext.Slot and Queue in a synctest bubble: PutNext, Get,
//	              steals before and after the delay, Empty, Drain
//	FuzzGlobalQ   globalq.Queue fed by lfq overflow, batches back into rings,
//	              schedule turns with the 1-in-61 tick
//	FuzzStealing  stealing.Stealer over runnext queues: passes, victim order
//	FuzzSpinning  spinning.Sched: Wakep, the spinning rule, drop and recheck,
//	              parking and handoff
//
// # Seeds
//
// Each target adds a few hand-written programs and every file under
// testdata/corpus/<format>/: real-world inputs of other programs' parsers
// (JSON, CSV, PNG, ZIP, ...) from github.com/dvyukov/go-fuzz-corpus, which
// are arbitrary bytes to schedkit; see testdata/README.md for their source
// and licence. Inputs the fuzzer saves under testdata/fuzz/<Target>/ are
// replayed too.
//
// # Running
//
//	go test ./fuzz/                                           # seeds only, as in CI
//	go test -run '^$' -fuzz=FuzzRing -fuzztime=60s ./fuzz/    # fuzz one target
//
// Each target has a companion test that runs the same interpreter against a
// deliberately broken implementation and requires it to report a mismatch,
// so a target that silently accepts everything cannot pass.
package fuzz
