// Package exampletest is the scaffolding the examples' tests share
// (examples/*/plain_test.go, explore_test.go, spin_test.go): the data race
// a plain-memory variant must be reported with, and the producers-and-consumer
// scenario of the two queues (msqueue, vyukovq), once or spinning.
//
// Its promises, each checked by the examples' tests that use it (every one
// runs its correct structure, which must pass, and a seeded bug, which must
// be caught):
//   - DataRace skips without -tags schedcheck and fails the test unless
//     the explorer reports a DataRaceError (TestPlainCounterIsADataRace and
//     the other plain_test.go cases; their race-free twins pass the same
//     scenarios through explore.Check).
//   - ProducersAndConsumer hands each value over exactly once in the
//     correct queues (TestQueueKeepsEveryValue, TestQueueHandsEachValueOver,
//     TestSpinningConsumerGetsEveryValue in both) and catches a lost or
//     stale value (TestLinkByStoreLosesAValue,
//     TestPublishBeforeValueReadsStale, TestSpinningConsumerOnLinkByStoreIsCaught,
//     TestSpinningConsumerReadsStale).
package exampletest
